"""trace_feature over the CFG snapshot: literal matches in strings and procedure names, then the
references to each match and the procedures holding them, every read counted against the budget.

The reads are the reference's: one per 500-row page of strings or procedures, one reference lookup per
match, one containing-procedure resolution per reference. Whatever the budget or limit cut is named
in residual_unknowns, so `truncated` is true exactly when something was left unread."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from rea.native import answers as a
from rea.native import queries as q
from rea.native import strings as native_strings
from rea.native.records import analyses as w

PAGE = 500
BUDGET = "Investigation reached the operation budget."
MATCH_LIMIT = "Literal matches reached the configured limit."
REFERENCE_BUDGET = "Reference traversal stopped at the operation budget."
CONTAINING_BUDGET = "Containing-procedure resolution stopped at the operation budget."
REFERENCE_LIMIT = "Reference results reached the configured limit."


class _Budget:
    def __init__(self, total: int) -> None:
        self.total, self.used = total, 0

    def take(self) -> bool:
        if self.used >= self.total:
            return False
        self.used += 1
        return True


def _sources(snapshot: Mapping[str, Any]) -> tuple[tuple[str, list[tuple[str, str]]], ...]:
    strings = sorted(
        ((s["address"], s["value"]) for s in snapshot.get("strings", ())), key=lambda r: a.address_order(r[0])
    )
    procs = [(p["address"], p["name"]) for p in q.procedures(snapshot)]
    return (("string", strings), ("procedure", sorted(procs, key=lambda r: a.address_order(r[0]))))


def _matches(snapshot: Mapping[str, Any], args: Mapping[str, Any], budget: _Budget) -> list[w.FeatureMatch]:
    fold = (lambda t: t) if args["case_sensitive"] else str.casefold
    needle, limit = fold(args["query"]), args["limit"]
    found: list[w.FeatureMatch] = []
    for kind, rows in _sources(snapshot):
        for start in range(0, max(len(rows), 1), PAGE):
            if len(found) >= limit or not budget.take():
                break
            for address, text in rows[start : start + PAGE]:
                if needle in fold(text) and len(found) < limit:
                    found.append(w.FeatureMatch(type=kind, address=address, value=text[: native_strings.MAX_STRING]))  # type: ignore[arg-type]
    return found


def _sites(snapshot: Mapping[str, Any], address: str) -> list[str]:
    return sorted({r.source for r in q.incoming(snapshot, address)}, key=a.address_order)


def _references(
    snapshot: Mapping[str, Any], matches: Iterable[w.FeatureMatch], limit: int, budget: _Budget, residual: set[str]
) -> list[w.FeatureReference]:
    found: list[w.FeatureReference] = []
    for match in matches:
        if len(found) >= limit:
            break
        if not budget.take():
            residual.add(REFERENCE_BUDGET)
            break
        for source in _sites(snapshot, match.address):
            if not budget.take():
                residual.add(CONTAINING_BUDGET)
                break
            found.append(
                w.FeatureReference(
                    target_address=match.address,
                    source_address=source,
                    containing_procedure=a.containing(snapshot, source),
                )
            )
            if len(found) >= limit:
                residual.add(REFERENCE_LIMIT)
                break
    return found


def trace(snapshot: Mapping[str, Any], args: Mapping[str, Any]) -> w.FeatureTrace:
    budget, residual = _Budget(args["max_operations"]), set[str]()
    matches = _matches(snapshot, args, budget)
    references = _references(snapshot, matches, args["limit"], budget, residual)
    if budget.used >= budget.total:
        residual.add(BUDGET)
    if len(matches) >= args["limit"]:
        residual.add(MATCH_LIMIT)
    return w.FeatureTrace(
        query=args["query"],
        search_mode="literal",
        operations_used=budget.used,
        operation_budget=budget.total,
        matches=tuple(matches),
        references=tuple(references),
        truncated=bool(residual),
        residual_unknowns=tuple(sorted(residual)),
    )
