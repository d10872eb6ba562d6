"""inspect_analysis_view over inspect_artifact / inventory_artifact Evidence: summaries and inventory pages, pure.

The inventory is read through `inventory_of` (the artifact family's accessor),
so a change of the producers' shape is adapted there, not here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from returns.result import Failure, Result, Success

from rea.artifacts.compare import inventory_of
from rea.artifacts.inventory_parsing import source_complete
from rea.artifacts.model import SECTIONS
from rea.errors import ReaError
from rea.evidence import Evidence
from rea.views.projection import complete_coverage, page_rows, unique_sorted, view_error

OPERATIONS = ("inspect_artifact", "inventory_artifact")
_COUNT_KEYS = {
    "nodes": "node_count",
    "occurrences": "occurrence_count",
    "edges": "edge_count",
    "integrity_contradictions": "integrity_contradiction_count",
}
PARTIAL_SOURCE = (
    "The source inventory is not complete: exhausting these pages does not establish that unreturned paths are absent."
)


def inventory_evidence_ids(source: Evidence) -> list[str]:
    if source.operation == "inspect_artifact" and isinstance(source.normalized_result, dict):
        return list(source.normalized_result.get("inventory_evidence_ids", []))
    return [source.evidence_id]


def _inventory_facts(inv: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "manifest_id": inv["manifest"].get("manifest_id"),
        "inventory_coverage": {"scope": inv["coverage"]["scope"], "status": inv["coverage"]["status"]},
        "coverage_status": inv["coverage_status"],
        "source_complete": source_complete(inv),
    }


def _summary(source: Evidence, inv: Mapping[str, Any]) -> dict[str, Any]:
    manifest = inv["manifest"]
    kinds = Counter(o["entry_kind"] for o in inv["occurrences"]["items"])
    formats = Counter(n["format"] for n in inv["nodes"]["items"])
    available = {s: len(inv[s]["items"]) for s in SECTIONS}
    summary = {
        "expected_counts": {s: manifest.get(k) for s, k in _COUNT_KEYS.items()},
        "available_counts": available,
        "entry_kinds": dict(sorted(kinds.items())),
        "node_formats": dict(sorted(formats.items())),
        "inventory_evidence_ids": inventory_evidence_ids(source),
        "root": {
            "artifact_id": manifest.get("root_artifact_id"),
            "sha256": manifest.get("root_sha256"),
            "format": manifest.get("root_format"),
        },
        **_inventory_facts(inv),
    }
    records = sum(available.values())
    return {"summary": summary, "coverage": complete_coverage(records, records)}


def _selected(inv: Mapping[str, Any], view: Mapping[str, Any]) -> Result[Sequence[Mapping[str, Any]], ReaError]:
    items: Sequence[Mapping[str, Any]] = inv[view["facet"]]["items"]
    paths = view.get("logical_paths")
    if paths is None:
        return Success(items)
    if view["facet"] != "occurrences":
        return Failure(view_error("logical_paths filters the occurrences facet only.", ("view", "logical_paths")))
    wanted = set(paths)
    return Success([o for o in items if o["logical_path"] in wanted])


def _page(inv: Mapping[str, Any], view: Mapping[str, Any]) -> Result[dict[str, Any], ReaError]:
    return _selected(inv, view).map(lambda rows: _rows_page(inv, view, rows))


def _rows_page(inv: Mapping[str, Any], view: Mapping[str, Any], rows: Sequence[Any]) -> dict[str, Any]:
    items, coverage = page_rows(rows, view["offset"], view["limit"])
    return {"items": items, "coverage": coverage, **_inventory_facts(inv)}


def artifact_view(source: Evidence, view: Mapping[str, Any]) -> Result[dict[str, Any], ReaError]:
    """The unsealed summary or inventory view of completed artifact Evidence (see rea.views.projection.seal)."""
    parsed = inventory_of(source).alt(lambda error: error.with_details(field="source"))
    return parsed.bind(lambda inv: _view_body(source, inv, view).map(lambda body: _viewed(source, inv, view, body)))


def _view_body(source: Evidence, inv: Mapping[str, Any], view: Mapping[str, Any]) -> Result[dict[str, Any], ReaError]:
    if view["kind"] == "summary":
        return Success(_summary(source, inv))
    if view["kind"] == "inventory":
        return _page(inv, view)
    return Failure(
        view_error(f"{source.operation} Evidence is read with summary or inventory views, not {view['kind']}.")
    )


def _viewed(source: Evidence, inv: Mapping[str, Any], view: Mapping[str, Any], body: dict[str, Any]) -> dict[str, Any]:
    limitations = list(inv.get("limitations", []))
    if view["kind"] == "inventory" and not body["source_complete"]:
        limitations.append(PARTIAL_SOURCE)
    unknowns = [] if inv["coverage"]["status"] == "complete" else ["inventory coverage is " + inv["coverage"]["status"]]
    return {
        "kind": view["kind"],
        "view": dict(view),
        **body,
        "limitations": unique_sorted([*source.limitations, *limitations]),
        "unknowns": unknowns,
    }
