"""The reconstruction tools through MCP and the CLI, on comparison Evidence REA itself produced in the test:
compare_artifacts over two archives built here (one copy identical, one changed) and compare_functions over
two gcc builds of tests/fixtures/sample.c whose `compute` differs. Each verdict is checked against the
comparison reply it rests on (read independently from that reply, not through the family's reader)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import anyio
import pytest

from artifact_fixtures import make_zip
from rea.evidence import Provider, create_evidence
from support import clean_env, rea_command
from test_mcp_e2e import connect
from test_native import SOURCE

FILES = {"a.txt": b"alpha\n", "lib/tool.sh": b"#!/bin/sh\necho 1\n"}
MISSING = "ev_" + "a" * 64


def ref(reply: dict[str, Any]) -> dict[str, Any]:
    return {"kind": "retained-evidence", "evidence_id": reply["evidence_id"]}


async def _call(s: Any, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    reply = await s.call_tool(tool, args)
    if reply.is_error:
        return {"error": json.loads(reply.content[0].text)["error"]}
    return reply.structured_content


def process_comparison(terminal: str, left: str, right: str) -> dict[str, Any]:
    """A compare_process_captures record in the reference's 6.x shape (that tool is another family's):
    every dimension unchanged but `terminal`."""
    dims = {d: "unchanged" for d in ("exit", "interaction", "filesystem", "process", "protocol", "shim")}
    result = {**dims, "terminal": terminal, "status": "changed" if terminal != "unchanged" else "unchanged",
              "first_divergence": None, "limitations": []}  # fmt: skip
    made = create_evidence(
        provider=Provider(id="rea-process", name="REA deterministic process harness", version="3"),
        operation="compare_process_captures",
        parameters={"left_evidence_id": left, "right_evidence_id": right},
        normalized_result=result,
        confidence="derived",
        authority="analyst-inference",
        evidence_links=[left, right],
    )
    return made.unwrap().to_json()


async def _produce(root: Path) -> dict[str, Any]:
    zips = [make_zip(root / "v1.zip", FILES), make_zip(root / "v1-copy.zip", FILES),
            make_zip(root / "v2.zip", {**FILES, "a.txt": b"alpha, changed\n"})]  # fmt: skip
    out: dict[str, Any] = {}
    async with connect() as s:
        inspected = []
        for z in zips:
            await _call(s, "open_binary", {"path": str(z)})
            inspected.append(await _call(s, "inspect_artifact", {}))
        out["same"] = await _call(s, "compare_artifacts", {"left": ref(inspected[0]), "right": ref(inspected[1])})
        out["diff"] = await _call(s, "compare_artifacts", {"left": ref(inspected[0]), "right": ref(inspected[2])})
        dossiers = []
        for binary in (root / "a.out", root / "b.out"):
            await _call(s, "open_binary", {"path": str(binary)})
            dossiers.append(await _call(s, "analyze_function", {"procedure": "compute"}))
        out["fn"] = await _call(s, "compare_functions", {"left": ref(dossiers[0]), "right": ref(dossiers[1])})
        out["inventory"] = inspected[0]
        out.update(await _judge(s, out))
    return out


def _claim(claim_id: str, comparison: dict[str, Any], kind: str, dimension: str = "overall") -> dict[str, Any]:
    return {"claim_id": claim_id, "title": claim_id, "comparison_evidence_id": comparison["evidence_id"],
            "kind": kind, "dimension": dimension}  # fmt: skip


def _spec(*claims: dict[str, Any]) -> dict[str, Any]:
    return {"specification": {"schema_version": 1, "name": "rebuild", "claims": list(claims)}}


async def _judge(s: Any, c: dict[str, Any]) -> dict[str, Any]:
    same = _claim("archive-same", c["same"], "structural-artifact")
    out: dict[str, Any] = {
        "verify_all": await _call(s, "verify_reconstruction", _spec(
            same, _claim("archive-diff", c["diff"], "structural-artifact"),
            _claim("compute-pseudocode", c["fn"], "structural-function", "pseudocode"),
            {**same, "claim_id": "gone", "comparison_evidence_id": MISSING})),
        "verify_same": await _call(s, "verify_reconstruction", _spec(same)),
        "verify_missing": await _call(s, "verify_reconstruction", _spec({**same, "comparison_evidence_id": MISSING})),
        "verify_wrong_kind": await _call(s, "verify_reconstruction", _spec(
            _claim("x", c["same"], "structural-function", "cfg"))),
        "verify_bad_dimension": await _call(s, "verify_reconstruction", _spec(
            _claim("x", c["same"], "structural-artifact", "cfg"))),
        "changed": await _call(s, "find_changed_behavior", {"comparisons": [ref(c["diff"]), ref(c["fn"])]}),
        "changed_pages": [await _call(s, "find_changed_behavior", {"comparisons": [ref(c["diff"]), ref(c["fn"])],
                                                                   "offset": i, "limit": 1}) for i in range(8)],
        "changed_not_comparison": await _call(s, "find_changed_behavior", {"comparisons": [ref(c["inventory"])]}),
        "changed_forged": await _call(s, "find_changed_behavior", {"comparisons": [{**c["diff"], "operation": "x"}]}),
        "changed_run": await _call(s, "find_changed_behavior", {"investigation_run": {"left_path": "/a"}}),
    }  # fmt: skip
    runtime = process_comparison("unchanged", *c["fn"]["evidence_links"][:2])
    mapping = {"static": {"comparison_evidence_id": c["fn"]["evidence_id"],
                          "selector": {"kind": "function", "dimension": "pseudocode"}},
               "runtime": {"comparison_evidence_id": runtime["evidence_id"], "dimension": "terminal"},
               "side_alignment": "left_to_left",
               "hypothesis": {"statement": "compute changed without a terminal change", "expected_pattern": "static_only"}}  # fmt: skip
    out["correlated"] = await _call(s, "correlate_static_and_runtime", {
        "static_comparisons": [ref(c["fn"])], "runtime_comparisons": [runtime], "mappings": [mapping]})  # fmt: skip
    # an active unknown citing the comparison keeps its claim from passing
    question = {"question": "Is the copied archive the shipped one?", "domain": "artifact", "severity": "medium",
                "supporting_evidence_ids": [c["same"]["evidence_id"]]}  # fmt: skip
    out["unknown"] = await _call(s, "record_unknown", question)
    out["verify_same_with_unknown"] = await _call(s, "verify_reconstruction", _spec(same))
    return out


@pytest.fixture(scope="module")
def replies(tmp_path_factory) -> dict[str, Any]:
    if shutil.which("gcc") is None:
        pytest.skip("gcc is not installed")
    root = tmp_path_factory.mktemp("reconstruction")
    changed = root / "changed.c"
    changed.write_text(SOURCE.read_text().replace("s += helper(i) ^ b;", "s += helper(i) + b * i;"))
    for source, name in ((SOURCE, "a.out"), (changed, "b.out")):
        subprocess.run(["gcc", "-O0", "-g", "-o", str(root / name), str(source)], check=True, capture_output=True)
    return anyio.run(_produce, root)


def _claims(reply: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["claim_id"]: c for c in reply["normalized_result"]["claims"]["items"]}


def test_the_comparisons_are_real(replies):
    assert replies["same"]["normalized_result"]["status"] == "unchanged"
    assert replies["diff"]["normalized_result"]["status"] == "changed"
    dims = {d["dimension"]: d["status"] for d in replies["fn"]["normalized_result"]["dimensions"]}
    assert dims["pseudocode"] == "changed"  # compute's body differs between the builds


def test_each_claim_is_settled_by_its_comparison_and_the_whole_never_widens(replies):
    result = replies["verify_all"]["normalized_result"]
    claims = _claims(replies["verify_all"])
    assert claims["archive-same"]["status"] == "pass" and claims["archive-same"]["observed_status"] == "unchanged"
    assert claims["archive-diff"]["status"] == "fail" and claims["archive-diff"]["observed_status"] == "changed"
    assert claims["compute-pseudocode"]["status"] == "fail"
    assert claims["gone"]["status"] == "unknown" and "not retained" in claims["gone"]["limitations"][0]
    assert result["status"] == "fail"
    assert result["summary"] == {"total": 4, "passed": 1, "failed": 2, "unknown": 1, "behavioral": 0, "structural": 4}
    assert any("equivalent" in note for note in result["limitations"])
    same = replies["same"]
    assert set(claims["archive-same"]["evidence_links"]) == {same["evidence_id"], *same["evidence_links"]}
    assert replies["verify_all"]["confidence"] == "derived" and replies["verify_all"]["subject"] is None


def test_a_pass_is_a_pass_of_the_declared_claims_and_an_unknown_takes_it_away(replies):
    assert replies["verify_same"]["normalized_result"]["status"] == "pass"
    assert replies["verify_missing"]["normalized_result"]["status"] == "unknown"
    later = replies["verify_same_with_unknown"]["normalized_result"]
    unknown_id = replies["unknown"]["result"]["unknown_id"]
    assert later["status"] == "unknown" and later["claims"]["items"][0]["unknown_ids"] == [unknown_id]
    assert later["recommended_probes"][0]["claim_ids"] == ["archive-same"]


def test_a_claim_citing_the_wrong_comparison_is_refused_naming_what_is_accepted(replies):
    wrong = replies["verify_wrong_kind"]["error"]
    assert wrong["code"] == "invalid_request" and "compare_functions" in wrong["details"]["accepted"]
    bad = replies["verify_bad_dimension"]["error"]
    assert bad["code"] == "invalid_request" and bad["details"]["accepted"] == "overall"


def test_static_differences_are_candidates_never_observed_behaviour(replies):
    result = replies["changed"]["normalized_result"]
    assert result["behavior_status"] == "unknown"  # no process comparison was supplied
    assert result["summary"]["observed_changes"] == 0
    scopes = {f["scope"] for f in result["findings"]["items"]}
    assert scopes == {"static_candidate"}
    paths = {
        f["dimension"]
        for f in result["findings"]["items"]
        if f["source_comparison_id"] == replies["diff"]["evidence_id"]
    }
    changed_paths = {c["logical_path"] for c in replies["diff"]["normalized_result"]["changes"]}
    assert paths == {f"artifact:{p}" for p in changed_paths}
    assert sum(result["summary"].values()) == result["findings"]["total"]


def test_finding_pages_concatenate_to_the_whole(replies):
    whole = replies["changed"]["normalized_result"]["findings"]
    pages = [p["normalized_result"]["findings"]["items"] for p in replies["changed_pages"]]
    assert [f for page in pages for f in page] == whole["items"]


def test_hostile_comparisons_get_canonical_errors(replies):
    wrong = replies["changed_not_comparison"]["error"]
    assert wrong["code"] == "invalid_request" and "compare_process_captures" in wrong["details"]["accepted"]
    assert replies["changed_forged"]["error"]["code"] == "evidence_integrity_mismatch"
    assert replies["changed_run"]["error"]["code"] == "capability_unavailable"


def test_a_declared_hypothesis_is_tested_against_both_verdicts(replies):
    result = replies["correlated"]["normalized_result"]
    item = result["correlations"]["items"][0]
    assert item["static"]["status"] == "changed" and item["runtime"]["status"] == "unchanged"
    assert item["observed_pattern"] == "static_only" and item["classification"] == "hypothesis"
    assert result["status"] == "correlated" and any("causal" in n for n in result["limitations"])


def test_the_cli_reaches_the_tools(replies):
    """`rea call` with complete inline comparison Evidence (a fresh process retains nothing)."""
    args = json.dumps({"comparisons": [replies["diff"]]})
    done = subprocess.run([*rea_command(), "call", "find_changed_behavior", "--json-args", args, "--format", "json"],
                          capture_output=True, text=True, env=clean_env(), timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)["normalized_result"]
    assert result["findings"]["total"] == len(replies["diff"]["normalized_result"]["changes"])
