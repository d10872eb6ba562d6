"""The artifact family end to end: the real Python MCP client over stdio, and the `rea` CLI."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import anyio
import pytest

from artifact_fixtures import make_zip
from mcp_client import connect, error, evidence
from support import clean_env, rea_command

pytestmark = pytest.mark.slow


def test_artifact_tools_over_mcp(tmp_path):
    v1 = make_zip(
        tmp_path / "v1.apk",
        {"AndroidManifest.xml": b"<m/>", "classes.dex": b"dex\n035\0", "lib/arm64-v8a/libx.so": b"\x7fELF"},
    )
    v2 = make_zip(tmp_path / "v2.apk", {"AndroidManifest.xml": b"<m v='2'/>", "classes.dex": b"dex\n035\0"})

    async def main():
        async with connect(TMPDIR=str(tmp_path)) as s:
            out = {}
            out["no_target"] = await s.call_tool("inventory_artifact", {})
            await s.call_tool("open_binary", {"path": str(v1)})
            out["inspect"] = await s.call_tool("inspect_artifact", {})
            out["summary"] = await s.call_tool("inspect_artifact", {"detail": "summary"})
            out["page"] = await s.call_tool("inventory_artifact", {"occurrence_limit": 2})
            left = (out["inspect"].structured_content or {}).get("evidence_id")
            out["view"] = await s.call_tool(
                "inspect_analysis_view",
                {
                    "source": {"kind": "retained-evidence", "evidence_id": left},
                    "view": {"kind": "inventory", "facet": "occurrences", "logical_paths": ["classes.dex"]},
                },
            )
            occ = [
                o
                for o in out["inspect"].structured_content["normalized_result"]["substeps"][0]["evidence"][
                    "normalized_result"
                ]["occurrences"]["items"]
                if o["logical_path"] == "classes.dex"
            ][0]["occurrence_id"]
            out["extract"] = await s.call_tool("extract_artifact", {"occurrence_ids": [occ]})
            out["extract_all"] = await s.call_tool("extract_artifact", {})
            out["inventory_policy"] = await s.call_tool(
                "inventory_artifact", {"integrity_policy": "fail", "max_integrity_mismatches": 10}
            )
            await s.call_tool("open_binary", {"path": str(v2)})
            out["inspect2"] = await s.call_tool("inspect_artifact", {})
            right = out["inspect2"].structured_content["evidence_id"]
            out["compare"] = await s.call_tool(
                "compare_artifacts",
                {
                    "left": {"kind": "retained-evidence", "evidence_id": left},
                    "right": {"kind": "retained-evidence", "evidence_id": right},
                    "limit": 1,
                },
            )
            out["compare_all"] = await s.call_tool(
                "compare_artifacts",
                {
                    "left": out["inspect"].structured_content,
                    "right": {"kind": "retained-evidence", "evidence_id": right},
                },
            )
            out["bad"] = await s.call_tool("inspect_artifact", {"max_depth": -1})
            out["bundle"] = await s.call_tool("get_evidence_bundle", {"detail": "summary"})
            return out

    out = anyio.run(main)
    assert error(out["no_target"], "target_unavailable")["details"]["reason"] == "target_required"
    assert out["no_target"].meta == {"provenance": {"untrusted_content": True, "source": "analysis_target"}}
    inspected = evidence(out["inspect"])
    assert inspected["subject"]["format"] == "apk"
    assert inspected["normalized_result"]["inventory_coverage"] == {"scope": "container-entries", "status": "complete"}
    summary = evidence(out["summary"])["normalized_result"]
    assert summary["kind"] == "summary" and summary["parent_evidence_id"] == inspected["evidence_id"]
    assert summary["summary"]["entry_kinds"] == {"file": 4}
    page = evidence(out["page"])["normalized_result"]
    assert (
        page["occurrences"]["next_offset"] == 2
        and page["manifest"]
        == inspected["normalized_result"]["substeps"][0]["evidence"]["normalized_result"]["manifest"]
    )
    assert [o["logical_path"] for o in evidence(out["view"])["normalized_result"]["items"]] == ["classes.dex"]
    extracted = evidence(out["extract"])["normalized_result"]
    assert (Path(extracted["output_root"]) / "classes.dex").read_bytes() == b"dex\n035\0"
    compared = evidence(out["compare"])["normalized_result"]
    assert compared["status"] == "changed" and len(compared["changes"]) == 1  # limit 1: our optional slice
    assert compared["changes_page"] == {"offset": 0, "limit": 1, "total": 3, "next_offset": 1}
    complete = evidence(out["compare_all"])["normalized_result"]
    assert_comparison_shape(complete, inspected["evidence_id"], evidence(out["inspect2"])["evidence_id"])
    assert {c["logical_path"]: c["classification"] for c in complete["changes"]} == {
        ".": "changed",
        "AndroidManifest.xml": "changed",
        "lib/arm64-v8a/libx.so": "removed",
    }
    assert_inspection_shape(inspected)
    assert_inventory_shape(evidence(out["inventory_policy"])["normalized_result"])
    assert_extraction_shape(evidence(out["extract_all"])["normalized_result"], inspected)
    assert error(out["bad"], "invalid_request")["details"]["issues"][0]["path"] == ["max_depth"]
    ops = {r["operation"] for r in out["bundle"].structured_content["result"]["records"]}
    assert ops >= {
        "inspect_artifact",
        "inventory_artifact",
        "inspect_analysis_view",
        "extract_artifact",
        "compare_artifacts",
    }


SHA = re.compile(r"^[a-f0-9]{64}$")


def _id(prefix: str, value: object) -> None:
    assert isinstance(value, str) and re.fullmatch(prefix + r"_[a-f0-9]{64}", value), (prefix, value)


def assert_inspection_shape(ev: dict) -> None:
    """REA 6.x inspect_artifact: the fields and types a reference client reads."""
    r = ev["normalized_result"]
    _id("ai", r["inspection_id"])
    assert set(r["subject"]) == {"manifest_id", "root_artifact_id", "root_sha256", "root_format"}
    (step,) = r["substeps"]
    _id("ais", step["substep_id"])
    assert step["operation"] == "inventory_artifact" and step["status"] == "completed"
    assert step["evidence"]["evidence_id"] == step["evidence_id"] == r["evidence_links"][0]
    assert step["evidence"]["operation"] == "inventory_artifact" and ev["evidence_links"] == [step["evidence_id"]]
    assert step["evidence"]["normalized_result"]["manifest"]["manifest_id"] == r["subject"]["manifest_id"]
    assert isinstance(r["observations"], list) and r["observations"][0]["kind"] == "root-manifest"
    for o in r["observations"]:
        _id("aio", o["observation_id"])
        assert set(o) == {"observation_id", "kind", "subject", "value", "evidence_id"}
    for key in ("hypotheses", "contradictions", "unexplored_branches", "next_probes", "limitations"):
        assert isinstance(r[key], list), key
    for probe in r["next_probes"]:
        assert set(probe) == {"operation", "rationale", "authority"}
    for branch in r["unexplored_branches"]:
        _id("aib", branch["branch_id"])
    assert r["coverage"]["status"] in ("complete-within-substeps", "partial", "truncated")
    assert r["coverage"]["substeps_completed"] == 1
    assert r["coverage"]["observations_retained"] == len(r["observations"])


def assert_inventory_shape(r: dict) -> None:
    """3.1 inventory_artifact: pages of nodes/occurrences/edges, contradictions and provenance as arrays."""
    for section in ("nodes", "occurrences", "edges"):
        assert set(r[section]) == {"items", "offset", "limit", "total", "next_offset"}
    assert isinstance(r["integrity_contradictions"], list) and r["provenance"] == []
    assert set(r["limits"]) >= {"max_entries", "max_total_bytes", "max_entry_bytes", "max_depth"}
    _id("agm", r["manifest"]["manifest_id"])
    assert SHA.match(r["manifest"]["graph_sha256"])


def assert_extraction_shape(r: dict, inspected: dict) -> None:
    """6.x extract_artifact with {}: every regular file, the reference's records."""
    inv = inspected["normalized_result"]["substeps"][0]["evidence"]["normalized_result"]
    files = [o for o in inv["occurrences"]["items"] if o["entry_kind"] == "file" and o["parent_occurrence_id"]]
    assert r["manifest"] == inv["manifest"]
    m = r["extraction_manifest"]
    _id("aex", m["extraction_id"])
    assert m["source_manifest_id"] == inv["manifest"]["manifest_id"] and m["output_root_alias"] == "$OUTPUT_ROOT"
    assert sorted(m["selected_occurrence_ids"]) == sorted(o["occurrence_id"] for o in files)
    assert SHA.match(m["files_sha256"])
    root = Path(r["output_root"])
    assert len(r["artifacts"]) == len(files) == 3
    for a in r["artifacts"]:
        assert {"artifact_id", "relative_path", "sha256", "bytes_written", "created"} <= set(a)
        _id("art", a["artifact_id"])
        assert a["created"] is True and (root / a["relative_path"]).stat().st_size == a["bytes_written"]
    assert r["containment_verified"] is True and r["provenance"] == []
    assert r["cleanup"] == {"attempted": False, "verified": True, "residual_paths": []}


