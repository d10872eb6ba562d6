"""An unknown's resolution checked against the Evidence it cites.

update_unknown accepts a resolution whose cited ids the session retains; it does not
judge whether they answer the question. This check does, with the rule the reference's
ledger applies to a verified resolution: no contradicting Evidence is left on the
unknown, and at least one cited record is listed as supporting, is a real observation
(not an unknown-registry mutation record, which records analyst intent), and meets the
unknown's required authority, confidence (observed > derived > inferred) and
environment. A withdrawn or out-of-scope resolution claims no answer: it holds when the
unknown is resolved and every id it cites is retained. The stored revision itself is
re-checked (digest, identity, invariants) so a tampered state cannot pass.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from returns.result import Failure

from rea.evidence import Evidence
from rea.session_checks.records import CitedEvidence, ResolutionVerdict
from rea.session_tools.records.results import ResidualUnknown
from rea.unknowns import MUTATION_PREDICATE, verify_revision

CONFIDENCE_RANK = {"inferred": 1, "derived": 2, "observed": 3}
ENVIRONMENT_KEYS = ("id", "platform", "architecture", "isolation")


def _requirement_gaps(unknown: ResidualUnknown, evidence: Evidence) -> list[str]:
    """What the record lacks of the unknown's required authority, confidence and environment."""
    gaps = []
    wanted_authority = unknown.required_authority
    if wanted_authority is not None and evidence.authority != wanted_authority:
        gaps.append(f"its authority is {evidence.authority}; the unknown requires {wanted_authority}")
    wanted_confidence = unknown.required_confidence
    if CONFIDENCE_RANK.get(evidence.confidence, 0) < CONFIDENCE_RANK[wanted_confidence]:
        gaps.append(f"its confidence is {evidence.confidence}; the unknown requires {wanted_confidence}")
    wanted_environment = unknown.required_environment
    if wanted_environment is not None:
        actual = evidence.environment
        if actual is None:
            gaps.append("it records no environment; the unknown requires one")
        else:
            for key in ENVIRONMENT_KEYS:
                wanted = getattr(wanted_environment, key)
                if wanted is not None and actual.get(key) != wanted:
                    gaps.append(f"its environment {key} is {actual.get(key)!r}; the unknown requires {wanted!r}")
    return gaps


def cited(unknown: ResidualUnknown, evidence_id: str, retained: Mapping[str, Evidence]) -> CitedEvidence:
    """One cited id: retained or not, and every reason it cannot verify the answer."""
    record = retained.get(evidence_id)
    supporting = evidence_id in unknown.supporting_evidence_ids
    mutation = record is not None and record.predicate_type == MUTATION_PREDICATE
    reasons = []
    if record is None:
        reasons.append("the session retains no record with this id")
    if not supporting:
        reasons.append("the unknown does not list it in supporting_evidence_ids")
    if mutation:
        reasons.append("it is an unknown-registry mutation record: it records analyst intent, not an observation")
    if record is not None:
        reasons += _requirement_gaps(unknown, record)
    return CitedEvidence(
        evidence_id=evidence_id,
        retained=record is not None,
        supporting=supporting,
        mutation_record=mutation,
        confidence=None if record is None else record.confidence,  # type: ignore[arg-type]
        authority=None if record is None else record.authority,
        qualifies=not reasons,
        reasons=tuple(reasons),
    )


def _verified_reasons(unknown: ResidualUnknown, checks: list[CitedEvidence]) -> list[str]:
    reasons = []
    if unknown.contradicting_evidence_ids:
        listed = ", ".join(unknown.contradicting_evidence_ids)
        reasons.append(f"the unknown still lists contradicting Evidence ({listed})")
    if not any(c.qualifies for c in checks):
        reasons.append(
            "no cited Evidence qualifies as the answer (each cited id's reasons say why): a verified resolution "
            "needs a retained, supporting observation that meets the unknown's requirements"
        )
    return reasons


def resolution_reasons(stored: Mapping[str, Any], unknown: ResidualUnknown, checks: list[CitedEvidence]) -> list[str]:
    """Why the unknown's current resolution does not hold; empty when it does. `stored` is the revision as the
    session keeps it (a JSON document: its digest and identity are re-checked over exactly those bytes)."""
    match verify_revision(stored, "unknown"):
        case Failure(failed):
            return [f"the stored revision does not verify: {failed.message}"]
    resolution = unknown.resolution
    if unknown.status != "resolved" or resolution is None:
        return [f"the unknown's status is {unknown.status}: it has no resolution to verify"]
    if resolution.disposition == "verified":
        return _verified_reasons(unknown, checks)
    missing = [c.evidence_id for c in checks if not c.retained]
    return [f"the resolution cites {', '.join(missing)}, which the session does not retain"] if missing else []


def verdict(stored: Mapping[str, Any], record: ResidualUnknown, retained: Mapping[str, Evidence]) -> ResolutionVerdict:
    """The check of an unknown's head revision (`stored`, its JSON as kept; `record`, the same revision
    structured) against `retained`: the stored JSON is only re-verified, every decision reads the record."""
    resolution = record.resolution
    checks = [cited(record, i, retained) for i in (() if resolution is None else resolution.evidence_ids)]
    reasons = resolution_reasons(stored, record, checks)
    return ResolutionVerdict(
        valid=not reasons,
        truthVerified=not reasons and resolution is not None and resolution.disposition == "verified",
        unknown=record,
        reasons=tuple(reasons),
        evidence=tuple(checks),
    )
