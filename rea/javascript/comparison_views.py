"""inspect_analysis_view over compare_application_versions Evidence: a summary and pages of items, pure.

A comparison of two package versions carries every changed item and a change graph (uuid 9.0.1 -> 10.0.0:
303 KB). The summary keeps the parent's own counts and coverage and replaces items and the graph by their
counts and first rows; the comparison view pages items, graph nodes or graph edges, each page ending early
rather than pass PAGE_BYTES. A comparison describes two artifacts, so the view's artifact is the right (newer)
side's root and both sides are named in the summary.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from returns.result import Failure, Result, Success

from rea.errors import ReaError
from rea.evidence import Evidence
from rea.views.projection import bounded_rows, complete_coverage, first_rows, unique_sorted, view_error
from rea.views.records.requests import PAGE_BYTES

OPERATION = "compare_application_versions"
FACETS = ("items", "graph_nodes", "graph_edges")
FIRST_ROWS = 3
FIRST_BYTES = 4_000
UNKNOWNS = ["runtime behaviour of either version is unknown: the comparison is static"]


def rows(nr: Mapping[str, Any], facet: str) -> Sequence[Any]:
    """The JSON rows of one facet: the comparison's items, or its graph's nodes or edges."""
    found: Sequence[Any] = (
        nr["items"] if facet == "items" else (nr.get("graph") or {}).get(facet.removeprefix("graph_"), [])
    )
    return found


def _listing(nr: Mapping[str, Any], facet: str) -> dict[str, Any]:
    found = rows(nr, facet)
    omitted = {"items": "omitted_comparison_items", "graph_nodes": "omitted_graph_nodes",
               "graph_edges": "omitted_graph_edges"}[facet]  # fmt: skip
    return {
        "total": len(found),
        "source_exhaustive": not nr["coverage"].get(omitted),
        "first": first_rows(found, FIRST_ROWS, FIRST_BYTES),
    }


def summary(nr: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "comparison_id": nr["comparison_id"],
        "left": nr["left"],
        "right": nr["right"],
        "summary": nr["summary"],
        "matching": nr["matching"],
        "categories": nr["categories"],
        "coverage": nr["coverage"],
        "content_only_changes": nr["content_only_changes"],
        "listings": {facet: _listing(nr, facet) for facet in FACETS},
    }


def comparison_view(source: Evidence, view: Mapping[str, Any]) -> Result[dict[str, Any], ReaError]:
    nr = source.normalized_result
    if not isinstance(nr, dict) or "comparison_id" not in nr or "items" not in nr:
        return Failure(view_error("The source is not compare_application_versions output.", ("source",)))
    right = nr["right"]
    shared = {
        "artifact": {"path": "", "sha256": right["root_artifact_sha256"]},
        "limitations": unique_sorted([*source.limitations, *nr.get("limitations", [])]),
        "unknowns": list(UNKNOWNS),
    }
    if view["kind"] == "summary":
        total = sum(len(rows(nr, facet)) for facet in FACETS)
        made: dict[str, Any] = {"kind": "summary", "view": dict(view), "summary": summary(nr)}
        return Success({**made, "coverage": complete_coverage(total, total), **shared})
    if view["kind"] != "comparison":
        return Failure(
            view_error(
                f"{view['kind']} views do not apply to {OPERATION} Evidence; use summary or comparison.",
                ("view", "kind"),
            )
        )
    items, coverage, used = bounded_rows(rows(nr, view["facet"]), view["offset"], view["limit"], PAGE_BYTES)
    made = {"kind": "comparison", "view": dict(view), "items": items, "page_bytes": used}
    return Success({**made, "comparison_id": nr["comparison_id"], "coverage": coverage, **shared})