def assert_comparison_shape(r: dict, left: str, right: str) -> None:
    """6.x compare_artifacts: changes a complete array, each citing both sides, no empty path."""
    assert isinstance(r["changes"], list) and r["changes_page"]["next_offset"] is None
    assert set(r["summary"]) == {"unchanged", "added", "removed", "changed", "unknown", "contradiction"}
    _id("agm", r["left_manifest_id"])
    for change in r["changes"]:
        assert change["logical_path"] and change["dimensions"]
        assert change["evidence_links"] == [left, right]
        if change["classification"] in ("added", "removed"):
            assert change["dimensions"] == ["content"]


def _rea(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*rea_command(), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=clean_env(TMPDIR=str(cwd)) if cwd else clean_env(),
        cwd=cwd,
    )


def test_cli_inspect_inventory_extract_compare(tmp_path):
    v1 = make_zip(tmp_path / "v1.zip", {"a.txt": b"a", "b.txt": b"b"})
    v2 = make_zip(tmp_path / "v2.zip", {"a.txt": b"a", "c.txt": b"c"})
    left = _rea("inspect-artifact", str(v1), "--json")
    assert left.returncode == 0, left.stdout + left.stderr
    (tmp_path / "left.json").write_text(left.stdout)
    right = _rea("inventory-artifact", str(v2), "--json", "--max-depth", "3")
    assert right.returncode == 0
    (tmp_path / "right.json").write_text(right.stdout)
    compared = _rea("compare-artifacts", str(tmp_path / "left.json"), str(tmp_path / "right.json"), "--json")
    body = json.loads(compared.stdout)
    assert compared.returncode == 0 and body["normalized_result"]["status"] == "changed"
    text = _rea("compare-artifacts", str(tmp_path / "left.json"), str(tmp_path / "right.json"))
    assert "added" in text.stdout and "c.txt" in text.stdout
    occ = next(
        o
        for o in json.loads(left.stdout)["normalized_result"]["substeps"][0]["evidence"]["normalized_result"][
            "occurrences"
        ]["items"]
        if o["logical_path"] == "a.txt"
    )["occurrence_id"]
    extracted = _rea(
        "extract-artifact", str(v1), occ, "--integrity-policy", "record-and-continue", "--json", cwd=tmp_path
    )
    result = json.loads(extracted.stdout)["normalized_result"]
    assert (Path(result["output_root"]) / "a.txt").read_bytes() == b"a"
    assert [a["relative_path"] for a in result["artifacts"]] == ["a.txt"]
    everything = _rea("extract-artifact", str(v1), "--json", cwd=tmp_path)  # no ids: every regular file
    assert everything.returncode == 0, everything.stdout + everything.stderr
    result = json.loads(everything.stdout)["normalized_result"]
    assert sorted(a["relative_path"] for a in result["artifacts"]) == ["a.txt", "b.txt"]
    assert result["extraction_manifest"]["source_manifest_id"] == result["manifest"]["manifest_id"]
    assert (Path(result["output_root"]) / "b.txt").read_bytes() == b"b"
    body = json.loads(compared.stdout)["normalized_result"]
    assert {c["logical_path"] for c in body["changes"]} == {".", "b.txt", "c.txt"}
    assert json.loads(left.stdout)["normalized_result"]["substeps"][0]["operation"] == "inventory_artifact"
    capped = _rea("extract-artifact", str(v1), "--max-entries", "1", cwd=tmp_path)
    assert capped.returncode != 0 and "truncated" in capped.stdout
    missing = _rea("compare-artifacts", str(tmp_path / "nope.json"), str(tmp_path / "right.json"))
    assert missing.returncode == 2 and "cannot be read" in missing.stdout
    gone = _rea("inspect-artifact", str(tmp_path / "absent.zip"))
    assert gone.returncode == 1 and "target_unavailable" in gone.stdout
    listing = _rea("inspect-artifact", str(v1))
    assert listing.returncode == 0 and "coverage container-entries/complete" in listing.stdout


