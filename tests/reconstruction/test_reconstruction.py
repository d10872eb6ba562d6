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
from mcp_client import connect
from native_fixtures import SOURCE
from reconstruction_fixtures import (
    FILES,
    MISSING,
    _call,
    _claim,
    _spec,
    coverage_requests,
    inspect_each,
    process_comparison,
    ref,
)
from support import clean_env, rea_command


async def _produce(root: Path) -> dict[str, Any]:
    zips = [make_zip(root / "v1.zip", FILES), make_zip(root / "v1-copy.zip", FILES),
            make_zip(root / "v2.zip", {**FILES, "a.txt": b"alpha, changed\n"})]  # fmt: skip
    out: dict[str, Any] = {}
    async with connect() as s:
        inspected = await inspect_each(s, zips)
        out["same"] = await _call(s, "compare_artifacts", {"left": ref(inspected[0]), "right": ref(inspected[1])})
        out["diff"] = await _call(s, "compare_artifacts", {"left": ref(inspected[0]), "right": ref(inspected[2])})
        dossiers = []
        for binary in (root / "a.out", root / "b.out"):
            await _call(s, "open_binary", {"path": str(binary)})
            dossiers.append(await _call(s, "analyze_function", {"procedure": "compute"}))
        out["fn"] = await _call(s, "compare_functions", {"left": ref(dossiers[0]), "right": ref(dossiers[1])})
        out["inventory"] = inspected[0]
        out.update(await _judge(s, out))
        out.update(await _closure(s, out, root / "bundle.json"))
    return out


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
        "changed_nothing": await _call(s, "find_changed_behavior", {}),
    }  # fmt: skip
    runtime = process_comparison("unchanged", *c["fn"]["evidence_links"][:2])
    mapping = {"static": {"comparison_evidence_id": c["fn"]["evidence_id"],
                          "selector": {"kind": "function", "dimension": "pseudocode"}},
               "runtime": {"comparison_evidence_id": runtime["evidence_id"], "dimension": "terminal"},
               "side_alignment": "left_to_left",
               "hypothesis": {"statement": "compute changed without a terminal change", "expected_pattern": "static_only"}}  # fmt: skip
    out["correlated"] = await _call(s, "correlate_static_and_runtime", {
        "static_comparisons": [ref(c["fn"])], "runtime_comparisons": [runtime], "mappings": [mapping]})  # fmt: skip
    moved = process_comparison("changed", *c["diff"]["evidence_links"][:2])
    by_path = {**mapping, "static": {"comparison_evidence_id": c["diff"]["evidence_id"],
                                     "selector": {"kind": "artifact", "logical_path": "a.txt"}},
               "runtime": {"comparison_evidence_id": moved["evidence_id"], "dimension": "terminal"},
               "hypothesis": {"statement": "a.txt drives the output", "expected_pattern": "cochanged"}}  # fmt: skip
    args = {"static_comparisons": [ref(c["diff"])], "runtime_comparisons": [moved]}
    out["correlated_path"] = await _call(s, "correlate_static_and_runtime", {**args, "mappings": [by_path]})
    nowhere = {**by_path, "static": {**by_path["static"], "selector": {"kind": "artifact", "logical_path": "zz"}}}
    out["correlated_nowhere"] = await _call(s, "correlate_static_and_runtime", {**args, "mappings": [nowhere]})
    # an active unknown citing the comparison keeps its claim from passing
    question = {"question": "Is the copied archive the shipped one?", "domain": "artifact", "severity": "medium",
                "supporting_evidence_ids": [c["same"]["evidence_id"]]}  # fmt: skip
    out["unknown"] = await _call(s, "record_unknown", question)
    out["verify_same_with_unknown"] = await _call(s, "verify_reconstruction", _spec(same))
    prompt = await s.get_prompt("verify_reconstruction", {"reconstruction_goal": "the archive is the same"})
    out["prompt"] = prompt.messages[0].content.text
    return out


async def _closure(s: Any, c: dict[str, Any], bundle_path: Path) -> dict[str, Any]:
    """Ledger and coverage over the bundle this session exports (every record recomputed on the way in)."""
    await _call(s, "export_evidence_bundle", {"path": str(bundle_path)})
    bundle = json.loads(bundle_path.read_text())
    out: dict[str, Any] = {"bundle": bundle}
    for name, request in ledger_requests(bundle, c).items():
        out[name] = await _call(s, "build_reconstruction_obligation_ledger", request)
    for name, coverage in coverage_requests(bundle, c).items():
        out[name] = await _call(s, "evaluate_reconstruction_coverage", {"coverage": coverage, "boundary_id": "release"})
    out["coverage_no_boundary"] = await _call(
        s,
        "evaluate_reconstruction_coverage",
        {"coverage": coverage_requests(bundle, c)["ready"], "boundary_id": "nope"},
    )
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


