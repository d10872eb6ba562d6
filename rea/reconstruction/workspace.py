"""REA 3.1 coverage workspaces: a revision's identity, and verify_reconstruction's readiness gate on one.

A 3.1 workspace revision is coverage data that names itself: `workspace_id` is `rcw_` + the canonical
SHA-256 of {schema, name}, and `revision_sha256` the canonical SHA-256 of the whole revision without
that field, so a revision cannot be edited after the fact. This server keeps no workspace store: a
revision becomes known to a session when evaluate_reconstruction_coverage evaluates it, and the
Evidence it records (parameters: the coverage with its bundle digested; result: the revision digest)
is what verify_reconstruction's `coverage` reference resolves against. The named boundary is
evaluated again at the time of the verification (a verifier result may have gone stale since), and
verification proceeds only when it is ready, as the reference requires.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs
from returns.result import Result

from rea.canonical_json import canonical_sha256
from rea.errors import ReaError, invalid_request
from rea.evidence import Evidence
from rea.reconstruction.coverage import cited_evidence, evaluate
from rea.reconstruction.records.claims import CoverageRef
from rea.reconstruction.records.coverage import Closure, CoverageData
from rea.reconstruction.refusal import attempt, refuse, value
from rea.wire.convert import structure

SCHEMA = "rea.reconstruction-coverage-workspace/v1"
IDENTITY = ("schema_version", "workspace_id", "name", "revision", "previous_revision_sha256", "revision_sha256")
NAMED = ("workspace_id", "name", "revision", "revision_sha256")
OPERATION = "evaluate_reconstruction_coverage"


@attrs.frozen(kw_only=True)
class Revision:
    workspace_id: str
    revision: int
    revision_sha256: str


def workspace_id(name: str) -> str:
    return "rcw_" + canonical_sha256({"schema": SCHEMA, "name": name})


def identify(raw: Mapping[str, Any], data: CoverageData) -> Result[Revision | None, ReaError]:
    """The revision a coverage document names (None: it names none), its id and digest recomputed."""
    return attempt(lambda: _identify(raw, data))


def _identify(raw: Mapping[str, Any], data: CoverageData) -> Revision | None:
    if not any(k in raw for k in IDENTITY):
        return None
    missing = [k for k in NAMED if getattr(data, k) is None]
    if missing:
        refuse(invalid_request(f"a coverage workspace revision names {', '.join(NAMED)}; {missing[0]} is missing",
                               field=f"coverage.{missing[0]}", accepted="all four, or none (plain coverage data)"))  # fmt: skip
    name, revision, digest = str(data.name), int(data.revision or 0), str(data.revision_sha256)
    if data.workspace_id != workspace_id(name):
        refuse(invalid_request(f"workspace_id {data.workspace_id} is not the id of the workspace named {data.name!r}",
                               field="coverage.workspace_id", accepted=f"rcw_ + canonical SHA-256 of {{schema: {SCHEMA}, name}}"))  # fmt: skip
    if digest != canonical_sha256({k: v for k, v in raw.items() if k != "revision_sha256"}):
        refuse(invalid_request("revision_sha256 is not the digest of this workspace revision",
                               field="coverage.revision_sha256",
                               accepted="the canonical SHA-256 of the revision without revision_sha256"))  # fmt: skip
    return Revision(workspace_id=str(data.workspace_id), revision=revision, revision_sha256=digest)


def evaluation_of(records: Mapping[str, Evidence], ref: CoverageRef) -> Evidence | None:
    """The retained evaluate_reconstruction_coverage Evidence of exactly this workspace revision, if any."""
    for evidence in sorted(records.values(), key=lambda e: e.evidence_id):
        coverage = evidence.parameters.get("coverage") if evidence.operation == OPERATION else None
        result = evidence.normalized_result
        if not isinstance(coverage, Mapping) or not isinstance(result, Mapping):
            continue
        if (coverage.get("workspace_id"), coverage.get("revision"), result.get("workspace_revision_sha256")) == (
            ref.workspace_id, ref.revision, ref.revision_sha256):  # fmt: skip
            return evidence
    return None


def unresolved(ref: CoverageRef) -> ReaError:
    return ReaError(
        code="evidence_integrity_mismatch",
        message=f"The reconstruction coverage revision {ref.workspace_id} revision {ref.revision} "
        f"({ref.revision_sha256}) is not retained by this session: no evaluate_reconstruction_coverage "
        "Evidence evaluated it.",
        details={"field": "coverage", "workspace_id": ref.workspace_id, "revision": ref.revision},
        action="Evaluate that workspace revision in this session with evaluate_reconstruction_coverage (the "
        "revision document as coverage), then verify again; or omit coverage.",
    )


def readiness(evidence: Evidence, ref: CoverageRef, now_ms: int) -> Result[Closure, ReaError]:
    """The referenced boundary evaluated now from the retained revision; a boundary that is not ready refuses."""
    return attempt(lambda: _readiness(evidence, ref, now_ms))


def _readiness(evidence: Evidence, ref: CoverageRef, now_ms: int) -> Closure:
    # the retained parameters hold the revision with its bundle digested; its references were checked against
    # the bundle when the Evidence was recorded, so the ids it cites are the ids known here
    data = value(structure(evidence.parameters["coverage"], CoverageData))
    ids, unknowns = cited_evidence(data), set(data.residual_unknown_ids)
    closure = value(evaluate(data, ref.boundary_id, ids, unknowns, now_ms).alt(
        lambda err: err.with_details(field="coverage.boundary_id")))  # fmt: skip
    if closure.status != "ready":
        codes = sorted({r.code for r in closure.reasons})
        refuse(ReaError(
            code="evidence_integrity_mismatch",
            message=f"Reconstruction coverage boundary {ref.boundary_id} is {closure.status}; verification "
            f"requires ready (open: {', '.join(codes[:10])}).",
            details={"field": "coverage.boundary_id", "status": closure.status, "reason_codes": codes,
                     "coverage_evidence_id": evidence.evidence_id},
            action="Close the reasons evaluate_reconstruction_coverage lists for this boundary (each names a "
            "probe), evaluate the new revision, and verify against it; or omit coverage.",
        ))  # fmt: skip
    return closure
