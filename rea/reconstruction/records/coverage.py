"""Wire records of evaluate_reconstruction_coverage (REA 6.x: inline coverage data and one named boundary).

The coverage data is the caller's inventory of what a reconstruction must cover (artifacts,
surfaces, owners, finite claims, verifier contracts and their results, residual unknowns,
contradictions, package proofs) with the Evidence bundle every cited Evidence id must be in.
"""

from __future__ import annotations

from typing import Literal

import attrs

from rea.reconstruction.records.common import EVIDENCE_ID, SHA256, STABLE_ID
from rea.wire.schema import Open, field

WORKSPACE_ID = "^rcw_[a-f0-9]{64}$"
Authority = Literal["shipped-artifact", "controlled-replay", "live-observation", "external"]
ProofKind = Literal["build", "clean-install", "package-contents", "runtime-routing", "authority-independence"]
ReasonCode = Literal[
    "surface-missing", "owner-missing", "owner-duplicate", "owner-path-missing", "owner-path-unknown",
    "owner-undistributed", "owner-distribution-unknown", "authority-routing-detected", "authority-routing-unknown",
    "disposition-not-allowed", "dependency-surface-missing", "claim-missing", "verifier-missing",
    "verifier-duplicate", "verifier-result-missing", "verifier-result-stale", "verifier-result-incompatible",
    "verifier-failed", "verifier-unknown", "active-unknown", "active-contradiction", "package-proof-missing",
    "package-proof-failed", "package-proof-unknown",
]  # fmt: skip


def _ids(description: str, pattern: str = STABLE_ID, **bounds: int) -> tuple[str, ...]:
    return field(description, schema={"type": "array", "items": {"type": "string", "pattern": pattern}, **bounds})  # type: ignore[no-any-return]


@attrs.frozen(kw_only=True)
class CoverageArtifact:
    artifact_id: str = field("", pattern=STABLE_ID)
    artifact_sha256: str = field("", pattern=SHA256)
    version: str = field("", minLength=1, maxLength=500)
    environment_sha256: str = field("", pattern=SHA256)
    evidence_ids: tuple[str, ...] = _ids("Evidence observing it", EVIDENCE_ID, minItems=1)


@attrs.frozen(kw_only=True)
class Surface:
    surface_id: str = field("", pattern=STABLE_ID)
    family: str = field("", minLength=1, maxLength=100)
    artifact_id: str = field("", pattern=STABLE_ID)
    occurrence_id: str | None = field("")
    location: str = field("", minLength=1, maxLength=4096)
    authority: Literal["observed", "derived", "inferred", "historical", "external"] = field("")
    dependency_surface_ids: tuple[str, ...] = _ids("Surfaces it depends on")
    evidence_ids: tuple[str, ...] = _ids("", EVIDENCE_ID, minItems=1)


@attrs.frozen(kw_only=True)
class Ownership:
    disposition: Literal["implemented", "external", "non-goal"] = field(
        "implemented: owner_path, owner_export, owner_sha256, path_state, package_state and authority_route; "
        "external or non-goal: rationale"
    )
    owner_path: str | None = field("", default=None, omit_none=True, minLength=1, maxLength=4096)
    owner_export: str | None = field("", default=None, omit_none=True)
    owner_sha256: str | None = field("", default=None, omit_none=True, pattern=SHA256)
    path_state: Literal["present", "missing", "unknown"] | None = field("", default=None, omit_none=True)
    package_state: Literal["distributed", "missing", "unknown"] | None = field("", default=None, omit_none=True)
    authority_route: Literal["none", "detected", "unknown"] | None = field("", default=None, omit_none=True)
    rationale: str | None = field("", default=None, omit_none=True, minLength=1, maxLength=4096)


@attrs.frozen(kw_only=True)
class Owner:
    surface_id: str = field("", pattern=STABLE_ID)
    ownership: Ownership = field("")


@attrs.frozen(kw_only=True)
class CoverageClaim:
    claim_id: str = field("", pattern=STABLE_ID)
    title: str = field("", minLength=1, maxLength=500)
    kind: str = field("", minLength=1, maxLength=100)
    surface_ids: tuple[str, ...] = _ids("", minItems=1)
    required_dimensions: tuple[str, ...] = _ids("", minItems=1)
    required_authority: Authority = field("")


