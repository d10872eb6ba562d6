"""compare_bundles and verify_unknown_resolution through the real MCP server and the `rea` CLI.

Two gcc builds that differ in one string are inspected with inspect_binary_layout, the
session is exported with export_evidence_bundle, and the bundles are compared. Ground
truth is read from the bundle files by this test alone (json for the records and unknown
revisions, hashlib for the digests), never through REA's bundle code. Unknowns are
recorded and resolved with record_unknown/update_unknown, then checked.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import anyio
import pytest

from mcp_client import connect
from support import clean_env, rea_command

GREETING = '#include <stdio.h>\nint main(void) { puts("%s"); return 0; }\n'
ZERO_UNKNOWN = "unk_" + "0" * 64


@pytest.fixture(scope="module")
def builds(tmp_path_factory) -> tuple[Path, Path]:
    """Two builds of one program, differing only in the string it prints."""
    if shutil.which("gcc") is None:
        pytest.skip("gcc is not installed")
    root = tmp_path_factory.mktemp("builds")
    out = []
    for name, text in (("hello-a", "hello, world"), ("hello-b", "hello, there")):
        source = root / f"{name}.c"
        source.write_text(GREETING % text)
        subprocess.run(["gcc", "-O0", "-o", str(root / name), str(source)], check=True, capture_output=True)
        out.append(root / name)
    return out[0], out[1]


def _file_truth(path: Path) -> dict[str, Any]:
    """What a bundle file holds, read with json and hashlib only."""
    data = path.read_bytes()
    bundle = json.loads(data)
    histories: dict[str, list[str]] = {}
    for rev in sorted(bundle["unknowns"], key=lambda r: (r["unknown_id"], r["revision"])):
        histories.setdefault(rev["unknown_id"], []).append(rev["revision_digest"])
    return {
        "sha256": hashlib.sha256(data).hexdigest(),
        "ids": {r["evidence_id"] for r in bundle["records"]},
        "histories": histories,
    }


async def _call(s: Any, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    reply = await s.call_tool(tool, args)
    if reply.is_error:
        return {"error": json.loads(reply.content[0].text)["error"]}
    return reply.structured_content


def _page(s: Any, left: Path, right: Path, **extra: Any):
    return _call(s, "compare_bundles", {"left_bundle_path": str(left), "right_bundle_path": str(right), **extra})


async def _scenario(a: Path, b: Path, root: Path) -> dict[str, Any]:
    """One MCP connection: four exports, comparisons between them, unknowns resolved honestly and not."""
    got: dict[str, Any] = {}
    async with connect() as s:
        got["layout_a"] = await _call(s, "inspect_binary_layout", {"path": str(a)})
        await _call(s, "export_evidence_bundle", {"path": str(root / "A.json")})
        await _call(s, "close_binary", {})  # clears the ledger
        got["layout_b"] = await _call(s, "inspect_binary_layout", {"path": str(b)})
        await _call(s, "export_evidence_bundle", {"path": str(root / "B.json")})
        got["record"] = await _call(
            s,
            "record_unknown",
            {
                "question": "Does build B print a different greeting?",
                "domain": "strings",
                "severity": "low",
                "supporting_evidence_ids": [got["layout_b"]["evidence_id"]],
            },
        )
        await _call(s, "export_evidence_bundle", {"path": str(root / "C.json")})
        unknown_id = got["record"]["result"]["unknown_id"]
        got["update"] = await _call(
            s, "update_unknown", {"unknown_id": unknown_id, "expected_revision": 1, "status": "investigating"}
        )
        await _call(s, "export_evidence_bundle", {"path": str(root / "D.json")})
        for name, (left, right) in {"AB": "AB", "BA": "BA", "AA": "AA", "CD": "CD", "DC": "DC"}.items():
            got[name] = await _page(s, root / f"{left}.json", root / f"{right}.json")
        pair = {"left_evidence_id": got["layout_a"]["evidence_id"], "right_evidence_id": got["layout_b"]["evidence_id"]}
        got["AB_pinned"] = await _page(s, root / "A.json", root / "B.json", record_pairs=[pair])
        got["DC_pages"] = [await _page(s, root / "D.json", root / "C.json", offset=o, limit=1) for o in range(3)]
        got["AB_bad_pair"] = await _page(
            s, root / "A.json", root / "B.json", record_pairs=[{**pair, "left_evidence_id": pair["right_evidence_id"]}]
        )
        got["verify"] = await _resolutions(s, unknown_id, got)
    return got


async def _resolutions(s: Any, unknown_id: str, got: dict[str, Any]) -> dict[str, Any]:
    """An honest resolution, and resolutions that cite Evidence which cannot answer the question."""
    out: dict[str, Any] = {"investigating": await _call(s, "verify_unknown_resolution", {"unknown_id": unknown_id})}
    support = got["layout_b"]["evidence_id"]
    resolved = {
        "status": "resolved",
        "resolution": {
            "disposition": "verified",
            "rationale": "the layout of B was observed",
            "evidence_ids": [support],
        },
    }
    await _call(s, "update_unknown", {"unknown_id": unknown_id, "expected_revision": 2, **resolved})
    out["honest"] = await _call(s, "verify_unknown_resolution", {"unknown_id": unknown_id})
    # a second question, "answered" by Evidence it does not list as support: the comparison itself (derived)
    comparison = got["AB"]["evidence_id"]
    lie = await _call(
        s,
        "record_unknown",
        {"question": "Is the greeting read from the network?", "domain": "protocol", "severity": "high"},
    )
    lie_id = lie["result"]["unknown_id"]
    await _call(
        s,
        "update_unknown",
        {
            "unknown_id": lie_id,
            "expected_revision": 1,
            "status": "resolved",
            "resolution": {"disposition": "verified", "rationale": "the bundles say so", "evidence_ids": [comparison]},
        },
    )
    out["lie"] = await _call(s, "verify_unknown_resolution", {"unknown_id": lie_id})
    out["lie_mutation"] = lie["result"]["mutation_evidence_ids"][0]
    out["comparison"] = comparison
    out["missing"] = await _call(s, "verify_unknown_resolution", {"unknown_id": ZERO_UNKNOWN})
    return out


@pytest.fixture(scope="module")
def scenario(builds, tmp_path_factory) -> tuple[dict[str, Any], Path]:
    root = tmp_path_factory.mktemp("bundles")
    return anyio.run(_scenario, *builds, root), root


def test_compare_bundles_matches_the_files_read_independently(scenario):
    got, root = scenario
    truth = {name: _file_truth(root / f"{name}.json") for name in "ABCD"}
    assert got["layout_a"]["evidence_id"] in truth["A"]["ids"] and got["layout_b"]["evidence_id"] in truth["B"]["ids"]
    for name in ("AB", "BA", "CD", "DC", "AA"):
        left, right = truth[name[0]], truth[name[1]]
        evidence = got[name]
        result = evidence["normalized_result"]
        assert evidence["operation"] == "compare_bundles" and evidence["predicate_type"] == "rea.bundle-comparison/v1"
        assert (result["left_bundle_sha256"], result["right_bundle_sha256"]) == (left["sha256"], right["sha256"])
        assert evidence["parameters"]["left_bundle_sha256"] == left["sha256"]
        items = result["changes"]["items"]
        removed = {c["key"] for c in items if c["entity"] == "evidence" and c["classification"] == "removed"}
        added = {c["key"] for c in items if c["entity"] == "evidence" and c["classification"] == "added"}
        assert removed == left["ids"] - right["ids"] and added == right["ids"] - left["ids"]
        summary = result["summary"]
        assert summary["records_unchanged"] == len(left["ids"] & right["ids"])
        assert (summary["records_added"], summary["records_removed"]) == (len(added), len(removed))
        assert result["left_records"] == len(left["ids"]) and result["right_records"] == len(right["ids"])
        assert result["changes"]["total"] == len(items)  # every change fits the default page here
    assert (
        got["AA"]["normalized_result"]["status"] == "unchanged"
        and got["AA"]["normalized_result"]["changes"]["items"] == []
    )
    assert got["AB"]["normalized_result"]["status"] == "changed"
    # the unknown's history: C holds revision 1, D revisions 1 and 2 (one extends the other)
    unknown_id = got["record"]["result"]["unknown_id"]
    assert truth["D"]["histories"][unknown_id][:1] == truth["C"]["histories"][unknown_id]
    for name in ("CD", "DC"):
        result = got[name]["normalized_result"]
        (change,) = [c for c in result["changes"]["items"] if c["entity"] == "residual_unknown"]
        assert change["key"] == unknown_id and change["classification"] == "history_advanced"
        left, right = truth[name[0]]["histories"][unknown_id], truth[name[1]]["histories"][unknown_id]
        assert (change["left_digest"], change["right_digest"]) == (left[-1], right[-1])
        assert result["summary"]["unknowns_advanced"] == 1


def test_swapping_sides_swaps_added_and_removed_and_pages_concatenate(scenario):
    got, _ = scenario
    ab, ba = got["AB"]["normalized_result"], got["BA"]["normalized_result"]
    assert ab["summary"]["records_added"] == ba["summary"]["records_removed"] == 1
    swap = {"added": "removed", "removed": "added"}
    assert {(c["key"], swap.get(c["classification"], c["classification"])) for c in ab["changes"]["items"]} == {
        (c["key"], c["classification"]) for c in ba["changes"]["items"]
    }
    whole = got["DC"]["normalized_result"]["changes"]
    pages = [p["normalized_result"]["changes"] for p in got["DC_pages"]]
    assert [i for p in pages for i in p["items"]] == whole["items"] and whole["total"] == 2
    assert [p["next_offset"] for p in pages] == [1, None, None]


def test_record_pairs_pin_the_two_builds_observations(scenario):
    got, _ = scenario
    result = got["AB_pinned"]["normalized_result"]
    (change,) = result["changes"]["items"]
    left, right = got["layout_a"]["evidence_id"], got["layout_b"]["evidence_id"]
    assert change["classification"] == "changed" and change["key"] == f"pair:{left}:{right}"
    assert (change["left_evidence_ids"], change["right_evidence_ids"]) == ([left], [right])
    assert result["summary"]["records_changed"] == 1 and result["summary"]["records_added"] == 0
    # the two builds' layouts really differ where the string lives, read here from the records themselves
    assert got["layout_a"]["subject"]["digest"] != got["layout_b"]["subject"]["digest"]
    error = got["AB_bad_pair"]["error"]
    assert error["code"] == "invalid_request" and error["details"]["field"] == "record_pairs[0].left_evidence_id"


def test_an_honest_resolution_verifies_and_a_lying_one_does_not(scenario):
    got, _ = scenario
    verify = got["verify"]
    investigating = verify["investigating"]["result"]
    assert investigating["valid"] is False and investigating["truthVerified"] is False
    assert "status is investigating" in investigating["reasons"][0]
    honest = verify["honest"]["result"]
    assert honest["valid"] is True and honest["truthVerified"] is True and honest["reasons"] == []
    assert honest["unknown"]["status"] == "resolved" and honest["unknown"]["revision"] == 3
    assert [e["qualifies"] for e in honest["evidence"]] == [True]
    lie = verify["lie"]["result"]
    assert lie["valid"] is False and lie["truthVerified"] is False
    (cited,) = lie["evidence"]
    assert cited["evidence_id"] == verify["comparison"] and cited["retained"] and not cited["supporting"]
    assert cited["confidence"] == "derived" and not cited["qualifies"]
    assert any("supporting_evidence_ids" in r for r in cited["reasons"])
    assert any("confidence is derived; the unknown requires observed" in r for r in cited["reasons"])
    assert "no cited Evidence qualifies" in lie["reasons"][0]
    missing = verify["missing"]["error"]
    assert missing["code"] == "invalid_request" and missing["details"]["reason"] == "missing"


# ----------------------------------------------------------------- hostile bundles, over MCP


def _hostile(root: Path, source: Path) -> dict[str, Path]:
    """Damaged copies of a real exported bundle, each damaged the way the name says."""
    data = source.read_bytes()
    bundle = json.loads(data)
    out = {"truncated": root / "truncated.json"}
    out["truncated"].write_bytes(data[: len(data) // 2])
    tampered = json.loads(data)
    tampered["records"][0]["operation"] = "inspect_artifact"  # the id no longer matches the record
    out["wrong_digest"] = root / "wrong-digest.json"
    out["wrong_digest"].write_text(json.dumps(tampered))
    lying = dict(
        bundle,
        artifacts=bundle["artifacts"] + [{"digest": {"sha256": "f" * 64}, "format": "elf", "architecture": None}],
    )
    out["lying_manifest"] = root / "lying-manifest.json"
    out["lying_manifest"].write_text(json.dumps(lying))
    gap = json.loads(data)
    gap["unknowns"] = [r for r in gap["unknowns"] if r["revision"] != 1]  # revision 2 without revision 1
    out["revision_gap"] = root / "revision-gap.json"
    out["revision_gap"].write_text(json.dumps(gap))
    many = dict(bundle, records=[{}] * 100_001)  # more entries than one comparison reads, none of them a record
    out["too_many"] = root / "too-many.json"
    out["too_many"].write_text(json.dumps(many))
    huge = root / "huge.json"  # sparse: larger than the import limit on stat alone, never read
    with open(huge, "wb") as handle:
        handle.truncate(600 * 1024 * 1024)
    out["huge"] = huge
    return out


async def _hostile_replies(good: Path, paths: dict[str, Path]) -> dict[str, Any]:
    async with connect() as s:
        replies = {name: await _page(s, good, path) for name, path in paths.items()}
        replies["relative"] = await _call(
            s, "compare_bundles", {"left_bundle_path": "A.json", "right_bundle_path": str(good)}
        )
        replies["after"] = await _call(s, "get_evidence_bundle", {"detail": "summary"})
    return replies


def test_hostile_bundles_get_canonical_errors_and_nothing_is_retained(scenario, tmp_path):
    _, root = scenario
    replies = anyio.run(_hostile_replies, root / "D.json", _hostile(tmp_path, root / "D.json"))
    expected = {
        "truncated": ("evidence_integrity_mismatch", "invalid-json"),
        "wrong_digest": ("evidence_integrity_mismatch", "$.records[0]"),
        "lying_manifest": ("evidence_integrity_mismatch", "$.artifacts"),
        "revision_gap": ("evidence_integrity_mismatch", "$.unknowns"),
        "huge": ("truncated", None),
        "too_many": ("truncated", None),
    }
    for name, (code, where) in expected.items():
        error = replies[name]["error"]
        assert error["code"] == code, (name, error)
        if name == "too_many":  # refused on the two bundles' counts, before either is verified
            assert error["details"]["limit"] == 100_000 and error["details"]["right"][0] == 100_001
            continue
        assert error["details"]["side"] == "right" and error["details"]["bundle_path"].endswith(".json"), name
        assert "nothing was compared" in error["message"], name
        if where is not None:
            assert where in (error["details"].get("path"), error["details"].get("reason")), (name, error)
    assert replies["huge"]["error"]["details"]["limit"] == 512 * 1024 * 1024
    relative = replies["relative"]["error"]
    assert relative["code"] == "invalid_request" and relative["details"]["field"] == "left_bundle_path"
    assert "relative" in relative["message"]
    assert replies["after"]["result"]["total_retained_records"] == 0  # a refused comparison records nothing


# ----------------------------------------------------------------- the CLI


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*rea_command(), "call", *args, "--format", "json"],
        capture_output=True,
        text=True,
        env=clean_env(PYTHONPATH=os.environ.get("PYTHONPATH", "")),
        timeout=120,
    )


def test_the_cli_compares_bundles_and_refuses_what_it_cannot_check(scenario):
    _, root = scenario
    done = _cli(
        "compare_bundles", "--left-bundle-path", str(root / "C.json"), "--right-bundle-path", str(root / "D.json")
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)["normalized_result"]
    assert result["left_bundle_sha256"] == hashlib.sha256((root / "C.json").read_bytes()).hexdigest()
    assert result["summary"]["unknowns_advanced"] == 1
    relative = _cli("compare_bundles", "--left-bundle-path", "C.json", "--right-bundle-path", str(root / "D.json"))
    assert relative.returncode != 0 and '"invalid_request"' in relative.stdout + relative.stderr
    # a CLI call is a fresh session: no unknown is recorded there
    missing = _cli("verify_unknown_resolution", "--unknown-id", ZERO_UNKNOWN)
    assert missing.returncode != 0 and '"missing"' in missing.stdout + missing.stderr
