"""inspect_analysis_view over inspect_managed_artifact and inspect_managed_members Evidence, pure.

A managed assembly's listings are what make its Evidence large (mscorlib: 4,676 custom attributes, 27,000
methods with their instruction anchors), so the summary keeps identity and coverage and replaces each listing
by its count and first rows, and the managed view pages one listing at a time. A page ends early rather than
pass PAGE_BYTES of rows; its next_offset follows the last row it carries, so the pages' union is the listing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from returns.result import Failure, Result, Success

from rea.errors import ReaError
from rea.evidence import Evidence
from rea.views.projection import bounded_rows, complete_coverage, first_rows, unique_sorted, view_error
from rea.views.records.requests import PAGE_BYTES

LISTINGS: Mapping[str, tuple[str, ...]] = {
    "inspect_managed_artifact": ("references", "resources", "attributes", "pdb_documents"),
    "inspect_managed_members": ("types", "methods", "fields", "member_refs", "call_edges", "field_accesses"),
}
# the word the producer's paging limitation names a listing by ("attribute: 20 of 4676 returned ...")
PAGING_WORD = {
    "references": "reference",
    "resources": "resource",
    "attributes": "attribute",
    "pdb_documents": "document",
}
FIRST_ROWS = 3
FIRST_BYTES = 1_500  # per listing: ten listings' first rows stay far below a 32 KB summary
FIRST_ISSUES = 10
UNKNOWNS = ["runtime behaviour is unknown: no managed code was loaded or executed"]


def rows(nr: Mapping[str, Any], facet: str) -> Sequence[Any]:
    if facet == "pdb_documents":
        pdb = nr.get("portable_pdb")
        documents: Sequence[Any] = pdb["documents"] if pdb else []
        return documents
    listed: Sequence[Any] = nr[facet]
    return listed


def exhaustive(nr: Mapping[str, Any], facet: str) -> bool:
    """The producer returned the whole listing: it states every listing it was asked to page."""
    word = PAGING_WORD.get(facet, facet)
    return not any(text.startswith(f"{word}: ") for text in nr["limitations"])


def listing(nr: Mapping[str, Any], facet: str) -> dict[str, Any]:
    found = rows(nr, facet)
    return {
        "total": len(found),
        "source_exhaustive": exhaustive(nr, facet),
        "first": first_rows(found, FIRST_ROWS, FIRST_BYTES),
    }


def _identity(value: Mapping[str, Any] | None, *keys: str) -> dict[str, Any] | None:
    return None if value is None else {k: value.get(k) for k in keys}


def summary(operation: str, nr: Mapping[str, Any]) -> dict[str, Any]:
    pdb = nr.get("portable_pdb")
    issues = nr["coverage"]["issues"]
    return {
        "operation": operation,
        "artifact": nr["artifact"],
        "assembly": _identity(nr.get("assembly"), "name", "version", "culture"),
        "module": _identity(nr.get("module"), "name", "mvid"),
        "classification": _identity(
            nr.get("classification"), "status", "runtime_family", "implementation", "managed_architecture"
        ),
        "target_frameworks": list(nr.get("target_frameworks", [])),
        "metadata_status": nr["metadata"]["status"],
        "table_row_counts": nr["metadata"]["table_row_counts"],
        "portable_pdb": None if pdb is None else {k: v for k, v in pdb.items() if k != "documents"},
        "coverage": {"state": nr["coverage"]["state"], "issue_count": len(issues), "issues": issues[:FIRST_ISSUES]},
        "listings": {facet: listing(nr, facet) for facet in LISTINGS[operation]},
    }


def _page(nr: Mapping[str, Any], operation: str, view: Mapping[str, Any]) -> Result[dict[str, Any], ReaError]:
    facet = view["facet"]
    if facet not in LISTINGS[operation]:
        return Failure(
            view_error(
                f"{operation} Evidence has no {facet} listing; its facets are " + ", ".join(LISTINGS[operation]),
                ("view", "facet"),
                accepted=", ".join(LISTINGS[operation]),
            )
        )
    listed = rows(nr, facet)
    if view.get("match") is not None:
        listed = matching(listed, view["match"])
    items, coverage, used = bounded_rows(listed, view["offset"], view["limit"], PAGE_BYTES)
    return Success(
        {
            "kind": "managed",
            "view": dict(view),
            "items": items,
            "page_bytes": used,
            "source_exhaustive": exhaustive(nr, facet),
            "coverage": coverage,
        }
    )


def matching(listed: Sequence[Any], text: str) -> list[Any]:
    """The rows one of whose names contains `text`, ignoring case, in listing order. Why names only: a method
    is found by its own, its type's or its target's name, never by a digest or a signature's hex that happens
    to contain the text. A row's names are its string fields whose key ends in one of _NAME_KEYS (call edges and
    field accesses name their ends in `caller`, `target_name`, `method`; a member ref its class in `parent`)."""
    wanted = text.casefold()
    return [row for row in listed if any(wanted in value.casefold() for value in _names(row))]


_NAME_KEYS = ("name", "type", "caller", "method", "namespace", "parent", "extends", "path")


def _names(row: Any) -> list[str]:
    """A row's names, and a member's qualified name `Type::member` as call edges write theirs."""
    if not isinstance(row, Mapping):
        return []
    names = [v for k, v in row.items() if isinstance(v, str) and k.endswith(_NAME_KEYS)]
    owner = row.get("declaring_type") or row.get("parent")
    if isinstance(owner, str) and isinstance(row.get("name"), str):
        names.append(f"{owner}::{row['name']}")
    return names


def managed_view(source: Evidence, view: Mapping[str, Any]) -> Result[dict[str, Any], ReaError]:
    nr = source.normalized_result
    operation = source.operation
    if not isinstance(nr, dict) or "coverage" not in nr or operation not in LISTINGS:
        return Failure(view_error(f"The source is not managed Evidence ({operation}).", ("source",)))
    shared = {"limitations": unique_sorted([*source.limitations, *nr["limitations"]]), "unknowns": list(UNKNOWNS)}
    if view["kind"] == "summary":
        total = sum(len(rows(nr, facet)) for facet in LISTINGS[operation])
        made = {"kind": "summary", "view": dict(view), "summary": summary(operation, nr)}
        return Success({**made, "coverage": complete_coverage(total, total), **shared})
    if view["kind"] != "managed":
        return Failure(
            view_error(
                f"{view['kind']} views do not apply to {operation} Evidence; use summary or managed.",
                ("view", "kind"),
            )
        )
    return _page(nr, operation, view).map(lambda page: {**page, **shared})