def test_the_prompt_sends_the_agent_to_the_tools(replies):
    """The verify_reconstruction prompt (served over MCP) names the five tools as steps, none as unavailable."""
    text = replies["prompt"]
    unavailable = [line for line in text.splitlines() if "compare_process_captures" in line and "`" in line]
    for tool in ("verify_reconstruction", "find_changed_behavior", "correlate_static_and_runtime",
                 "evaluate_reconstruction_coverage", "build_reconstruction_obligation_ledger"):  # fmt: skip
        assert f"`{tool}`" in text or tool in text
        assert not any(tool in line for line in unavailable), tool


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
    assert replies["changed_nothing"]["error"]["details"]["field"] == "comparisons"


def test_a_declared_hypothesis_is_tested_against_both_verdicts(replies):
    result = replies["correlated"]["normalized_result"]
    item = result["correlations"]["items"][0]
    assert item["static"]["status"] == "changed" and item["runtime"]["status"] == "unchanged"
    assert item["observed_pattern"] == "static_only" and item["classification"] == "hypothesis"
    assert result["status"] == "correlated" and any("causal" in n for n in result["limitations"])


def test_an_artifact_path_is_correlated_only_when_the_comparison_reports_it(replies):
    item = replies["correlated_path"]["normalized_result"]["correlations"]["items"][0]
    assert item["static"]["status"] == "changed" and item["observed_pattern"] == "cochanged"
    assert item["classification"] == "hypothesis"
    refused = replies["correlated_nowhere"]["error"]
    assert refused["code"] == "invalid_request" and "a.txt" in refused["details"]["accepted"]


