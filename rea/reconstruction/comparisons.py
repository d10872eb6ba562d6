"""Reading comparison Evidence: one view of what compare_functions, compare_artifacts and
compare_process_captures concluded, so verification, change finding and correlation read them alike.

Why a view: the three comparisons put their verdicts in different places (a dimension list,
a change page, top-level dimension fields). Everything downstream needs only the overall
verdict, each dimension's verdict, the artifact changes and whether the comparison saw
everything. A record that is not one of the three, or whose verdicts are not the comparison
vocabulary, is refused with an error naming what is accepted: a malformed comparison must
never be read as "unchanged".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

import attrs
from returns.result import Result

from rea.errors import ReaError, invalid_request
from rea.evidence import Evidence
from rea.reconstruction.records.common import ComparisonStatus
from rea.reconstruction.refusal import attempt, refuse

STATUSES: tuple[ComparisonStatus, ...] = (
    "unchanged",
    "added",
    "removed",
    "changed",
    "truncated",
    "unknown",
    "contradiction",
)
CHANGES = frozenset({"added", "removed", "changed"})
UNRESOLVED = frozenset({"unknown", "truncated"})
FUNCTION = "compare_functions"
ARTIFACT = "compare_artifacts"
PROCESS = "compare_process_captures"
OPERATIONS = (PROCESS, FUNCTION, ARTIFACT)
PROCESS_DIMENSIONS = ("exit", "terminal", "interaction", "filesystem", "process", "protocol", "shim")
FUNCTION_DIMENSIONS = ("identity", "pseudocode", "assembly", "comments", "calls", "references", "strings_names", "cfg")
Conclusion = Literal["derived_relationship", "contradiction", "unresolved_branch"]
CONCLUSIONS: tuple[Conclusion, ...] = ("derived_relationship", "contradiction", "unresolved_branch")


@attrs.frozen(kw_only=True)
class Dimension:
    name: str
    status: ComparisonStatus
    conclusion_kind: Conclusion
    links: tuple[str, ...]
    limitations: tuple[str, ...]


@attrs.frozen(kw_only=True)
class Change:
    logical_path: str
    classification: ComparisonStatus
    links: tuple[str, ...]


@attrs.frozen(kw_only=True)
class Comparison:
    """One comparison's conclusions, whatever tool produced them."""

    evidence_id: str
    operation: str
    status: ComparisonStatus
    sources: tuple[str, ...]  # the compared Evidence (the comparison's evidence_links)
    left: tuple[str, ...]
    right: tuple[str, ...]
    dimensions: Mapping[str, Dimension]
    changes: tuple[Change, ...]
    complete: bool  # every change is in this record (no page of an artifact comparison left unread)
    limitations: tuple[str, ...]

    @property
    def runtime(self) -> bool:
        return self.operation == PROCESS


def _malformed(evidence: Evidence, what: str, accepted: str) -> ReaError:
    return invalid_request(
        f"{evidence.operation} Evidence {evidence.evidence_id} is malformed: {what}",
        field="normalized_result",
        accepted=accepted,
        evidence_id=evidence.evidence_id,
    )


def _status(evidence: Evidence, value: Any, where: str) -> ComparisonStatus:
    """The verdict as the vocabulary's own value (a malformed one refused)."""
    for status in STATUSES:
        if value == status and isinstance(value, str):
            return status
    return refuse(_malformed(evidence, f"{where} is {value!r}", f"one of {', '.join(STATUSES)}"))


def _strings(value: Any) -> tuple[str, ...]:
    return tuple(v for v in value if isinstance(v, str)) if isinstance(value, (list, tuple)) else ()


