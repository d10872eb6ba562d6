"""inspect_analysis_view over Android Evidence: stable pages of classes (search) and methods or fields (class)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from returns.result import Failure, Result, Success

from rea.errors import ReaError
from rea.evidence import Evidence
from rea.views.projection import page_rows, view_error

# parent operation -> facets it holds, as (facet, result field)
FACETS: Mapping[str, Mapping[str, str]] = {
    "search_android_classes": {"classes": "matches"},
    "inspect_android_class": {"methods": "methods", "fields": "fields"},
}


def android_view(source: Evidence, view: Mapping[str, Any]) -> Result[dict[str, Any], ReaError]:
    """The unsealed page (see rea.views.projection.seal)."""
    facets = FACETS[source.operation]
    if view["kind"] != "android" or view["facet"] not in facets:
        wanted = ", ".join(f"android/{f}" for f in facets)
        return Failure(view_error(f"{source.operation} Evidence is read with {wanted} views, not {view['kind']}."))
    result = source.normalized_result
    rows = result[facets[view["facet"]]]
    items, coverage = page_rows(rows, view["offset"], view["limit"])
    return Success(
        {
            "kind": "android",
            "view": dict(view),
            "class_name": result.get("class_name"),
            "items": items,
            "coverage": coverage,
            "limitations": sorted(set(source.limitations)),
            "unknowns": [],
        }
    )
