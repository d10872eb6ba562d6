"""inspect_analysis_view over inspect_wasm_artifact Evidence: the summary and every facet, pure.

Array facets page by rows; wat, headers and details page by UTF-16 code units and
never split a character; tool_profile is a singleton. The WAT digest is checked
against the carried text before any WAT page is served, for retained and inline
sources alike; WABT is never run again.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from returns.result import Failure, Result, Success

from rea.errors import ReaError
from rea.evidence import Evidence
from rea.native.views import utf16_window
from rea.views.projection import complete_coverage, page_coverage, page_rows, unique_sorted, view_error
from rea.wasm.build import feature_records, producer_records

ROWS = ("sections", "imports", "exports", "candidates", "glue")
RECORDS = ("import_records", "export_records", "functions")  # our extras; absent from older Evidence
SINGLETONS = ("tool_profile", "custom_sections")
TEXTS = ("wat", "headers", "details")
UNKNOWNS = ["runtime behaviour is unknown (runtime_execution not-performed)", "network resources were not fetched"]


def _summary(nr: Mapping[str, Any]) -> dict[str, Any]:
    wat = nr["wat"]
    customs = nr["custom_sections"]
    return {
        "artifact": nr["artifact"],
        "validation": nr["validation"],
        "counts": {k: len(nr[k]) for k in ROWS},
        **({"module_counts": nr["module_counts"]} if "module_counts" in nr else {}),
        "custom_section_names": list(customs["names"]),
        "producers": customs.get("producer_fields") or producer_records(customs["producers"]),
        "target_features": customs.get("target_feature_records") or feature_records(customs["target_features"]),
        "wat": {"sha256": wat["sha256"], "utf16_length": wat["utf16_length"], "complete": wat["complete"]},
        "tool_profile": nr["tool_profile"],
        "runtime_execution": nr["runtime_execution"],
        "network_fetch": nr["network_fetch"],
    }


def check_wat(wat: Mapping[str, Any]) -> Result[None, ReaError]:
    """The carried WAT must hash to its digest (complete text) before a page of it is served."""
    if not wat["complete"]:
        return Success(None)
    if hashlib.sha256(wat["text"].encode("utf-8")).hexdigest() == wat["sha256"]:
        return Success(None)
    return Failure(
        ReaError(
            code="evidence_integrity_mismatch",
            message="The Evidence's decoded WAT does not hash to its recorded wat.sha256; no page is served from it.",
            details={"field": "normalized_result.wat", "reason": "digest_mismatch", "expected": wat["sha256"]},
            action="Rerun inspect_wasm_artifact on the module, or supply the unmodified Evidence.",
        )
    )


def wat_page_request(source: Evidence, view: Mapping[str, Any]) -> dict[str, Any] | None:
    """The page-cache read a wat page needs: one that starts or ends past the carried text of a cached WAT."""
    nr = source.normalized_result
    if source.operation != "inspect_wasm_artifact" or view.get("kind") != "wasm" or view.get("facet") != "wat":
        return None
    wat = nr.get("wat") if isinstance(nr, dict) else None
    if not isinstance(wat, dict) or wat.get("complete") or not wat.get("page_index"):
        return None
    offset, limit = view["offset"], view["limit"]
    if offset >= wat["utf16_length"] or offset + limit <= len(wat["text"]):  # empty, or inside the carried text
        return None
    return {
        "wat_sha256": wat["sha256"],
        "index_sha256": wat["page_index"]["index_sha256"],
        "offset": offset,
        "limit": limit,
    }


def _text(nr: Mapping[str, Any], facet: str, offset: int, limit: int) -> Result[tuple[Any, dict[str, Any]], ReaError]:
    text = nr[facet]["text"] if facet == "wat" else nr[facet]
    total = nr["wat"]["utf16_length"] if facet == "wat" else None
    return utf16_window(text, offset, limit).bind(lambda window: _carried_page(window, offset, total))


def _carried_page(
    window: tuple[str, int, int, int], offset: int, total: int | None
) -> Result[tuple[Any, dict[str, Any]], ReaError]:
    """The page of the carried text, or the refusal of an offset past it when the whole WAT is longer."""
    page, start, end, carried = window
    whole = carried if total is None else total
    if offset > carried and whole > carried:
        return Failure(
            view_error(
                f"The Evidence carries the first {carried} of {whole} WAT code units; offset {offset} is past them.",
                ("view", "offset"),
                carried_units=carried,
            )
        )
    return Success(({"text": page, "unit": "utf16-code-units"}, page_coverage(start, end - start, whole)))


def _cached(nr: Mapping[str, Any], page: Mapping[str, Any]) -> Result[tuple[Any, dict[str, Any]], ReaError]:
    """A WAT page the effect read from the page cache (its chain of digests already checked)."""
    coverage = page_coverage(page["start"], page["end"] - page["start"], nr["wat"]["utf16_length"])
    return Success(({"text": page["text"], "unit": "utf16-code-units", "source": "page-cache"}, coverage))


def _facet(
    nr: Mapping[str, Any], view: Mapping[str, Any], page: Mapping[str, Any] | None
) -> Result[tuple[Any, dict[str, Any]], ReaError]:
    facet = view["facet"]
    if facet == "wat" and page is not None:
        return _cached(nr, page)
    if facet in SINGLETONS:
        if view["offset"] != 0:
            return Failure(view_error(f"{facet} is a singleton: use offset 0.", ("view", "offset")))
        return Success((nr[facet], complete_coverage(1, 1)))
    if facet in RECORDS and facet not in nr:
        return Failure(
            view_error(f"This Evidence predates {facet}; rerun inspect_wasm_artifact for it.", ("view", "facet"))
        )
    if facet in TEXTS:
        checked = check_wat(nr["wat"]) if facet == "wat" else Success(None)
        return checked.bind(lambda _: _text(nr, facet, view["offset"], view["limit"]))
    return Success(page_rows(nr[facet], view["offset"], view["limit"]))


def wasm_view(
    source: Evidence, view: Mapping[str, Any], page: Mapping[str, Any] | None = None
) -> Result[dict[str, Any], ReaError]:
    nr = source.normalized_result
    if not isinstance(nr, dict) or "wat" not in nr:
        return Failure(view_error("The source is not inspect_wasm_artifact output.", ("source",)))
    shared = {"limitations": unique_sorted([*source.limitations, *nr["limitations"]]), "unknowns": list(UNKNOWNS)}
    if view["kind"] == "summary":
        total = sum(len(nr[k]) for k in ROWS)
        return Success(
            {
                "kind": "summary",
                "view": dict(view),
                "summary": _summary(nr),
                "coverage": complete_coverage(total, total),
                **shared,
            }
        )
    if view["kind"] != "wasm":
        return Failure(
            view_error(
                f"{view['kind']} views do not apply to inspect_wasm_artifact Evidence; use summary or wasm.",
                ("view", "kind"),
            )
        )
    return _facet(nr, view, page).map(
        lambda got: {"kind": "wasm", "view": dict(view), "item": got[0], "coverage": got[1], **shared}
    )
