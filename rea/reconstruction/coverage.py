"""evaluate_reconstruction_coverage: one named boundary of a reconstruction judged against its coverage data.

Closure is fail-closed. Every required surface needs exactly one owner (or a disposition the
boundary allows); every required claim exactly one verifier contract whose latest result is
compatible, fresh and passing; every required package-proof kind a passing proof; and no active
unknown or contradiction may touch the boundary. Each shortfall is a reason; the status is
the worst reason's class (rea.reconstruction.closure), `ready` only when there is none.
The data is checked first: a duplicate id, a reference to nothing, a contract whose digest
does not match its fields, or an Evidence/unknown id absent from the bundle is refused, naming it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import attrs
from returns.result import Result

from rea.canonical_json import canonical_sha256
from rea.errors import ReaError, invalid_request
from rea.reconstruction.closure import coverage_status, probe_operation
from rea.reconstruction.records.coverage import (
    Boundary,
    Closure,
    CoverageClaim,
    CoverageData,
    CoverageProbe,
    CoverageSummary,
    Reason,
    ReasonCode,
    VerifierContract,
    VerifierResult,
)
from rea.reconstruction.refusal import attempt, refuse
from rea.reconstruction.rfc3339 import epoch_ms
from rea.wire.convert import to_wire

LIMITATIONS = (
    "Closure is judged on the supplied coverage data only: a surface or claim it does not declare is not covered.",
    "ready means no reason is open for this boundary; it does not establish equivalence of the whole.",
)
OWNER_DETAIL = {
    "owner-path-missing": "The owner's path is missing.",
    "owner-path-unknown": "The owner's path was not checked.",
    "owner-undistributed": "The owner is not in the distributable.",
    "owner-distribution-unknown": "Whether the owner is distributed is unknown.",
    "authority-routing-detected": "The reconstructed owner routes into the original (authority).",
    "authority-routing-unknown": "Independence from the original (authority) is not established.",
}


def contract_digest(contract: VerifierContract) -> str:
    """The digest a verifier contract carries: canonical SHA-256 of its other fields."""
    wire = to_wire(contract)
    return canonical_sha256({k: v for k, v in wire.items() if k != "contract_sha256"})


def _unique(values: Iterable[str], field: str) -> set[str]:
    seen: set[str] = set()
    for v in values:
        if v in seen:
            refuse(
                invalid_request(f"{field} {v!r} is declared twice", field=f"coverage.{field}", accepted="unique ids")
            )
        seen.add(v)
    return seen


def _present(ids: Iterable[str], known: set[str], where: str, what: str) -> None:
    for i in ids:
        if i not in known:
            refuse(invalid_request(f"{where} cites {i}, which is not {what}", field=f"coverage.{where}",
                                   accepted=f"ids of {what}"))  # fmt: skip


def _cited(data: CoverageData) -> list[str]:
    return [*(i for a in data.artifacts for i in a.evidence_ids), *(i for s in data.surfaces for i in s.evidence_ids),
            *(i for r in data.verifier_results for i in r.evidence_ids),
            *(i for c in data.contradictions for i in c.evidence_ids),
            *(i for p in data.package_proofs for i in p.evidence_ids)]  # fmt: skip


def cited_evidence(data: CoverageData) -> set[str]:
    """Every Evidence id the coverage data cites."""
    return set(_cited(data))


def check(data: CoverageData, evidence_ids: set[str], unknown_ids: set[str]) -> None:
    """Refuse coverage data whose parts do not reference each other and the bundle exactly."""
    artifacts = _unique((a.artifact_id for a in data.artifacts), "artifacts.artifact_id")
    surfaces = _unique((s.surface_id for s in data.surfaces), "surfaces.surface_id")
    claims = _unique((c.claim_id for c in data.claims), "claims.claim_id")
    contracts = _unique((c.verifier_id for c in data.verifier_contracts), "verifier_contracts.verifier_id")
    for name, ids in (("contradictions.contradiction_id", (c.contradiction_id for c in data.contradictions)),
                      ("package_proofs.proof_id", (p.proof_id for p in data.package_proofs)),
                      ("boundaries.boundary_id", (b.boundary_id for b in data.boundaries))):  # fmt: skip
        _unique(ids, name)
    for c in data.verifier_contracts:
        if c.contract_sha256 != contract_digest(c):
            refuse(invalid_request(f"verifier contract {c.verifier_id} does not match its contract_sha256",
                                   field="coverage.verifier_contracts.contract_sha256",
                                   accepted="the canonical SHA-256 of the contract's other fields"))  # fmt: skip
    _present((s.artifact_id for s in data.surfaces), artifacts, "surfaces.artifact_id", "a declared artifact")
    _present((o.surface_id for o in data.owners), surfaces, "owners.surface_id", "a declared surface")
    _present((i for c in data.claims for i in c.surface_ids), surfaces, "claims.surface_ids", "a declared surface")
    _present(
        (i for c in data.verifier_contracts for i in c.claim_ids),
        claims,
        "verifier_contracts.claim_ids",
        "a declared claim",
    )
    _present(
        (r.verifier_id for r in data.verifier_results), contracts, "verifier_results.verifier_id", "a verifier contract"
    )
    _present(_cited(data), evidence_ids, "evidence_ids", "a record of coverage.evidence_bundle")
    _present(data.residual_unknown_ids, unknown_ids, "residual_unknown_ids", "an unknown of coverage.evidence_bundle")
    for r in data.verifier_results:
        _moment(r.observed_at, r.verifier_id)


def _moment(text: str, verifier_id: str) -> int:
    moment = epoch_ms(text)
    if moment is None:
        refuse(invalid_request(f"verifier result {verifier_id} has observed_at {text!r}",
                               field="coverage.verifier_results.observed_at",
                               accepted="an RFC 3339 time with an offset, e.g. 2026-12-01T10:00:00Z"))  # fmt: skip
    return moment


@attrs.define
class _Judge:
    data: CoverageData
    boundary: Boundary
    now_ms: int
    reasons: list[Reason] = attrs.field(factory=list)
    evidence: set[str] = attrs.field(factory=set)

    def reason(self, code: ReasonCode, subject: str, detail: str) -> None:
        self.reasons.append(Reason(code=code, subject_id=subject, detail=detail))

    def surfaces(self) -> None:
        by_id = {s.surface_id: s for s in self.data.surfaces}
        for sid in self.boundary.required_surface_ids:
            surface = by_id.get(sid)
            if surface is None:
                self.reason("surface-missing", sid, "The required surface is not in the inventory.")
                continue
            self.evidence.update(surface.evidence_ids)
            for dep in surface.dependency_surface_ids:
                if dep not in by_id:
                    self.reason(
                        "dependency-surface-missing", sid, f"It depends on {dep}, which is not in the inventory."
                    )
            self.owner(sid)

    def owner(self, sid: str) -> None:
        owners = [o.ownership for o in self.data.owners if o.surface_id == sid]
        if len(owners) != 1:
            code: ReasonCode = "owner-missing" if not owners else "owner-duplicate"
            self.reason(code, sid, "No owner or disposition." if not owners else "Conflicting owners are declared.")
            return
        own = owners[0]
        if own.disposition != "implemented":
            if own.disposition not in self.boundary.allowed_dispositions:
                self.reason("disposition-not-allowed", sid, f"{own.disposition} is not allowed by this boundary.")
            return
        checks: tuple[tuple[bool, ReasonCode], ...] = (
            (own.path_state != "present", "owner-path-missing" if own.path_state == "missing" else "owner-path-unknown"),
            (own.package_state != "distributed",
             "owner-undistributed" if own.package_state == "missing" else "owner-distribution-unknown"),
            (own.authority_route != "none",
             "authority-routing-detected" if own.authority_route == "detected" else "authority-routing-unknown"),
        )  # fmt: skip
        for failing, code in checks:
            if failing:
                self.reason(code, sid, OWNER_DETAIL[code])

    def claims(self) -> None:
        by_id = {c.claim_id: c for c in self.data.claims}
        for cid in self.boundary.required_claim_ids:
            claim = by_id.get(cid)
            if claim is None:
                self.reason("claim-missing", cid, "The required claim is not declared.")
                continue
            contracts = [c for c in self.data.verifier_contracts if cid in c.claim_ids]
            if len(contracts) != 1:
                code: ReasonCode = "verifier-missing" if not contracts else "verifier-duplicate"
                self.reason(
                    code, cid, "No verifier contract covers it." if not contracts else "Several verifiers claim it."
                )
                continue
            self.result(claim, contracts[0])

    def result(self, claim: CoverageClaim, contract: VerifierContract) -> None:
        results = [r for r in self.data.verifier_results if r.verifier_id == contract.verifier_id]
        if not results:
            self.reason("verifier-result-missing", claim.claim_id, "The verifier has no recorded result.")
            return
        latest = max(results, key=lambda r: _moment(r.observed_at, r.verifier_id))
        self.evidence.update(latest.evidence_ids)
        age = self.now_ms - _moment(latest.observed_at, latest.verifier_id)
        if not self.compatible(claim, contract, latest):
            self.reason("verifier-result-incompatible", claim.claim_id,
                        "The latest result does not match the contract, artifacts, owners, dimensions or repeats.")  # fmt: skip
        elif age < 0 or age > contract.max_age_ms:
            self.reason(
                "verifier-result-stale",
                claim.claim_id,
                f"The latest result is {age} ms old (max {contract.max_age_ms}).",
            )
        elif latest.status == "fail":
            self.reason("verifier-failed", claim.claim_id, "The latest compatible result failed.")
        elif latest.status != "pass":
            self.reason("verifier-unknown", claim.claim_id, f"The latest compatible result is {latest.status}.")

    def compatible(self, claim: CoverageClaim, contract: VerifierContract, result: VerifierResult) -> bool:
        surfaces = {s.surface_id: s for s in self.data.surfaces}
        artifacts = {a.artifact_id: a.artifact_sha256 for a in self.data.artifacts}
        expected_artifacts = {artifacts[surfaces[s].artifact_id] for s in claim.surface_ids if s in surfaces}
        owners = {o.ownership.owner_sha256 for o in self.data.owners if o.ownership.owner_sha256}
        expected_owners = {o.ownership.owner_sha256 for o in self.data.owners
                           if o.surface_id in claim.surface_ids and o.ownership.owner_sha256}  # fmt: skip
        return (
            result.contract_sha256 == contract.contract_sha256
            and result.normalization_sha256 == contract.normalization_sha256
            and claim.claim_id in result.covered_claim_ids
            and set(result.covered_claim_ids) <= set(contract.claim_ids)
            and set(claim.required_dimensions) <= set(contract.dimensions) & set(result.covered_dimensions)
            and set(result.covered_dimensions) <= set(contract.dimensions)
            and set(result.artifact_sha256s) <= set(artifacts.values())
            and expected_artifacts <= set(result.artifact_sha256s)
            and set(result.owner_sha256s) <= owners
            and expected_owners <= set(result.owner_sha256s)
            and result.repeats >= contract.minimum_repeats
            and claim.required_authority == contract.authority
        )

    def risks(self) -> None:
        for uid in self.data.residual_unknown_ids:
            if uid not in self.boundary.allowed_unknown_ids:
                self.reason("active-unknown", uid, "An active residual unknown the boundary does not allow.")
        touched_s, touched_c = set(self.boundary.required_surface_ids), set(self.boundary.required_claim_ids)
        for c in self.data.contradictions:
            if c.status == "active" and (touched_s & set(c.surface_ids) or touched_c & set(c.claim_ids)):
                self.evidence.update(c.evidence_ids)
                self.reason("active-contradiction", c.contradiction_id, "An active contradiction touches the boundary.")

    def proofs(self) -> None:
        for kind in self.boundary.required_package_proof_kinds:
            found = [p for p in self.data.package_proofs if p.kind == kind]
            for p in found:
                self.evidence.update(p.evidence_ids)
            if not found:
                self.reason("package-proof-missing", kind, f"No {kind} proof.")
            elif any(p.status == "fail" for p in found):
                self.reason("package-proof-failed", kind, f"A {kind} proof failed.")
            elif not any(p.status == "pass" for p in found):
                self.reason("package-proof-unknown", kind, f"No {kind} proof passed.")


def _probes(reasons: Sequence[Reason]) -> tuple[CoverageProbe, ...]:
    return tuple(CoverageProbe(operation=probe_operation(r.code), subject_id=r.subject_id, rationale=r.detail)
                 for r in reasons[:100])  # fmt: skip


def evaluate(
    data: CoverageData, boundary_id: str, evidence_ids: set[str], unknown_ids: set[str], now_ms: int,
    revision_sha256: str | None = None,
) -> Result[Closure, ReaError]:  # fmt: skip
    """The boundary's closure; `revision_sha256` names the 3.1 workspace revision evaluated (None: none named)."""
    return attempt(lambda: _evaluate(data, boundary_id, (evidence_ids, unknown_ids), now_ms, revision_sha256))