def test_oversized_inspection_is_retained_and_viewable(tmp_path):
    big = tmp_path / "many.zip"
    import zipfile

    with zipfile.ZipFile(big, "w") as zf:
        for i in range(10_500):
            zf.writestr(f"some/long/directory/name/member{i:05}.txt", str(i))

    async def main():
        async with connect() as s:
            await s.call_tool("open_binary", {"path": str(big)})
            full = await s.call_tool("inspect_artifact", {})
            limits = json.loads(full.content[0].text)["error"]["details"]["reported_limits"]
            ref = limits["evidence_reference"]
            # the ready continuation is a call our validator accepts, as handed out
            continuation = limits["continuation"]
            view = await s.call_tool(continuation["name"], continuation["arguments"])
            page = await s.call_tool(
                "inspect_analysis_view",
                {"source": ref, "view": {"kind": "inventory", "facet": "occurrences", "offset": 9_990}},
            )
            return full, continuation, view, page

    full, continuation, view, page = anyio.run(main)
    assert error(full, "resource_constraint")["details"]["resource"] == "transport"
    assert continuation["arguments"]["view"] == {"kind": "summary"}
    summary = evidence(view)["normalized_result"]
    assert summary["summary"]["inventory_coverage"]["status"] == "unknown"  # max_entries (10,000) was reached
    assert any("max_entries=10000" in t for t in summary["limitations"])
    assert summary["summary"]["available_counts"]["occurrences"] == 10_001
    assert "inventory coverage is unknown" in summary["unknowns"]
    p = evidence(page)["normalized_result"]
    assert p["coverage"] == {"status": "page", "examined": 11, "total": 10_001, "next_offset": None, "exhausted": True}
    assert p["source_complete"] is False and p["limitations"]


