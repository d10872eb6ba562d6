"""verify_reconstruction's REA 3.1 `coverage` reference, resolved from the session's Evidence, through MCP and
`rea call`: two archives built here compared by compare_artifacts, the session's exported bundle as the
coverage data of a 3.1 workspace revision (its id and digest computed here by hashlib and json, independently
of the family), evaluated by evaluate_reconstruction_coverage; then verification gated on that revision's
boundary: ready proceeds, failed and stale refuse, an unknown revision refuses with the remedy, a forged
identity is refused at evaluation."""

from __future__ import annotations

import hashlib
import json
import subprocess
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
import pytest

from artifact_fixtures import make_zip
from mcp_client import connect
from reconstruction_fixtures import FILES, _call, _claim, _spec, canonical_sha256, coverage_requests, inspect_each, ref
from support import clean_env, rea_command


def digest(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def revision(data: dict[str, Any], number: int, previous: str | None, name: str = "rebuild") -> dict[str, Any]:
    """A 3.1 workspace revision of the coverage data: id and digest as the reference defines them."""
    data = {k: v for k, v in data.items() if k != "revision_sha256"}
    doc = {**data, "schema_version": 1, "name": name, "revision": number, "previous_revision_sha256": previous,
           "workspace_id": "rcw_" + digest({"name": name, "schema": "rea.reconstruction-coverage-workspace/v1"})}  # fmt: skip
    return {**doc, "revision_sha256": digest(doc)}


def reference(doc: dict[str, Any], boundary: str = "release") -> dict[str, Any]:
    return {"workspace_id": doc["workspace_id"], "revision": doc["revision"], "revision_sha256": doc["revision_sha256"],
            "boundary_id": boundary}  # fmt: skip


def fresh(data: dict[str, Any], max_age_ms: int) -> dict[str, Any]:
    """The data with a verifier result observed now under a contract of the given age bound."""
    contract = {k: v for k, v in data["verifier_contracts"][0].items() if k != "contract_sha256"}
    contract = {**contract, "max_age_ms": max_age_ms}
    contract["contract_sha256"] = canonical_sha256(contract)
    result = {**data["verifier_results"][0], "contract_sha256": contract["contract_sha256"],
              "observed_at": datetime.now(UTC).isoformat()}  # fmt: skip
    return {**data, "verifier_contracts": [contract], "verifier_results": [result]}


async def _produce(root: Path) -> dict[str, Any]:
    zips = [make_zip(root / "v1.zip", FILES), make_zip(root / "v1-copy.zip", FILES),
            make_zip(root / "other.zip", {"b.txt": b"beta\n"})]  # fmt: skip
    out: dict[str, Any] = {}
    async with connect() as s:
        inspected = await inspect_each(s, zips)
        same = await _call(s, "compare_artifacts", {"left": ref(inspected[0]), "right": ref(inspected[1])})
        await _call(s, "record_unknown", {"question": "Is v1 the shipped archive?", "domain": "artifact",
                                          "severity": "low", "supporting_evidence_ids": [inspected[2]["evidence_id"]]})  # fmt: skip
        await _call(s, "export_evidence_bundle", {"path": str(root / "bundle.json")})
        bundle = json.loads((root / "bundle.json").read_text())
        data = coverage_requests(bundle, {"inventory": inspected[0], "same": same})["ready"]
        spec = _spec(_claim("archive-same", same, "structural-artifact"))
        one = revision(fresh(data, 3_600_000), 1, None)
        two = revision({**one, "verifier_results": [{**one["verifier_results"][0], "status": "fail"}]}, 2,
                       one["revision_sha256"])  # fmt: skip
        brief = revision(fresh(data, 2_000), 3, two["revision_sha256"])
        out.update(one=one, two=two, same=same)
        for name, doc in (("evaluated_one", one), ("evaluated_two", two), ("evaluated_brief", brief)):
            out[name] = await _call(s, "evaluate_reconstruction_coverage", {"coverage": doc, "boundary_id": "release"})
        out["verified"] = await _call(s, "verify_reconstruction", {**spec, "coverage": reference(one)})
        out["not_ready"] = await _call(s, "verify_reconstruction", {**spec, "coverage": reference(two)})
        out["unretained"] = await _call(s, "verify_reconstruction", {**spec, "coverage": {
            **reference(one), "revision_sha256": "0" * 64}})  # fmt: skip
        out["no_boundary"] = await _call(s, "verify_reconstruction", {**spec, "coverage": reference(one, "nowhere")})
        out["forged_id"] = await _call(s, "evaluate_reconstruction_coverage", {
            "coverage": {**one, "workspace_id": "rcw_" + "0" * 64}, "boundary_id": "release"})  # fmt: skip
        out["forged_digest"] = await _call(s, "evaluate_reconstruction_coverage", {
            "coverage": {**one, "revision": 5}, "boundary_id": "release"})  # fmt: skip
        out["half_named"] = await _call(s, "evaluate_reconstruction_coverage", {
            "coverage": {**data, "name": "rebuild"}, "boundary_id": "release"})  # fmt: skip
        time.sleep(2.5)  # the brief revision's verifier result is now older than its contract allows
        out["stale"] = await _call(s, "verify_reconstruction", {**spec, "coverage": reference(brief)})
        out["spec"] = spec
    return out


@pytest.fixture(scope="module")
def produced(tmp_path_factory):
    return anyio.run(_produce, tmp_path_factory.mktemp("workspace"))


def test_an_evaluated_revision_names_its_digest(produced):
    assert produced["evaluated_one"]["normalized_result"]["status"] == "ready"
    assert (
        produced["evaluated_one"]["normalized_result"]["workspace_revision_sha256"]
        == produced["one"]["revision_sha256"]
    )
    assert produced["evaluated_two"]["normalized_result"]["status"] == "failed"
    named = produced["evaluated_one"]["parameters"]["coverage"]
    assert (named["workspace_id"], named["revision"]) == (produced["one"]["workspace_id"], 1)
    assert set(named["evidence_bundle"]) == {"bundle_sha256", "records", "unknowns"}  # the bundle is not repeated


def test_a_ready_boundary_lets_verification_proceed_citing_it(produced):
    verified = produced["verified"]
    assert verified["normalized_result"]["status"] == "pass"
    assert produced["evaluated_one"]["evidence_id"] in verified["evidence_links"]
    (note,) = [x for x in verified["normalized_result"]["limitations"] if x.startswith("Coverage boundary release")]
    assert produced["evaluated_one"]["evidence_id"] in note and "was ready" in note


def test_a_boundary_not_ready_now_refuses_the_verification(produced):
    failed = produced["not_ready"]["error"]
    assert failed["code"] == "evidence_integrity_mismatch" and failed["details"]["status"] == "failed"
    assert "verifier-failed" in failed["details"]["reason_codes"]
    assert failed["details"]["coverage_evidence_id"] == produced["evaluated_two"]["evidence_id"]
    # ready when evaluated, stale when verified: the boundary is judged at the time of the verification
    assert produced["evaluated_brief"]["normalized_result"]["status"] == "ready"
    stale = produced["stale"]["error"]
    assert stale["details"]["status"] == "unknown" and "verifier-result-stale" in stale["details"]["reason_codes"]


def test_an_unresolvable_reference_is_refused_with_the_remedy(produced):
    missing = produced["unretained"]["error"]
    assert missing["code"] == "evidence_integrity_mismatch" and missing["details"]["field"] == "coverage"
    assert "evaluate_reconstruction_coverage" in missing["remediation"]["action"]
    nowhere = produced["no_boundary"]["error"]
    assert nowhere["code"] == "invalid_request" and nowhere["details"]["field"] == "coverage.boundary_id"


def test_a_forged_revision_is_refused_naming_the_field(produced):
    assert produced["forged_id"]["error"]["details"]["field"] == "coverage.workspace_id"
    assert produced["forged_digest"]["error"]["details"]["field"] == "coverage.revision_sha256"
    assert produced["half_named"]["error"]["details"]["field"] == "coverage.workspace_id"


def test_the_cli_refuses_a_reference_a_fresh_process_cannot_resolve(produced):
    args = {**produced["spec"], "coverage": reference(produced["one"])}
    done = subprocess.run([*rea_command(), "call", "verify_reconstruction", "--json-args", json.dumps(args),
                           "--format", "json"], capture_output=True, text=True, env=clean_env(), timeout=120)  # fmt: skip
    assert done.returncode != 0
    error = json.loads(done.stdout)["error"]
    assert error["code"] == "evidence_integrity_mismatch" and produced["one"]["workspace_id"] in error["message"]
