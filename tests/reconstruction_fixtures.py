"""The reconstruction family's shared test steps: the files a reconstruction claims, the calls that inspect each,
the claims and their coverage requests, and a process comparison to reconcile against."""

from __future__ import annotations

import json
from datetime import UTC
from pathlib import Path
from typing import Any

from rea.canonical_json import canonical_sha256
from rea.evidence import Provider, create_evidence

FILES = {"a.txt": b"alpha\n", "lib/tool.sh": b"#!/bin/sh\necho 1\n"}


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


async def inspect_each(s: Any, paths: list[Path]) -> list[dict[str, Any]]:
    """Each file opened and inspected in turn: its inspect_artifact reply."""
    inspected = []
    for path in paths:
        await _call(s, "open_binary", {"path": str(path)})
        inspected.append(await _call(s, "inspect_artifact", {}))
    return inspected


def _claim(claim_id: str, comparison: dict[str, Any], kind: str, dimension: str = "overall") -> dict[str, Any]:
    return {"claim_id": claim_id, "title": claim_id, "comparison_evidence_id": comparison["evidence_id"],
            "kind": kind, "dimension": dimension}  # fmt: skip


def _spec(*claims: dict[str, Any]) -> dict[str, Any]:
    return {"specification": {"schema_version": 1, "name": "rebuild", "claims": list(claims)}}


def coverage_requests(bundle: dict[str, Any], c: dict[str, Any]) -> dict[str, dict[str, Any]]:
    original, same = c["inventory"], c["same"]["evidence_id"]
    sha = original["subject"]["digest"]["sha256"]
    contract = {"verifier_id": "cli.check", "claim_ids": ["pack"], "dimensions": ["overall"],
                "authority": "shipped-artifact", "max_age_ms": 3_600_000, "minimum_repeats": 1,
                "normalization_sha256": "d" * 64, "normalization_removes_dimensions": False}  # fmt: skip
    contract["contract_sha256"] = canonical_sha256(contract)
    from datetime import datetime

    result = {"verifier_id": "cli.check", "contract_sha256": contract["contract_sha256"],
              "observed_at": datetime.now(UTC).isoformat(), "status": "pass", "covered_claim_ids": ["pack"],
              "covered_dimensions": ["overall"], "artifact_sha256s": [sha], "owner_sha256s": ["c" * 64],
              "normalization_sha256": "d" * 64, "repeats": 1, "evidence_ids": [same]}  # fmt: skip
    data = {
        "evidence_bundle": bundle,
        "artifacts": [{"artifact_id": "v1", "artifact_sha256": sha, "version": "1", "environment_sha256": "e" * 64,
                       "evidence_ids": [original["evidence_id"]]}],
        "surfaces": [{"surface_id": "archive", "family": "zip", "artifact_id": "v1", "occurrence_id": None,
                      "location": "a.txt", "authority": "observed", "dependency_surface_ids": [],
                      "evidence_ids": [original["evidence_id"]]}],
        "owners": [{"surface_id": "archive", "ownership": {"disposition": "implemented", "owner_path": "src/pack.py",
                    "owner_export": "pack", "owner_sha256": "c" * 64, "path_state": "present",
                    "package_state": "distributed", "authority_route": "none"}}],
        "claims": [{"claim_id": "pack", "title": "Same archive", "kind": "structural", "surface_ids": ["archive"],
                    "required_dimensions": ["overall"], "required_authority": "shipped-artifact"}],
        "verifier_contracts": [contract],
        "verifier_results": [result],
        "residual_unknown_ids": [],
        "contradictions": [],
        "package_proofs": [{"proof_id": "build", "kind": "build", "status": "pass", "artifact_sha256s": [sha],
                            "evidence_ids": [same]}],
        "boundaries": [{"boundary_id": "release", "title": "Release", "required_surface_ids": ["archive"],
                        "required_claim_ids": ["pack"], "required_package_proof_kinds": ["build"],
                        "allowed_dispositions": [], "allowed_unknown_ids": []}],
    }  # fmt: skip
    unknown_id = bundle["unknowns"][0]["unknown_id"]
    return {
        "ready": data,
        "coverage_unknown": {**data, "residual_unknown_ids": [unknown_id]},
        "coverage_failed": {**data, "verifier_results": [{**result, "status": "fail"}],
                            "residual_unknown_ids": [unknown_id]},
        "coverage_partial": {**data, "package_proofs": []},
        "coverage_forged_contract": {**data, "verifier_contracts": [{**contract, "minimum_repeats": 2}]},
        "coverage_dangling": {**data, "artifacts": [{**data["artifacts"][0], "evidence_ids": [MISSING]}]},
    }  # fmt: skip


MISSING = "ev_" + "a" * 64
