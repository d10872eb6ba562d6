"""verify_reconstruction: each declared claim settled by the one comparison it cites, and nothing more.

The laws (tests/test_reconstruction_laws.py):
- a claim passes only when its comparison observed `unchanged` for its dimension, every source the
  comparison cites is retained, and no active residual unknown cites that Evidence;
- an observed change (added, removed, changed, contradiction) fails the claim;
- anything missing or unresolved (the comparison not retained, a dimension not reported, an artifact
  comparison with unread pages, unknown, truncated) makes it unknown, never pass;
- the whole is fail if any claim fails, else unknown if any claim is unknown, else pass; and a pass
  is a pass of the declared claims only, never equivalence of the two programs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from returns.result import Result

from rea.canonical_json import canonical_sha256
from rea.errors import ReaError, invalid_request
from rea.evidence import Evidence
from rea.paging import paginate
from rea.reconstruction import comparisons as cmp
from rea.reconstruction.records.claims import Claim, Specification
from rea.reconstruction.refusal import attempt, refuse, value
from rea.unknowns import heads
from rea.wire.convert import to_wire

KIND_OPERATION = {"behavioral": cmp.PROCESS, "structural-function": cmp.FUNCTION, "structural-artifact": cmp.ARTIFACT}
KIND_DIMENSIONS = {
    "behavioral": ("overall", *cmp.PROCESS_DIMENSIONS),
    "structural-function": ("overall", *cmp.FUNCTION_DIMENSIONS),
    "structural-artifact": ("overall",),
}
NOT_EQUIVALENCE = (
    "A pass means every declared claim passed on the cited comparisons; it does not establish that the "
    "reconstruction is equivalent to the original as a whole."
)
PROBE = {
    cmp.PROCESS: "compare_process_captures",
    cmp.FUNCTION: "compare_functions",
    cmp.ARTIFACT: "compare_artifacts",
}


def active_unknowns(revisions: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The newest revision of each unknown that is not resolved."""
    return [r for r in heads(revisions) if r.get("status") != "resolved"]


def _citing(unknowns: Sequence[Mapping[str, Any]], links: set[str]) -> list[Mapping[str, Any]]:
    def cites(u: Mapping[str, Any]) -> bool:
        return bool(
            links & set(u.get("supporting_evidence_ids", ())) | links & set(u.get("contradicting_evidence_ids", ()))
        )

    return sorted((u for u in unknowns if cites(u)), key=lambda u: str(u["unknown_id"]))


def check_claims(spec: Specification) -> None:
    """Unique claim ids and a dimension each claim's kind has."""
    seen: set[str] = set()
    for i, claim in enumerate(spec.claims):
        if claim.claim_id in seen:
            refuse(invalid_request(f"claim_id {claim.claim_id!r} is declared twice",
                                   field=f"specification.claims[{i}].claim_id", accepted="unique claim ids"))  # fmt: skip
        seen.add(claim.claim_id)
        allowed = KIND_DIMENSIONS[claim.kind]
        if claim.dimension not in allowed:
            refuse(
                invalid_request(
                    f"a {claim.kind} claim has no dimension {claim.dimension!r}",
                    field=f"specification.claims[{i}].dimension",
                    accepted=", ".join(allowed),
                )
            )


def _observed(claim: Claim, found: cmp.Comparison) -> tuple[str, list[str]]:
    if claim.dimension == "overall":
        if found.operation == cmp.ARTIFACT and not found.complete:
            return "unknown", [
                "the artifact comparison has pages of changes that were not read (offset 0 with every change)"
            ]
        return found.status, []
    dim = found.dimensions.get(claim.dimension)
    if dim is None:
        return "unknown", [f"the comparison reports no {claim.dimension} dimension"]
    return dim.status, list(dim.limitations)


def _classify(observed: str, missing: bool, unknowns: list[Mapping[str, Any]]) -> str:
    if observed in cmp.CHANGES or observed == "contradiction":
        return "fail"
    if missing or observed in cmp.UNRESOLVED or unknowns:
        return "unknown"
    return "pass"


