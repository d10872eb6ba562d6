"""correlate_static_and_runtime: caller-declared hypotheses tested against a static and a runtime verdict.

A mapping pairs one static verdict (a function dimension, or one artifact path) with one
runtime dimension of a process comparison. The observed pattern is read from the two
verdicts; it agrees with the hypothesis (`hypothesis`, consistent, not proven causal),
disagrees (`contradiction`), or cannot be read (`unresolved_branch`). Nothing unmapped is
correlated.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

from returns.result import Result

from rea.canonical_json import canonical_sha256
from rea.errors import ReaError, invalid_request
from rea.paging import paginate
from rea.reconstruction import comparisons as cmp
from rea.reconstruction.records.claims import (
    Correlated,
    Correlation,
    CorrelationPage,
    CorrelationSummary,
    HypothesisMapping,
    RuntimeObserved,
    Selector,
    StaticObserved,
)
from rea.reconstruction.records.common import ComparisonStatus
from rea.reconstruction.refusal import attempt, refuse
from rea.wire.convert import to_wire

Observed = Literal["cochanged", "static_only", "runtime_only", "both_unchanged", "unknown", "truncated"]
Verdict = tuple[ComparisonStatus, cmp.Conclusion]

LIMITATIONS = (
    "Mappings are caller-declared hypotheses; agreement does not establish causality.",
    "Only the declared mappings were evaluated; similar unmapped observations were not correlated.",
)
PER_ITEM = (
    "This correlation tests one explicit hypothesis and does not establish causality.",
    "Side alignment is declared by the caller, not checked against the compared subjects.",
)


def observed_pattern(static: str, runtime: str) -> Observed:
    """truncated, then unknown (or a contradiction on either side), win; otherwise which side changed."""
    pair = (static, runtime)
    if "truncated" in pair:
        return "truncated"
    if any(s in cmp.UNRESOLVED or s == "contradiction" for s in pair):
        return "unknown"
    moved: dict[tuple[bool, bool], Observed] = {
        (True, True): "cochanged",
        (True, False): "static_only",
        (False, True): "runtime_only",
    }
    return moved.get((static in cmp.CHANGES, runtime in cmp.CHANGES), "both_unchanged")


def _static_verdict(found: cmp.Comparison, selector: Selector, where: str) -> Verdict:
    if selector.kind == "function":
        if found.operation != cmp.FUNCTION or selector.dimension is None:
            refuse(invalid_request(f"{where}: a function selector needs compare_functions Evidence and a dimension",
                                   field=where, accepted="{kind: function, dimension} on compare_functions Evidence"))  # fmt: skip
        dim = found.dimensions.get(selector.dimension)
        if dim is None:
            return "unknown", "unresolved_branch"
        return dim.status, ("unresolved_branch" if dim.status in cmp.UNRESOLVED else dim.conclusion_kind)
    if found.operation != cmp.ARTIFACT or not selector.logical_path:
        refuse(invalid_request(f"{where}: an artifact selector needs compare_artifacts Evidence and a logical_path",
                               field=where, accepted="{kind: artifact, logical_path} on compare_artifacts Evidence"))  # fmt: skip
    matches = [c for c in found.changes if c.logical_path == selector.logical_path]
    if len(matches) > 1:
        refuse(invalid_request(f"{where}: {selector.logical_path!r} names {len(matches)} changes", field=where,
                               accepted="a logical_path that names one reported change"))  # fmt: skip
    if not matches and not found.complete:  # it may be on a page of changes nobody read
        return "unknown", "unresolved_branch"
    if not matches:  # an unreported path may not exist at all: never read it as unchanged
        reported = ", ".join(sorted(c.logical_path for c in found.changes)[:20]) or "none"
        refuse(invalid_request(f"{where}: {selector.logical_path!r} is not a change the comparison reports", field=where,
                               accepted=f"a reported logical_path ({reported})"))  # fmt: skip
    status = matches[0].classification
    if status == "contradiction":
        return status, "contradiction"
    return status, "unresolved_branch" if status == "unknown" else "derived_relationship"


def _lookup(by_id: Mapping[str, cmp.Comparison], evidence_id: str, where: str, role: str) -> cmp.Comparison:
    found = by_id.get(evidence_id)
    if found is None:
        refuse(invalid_request(f"{where} cites {evidence_id}, which is not among the {role}", field=where,
                               accepted=f"an evidence_id of one of the {role}"))  # fmt: skip
    return found


def _correlate(index: int, m: HypothesisMapping, statics: Mapping[str, cmp.Comparison],
               runtimes: Mapping[str, cmp.Comparison]) -> Correlation:  # fmt: skip
    where = f"mappings[{index}]"
    s = _lookup(statics, m.static.comparison_evidence_id, f"{where}.static", "static_comparisons")
    r = _lookup(runtimes, m.runtime.comparison_evidence_id, f"{where}.runtime", "runtime_comparisons")
    status, conclusion = _static_verdict(s, m.static.selector, f"{where}.static.selector")
    runtime_status = r.dimensions[m.runtime.dimension].status
    pattern = observed_pattern(status, runtime_status)
    classification: Literal["hypothesis", "contradiction", "unresolved_branch"] = (
        "unresolved_branch" if pattern in ("unknown", "truncated")
        else "hypothesis" if pattern == m.hypothesis.expected_pattern else "contradiction")  # fmt: skip
    static, runtime = m.static, m.runtime
    return Correlation(
        correlation_id="cor_" + canonical_sha256(to_wire(m)),
        static=StaticObserved(comparison_evidence_id=static.comparison_evidence_id, selector=static.selector,
                              status=status, conclusion_kind=conclusion),
        runtime=RuntimeObserved(comparison_evidence_id=runtime.comparison_evidence_id, dimension=runtime.dimension,
                                status=runtime_status),
        side_alignment=m.side_alignment,
        hypothesis=m.hypothesis,
        observed_pattern=pattern,
        classification=classification,
        evidence_links=tuple(sorted({s.evidence_id, *s.sources, r.evidence_id, *r.sources})),
        limitations=tuple(
            sorted({*s.limitations, *r.limitations, *r.dimensions[m.runtime.dimension].limitations, *PER_ITEM})
        ),
    )  # fmt: skip


def _index(found: Sequence[cmp.Comparison], field: str, operations: tuple[str, ...]) -> dict[str, cmp.Comparison]:
    by_id: dict[str, cmp.Comparison] = {}
    for i, c in enumerate(found):
        if c.operation not in operations:
            refuse(invalid_request(f"{field}[{i}] is {c.operation} Evidence", field=f"{field}[{i}]",
                                   accepted=f"Evidence of {', '.join(operations)}"))  # fmt: skip
        if c.evidence_id in by_id:
            refuse(
                invalid_request(
                    f"{field}[{i}] repeats {c.evidence_id}", field=f"{field}[{i}]", accepted="distinct Evidence"
                )
            )
        by_id[c.evidence_id] = c
    return by_id


def correlate(
    statics: Sequence[cmp.Comparison], runtimes: Sequence[cmp.Comparison], mappings: Sequence[HypothesisMapping],
    offset: int, limit: int,
) -> Result[Correlated, ReaError]:  # fmt: skip
    return attempt(lambda: _all(statics, runtimes, mappings, offset, limit))


def _all(statics: Sequence[cmp.Comparison], runtimes: Sequence[cmp.Comparison], mappings: Sequence[HypothesisMapping],
         offset: int, limit: int) -> Correlated:  # fmt: skip
    s_by = _index(statics, "static_comparisons", (cmp.FUNCTION, cmp.ARTIFACT))
    r_by = _index(runtimes, "runtime_comparisons", (cmp.PROCESS,))
    items = sorted((_correlate(i, m, s_by, r_by) for i, m in enumerate(mappings)), key=lambda c: c.correlation_id)
    if len({c.correlation_id for c in items}) != len(items):
        refuse(invalid_request("two mappings are the same", field="mappings", accepted="distinct mappings"))
    kinds = [c.classification for c in items]
    status: Literal["correlated", "contradicted", "unknown", "truncated"] = (
              "truncated" if any(c.observed_pattern == "truncated" for c in items)
              else "unknown" if "unresolved_branch" in kinds
              else "contradicted" if "contradiction" in kinds else "correlated")  # fmt: skip
    page = paginate(items, offset, limit)
    return Correlated(
        status=status,
        summary=CorrelationSummary(hypotheses=kinds.count("hypothesis"), contradictions=kinds.count("contradiction"),
                                   unresolved=kinds.count("unresolved_branch")),
        correlations=CorrelationPage(items=page.items, offset=offset, limit=limit, total=page.total,
                                     next_offset=page.next_offset),
        evidence_links=tuple(sorted({x for c in items for x in c.evidence_links})),
        limitations=LIMITATIONS,
    )  # fmt: skip
