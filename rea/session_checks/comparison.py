"""Two verified Evidence bundles compared record by record: a pure, paged, classified delta.

Evidence ids are content addresses, so a record present on both sides is the same
observation, and a record on one side only is an inclusion or an omission, never proof
that a behaviour appeared or went away. Two different observations of the same thing
(the same function analysed in two builds) have different ids; the caller says which
records correspond with `record_pairs`, and a pinned pair whose ids differ is `changed`.
An unknown is compared by its revision history: one history extending the other is
progress (`history_advanced`), two histories that fork are a contradiction.

The delta is one total order (entity, key, classification, digests), so pages of it
concatenate to the whole and swapping the sides swaps added with removed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs
from returns.result import Failure, Result, Success

from rea.bundle import ParsedBundle
from rea.errors import ReaError, invalid_request
from rea.paging import paginate
from rea.session_checks.records import (
    BundleChange,
    BundleComparison,
    ChangePage,
    Classification,
    ComparisonSummary,
    RecordPair,
)

# the most records and unknown revisions, both sides together, one comparison reads (the reference's bound)
MAX_ENTITIES = 100_000
ONE_SIDED_RECORD = "One-sided membership does not establish behavioral absence."
ONE_SIDED_UNKNOWN = "A missing unknown history does not establish resolution."
ONE_SIDED = "One-sided membership proves only bundle inclusion or omission, not behavioral absence."
UNPAIRED = (
    "Records match by Evidence id (a content address): a new observation of the same subject is one removed and "
    "one added record unless record_pairs pins the two together."
)
SAME_IDENTITIES = (
    "The bundles hold the same Evidence ids and unknown histories, but their canonical JSON differs: in what "
    "identity leaves out (subject names and local paths) or in the order of records or revisions."
)


@attrs.frozen(kw_only=True)
class Side:
    """One verified bundle and the sha256 of its canonical JSON."""

    bundle: ParsedBundle
    sha256: str


def _pairs_checked(pairs: Sequence[RecordPair], left: set[str], right: set[str]) -> Result[None, ReaError]:
    """Every pinned id is on its side, and no id is pinned twice."""
    seen_left: set[str] = set()
    seen_right: set[str] = set()
    for index, pair in enumerate(pairs):
        for side, wanted, held in (("left", pair.left_evidence_id, left), ("right", pair.right_evidence_id, right)):
            if wanted not in held:
                return Failure(
                    invalid_request(
                        f"record_pairs[{index}].{side}_evidence_id {wanted} is not a record of the {side} bundle",
                        field=f"record_pairs[{index}].{side}_evidence_id",
                        accepted=f"ids of records in the {side} bundle",
                        reason="missing",
                        evidence_id=wanted,
                    )
                )
        if pair.left_evidence_id in seen_left or pair.right_evidence_id in seen_right:
            return Failure(
                invalid_request(
                    f"record_pairs[{index}] pins a record that an earlier pair already pins; pairs are one-to-one",
                    field=f"record_pairs[{index}]",
                    accepted="each left and each right Evidence id in at most one pair",
                )
            )
        seen_left.add(pair.left_evidence_id)
        seen_right.add(pair.right_evidence_id)
    return Success(None)


def _one_sided(evidence_id: str, classification: Classification) -> BundleChange:
    left = classification == "removed"
    return BundleChange(
        entity="evidence",
        key=evidence_id,
        classification=classification,
        conclusion_kind="observed_change",
        left_evidence_ids=(evidence_id,) if left else (),
        right_evidence_ids=() if left else (evidence_id,),
        left_digest=evidence_id[3:] if left else None,
        right_digest=None if left else evidence_id[3:],
        limitations=(ONE_SIDED_RECORD,),
    )


def _pinned(pair: RecordPair) -> BundleChange:
    return BundleChange(
        entity="evidence",
        key=f"pair:{pair.left_evidence_id}:{pair.right_evidence_id}",
        classification="changed",
        conclusion_kind="observed_change",
        left_evidence_ids=(pair.left_evidence_id,),
        right_evidence_ids=(pair.right_evidence_id,),
        left_digest=pair.left_evidence_id[3:],
        right_digest=pair.right_evidence_id[3:],
        limitations=(),
    )


def record_changes(
    left: set[str], right: set[str], pairs: Sequence[RecordPair]
) -> tuple[list[BundleChange], dict[str, int]]:
    """The record half of the delta and its counts (pairs already checked by `_pairs_checked`)."""
    pinned_left = {p.left_evidence_id for p in pairs}
    pinned_right = {p.right_evidence_id for p in pairs}
    changed = [_pinned(p) for p in pairs if p.left_evidence_id != p.right_evidence_id]
    removed = sorted(left - right - pinned_left)
    added = sorted(right - left - pinned_right)
    common = (left & right) - pinned_left - pinned_right
    changes = changed + [_one_sided(i, "removed") for i in removed] + [_one_sided(i, "added") for i in added]
    counts = {
        "records_unchanged": len(common) + len(pairs) - len(changed),
        "records_added": len(added),
        "records_removed": len(removed),
        "records_changed": len(changed),
    }
    return changes, counts


def histories(revisions: Iterable[Mapping[str, Any]]) -> dict[str, list[Mapping[str, Any]]]:
    """Each unknown's revisions in revision order (a verified bundle's chains run 1, 2, ... without gaps)."""
    chains: dict[str, list[Mapping[str, Any]]] = {}
    for revision in revisions:
        chains.setdefault(revision["unknown_id"], []).append(revision)
    return {k: sorted(v, key=lambda r: r["revision"]) for k, v in chains.items()}


def _cited(history: Sequence[Mapping[str, Any]]) -> tuple[str, ...]:
    """Every Evidence id an unknown's history cites, sorted."""
    ids: set[str] = set()
    for rev in history:
        ids.update(rev["supporting_evidence_ids"], rev["contradicting_evidence_ids"], rev["mutation_evidence_ids"])
        ids.update((rev["resolution"] or {}).get("evidence_ids", ()))
    return tuple(sorted(ids))