def evaluate_claim(
    claim: Claim, records: Mapping[str, Evidence], unknowns: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    """One claim's result; a cited record of the wrong kind is refused, a missing one is unknown."""
    evidence = records.get(claim.comparison_evidence_id)
    base = {"claim_id": claim.claim_id, "kind": claim.kind, "dimension": claim.dimension,
            "comparison_evidence_id": claim.comparison_evidence_id}  # fmt: skip
    if evidence is None:
        why = f"comparison Evidence {claim.comparison_evidence_id} is not retained in this session (missing evidence is unknown)"
        return ({**base, "status": "unknown", "observed_status": "unknown", "left_evidence_ids": [],
                        "right_evidence_ids": [], "evidence_links": [claim.comparison_evidence_id],
                        "unknown_ids": [], "limitations": [why]})  # fmt: skip
    expected = KIND_OPERATION[claim.kind]
    if evidence.operation != expected:
        refuse(
            invalid_request(
                f"claim {claim.claim_id} is {claim.kind} but cites {evidence.operation} Evidence {evidence.evidence_id}",
                field="specification.claims.comparison_evidence_id",
                accepted=f"{expected} Evidence for a {claim.kind} claim",
            )
        )
    return _claim_result(base, claim, value(cmp.read(evidence)), records, unknowns)


def _claim_result(
    base: dict[str, Any],
    claim: Claim,
    found: cmp.Comparison,
    records: Mapping[str, Evidence],
    unknowns: Sequence[Mapping[str, Any]],
) -> dict[str, Any]:
    observed, notes = _observed(claim, found)
    absent = [s for s in found.sources if s not in records]
    notes += [f"source Evidence {s} of the comparison is not retained" for s in absent]
    links = set((found.evidence_id, *found.sources))
    citing = _citing(unknowns, links)
    notes += [f"Residual unknown: {u.get('question', u['unknown_id'])}" for u in citing[:100]]
    return {
        **base,
        "status": _classify(observed, bool(absent), citing),
        "observed_status": observed,
        "left_evidence_ids": list(found.left),
        "right_evidence_ids": list(found.right),
        "evidence_links": sorted(links),
        "unknown_ids": [u["unknown_id"] for u in citing[:100]],
        "limitations": sorted(set(found.limitations) | set(notes)),
    }


def overall(statuses: Sequence[str]) -> str:
    """fail dominates, then unknown; pass only when every claim passed (an empty set is not a pass)."""
    if "fail" in statuses:
        return "fail"
    if "unknown" in statuses or not statuses:
        return "unknown"
    return "pass"


def _probes(results: Sequence[Mapping[str, Any]], records: Mapping[str, Evidence]) -> list[dict[str, Any]]:
    probes = []
    for r in results:
        if r["status"] != "unknown":
            continue
        evidence = records.get(r["comparison_evidence_id"])
        operation = PROBE.get(evidence.operation, "record_unknown") if evidence else KIND_OPERATION[r["kind"]]
        probes.append({"operation": operation, "rationale": "; ".join(r["limitations"])[:1000] or "the claim is unresolved",
                       "claim_ids": [r["claim_id"]], "unknown_ids": list(r["unknown_ids"])})  # fmt: skip
    return probes[:2000]


def verify(
    spec: Specification,
    records: Mapping[str, Evidence],
    unknown_revisions: Sequence[Mapping[str, Any]],
    offset: int,
    limit: int,
    extra_limitations: Sequence[str] = (),
) -> Result[dict[str, Any], ReaError]:
    """The verification of every claim, one page of them in the reply."""
    return attempt(lambda: _verify(spec, records, unknown_revisions, (offset, limit), extra_limitations))


def _verify(
    spec: Specification,
    records: Mapping[str, Evidence],
    unknown_revisions: Sequence[Mapping[str, Any]],
    window: tuple[int, int],
    extra_limitations: Sequence[str],
) -> dict[str, Any]:
    check_claims(spec)
    unknowns = active_unknowns(unknown_revisions)
    results = [evaluate_claim(claim, records, unknowns) for claim in sorted(spec.claims, key=lambda c: c.claim_id)]
    statuses = [r["status"] for r in results]
    page = paginate(results, *window)
    wire_spec = to_wire(spec)
    return {
        "status": overall(statuses),
        "specification_sha256": canonical_sha256({**wire_spec, "claims": sorted(wire_spec["claims"], key=lambda c: c["claim_id"])}),
        "summary": {"total": len(results), "passed": statuses.count("pass"), "failed": statuses.count("fail"),
                    "unknown": statuses.count("unknown"),
                    "behavioral": sum(1 for r in results if r["kind"] == "behavioral"),
                    "structural": sum(1 for r in results if r["kind"] != "behavioral")},
        "claims": {"items": list(page.items), **page.envelope()},
        "recommended_probes": _probes(results, records),
        "evidence_links": sorted({link for r in results for link in r["evidence_links"]}),
        "limitations": [NOT_EQUIVALENCE, *extra_limitations],
    }  # fmt: skip
