"""A batch's items: identification, deduplication by digest, outcomes, the summary and exit status.

Everything here is a plain function of what the runner observed, so the summary, the order of
the items and the exit status are the same whichever backend ran the analyses.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs

from rea.batch.kinds import OTHER, Plan, kind_of, plan_for
from rea.canonical_json import canonicalize

# analysed: its first analysis ran; failed: identification or analysis failed (error_code says why);
# duplicate: same digest as an earlier item, analysed once there; identified: no analysis for its kind;
# resumed: its digest was already in the bundle being resumed, or its answer in the analysis cache
STATUSES = ("analysed", "failed", "duplicate", "identified", "resumed")
SUMMARY_KIND = "rea-batch-summary"
EXIT_OK, EXIT_FAILED, EXIT_CANCELLED = 0, 1, 130


@attrs.frozen(kw_only=True)
class Identified:
    """One input file as identification saw it; `error` is the canonical error body when it could not be read."""

    path: str
    sha256: str | None = None
    size: int | None = None
    format: str | None = None
    managed: bool = False
    error: Mapping[str, Any] | None = None


@attrs.frozen(kw_only=True)
class Work:
    """One analysis to run: the first item of its digest, with its plan."""

    path: str
    sha256: str
    plan: Plan
    size: int | None = None

    def shipped(self, ship_max_bytes: int) -> bool:
        """Whether a Ray task is sent this item's bytes as an object rather than reading its path: only
        within the stated size, and only for plans whose Evidence does not record the path (a worker
        reads the copy at a path of its own)."""
        return not self.plan.path_in_evidence and self.size is not None and 0 < self.size <= ship_max_bytes

    def answer_key(self, build: str) -> str:
        """Where this analysis's answer is kept for `--resume`: the bytes, the path (some tools put it
        in their Evidence), the plan and the build that ran it (a new build may answer differently)."""
        facts = {"sha256": self.sha256, "path": self.path, "plan": self.plan.to_json(), "build": build}
        return f"{self.sha256}.{hashlib.sha256(canonicalize(facts)).hexdigest()[:24]}"

    def request(self, deadline_ms: int, memory_mb: int) -> dict[str, Any]:
        """What the task function receives (plain JSON, so it crosses processes and Ray unchanged)."""
        return {
            "path": self.path,
            "sha256": self.sha256,
            "plan": self.plan.to_json(),
            "deadline_ms": deadline_ms,
            "memory_mb": memory_mb,
        }


@attrs.frozen(kw_only=True)
class Analysed:
    """What one task answered: the ids of the Evidence it produced, or its canonical error body."""

    sha256: str
    evidence_ids: tuple[str, ...] = ()
    error: Mapping[str, Any] | None = None


@attrs.frozen(kw_only=True)
class ItemOutcome:
    path: str
    status: str = attrs.field(validator=attrs.validators.in_(STATUSES))
    kind: str | None
    format: str | None
    sha256: str | None
    evidence_ids: tuple[str, ...] = ()
    error_code: str | None = None
    error_message: str | None = None
    duplicate_of: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "status": self.status,
            "kind": self.kind,
            "format": self.format,
            "sha256": self.sha256,
            "evidence_ids": list(self.evidence_ids),
            "error_code": self.error_code,
            "error_message": self.error_message,
            "duplicate_of": self.duplicate_of,
        }


def _kind(item: Identified) -> str | None:
    return None if item.format is None else kind_of(item.format, item.managed)


def work_list(items: Sequence[Identified], present: Iterable[str] = ()) -> list[Work]:
    """The analyses to run, in path order: one per digest, skipping digests already `present`
    (resumed) and kinds with no first analysis."""
    seen = set(present)
    work = []
    for item in sorted(items, key=lambda i: i.path):
        if item.sha256 is None or item.sha256 in seen:
            continue
        seen.add(item.sha256)
        plan = plan_for(_kind(item) or OTHER)
        if plan is not None:
            work.append(Work(path=item.path, sha256=item.sha256, plan=plan, size=item.size))
    return work


@attrs.frozen(kw_only=True)
class _Seen:
    """What every outcome row of one input path starts from: the path and what identification saw."""

    path: str
    kind: str | None
    format: str | None
    sha256: str | None

    def outcome(self, status: str, error: Mapping[str, Any] | None = None, **more: Any) -> ItemOutcome:
        """The row with this status; `error` (a canonical error body) gives its code and message."""
        body = (error or {}).get("error") or {}
        return ItemOutcome(
            path=self.path,
            status=status,
            kind=self.kind,
            format=self.format,
            sha256=self.sha256,
            error_code=body.get("code"),
            error_message=body.get("message"),
            **more,
        )


def outcomes(
    items: Sequence[Identified],
    analysed: Mapping[str, Analysed],
    resumed: Mapping[str, Sequence[str]] = {},
) -> list[ItemOutcome]:
    """Every item's outcome in path order. `analysed` is keyed by digest (what the tasks answered),
    `resumed` maps a digest already in the resumed bundle to its records' ids. The first path of a
    digest decides its analysis; every later path is its duplicate, with its evidence ids. A digest
    whose analysis never finished (the batch was stopped) is left out, with its duplicates."""
    first: dict[str, ItemOutcome | None] = {}
    rows = []
    for item in sorted(items, key=lambda i: i.path):
        base = _Seen(path=item.path, kind=_kind(item), format=item.format, sha256=item.sha256)
        if item.sha256 is None:
            rows.append(base.outcome("failed", item.error))
            continue
        if item.sha256 in first:
            original = first[item.sha256]
            if original is not None:
                rows.append(_duplicate(base, original))
            continue
        row = _first(base, item.sha256, analysed, resumed)
        first[item.sha256] = row
        if row is not None:
            rows.append(row)
    return rows


def _first(
    base: _Seen, sha256: str, analysed: Mapping[str, Analysed], resumed: Mapping[str, Sequence[str]]
) -> ItemOutcome | None:
    if sha256 in resumed:
        return base.outcome("resumed", evidence_ids=tuple(resumed[sha256]))
    if plan_for(base.kind or OTHER) is None:
        return base.outcome("identified")
    answer = analysed.get(sha256)
    if answer is None:
        return None
    status = "failed" if answer.error is not None else "analysed"
    return base.outcome(status, answer.error, evidence_ids=answer.evidence_ids)


def _duplicate(base: _Seen, original: ItemOutcome) -> ItemOutcome:
    return attrs.evolve(
        base.outcome("duplicate", evidence_ids=original.evidence_ids, duplicate_of=original.path),
        error_code=original.error_code,
        error_message=original.error_message,
    )


def exit_status(rows: Sequence[ItemOutcome], cancelled: bool) -> int:
    """130 when stopped by a signal, 1 when any item failed (a duplicate of a failed item counts once), else 0."""
    if cancelled:
        return EXIT_CANCELLED
    return EXIT_FAILED if any(r.status == "failed" for r in rows) else EXIT_OK


def summary(
    rows: Sequence[ItemOutcome],
    *,
    inputs: int,
    backend: Mapping[str, Any],
    bundle: Mapping[str, Any] | None,
    cancelled: bool,
) -> dict[str, Any]:
    """The `--format json` summary; `bundle` is the publication receipt, None when nothing was published."""
    counts = {status: sum(1 for r in rows if r.status == status) for status in STATUSES}
    return {
        "kind": SUMMARY_KIND,
        "inputs": inputs,
        "completed": len(rows),
        "not_run": inputs - len(rows),
        "counts": counts,
        "cancelled": cancelled,
        "backend": dict(backend),
        "bundle": None if bundle is None else dict(bundle),
        "exit_status": exit_status(rows, cancelled),
        "items": [r.to_json() for r in rows],
    }