def _unknown_change(
    unknown_id: str,
    classification: Classification,
    left: Sequence[Mapping[str, Any]],
    right: Sequence[Mapping[str, Any]],
) -> BundleChange:
    kind = {"history_diverged": "contradiction", "history_advanced": "observed_change"}.get(
        classification, "unresolved_branch"
    )
    return BundleChange(
        entity="residual_unknown",
        key=unknown_id,
        classification=classification,
        conclusion_kind=kind,  # type: ignore[arg-type]
        left_evidence_ids=_cited(left),
        right_evidence_ids=_cited(right),
        left_digest=left[-1]["revision_digest"] if left else None,
        right_digest=right[-1]["revision_digest"] if right else None,
        limitations=(ONE_SIDED_UNKNOWN,) if not left or not right else (),
    )


def _history_class(left: list[str], right: list[str]) -> Classification | None:
    """None for the same history; advanced when one is a strict prefix of the other; else diverged."""
    if left == right:
        return None
    shorter, longer = sorted((left, right), key=len)
    return "history_advanced" if longer[: len(shorter)] == shorter else "history_diverged"


def unknown_changes(
    left: Iterable[Mapping[str, Any]], right: Iterable[Mapping[str, Any]]
) -> tuple[list[BundleChange], dict[str, int]]:
    """The unknown half of the delta and its counts."""
    lefts, rights = histories(left), histories(right)
    counts = dict.fromkeys(
        ("unknowns_unchanged", "unknowns_added", "unknowns_removed", "unknowns_advanced", "unknowns_diverged"), 0
    )
    changes = []
    for unknown_id in sorted(lefts.keys() | rights.keys()):
        lh, rh = lefts.get(unknown_id, []), rights.get(unknown_id, [])
        if not lh or not rh:
            classification: Classification | None = "added" if not lh else "removed"
        else:
            classification = _history_class([r["revision_digest"] for r in lh], [r["revision_digest"] for r in rh])
        name = {None: "unchanged", "added": "added", "removed": "removed", "history_advanced": "advanced"}.get(
            classification, "diverged"
        )
        counts[f"unknowns_{name}"] += 1
        if classification is not None:
            changes.append(_unknown_change(unknown_id, classification, lh, rh))
    return changes, counts


def _order(change: BundleChange) -> tuple[str, ...]:
    return (change.entity, change.key, change.classification, change.left_digest or "", change.right_digest or "")


def entity_bound(left_counts: tuple[int, int], right_counts: tuple[int, int], limit: int) -> Result[int, ReaError]:
    """The number of records and unknown revisions both bundles hold, or `truncated` when that is more than one
    comparison reads; taken from the raw counts, before any record is verified."""
    total = sum(left_counts) + sum(right_counts)
    if total <= limit:
        return Success(total)
    return Failure(
        ReaError(
            code="truncated",
            message=(
                f"compare_bundles reads at most {limit} records and unknown revisions across both bundles; these "
                f"hold {total} (left: {left_counts[0]} records, {left_counts[1]} unknown revisions; right: "
                f"{right_counts[0]} records, {right_counts[1]} unknown revisions). Nothing was compared."
            ),
            details={"limit": limit, "entities": total, "left": list(left_counts), "right": list(right_counts)},
            action="Compare smaller bundles: export a session that retains only the records in question.",
        )
    )


def compare(
    left: Side, right: Side, pairs: Sequence[RecordPair], offset: int, limit: int
) -> Result[BundleComparison, ReaError]:
    """The classified delta from `left` to `right`, with the page [offset, offset + limit) of its changes."""
    left_ids = {e.evidence_id for e in left.bundle.records}
    right_ids = {e.evidence_id for e in right.bundle.records}
    page = (offset, limit)
    return _pairs_checked(pairs, left_ids, right_ids).map(lambda _: _delta(left, right, pairs, page))


def _delta(left: Side, right: Side, pairs: Sequence[RecordPair], window: tuple[int, int]) -> BundleComparison:
    """The delta of two sides whose pins are checked, with the page `window` = (offset, limit) of its changes."""
    left_ids = {e.evidence_id for e in left.bundle.records}
    right_ids = {e.evidence_id for e in right.bundle.records}
    offset, limit = window
    records, record_counts = record_changes(left_ids, right_ids, pairs)
    unknowns, unknown_counts = unknown_changes(left.bundle.unknowns, right.bundle.unknowns)
    changes = sorted(records + unknowns, key=_order)
    unresolved = sum(1 for c in changes if c.conclusion_kind != "observed_change")
    page = paginate(changes, offset, limit)
    one_sided = any(c.limitations for c in changes)
    unpaired = record_counts["records_added"] and record_counts["records_removed"]
    return BundleComparison(
        status="unchanged" if not changes else ("unknown" if unresolved else "changed"),
        left_bundle_sha256=left.sha256,
        right_bundle_sha256=right.sha256,
        summary=ComparisonSummary(**record_counts, **unknown_counts, unresolved=unresolved),
        changes=ChangePage(
            items=page.items, offset=offset, limit=limit, total=page.total, next_offset=page.next_offset
        ),
        limitations=(
            ((ONE_SIDED,) if one_sided else ())
            + ((UNPAIRED,) if unpaired else ())
            + ((SAME_IDENTITIES,) if not changes and left.sha256 != right.sha256 else ())
        ),
        left_records=len(left_ids),
        right_records=len(right_ids),
    )