def test_typescript_client_accepts_every_artifact_reply(tmp_path):

    from support import npm_fixture

    here = Path(__file__).parents[1] / "fixtures" / "conformance"
    npm_fixture(here)  # installed by scripts/setup test: the run needs no registry
    left = make_zip(tmp_path / "l.jar", {"META-INF/MANIFEST.MF": b"Manifest-Version: 1.0\n", "a/B.class": b"\xca\xfe"})
    right = make_zip(tmp_path / "r.jar", {"META-INF/MANIFEST.MF": b"Manifest-Version: 1.0\n"})
    proc = subprocess.run(
        ["node", str(here / "artifacts.mjs"), json.dumps([*rea_command(), "mcp"]), str(left), str(right)],
        capture_output=True,
        text=True,
        timeout=300,
        env=clean_env(TMPDIR=str(tmp_path)),
    )
    report = json.loads(proc.stdout)
    assert report.get("fatal") is None and report["clientErrors"] == [], report
    for label, reply in report["calls"].items():
        assert "thrown" not in reply and reply["isError"] is False, (label, reply)
        assert json.loads(reply["text"]) == reply["structured"]
    compared = report["calls"]["compare"]["structured"]["normalized_result"]
    assert compared["status"] == "changed"  # the root bytes differ too
    assert {c["logical_path"]: c["classification"] for c in compared["changes"]} == {
        ".": "changed",
        "a/B.class": "removed",
    }
    assert report["calls"]["compare_inline"]["structured"]["normalized_result"]["changes"] == compared["changes"]
    extracted = report["calls"]["extract_all"]["structured"]["normalized_result"]
    assert sorted(a["relative_path"] for a in extracted["artifacts"]) == ["META-INF/MANIFEST.MF", "a/B.class"]


