"""find_changed_behavior: observed runtime changes kept apart from static change candidates.

Only a process comparison observes behaviour; a function or artifact difference is a candidate
(`static_candidate`), and no number of them makes `behavior_status` observed_changed. With no
process comparison the behaviour is `unknown`, never unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from returns.result import Result

from rea.errors import ReaError, invalid_request
from rea.paging import paginate
from rea.reconstruction import comparisons as cmp
from rea.reconstruction.records.claims import ChangedBehavior, ChangedSummary, Finding, FindingPage
from rea.reconstruction.records.common import ComparisonStatus
from rea.reconstruction.refusal import attempt, refuse

STATIC_ONLY = "Static differences are behaviour candidates, not runtime observations."
NO_RUNTIME = "No process comparison Evidence was supplied: runtime behaviour is unknown."


FindingScope = Literal["runtime", "protocol", "resource", "static_candidate"]
Classification = Literal["observed_change", "derived_relationship", "contradiction", "unresolved_branch"]
BehaviorStatus = Literal["observed_changed", "observed_unchanged", "unknown", "truncated"]


def _finding(
    found: cmp.Comparison, dimension: str, scope: FindingScope, status: ComparisonStatus,
    classification: Classification, limitations: Sequence[str], links: Sequence[str] = (),
) -> Finding:  # fmt: skip
    return Finding(
        scope=scope,
        dimension=dimension,
        classification=classification,
        status=status,
        source_comparison_id=found.evidence_id,
        evidence_links=tuple(sorted({found.evidence_id, *(links or found.sources)})),
        limitations=tuple(sorted(set(limitations))),
    )


def _observed(status: ComparisonStatus) -> Classification:
    if status in cmp.CHANGES:
        return "observed_change"
    return "contradiction" if status == "contradiction" else "unresolved_branch"


def _process(found: cmp.Comparison) -> list[Finding]:
    out = []
    for dim in found.dimensions.values():
        if dim.status == "unchanged":
            continue
        scope: FindingScope = "protocol" if dim.name == "protocol" else "runtime"
        limitations = [*found.limitations, *dim.limitations]
        out.append(_finding(found, dim.name, scope, dim.status, _observed(dim.status), limitations))
    return out


def _function(found: cmp.Comparison) -> list[Finding]:
    out = []
    for dim in found.dimensions.values():
        if dim.status == "unchanged":
            continue
        kind = "unresolved_branch" if dim.status in cmp.UNRESOLVED else dim.conclusion_kind
        out.append(_finding(found, dim.name, "static_candidate", dim.status, kind, dim.limitations, dim.links))
    return out


def _artifact_kind(status: ComparisonStatus) -> Classification:
    if status == "contradiction":
        return "contradiction"
    return "unresolved_branch" if status == "unknown" else "derived_relationship"


def _artifact(found: cmp.Comparison) -> list[Finding]:
    out = [
        _finding(
            found,
            f"artifact:{c.logical_path}",
            "static_candidate",
            c.classification,
            _artifact_kind(c.classification),
            found.limitations,
            c.links,
        )  # fmt: skip
        for c in found.changes
    ]
    unread = found.status in cmp.UNRESOLVED or not found.complete
    if unread and not any(f.classification == "unresolved_branch" for f in out):
        # the comparison's own unresolved verdict, or truncated when it read only part of its changes
        status: ComparisonStatus = "unknown" if found.status == "unknown" else "truncated"
        out.append(
            _finding(found, "artifact:coverage", "static_candidate", status, "unresolved_branch", found.limitations)
        )
    return out


def behavior_status(runtime: Sequence[str]) -> BehaviorStatus:
    """From process comparisons only: none is unknown; truncated, then unknown, dominate; any change is observed."""
    if not runtime:
        return "unknown"
    if "truncated" in runtime:
        return "truncated"
    if "unknown" in runtime:
        return "unknown"
    return "observed_changed" if any(s in cmp.CHANGES for s in runtime) else "observed_unchanged"


def find_changed(comparisons: Sequence[cmp.Comparison], offset: int, limit: int) -> Result[ChangedBehavior, ReaError]:
    return attempt(lambda: _find(comparisons, offset, limit))


def _find(comparisons: Sequence[cmp.Comparison], offset: int, limit: int) -> ChangedBehavior:
    ids = [c.evidence_id for c in comparisons]
    if len(set(ids)) != len(ids):
        refuse(
            invalid_request(
                "the same comparison Evidence is supplied twice",
                field="comparisons",
                accepted="distinct comparison Evidence",
            )
        )
    readers = {cmp.PROCESS: _process, cmp.FUNCTION: _function, cmp.ARTIFACT: _artifact}
    findings = sorted(
        (f for c in comparisons for f in readers[c.operation](c)),
        key=lambda f: (f.scope, f.dimension, f.source_comparison_id),
    )
    runtime = [c.status for c in comparisons if c.runtime]
    page = paginate(findings, offset, limit)
    count = {k: sum(1 for f in findings if f.classification == k)
             for k in ("observed_change", "derived_relationship", "contradiction", "unresolved_branch")}  # fmt: skip
    notes = {note for c in comparisons for note in c.limitations}
    if any(not c.runtime for c in comparisons):
        notes.add(STATIC_ONLY)
    if not runtime:
        notes.add(NO_RUNTIME)
    notes |= {f"artifact comparison {c.evidence_id} was read from a partial page of changes"
              for c in comparisons if c.operation == cmp.ARTIFACT and not c.complete}  # fmt: skip
    return ChangedBehavior(
        behavior_status=behavior_status(runtime),
        summary=ChangedSummary(
            observed_changes=count["observed_change"],
            static_candidates=count["derived_relationship"],
            contradictions=count["contradiction"],
            unresolved=count["unresolved_branch"],
        ),
        findings=FindingPage(items=page.items, offset=offset, limit=limit, total=page.total,
                             next_offset=page.next_offset),
        evidence_links=tuple(sorted({x for c in comparisons for x in (c.evidence_id, *c.sources)})),
        limitations=tuple(sorted(notes)),
    )  # fmt: skip
