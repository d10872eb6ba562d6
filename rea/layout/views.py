"""inspect_analysis_view over inspect_binary_layout Evidence: summary, a facet, one section/symbol, a page. Pure.

Follows the reference's layout view: the summary counts the collections, a facet
is mitigations or linkage whole, an item is selected by index or exact name
(ambiguous names list their indices), a page is a stable slice of sections or symbols.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from returns.result import Failure, Result, Success

from rea.errors import ReaError
from rea.evidence import Evidence
from rea.views.projection import complete_coverage, page_rows, unique_sorted, view_error

COLLECTIONS = ("sections", "symbols")
PE_COLLECTIONS = ("exports", "imports")  # rows of pe_directories: export entries, import descriptors
_CONSTANT_UNKNOWNS = (
    "runtime_load_base is unknown",
    "entry_point.execution_status is unknown",
    "relocation_inventory_completeness is unknown",
    "linkage.convenience_maps_completeness is unknown",
    "linkage.runtime_library_paths are unknown",
)


def _unknowns(layout: Mapping[str, Any]) -> list[str]:
    found = list(_CONSTANT_UNKNOWNS)
    for key in ("nx_indicator", "relro"):
        if layout["mitigations"][key] is None:
            found.append(f"mitigations.{key} is unknown")
    return unique_sorted(found)


def _shared(source: Evidence, layout: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "limitations": unique_sorted([*source.limitations, *layout["limitations"]]),
        "unknowns": _unknowns(layout),
    }


def _summary(layout: Mapping[str, Any]) -> dict[str, Any]:
    counts = {k: len(layout[k]) for k in ("sections", "segments", "symbols", "relocations")}
    pe = layout.get("pe_directories")
    if pe is not None:
        counts["exports"] = len(pe["exports"]["entries"]) if pe["exports"] else 0
        counts["imports"] = sum(len(d["entries"]) for d in pe["imports"])
        counts["import_libraries"] = len(pe["imports"])
    return {
        "bytes": layout["artifact"]["bytes"],
        "format": layout["format"],
        "architecture": layout["architecture"],
        "image_type": layout["image_type"],
        "entry": layout["entry_point"],
        "counts": counts,
        "limitation_count": len(layout["limitations"]),
        "slice": layout["slice"],
        "coverage": layout["coverage"],
        "mitigations": layout["mitigations"],
    }


def _by_index(collection: str, rows: Sequence[Any], index: int) -> Result[Any, ReaError]:
    if 0 <= index < len(rows):
        return Success(rows[index])
    last = max(0, len(rows) - 1)
    return Failure(
        view_error(
            f"{collection} index {index} is outside 0..{last} ({len(rows)} entries).",
            ("view", "selector", "index"),
            minimum=0,
            maximum=last,
        )
    )


def _row_name(row: Mapping[str, Any]) -> str | None:
    """Sections and symbols carry a Name record; export rows a string; import descriptors their library."""
    found = row.get("name", row.get("library"))
    name: str | None = found["display"] if isinstance(found, dict) else found
    return name


def _by_name(collection: str, rows: Sequence[Mapping[str, Any]], name: str) -> Result[Any, ReaError]:
    matches = [i for i, row in enumerate(rows) if _row_name(row) == name]
    if len(matches) == 1:
        return Success(rows[matches[0]])
    if not matches:
        names = list(dict.fromkeys(x for x in map(_row_name, rows) if x is not None))[:32]
        return Failure(
            view_error(
                f"No {collection} named {name!r}. Collection has {len(rows)} entries.",
                ("view", "selector", "name"),
                expected=names,
            )
        )
    return Failure(
        view_error(
            f"Multiple {collection} named {name!r}; select one by index.",
            ("view", "selector", "name"),
            expected=[{"index": i} for i in matches],
        )
    )


def _rows(layout: Mapping[str, Any], collection: str) -> list[Any]:
    if collection in COLLECTIONS:
        return list(layout[collection])
    pe = layout.get("pe_directories") or {"exports": None, "imports": []}
    if collection == "exports":
        return list(pe["exports"]["entries"]) if pe["exports"] else []
    return list(pe["imports"])


def _collection(view: Mapping[str, Any], layout: Mapping[str, Any]) -> Result[str, ReaError]:
    if view["collection"] in COLLECTIONS:
        return Success(view["collection"])
    if view["collection"] in PE_COLLECTIONS:
        if layout.get("pe_directories") is not None:
            return Success(view["collection"])
        return Failure(
            view_error(
                f"{view['collection']} rows come from a PE's export and import directories; this Evidence has none "
                "(not PE, or recorded before they were read).",
                ("view", "collection"),
            )
        )
    return Failure(
        view_error(
            f"{view['collection']} collection applies to analyze_javascript_application Evidence; "
            "inspect_binary_layout Evidence has sections, symbols and (PE) exports, imports.",
            ("view", "collection"),
        )
    )


def _item(layout: Mapping[str, Any], view: Mapping[str, Any]) -> Result[dict[str, Any], ReaError]:
    return _collection(view, layout).bind(lambda collection: _chosen_item(layout, view, collection))


def _chosen_item(
    layout: Mapping[str, Any], view: Mapping[str, Any], collection: str
) -> Result[dict[str, Any], ReaError]:
    rows = _rows(layout, collection)
    selector = view["selector"]
    if "index" in selector:
        found = _by_index(collection, rows, selector["index"])
    elif "name" in selector:
        found = _by_name(collection, rows, selector["name"])
    else:
        return Failure(
            view_error("Section and symbol items are selected by index or exact name.", ("view", "selector"))
        )
    return found.map(
        lambda row: {"kind": "item", "view": dict(view), "item": row, "coverage": complete_coverage(1, len(rows))}
    )


def _page(layout: Mapping[str, Any], view: Mapping[str, Any]) -> Result[dict[str, Any], ReaError]:
    return _collection(view, layout).map(lambda collection: _rows_page(layout, view, collection))


def _rows_page(layout: Mapping[str, Any], view: Mapping[str, Any], collection: str) -> dict[str, Any]:
    items, coverage = page_rows(_rows(layout, collection), view["offset"], view["limit"])
    return {"kind": "page", "view": dict(view), "items": items, "coverage": coverage}


def layout_view(source: Evidence, view: Mapping[str, Any]) -> Result[dict[str, Any], ReaError]:
    """The unsealed view of one layout Evidence record."""
    layout = source.normalized_result
    if not isinstance(layout, dict) or "sections" not in layout:
        return Failure(view_error("The source is not inspect_binary_layout output.", ("source",)))
    kind = view["kind"]
    if kind == "summary":
        total = sum(len(layout[k]) for k in ("sections", "segments", "symbols", "relocations"))
        body: Result[dict[str, Any], ReaError] = Success(
            {
                "kind": "summary",
                "view": dict(view),
                "summary": _summary(layout),
                "coverage": complete_coverage(total, total),
            }
        )
    elif kind == "facet":
        body = Success(
            {
                "kind": "facet",
                "view": dict(view),
                "facet": layout.get(view["facet"]),
                "coverage": complete_coverage(1, 1),
            }
        )
    elif kind == "item":
        body = _item(layout, view)
    elif kind == "page":
        body = _page(layout, view)
    else:
        return Failure(
            view_error(
                f"{kind} views do not apply to inspect_binary_layout Evidence; use summary, facet, item or page.",
                ("view", "kind"),
            )
        )
    return body.map(lambda projected: {**projected, **_shared(source, layout)})


# ------------------------------------------------------------------ Mach-O views

MACHO_UNKNOWNS = ["runtime load addresses are unknown", "dyld resolution at run time is not observed"]


def macho_view(source: Evidence, view: Mapping[str, Any]) -> Result[dict[str, Any], ReaError]:
    """Summary, or one page of a facet's original rows with the collection's source_total and source_exhaustive."""
    from rea.layout.macho import COLLECTIONS, macho_summary

    nr = source.normalized_result
    if not isinstance(nr, dict) or nr.get("format") != "mach-o":
        return Failure(view_error("The source is not inspect_macho output.", ("source",)))
    shared = {"limitations": unique_sorted([*source.limitations, *nr["limitations"]]), "unknowns": MACHO_UNKNOWNS}
    if view["kind"] == "summary":
        total = sum(len(nr[k]["items"]) for k in COLLECTIONS)
        return Success(
            {
                "kind": "summary",
                "view": dict(view),
                "summary": macho_summary(nr),
                "coverage": complete_coverage(total, total),
                **shared,
            }
        )
    if view["kind"] != "macho":
        return Failure(
            view_error(
                f"{view['kind']} views do not apply to inspect_macho Evidence; use summary or macho.", ("view", "kind")
            )
        )
    facet = view["facet"]
    if facet == "provenance":
        rows, total, exhaustive = nr["provenance"], len(nr["provenance"]), True
    else:
        rows, total, exhaustive = nr[facet]["items"], nr[facet]["total"], nr[facet]["exhaustive"]
    items, coverage = page_rows(rows, view["offset"], view["limit"])
    return Success(
        {
            "kind": "macho",
            "view": dict(view),
            "item": items,
            "coverage": coverage,
            "source_total": total,
            "source_exhaustive": exhaustive,
            **shared,
        }
    )