@attrs.frozen(kw_only=True)
class VerifierContract:
    verifier_id: str = field("", pattern=STABLE_ID)
    claim_ids: tuple[str, ...] = _ids("", minItems=1)
    dimensions: tuple[str, ...] = _ids("", minItems=1)
    authority: Authority = field("")
    max_age_ms: int = field("", minimum=1)
    minimum_repeats: int = field("", minimum=1, maximum=1000)
    normalization_sha256: str = field("", pattern=SHA256)
    normalization_removes_dimensions: Literal[False] = field("Normalization may not remove a dimension")
    contract_sha256: str = field("Canonical SHA-256 of the other fields", pattern=SHA256)


@attrs.frozen(kw_only=True)
class VerifierResult:
    verifier_id: str = field("", pattern=STABLE_ID)
    contract_sha256: str = field("", pattern=SHA256)
    observed_at: str = field("RFC 3339 time with offset", minLength=1)
    status: Literal["pass", "fail", "unknown", "unsupported", "truncated", "skipped"] = field("")
    covered_claim_ids: tuple[str, ...] = _ids("", minItems=1)
    covered_dimensions: tuple[str, ...] = _ids("", minItems=1)
    artifact_sha256s: tuple[str, ...] = _ids("", SHA256, minItems=1)
    owner_sha256s: tuple[str, ...] = _ids("", SHA256)
    normalization_sha256: str = field("", pattern=SHA256)
    repeats: int = field("", minimum=1, maximum=1000)
    evidence_ids: tuple[str, ...] = _ids("", EVIDENCE_ID, minItems=1)


@attrs.frozen(kw_only=True)
class Contradiction:
    contradiction_id: str = field("", pattern=STABLE_ID)
    status: Literal["active", "resolved"] = field("")
    surface_ids: tuple[str, ...] = _ids("")
    claim_ids: tuple[str, ...] = _ids("")
    evidence_ids: tuple[str, ...] = _ids("", EVIDENCE_ID, minItems=2)


@attrs.frozen(kw_only=True)
class PackageProof:
    proof_id: str = field("", pattern=STABLE_ID)
    kind: ProofKind = field("")
    status: Literal["pass", "fail", "unknown", "unsupported", "skipped"] = field("")
    artifact_sha256s: tuple[str, ...] = _ids("", SHA256, minItems=1)
    evidence_ids: tuple[str, ...] = _ids("", EVIDENCE_ID, minItems=1)


@attrs.frozen(kw_only=True)
class Boundary:
    boundary_id: str = field("", pattern=STABLE_ID)
    title: str = field("", minLength=1, maxLength=500)
    required_surface_ids: tuple[str, ...] = _ids("", minItems=1)
    required_claim_ids: tuple[str, ...] = _ids("", minItems=1)
    required_package_proof_kinds: tuple[ProofKind, ...] = field("", minItems=1, maxItems=5)
    allowed_dispositions: tuple[Literal["external", "non-goal"], ...] = field("", maxItems=2)
    allowed_unknown_ids: tuple[str, ...] = _ids("")


@attrs.frozen(kw_only=True)
class CoverageData:
    evidence_bundle: Open = field(
        "An exported Evidence bundle (export_evidence_bundle): every cited Evidence and unknown id must be in it",
        schema={"type": "object"},
    )
    artifacts: tuple[CoverageArtifact, ...] = field("")
    surfaces: tuple[Surface, ...] = field("")
    owners: tuple[Owner, ...] = field("")
    claims: tuple[CoverageClaim, ...] = field("")
    verifier_contracts: tuple[VerifierContract, ...] = field("")
    verifier_results: tuple[VerifierResult, ...] = field("")
    residual_unknown_ids: tuple[str, ...] = _ids("Active residual unknowns")
    contradictions: tuple[Contradiction, ...] = field("")
    package_proofs: tuple[PackageProof, ...] = field("")
    boundaries: tuple[Boundary, ...] = field("")
    # a REA 3.1 coverage workspace revision names itself; its identity is checked (rea.reconstruction.workspace)
    schema_version: Literal[1] | None = field("3.1 workspace schema version", default=None, omit_none=True)
    workspace_id: str | None = field("3.1 workspace id", default=None, omit_none=True, pattern=WORKSPACE_ID)
    name: str | None = field("3.1 workspace name", default=None, omit_none=True, minLength=1, maxLength=200)
    revision: int | None = field("3.1 workspace revision", default=None, omit_none=True, minimum=1)
    previous_revision_sha256: str | None = field("", default=None, omit_none=True, pattern=SHA256)
    revision_sha256: str | None = field("3.1 revision digest", default=None, omit_none=True, pattern=SHA256)


