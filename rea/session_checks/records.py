"""Wire records of compare_bundles and verify_unknown_resolution: the REA 6.x shapes.

compare_bundles follows the reference's bundle comparison (domain/bundleComparison): a
classified, paged delta between two canonical bundles. verify_unknown_resolution answers
the reference's lifecycle `{valid, truthVerified, unknown}`; `reasons` and `evidence` are
our extras, because a bare `valid: false` does not say what to fix.
"""

from __future__ import annotations

from typing import Literal

import attrs

from rea.session_tools.records.results import ResidualUnknown
from rea.session_tools.records.vocabulary import EVIDENCE_ID, SHA256, UNKNOWN_ID
from rea.wire.schema import SAFE_INT_MAX, field, local_path

Classification = Literal["added", "removed", "changed", "unknown", "history_advanced", "history_diverged"]
ConclusionKind = Literal["observed_change", "contradiction", "unresolved_branch"]
_IDS = {"type": "array", "items": {"type": "string", "pattern": EVIDENCE_ID}}
_DIGEST = {"anyOf": [{"type": "string", "pattern": SHA256}, {"type": "null"}]}
_PAGE_MAX = 500


@attrs.frozen(kw_only=True)
class RecordPair:
    left_evidence_id: str = field("A record of the left bundle", pattern=EVIDENCE_ID)
    right_evidence_id: str = field("The record of the right bundle it observes again", pattern=EVIDENCE_ID)


@attrs.frozen(kw_only=True)
class CompareBundlesArgs:
    left_bundle_path: str = local_path("Bundle written by export_evidence_bundle (the earlier side)")
    right_bundle_path: str = local_path("Bundle written by export_evidence_bundle (the later side)")
    record_pairs: tuple[RecordPair, ...] = field(
        "Records to compare as one observation (one-to-one); others match by Evidence id",
        factory=tuple,
        maxItems=_PAGE_MAX,
    )
    offset: int = field("First change to return", default=0, minimum=0, maximum=SAFE_INT_MAX)
    limit: int = field("Changes per page", default=100, minimum=1, maximum=_PAGE_MAX)


@attrs.frozen(kw_only=True)
class BundleChange:
    entity: Literal["evidence", "residual_unknown"] = field("What changed: a record or an unknown's history")
    key: str = field("Evidence id, `pair:<left>:<right>`, or unknown id", minLength=1)
    classification: Classification = field("How it changed")
    conclusion_kind: ConclusionKind = field("observed_change, or what the difference leaves open")
    left_evidence_ids: tuple[str, ...] = field("Left-side Evidence behind the change", schema=_IDS)
    right_evidence_ids: tuple[str, ...] = field("Right-side Evidence behind the change", schema=_IDS)
    left_digest: str | None = field("Left record digest or unknown head revision digest", schema=_DIGEST)
    right_digest: str | None = field("Right record digest or unknown head revision digest", schema=_DIGEST)
    limitations: tuple[str, ...] = field("What this change does not establish")


@attrs.frozen(kw_only=True)
class ChangePage:
    items: tuple[BundleChange, ...] = field("This page of changes, in key order", maxItems=_PAGE_MAX)
    offset: int = field("Offset of this page", minimum=0, maximum=SAFE_INT_MAX)
    limit: int = field("Page size asked for", minimum=1, maximum=_PAGE_MAX)
    total: int = field("Changes in all", minimum=0, maximum=SAFE_INT_MAX)
    next_offset: int | None = field("Offset of the next page, null at the end", minimum=0, maximum=SAFE_INT_MAX)


def _count(description: str) -> int:
    return field(description, minimum=0, maximum=SAFE_INT_MAX)  # type: ignore[no-any-return]


@attrs.frozen(kw_only=True)
class ComparisonSummary:
    records_unchanged: int = _count("Records on both sides (by id, or pinned pairs with one id)")
    records_added: int = _count("Records only on the right")
    records_removed: int = _count("Records only on the left")
    records_changed: int = _count("Pinned pairs whose records differ")
    unknowns_unchanged: int = _count("Unknowns with the same revision history")
    unknowns_added: int = _count("Unknowns only on the right")
    unknowns_removed: int = _count("Unknowns only on the left")
    unknowns_advanced: int = _count("Unknowns whose history on one side extends the other's")
    unknowns_diverged: int = _count("Unknowns whose histories fork")
    unresolved: int = _count("Changes that are not plain observed changes")


@attrs.frozen(kw_only=True)
class BundleComparison:
    status: Literal["unchanged", "changed", "unknown"] = field("unknown when a change leaves a question open")
    left_bundle_sha256: str = field("sha256 of the left bundle's canonical JSON", pattern=SHA256)
    right_bundle_sha256: str = field("sha256 of the right bundle's canonical JSON", pattern=SHA256)
    summary: ComparisonSummary = field("Counts over every change, not just this page")
    changes: ChangePage = field("The classified changes, paged")
    limitations: tuple[str, ...] = field("What the comparison does not establish")
    left_records: int = _count("Records in the left bundle (extra)")
    right_records: int = _count("Records in the right bundle (extra)")


@attrs.frozen(kw_only=True)
class VerifyUnknownResolutionArgs:
    unknown_id: str = field("Unknown whose current resolution to check", pattern=UNKNOWN_ID)


@attrs.frozen(kw_only=True)
class CitedEvidence:
    """One Evidence id the resolution cites, and what it was found to be."""

    evidence_id: str = field("Cited id", pattern=EVIDENCE_ID)
    retained: bool = field("The session retains a record with this id")
    supporting: bool = field("The unknown lists it in supporting_evidence_ids")
    mutation_record: bool = field("It is an unknown-registry mutation record (analyst intent, not an answer)")
    confidence: Literal["observed", "derived", "inferred"] | None = field("Its confidence (null: not retained)")
    authority: str | None = field("Its authority (null: not retained)")
    qualifies: bool = field("It can verify the answer: retained, supporting, no mutation, meets every requirement")
    reasons: tuple[str, ...] = field("Why it does not qualify (empty when it does)")


@attrs.frozen(kw_only=True)
class ResolutionVerdict:
    valid: bool = field("The unknown is resolved and its resolution holds against the Evidence it cites")
    truthVerified: bool = field("valid, and the resolution is a verified answer (not withdrawn or out of scope)")
    unknown: ResidualUnknown = field("The unknown's current revision")
    reasons: tuple[str, ...] = field("Why the resolution does not hold (extra; empty when valid)")
    evidence: tuple[CitedEvidence, ...] = field("Each cited Evidence id, checked (extra)")