def test_the_cli_reaches_the_tools(replies):
    """`rea call` with complete inline comparison Evidence (a fresh process retains nothing)."""
    args = json.dumps({"comparisons": [replies["diff"]]})
    done = subprocess.run([*rea_command(), "call", "find_changed_behavior", "--json-args", args, "--format", "json"],
                          capture_output=True, text=True, env=clean_env(), timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)["normalized_result"]
    assert result["findings"]["total"] == len(replies["diff"]["normalized_result"]["changes"])
    # the reference's own empty request (its docs: valid, and unknown: no source Evidence never claims closure)
    empty = {"evidence_bundle": {"bundle_version": 2, "artifacts": [], "providers": [], "environments": [],
                                 "scenarios": [], "captures": [], "unknowns": [], "records": []},
             "reviewed_obligations": [], "manifest": {"schema_version": 1, "bindings": [], "contradictions": []},
             "limits": {"max_obligations": 100}, "page": {"offset": 0, "limit": 50}}  # fmt: skip
    done = subprocess.run([*rea_command(), "call", "build_reconstruction_obligation_ledger", "--json-args",
                           json.dumps(empty), "--format", "json"], capture_output=True, text=True, env=clean_env(),
                          timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    ledger = json.loads(done.stdout)["normalized_result"]
    assert ledger["status"] == "unknown" and ledger["summary"]["total"] == 0


# ---------------------------------------------------------------- ledger and coverage inputs


def obligation(oid: str, review: str, **over: Any) -> dict[str, Any]:
    base = {"obligation_id": oid, "obligation_version": 1, "title": oid, "application_layer": "packaging",
            "family": "archive", "target": {"artifact_sha256": None, "application_node_id": None,
                                            "semantic_node_id": None, "location": "v1.zip"},
            "required": True, "required_case_kinds": ["positive"], "required_original_authority": "static",
            "required_fixture_authority": "unit", "required_verifier_authority": "unit",
            "requires_parser_type": False, "dependency_obligation_ids": [], "residual_unknown_ids": [],
            "unavailable_authority": [], "required_next_evidence": [], "disposition": "active",
            "review_evidence_ids": [review]}  # fmt: skip
    return {**base, **over}


def binding(oid: str, original: str, fixture: str, result: str, **over: Any) -> dict[str, Any]:
    base = {"obligation_id": oid, "owner": {"module_path": "src/pack.py", "symbol": "pack", "owner_sha256": "c" * 64},
            "parser_type": None, "original_cases": [{"kind": "positive", "evidence_id": original, "location": "/v1.zip"}],
            "fixtures": [{"fixture_id": f"{oid}.positive", "case_kind": "positive", "authority": "unit",
                          "evidence_ids": [fixture]}],
            "verifier": {"verifier_id": f"{oid}.check", "claim_id": f"{oid}.claim", "command": "pytest",
                         "authority": "unit", "status": "pass", "result_evidence_id": result,
                         "enumerated_obligation_ids": [oid],
                         "nondeterminism": {"mode": "total-order", "specification": "one run"}}}  # fmt: skip
    return {**base, **over}


def ledger_requests(bundle: dict[str, Any], c: dict[str, Any]) -> dict[str, dict[str, Any]]:
    original, same = c["inventory"]["evidence_id"], c["same"]["evidence_id"]
    verified = c["verify_same"]["evidence_id"]
    good = [obligation("pack.same", same)], [binding("pack.same", original, same, verified)]
    weak = (
        obligation("pack.installed", same, required_fixture_authority="packaged-process"),
        binding("pack.installed", original, same, verified),
    )
    contradicted = obligation("pack.diff", same)
    manifest = {"schema_version": 1, "contradictions": []}
    page = {"offset": 0, "limit": 50}
    limits = {"max_obligations": 100}

    def request(obligations: list, bindings: list, contradictions: list | None = None, **extra: Any) -> dict:
        return {"evidence_bundle": bundle, "reviewed_obligations": obligations, "limits": limits, "page": page,
                "manifest": {**manifest, "bindings": bindings, "contradictions": contradictions or []}, **extra}  # fmt: skip

    both = [*good[0], weak[0], contradicted]
    return {
        "ledger_ready": request(*good),
        "ledger_open": request([*good[0], weak[0]], [*good[1], weak[1]]),
        "ledger_failed": request(both, [*good[1], weak[1]],
                                 [{"obligation_id": "pack.diff", "evidence_ids": [same, c["diff"]["evidence_id"]]}]),
        "ledger_reordered": request(list(reversed(both)), [weak[1], *good[1]],
                                    [{"obligation_id": "pack.diff", "evidence_ids": [same, c["diff"]["evidence_id"]]}]),
        "ledger_empty": request([], []),
        # a declared pass whose result is a verify_reconstruction record that failed, or is unknown
        "ledger_overstated": request(good[0], [binding("pack.same", original, same, c["verify_all"]["evidence_id"])]),
        "ledger_unsettled": request(good[0], [binding("pack.same", original, same,
                                                      c["verify_same_with_unknown"]["evidence_id"])]),
        "ledger_dangling": request([obligation("x", MISSING)], []),
    }  # fmt: skip


def canonical_sha256(value: Any) -> str:
    """RFC 8785 for ASCII strings, integers and booleans, by the standard library (an independent reader)."""
    import hashlib

    return hashlib.sha256(json.dumps(value, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def _ledger(replies: dict[str, Any], name: str) -> dict[str, Any]:
    return replies[name]["normalized_result"]


def test_an_obligation_closes_only_with_every_part_of_comparable_authority(replies):
    ready = _ledger(replies, "ledger_ready")
    assert ready["status"] == "ready" and ready["obligations"][0]["status"] == "verified"
    assert ready["obligations"][0]["diagnostics"] == []
    opened = _ledger(replies, "ledger_open")
    rows = {o["obligation_id"]: o for o in opened["obligations"]}
    assert rows["pack.installed"]["status"] == "implemented"  # a unit fixture never closes packaged-process
    assert [d["code"] for d in rows["pack.installed"]["diagnostics"]] == ["weak-fixture-authority"]
    assert opened["status"] == "open" and opened["summary"]["required_open"] == 1


def test_a_contradiction_fails_the_ledger_and_order_does_not_change_its_identity(replies):
    failed, reordered = _ledger(replies, "ledger_failed"), _ledger(replies, "ledger_reordered")
    assert failed["status"] == "failed" and failed["reports"]["contradicted_obligation_ids"] == ["pack.diff"]
    assert failed["reports"]["missing_owner_obligation_ids"] == ["pack.diff"]
    assert failed["ledger_id"] == reordered["ledger_id"]
    assert failed["closure_digest"] == reordered["closure_digest"]
    assert failed["obligations"] == reordered["obligations"]


def test_a_declared_pass_never_outranks_the_verification_record_it_cites(replies):
    """The verifier's result is a verify_reconstruction record: its own status (read from the reply here) wins."""
    assert replies["verify_all"]["normalized_result"]["status"] == "fail"
    assert replies["verify_same_with_unknown"]["normalized_result"]["status"] == "unknown"
    overstated = _ledger(replies, "ledger_overstated")
    (row,) = overstated["obligations"]
    assert row["status"] == "contradicted" and overstated["status"] == "failed"
    assert [d["code"] for d in row["diagnostics"]] == ["verifier-failed"]
    (row,) = _ledger(replies, "ledger_unsettled")["obligations"]
    assert row["status"] == "implemented" and [d["code"] for d in row["diagnostics"]] == ["missing-verifier-result"]


def test_the_records_name_their_inputs_without_repeating_them(replies):
    """A supplied bundle is named by its digest and counts, an inline comparison by its retained reference."""
    named = replies["ledger_ready"]["parameters"]["evidence_bundle"]
    assert named["records"] == len(replies["bundle"]["records"]) and len(named["bundle_sha256"]) == 64
    coverage = replies["ready"]["parameters"]["coverage"]["evidence_bundle"]
    assert coverage == named
    runtime = replies["correlated"]["parameters"]["runtime_comparisons"][0]
    assert runtime["kind"] == "retained-evidence" and runtime["evidence_id"] in replies["correlated"]["evidence_links"]


def test_an_empty_ledger_is_unknown_and_a_dangling_citation_is_refused(replies):
    empty = _ledger(replies, "ledger_empty")
    assert empty["status"] == "unknown" and empty["summary"]["total"] == 0
    refused = replies["ledger_dangling"]["error"]
    assert refused["code"] == "invalid_request" and MISSING in refused["message"]


def test_coverage_closure_statuses(replies):
    assert replies["ready"]["normalized_result"]["status"] == "ready"
    assert replies["ready"]["normalized_result"]["reasons"] == []
    unknown = replies["coverage_unknown"]["normalized_result"]
    assert unknown["status"] == "unknown" and [r["code"] for r in unknown["reasons"]] == ["active-unknown"]
    failed = replies["coverage_failed"]["normalized_result"]
    assert failed["status"] == "failed" and {r["code"] for r in failed["reasons"]} == {
        "active-unknown",
        "verifier-failed",
    }
    partial = replies["coverage_partial"]["normalized_result"]
    assert partial["status"] == "partial" and partial["reasons"][0]["code"] == "package-proof-missing"


def test_malformed_coverage_is_refused_naming_the_part(replies):
    forged = replies["coverage_forged_contract"]["error"]
    assert forged["code"] == "invalid_request" and "contract_sha256" in forged["message"]
    dangling = replies["coverage_dangling"]["error"]
    assert dangling["code"] == "invalid_request" and MISSING in dangling["message"]
    nope = replies["coverage_no_boundary"]["error"]
    assert nope["details"]["accepted"] == "release"


async def _on_real_captures(root: Path) -> dict[str, Any]:
    """Two captures of one shell scenario whose output differs and a third identical to the first, compared by
    compare_process_captures itself, then judged: the reconstruction tools read the real comparison record."""
    scenario = {"approved": True, "executable": "/bin/sh", "working_directory": str(root), "timeout_ms": 10_000}
    async with connect() as s:
        runs = [await _call(s, "capture_process_scenario", {**scenario, "arguments": ["-c", f"echo {word}"]})
                for word in ("one", "one", "two")]  # fmt: skip
        same, changed = [
            await _call(s, "compare_process_captures", {"left_evidence_id": runs[0]["evidence_id"],
                                                        "right_evidence_id": runs[i]["evidence_id"]})
            for i in (1, 2)
        ]  # fmt: skip
        claims = [_claim("same-output", same, "behavioral", "terminal"),
                  _claim("changed-output", changed, "behavioral", "terminal"),
                  _claim("same-exit", changed, "behavioral", "exit")]  # fmt: skip
        return {
            "same": same,
            "changed": changed,
            "verdict": await _call(s, "verify_reconstruction", _spec(*claims)),
            "behavior": await _call(s, "find_changed_behavior", {"comparisons": [ref(changed)]}),
        }


def test_real_process_captures_settle_behavioural_claims(tmp_path):
    got = anyio.run(_on_real_captures, tmp_path)
    # the ground truth is the comparison replies themselves, read here, not through the family's reader
    assert got["same"]["normalized_result"]["terminal"] == "unchanged"
    assert got["changed"]["normalized_result"]["terminal"] == "changed"
    assert got["changed"]["normalized_result"]["exit"] == "unchanged"
    claims = _claims(got["verdict"])
    assert (claims["same-output"]["status"], claims["changed-output"]["status"], claims["same-exit"]["status"]) == (
        "pass", "fail", "pass")  # fmt: skip
    assert got["verdict"]["normalized_result"]["status"] == "fail"
    behavior = got["behavior"]["normalized_result"]
    assert behavior["behavior_status"] == "observed_changed", behavior