def test_pages_are_served_from_the_retained_inventory_until_the_digest_changes(tmp_path):
    """Progress is the observable: a walk reports "inventorying artifact", a served page reports nothing but its
    end; a moved stamp is settled by hashing again (hashlib is the ground truth for the digests)."""
    import hashlib
    import os

    members = {f"res/m{i:03}.xml": f"<m n='{i}'/>".encode() for i in range(150)}
    apk = make_zip(tmp_path / "app.apk", members)
    import zipfile

    with zipfile.ZipFile(apk, "a") as zf:
        zf.comment = b"build 1"
    opened_sha = hashlib.sha256(apk.read_bytes()).hexdigest()

    async def main():
        async with connect(TMPDIR=str(tmp_path)) as s:

            async def call(name, args):
                seen: list[str] = []

                async def on_progress(progress, total, message):
                    seen.append(message)

                return await s.call_tool(name, args, progress_callback=on_progress), seen

            out = {"open": await s.call_tool("open_binary", {"path": str(apk)})}
            out["first"] = await call("inventory_artifact", {"occurrence_limit": 100})
            out["second"] = await call("inventory_artifact", {"occurrence_offset": 100, "occurrence_limit": 100})
            out["summary"] = await call("inspect_artifact", {"detail": "summary"})
            occ = next(
                o["occurrence_id"]
                for o in out["second"][0].structured_content["normalized_result"]["occurrences"]["items"]
                if o["logical_path"] == "res/m140.xml"
            )
            out["extract"] = await call("extract_artifact", {"occurrence_ids": [occ]})
            os.utime(apk)  # touched: the stamp moves, the bytes do not
            out["touched"] = await call("inventory_artifact", {"occurrence_offset": 100, "occurrence_limit": 100})
            before = apk.stat()
            data = apk.read_bytes()
            assert data.endswith(b"build 1")  # same size, new bytes (the archive comment), mtime put back
            apk.write_bytes(data[:-1] + b"2")
            os.utime(apk, ns=(before.st_atime_ns, before.st_mtime_ns))
            out["rewritten"] = await call("inventory_artifact", {"occurrence_offset": 100, "occurrence_limit": 100})
            out["reopen"] = await s.call_tool("open_binary", {"path": str(apk)})
            out["after"] = await call("inventory_artifact", {"occurrence_limit": 100})
            return out

    out = anyio.run(main)
    walked = lambda seen: any(m.startswith("inventorying artifact") for m in seen)  # noqa: E731
    first, second = (evidence(out[k][0])["normalized_result"] for k in ("first", "second"))
    assert walked(out["first"][1]) and not walked(out["second"][1])
    assert out["second"][1] == ["finished: inventory_artifact completed"]  # a stat, no read, no hash
    assert second["manifest"] == first["manifest"] and second["manifest"]["root_sha256"] == opened_sha
    paths = [o["logical_path"] for o in first["occurrences"]["items"] + second["occurrences"]["items"]]
    assert paths == [apk.name, *sorted(members)]  # the pages partition the one inventory
    assert not walked(out["summary"][1]) and evidence(out["summary"][0])["operation"] == "inspect_analysis_view"
    assert not walked(out["extract"][1]) and any(m.startswith("extracting artifact") for m in out["extract"][1])
    extracted = evidence(out["extract"][0])["normalized_result"]
    assert (Path(extracted["output_root"]) / "res/m140.xml").read_bytes() == members["res/m140.xml"]
    touched = out["touched"][1]
    assert any(m.startswith("identifying target") for m in touched) and not walked(touched)
    assert evidence(out["touched"][0])["evidence_id"] == out["second"][0].structured_content["evidence_id"]
    changed = error(out["rewritten"][0], "target_unavailable")["details"]
    assert changed == {
        "path": str(apk),
        "reason": "target_changed",
        "expected_sha256": opened_sha,
        "observed_sha256": hashlib.sha256(apk.read_bytes()).hexdigest(),
    }
    assert not walked(out["rewritten"][1])
    after = evidence(out["after"][0])["normalized_result"]
    assert walked(out["after"][1]) and after["manifest"]["root_sha256"] == hashlib.sha256(apk.read_bytes()).hexdigest()
    assert after["manifest"]["manifest_id"] != first["manifest"]["manifest_id"]