def _sides(evidence: Evidence) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Left and right sources from the parameters (ours: left/right; the reference: *_evidence_id(s))."""
    p = evidence.parameters
    for left_key, right_key in (("left", "right"), ("left_evidence_ids", "right_evidence_ids")):
        left, right = _strings(p.get(left_key)), _strings(p.get(right_key))
        if left and right:
            return left, right
    one = (p.get("left_evidence_id"), p.get("right_evidence_id"))
    if all(isinstance(x, str) for x in one):
        return (str(one[0]),), (str(one[1]),)
    links = tuple(evidence.evidence_links)
    half = len(links) // 2
    return links[:half], links[half:]


def _function_dims(evidence: Evidence, result: Mapping[str, Any]) -> dict[str, Dimension]:
    rows = result.get("dimensions")
    if not isinstance(rows, list):
        refuse(_malformed(evidence, "dimensions is not a list", "compare_functions' dimensions list"))
    dims: dict[str, Dimension] = {}
    for i, row in enumerate(rows):
        if not isinstance(row, Mapping) or row.get("dimension") not in FUNCTION_DIMENSIONS:
            refuse(_malformed(evidence, f"dimensions[{i}] names no known dimension", ", ".join(FUNCTION_DIMENSIONS)))
        name = str(row["dimension"])
        kind = row.get("conclusion_kind", "derived_relationship")
        dims[name] = Dimension(
            name=name,
            status=_status(evidence, row.get("status"), f"dimensions[{i}].status"),
            conclusion_kind=next((c for c in CONCLUSIONS if c == kind), "unresolved_branch"),
            links=_strings(row.get("evidence_links")),
            limitations=_strings(row.get("limitations")),
        )
    return dims


def _artifact_changes(evidence: Evidence, result: Mapping[str, Any]) -> tuple[tuple[Change, ...], bool]:
    """Our compare_artifacts pages `changes` as a list beside `changes_page`; the reference nests {items, ...}."""
    block = result.get("changes")
    if isinstance(block, Mapping):
        rows, page = block.get("items"), block
    else:
        rows, page = block, result.get("changes_page") or {}
    if not isinstance(rows, list) or not isinstance(page, Mapping):
        refuse(_malformed(evidence, "changes is not a page of changes", "compare_artifacts' changes"))
    changes = []
    for i, row in enumerate(rows):
        if not isinstance(row, Mapping) or not isinstance(row.get("logical_path"), str):
            refuse(_malformed(evidence, f"changes[{i}] has no logical_path", "changes with logical_path"))
        status = _status(evidence, row.get("classification"), f"changes[{i}].classification")
        changes.append(
            Change(logical_path=row["logical_path"], classification=status, links=_strings(row.get("evidence_links")))
        )
    complete = page.get("offset", 0) == 0 and page.get("next_offset") is None
    return tuple(changes), complete


def _process_dims(evidence: Evidence, result: Mapping[str, Any]) -> dict[str, Dimension]:
    """A missing dimension of a process comparison is unknown, never unchanged."""
    return {
        name: Dimension(
            name=name,
            status=_status(evidence, result[name], name) if name in result else "unknown",
            conclusion_kind="derived_relationship",
            links=tuple(evidence.evidence_links),
            limitations=() if name in result else (f"the process comparison reports no {name} dimension",),
        )
        for name in PROCESS_DIMENSIONS
    }


def read(evidence: Evidence) -> Result[Comparison, ReaError]:
    """The comparison view of one Evidence record, or an error naming the accepted operations."""
    return attempt(lambda: _read(evidence))


def _read(evidence: Evidence) -> Comparison:
    if evidence.operation not in OPERATIONS:
        refuse(
            invalid_request(
                f"Evidence {evidence.evidence_id} is {evidence.operation}, not comparison Evidence",
                field="comparison",
                accepted=f"Evidence whose operation is one of {', '.join(OPERATIONS)}",
                evidence_id=evidence.evidence_id,
            )
        )
    result = evidence.normalized_result
    if not isinstance(result, Mapping):
        refuse(_malformed(evidence, "normalized_result is not an object", "a comparison result object"))
    status = _status(evidence, result.get("status"), "status")
    dims: Mapping[str, Dimension] = {}
    changes: tuple[Change, ...] = ()
    complete = True
    if evidence.operation == FUNCTION:
        dims = _function_dims(evidence, result)
    elif evidence.operation == ARTIFACT:
        changes, complete = _artifact_changes(evidence, result)
    else:
        dims = _process_dims(evidence, result)
    left, right = _sides(evidence)
    return Comparison(
        evidence_id=evidence.evidence_id,
        operation=evidence.operation,
        status=status,
        sources=tuple(evidence.evidence_links),
        left=left,
        right=right,
        dimensions=dims,
        changes=changes,
        complete=complete,
        limitations=tuple(evidence.limitations) + _strings(result.get("limitations")),
    )


def unique_sorted(values: Sequence[str] | set[str] | frozenset[str]) -> tuple[str, ...]:
    return tuple(sorted(set(values)))