_COVERAGE = (
    "The coverage data, inline (checked in full server-side; a malformed part is refused naming it): "
    "{evidence_bundle (an exported bundle holding every cited Evidence and unknown id), artifacts [{artifact_id, "
    "artifact_sha256, version, environment_sha256, evidence_ids}], surfaces [{surface_id, family, artifact_id, "
    "occurrence_id, location, authority, dependency_surface_ids, evidence_ids}], owners [{surface_id, ownership "
    "{disposition implemented: owner_path, owner_export, owner_sha256, path_state, package_state, authority_route; "
    "external or non-goal: rationale}}], claims [{claim_id, title, kind, surface_ids, required_dimensions, "
    "required_authority}], verifier_contracts [{verifier_id, claim_ids, dimensions, authority, max_age_ms, "
    "minimum_repeats, normalization_sha256, normalization_removes_dimensions: false, contract_sha256 (canonical "
    "SHA-256 of the other fields)}], verifier_results [{verifier_id, contract_sha256, observed_at, status, "
    "covered_claim_ids, covered_dimensions, artifact_sha256s, owner_sha256s, normalization_sha256, repeats, "
    "evidence_ids}], residual_unknown_ids, contradictions [{contradiction_id, status, surface_ids, claim_ids, "
    "evidence_ids}], package_proofs [{proof_id, kind, status, artifact_sha256s, evidence_ids}], boundaries "
    "[{boundary_id, title, required_surface_ids, required_claim_ids, required_package_proof_kinds, "
    "allowed_dispositions, allowed_unknown_ids}]}"
)


@attrs.frozen(kw_only=True)
class CoverageArgs:
    """Advertised in a reduced form, as the reference does for this tool (CoverageData is the full shape)."""

    coverage: Open = field(_COVERAGE, schema={"type": "object"})
    boundary_id: str = field("The boundary to evaluate", minLength=1)


@attrs.frozen(kw_only=True)
class Reason:
    code: ReasonCode = field("")
    subject_id: str = field("The surface, claim, unknown, contradiction or proof kind", minLength=1)
    detail: str = field("", minLength=1)


@attrs.frozen(kw_only=True)
class CoverageProbe:
    operation: str = field("What would close it", minLength=1)
    subject_id: str = field("", minLength=1)
    rationale: str = field("", minLength=1)


@attrs.frozen(kw_only=True)
class CoverageSummary:
    required_surfaces: int = field("", minimum=0)
    required_claims: int = field("", minimum=0)
    reasons: int = field("", minimum=0)


@attrs.frozen(kw_only=True)
class Closure:
    boundary_id: str = field("", minLength=1)
    status: Literal["ready", "partial", "unknown", "failed"] = field(
        "ready: nothing open (complete closure); failed: a failure reason; unknown: an unresolved one; partial: "
        "only missing coverage"
    )
    summary: CoverageSummary = field("")
    reasons: tuple[Reason, ...] = field("Every reason the boundary is not ready, sorted by code and subject")
    recommended_probes: tuple[CoverageProbe, ...] = field("One per reason, the first 100")
    evidence_ids: tuple[str, ...] = _ids("The Evidence the evaluation read", EVIDENCE_ID)
    evaluated_at_ms: int = field("When staleness was judged (epoch ms; extra)", minimum=0)
    workspace_revision_sha256: str | None = field(
        "The 3.1 workspace revision evaluated (extra; null: the coverage named no workspace)", pattern=SHA256
    )
    limitations: tuple[str, ...] = field("What ready does not mean (extra)")