def _evaluate(
    data: CoverageData, boundary_id: str, known: tuple[set[str], set[str]], now_ms: int, revision_sha256: str | None
) -> Closure:
    check(data, *known)
    boundary = next((b for b in data.boundaries if b.boundary_id == boundary_id), None)
    if boundary is None:
        refuse(invalid_request(f"no boundary {boundary_id!r} in the coverage data", field="boundary_id",
                               accepted=", ".join(b.boundary_id for b in data.boundaries) or "a declared boundary"))  # fmt: skip
    judge = _Judge(data=data, boundary=boundary, now_ms=now_ms)
    judge.surfaces()
    judge.claims()
    judge.risks()
    judge.proofs()
    reasons = sorted(judge.reasons, key=lambda r: (r.code, r.subject_id, r.detail))
    return Closure(
        boundary_id=boundary.boundary_id,
        status=coverage_status([r.code for r in reasons]),
        summary=CoverageSummary(required_surfaces=len(boundary.required_surface_ids),
                                required_claims=len(boundary.required_claim_ids), reasons=len(reasons)),
        reasons=tuple(reasons),
        recommended_probes=_probes(reasons),
        evidence_ids=tuple(sorted(judge.evidence)),
        evaluated_at_ms=now_ms,
        workspace_revision_sha256=revision_sha256,
        limitations=LIMITATIONS,
    )  # fmt: skip
