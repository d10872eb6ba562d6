"""Views of completed analyze_function Evidence: one facet, one stable page, no provider.

Facet names are the reference's. Pseudocode pages count UTF-16 code units and
never split a surrogate pair; row facets page rows; procedure, native_api and
value_flow_summary are singletons. A facet the dossier declares unobserved (or
does not hold) answers `{available: false, reason}`, never an empty page that
would read as observed absence.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from returns.result import Failure, Result, Success

from rea.errors import ReaError
from rea.evidence import Evidence
from rea.views.projection import complete_coverage, page_coverage, page_rows, unique_sorted, view_error

OPERATION = "analyze_function"
ROW_FACETS = (
    "assembly",
    "basic_blocks",
    "comments",
    "callers",
    "callees",
    "incoming_references",
    "outgoing_references",
    "unresolved_calls",
    "referenced_strings",
    "referenced_names",
)
FLOW_ROWS = {
    "value_flow_operations": "operations",
    "value_flow_def_use": "def_use",
    "value_flow_effects": "effects",
    "value_flow_parameters": "parameters",
    "value_flow_parameter_uses": "parameter_uses",
}
SINGLETONS = ("procedure", "native_api", "value_flow_summary")
# which facet_availability key declares each facet's observation
AVAILABILITY_KEY = {
    "pseudocode": "pseudocode",
    "assembly": "assembly",
    "comments": "comments",
    "callers": "callers",
    "callees": "callees",
    "incoming_references": "references",
    "outgoing_references": "references",
    "referenced_strings": "strings_names",
    "referenced_names": "strings_names",
    "basic_blocks": "cfg",
    "unresolved_calls": "cfg",
}
NOT_RECORDED = "not recorded"


def _unavailable(reason: str) -> dict[str, Any]:
    return {"available": False, "reason": reason}


def _declared_reason(dossier: Mapping[str, Any], facet: str) -> str | None:
    """The dossier's own reason when it declares the facet unobserved, else None."""
    key = AVAILABILITY_KEY.get(facet)
    entry = (dossier.get("facet_availability") or {}).get(key) if key else None
    if isinstance(entry, Mapping) and entry.get("available") is False:
        return str(entry.get("reason") or NOT_RECORDED)
    return None


def _flow_state(flow: Any) -> dict[str, Any]:
    if not isinstance(flow, Mapping):
        return _unavailable(NOT_RECORDED)
    if not flow.get("available"):
        return _unavailable(str(flow.get("reason") or NOT_RECORDED))
    return {
        "available": True,
        **{k: flow[k] for k in ("provenance", "truncated") if k in flow},
        **{name: len(flow.get(name) or ()) for name in FLOW_ROWS.values()},
    }


def _unknowns(dossier: Mapping[str, Any]) -> list[str]:
    """What the dossier leaves unknown about value flow and the native API record."""
    found: list[str] = []
    flow, api = dossier.get("native_value_flow"), dossier.get("native_api")
    if not isinstance(flow, Mapping):
        found.append("native_value_flow was not recorded")
    elif not flow.get("available"):
        found.append(f"native_value_flow unavailable: {flow.get('reason') or NOT_RECORDED}")
    elif flow.get("truncated"):
        found.append("native_value_flow is truncated; omitted observations remain unknown")
    if not isinstance(api, Mapping):
        found.append("native_api was not recorded")
    elif api.get("available") is False:
        found.append(f"native_api unavailable: {api.get('reason') or NOT_RECORDED}")
        found.extend(str(u) for u in api.get("residual_unknowns") or ())
    return found


def _limitations(source: Evidence, dossier: Mapping[str, Any]) -> list[str]:
    flow, api = dossier.get("native_value_flow"), dossier.get("native_api")
    extra = [*(dossier.get("limitations") or ())]
    if isinstance(flow, Mapping):
        extra.extend(flow.get("limitations") or ())
    if isinstance(api, Mapping) and api.get("available"):
        extra.extend(api.get("limitations") or ())
    return unique_sorted([*source.limitations, *map(str, extra)])


def utf16_window(text: str, offset: int, limit: int) -> Result[tuple[str, int, int, int], ReaError]:
    """(page, start, end, total) in UTF-16 code units; refuses an offset inside a surrogate pair."""
    units = text.encode("utf-16-le")
    total = len(units) // 2

    def low(index: int) -> bool:
        return 0 < index < total and 0xDC00 <= int.from_bytes(units[2 * index : 2 * index + 2], "little") <= 0xDFFF

    start = min(offset, total)
    if low(start):
        return Failure(view_error("The text offset splits a UTF-16 surrogate pair.", ("view", "offset")))
    end = min(start + limit, total)
    if low(end):  # end before the pair's high half, or after the pair when that is all the page holds
        end = end - 1 if end - 1 > start else end + 1
    return Success((units[2 * start : 2 * end].decode("utf-16-le"), start, end, total))


def _pseudocode(dossier: Mapping[str, Any], offset: int, limit: int) -> Result[tuple[Any, dict[str, Any]], ReaError]:
    text = dossier.get("pseudocode")
    reason = _declared_reason(dossier, "pseudocode")
    if not isinstance(text, str) or reason is not None:
        return Success((_unavailable(reason or NOT_RECORDED), complete_coverage(1, 1)))
    return utf16_window(text, offset, limit).map(_text_page)


def _text_page(window: tuple[str, int, int, int]) -> tuple[Any, dict[str, Any]]:
    """A window of text as the view's item and its coverage."""
    page, start, end, total = window
    return {"text": page, "unit": "utf16-code-units"}, page_coverage(start, end - start, total)


def _singleton(dossier: Mapping[str, Any], facet: str) -> Any:
    if facet == "procedure":
        return dossier.get("procedure")
    if facet == "native_api":
        api = dossier.get("native_api")
        return api if isinstance(api, Mapping) else _unavailable(NOT_RECORDED)
    return _flow_state(dossier.get("native_value_flow"))


def _rows(dossier: Mapping[str, Any], facet: str) -> tuple[list[Any] | None, str]:
    """The facet's complete rows, or None with the reason they are not observed."""
    if facet in FLOW_ROWS:
        flow = dossier.get("native_value_flow")
        state = _flow_state(flow)
        if not isinstance(flow, Mapping) or not state["available"]:  # (unavailable whenever it is no mapping)
            return None, state["reason"]
        return list(flow.get(FLOW_ROWS[facet]) or ()), ""
    reason = _declared_reason(dossier, facet)
    rows = dossier.get(facet)
    if reason is not None or not isinstance(rows, list):
        return None, reason or NOT_RECORDED
    return rows, ""


def _select(dossier: Mapping[str, Any], view: Mapping[str, Any]) -> Result[tuple[Any, dict[str, Any]], ReaError]:
    facet, offset, limit = view["facet"], view["offset"], view["limit"]
    if facet in SINGLETONS:
        if offset != 0:
            return Failure(view_error(f"{facet} is a singleton facet: its offset is 0.", ("view", "offset")))
        return Success((_singleton(dossier, facet), complete_coverage(1, 1)))
    if facet == "pseudocode":
        return _pseudocode(dossier, offset, limit)
    rows, reason = _rows(dossier, facet)
    if rows is None:
        return Success((_unavailable(reason), complete_coverage(1, 1)))
    return Success(page_rows(rows, offset, limit))


def native_view(source: Evidence, view: Mapping[str, Any]) -> Result[dict[str, Any], ReaError]:
    """The unsealed native view of one dossier facet, or the summary or a collection page of any native
    answer (see rea.views.projection.seal)."""
    if view["kind"] == "summary":
        return Success(summary(source))
    if source.operation != OPERATION:
        return _collection_view(source, view)
    dossier = source.normalized_result
    if view["kind"] != "native" or not isinstance(dossier, Mapping):
        return Failure(view_error('analyze_function Evidence is read with {"kind": "native", "facet": ...} views.'))
    return _select(dossier, view).map(lambda selected: _dossier_view(source, dossier, view, *selected))


def _dossier_view(
    source: Evidence, dossier: Mapping[str, Any], view: Mapping[str, Any], item: Any, coverage: dict[str, Any]
) -> dict[str, Any]:
    """One dossier facet's view: the item selected, its coverage, and what the dossier left unknown."""
    procedure = dossier.get("procedure")
    unknowns = _unknowns(dossier)
    if isinstance(item, Mapping) and item.get("available") is False and view["facet"] not in SINGLETONS[1:]:
        unknowns.append(f"{view['facet']} unavailable: {item['reason']}")
    return {
        "kind": "native",
        "view": dict(view),
        "procedure_address": procedure.get("address") if isinstance(procedure, Mapping) else None,
        "item": item,
        "coverage": coverage,
        "limitations": _limitations(source, dossier),
        "unknowns": unique_sorted(unknowns),
    }


# ------------------------------------------------------- other native answers

SUMMARY_ROWS = 5
SUMMARY_CHARS = 2_000
TEXT_FACETS = ("pseudocode",)
# a dossier's summary shows first rows of the facets that say what a function is about (who calls it, what it
# calls, the strings and names it uses); its other facets (assembly, blocks, references) are counts and the call
# that pages them, so a small function's summary is not its dossier again
DOSSIER_FIRST_ROWS = {"callers": 3, "callees": 3, "referenced_strings": 3, "referenced_names": 3}
# small mappings a summary keeps among its facts: a value trace's budgets and page
KEPT_FACTS = ("budgets", "page")


def collections(operation: str, result: Any) -> dict[str, Any]:
    """A native answer's collections by facet name: row lists, or text (pseudocode)."""
    if operation == OPERATION and isinstance(result, Mapping):
        rows = {f: result[f] for f in ROW_FACETS if isinstance(result.get(f), list)}
        return {"pseudocode": result.get("pseudocode") or "", **rows}
    if isinstance(result, list):
        return {"items" if operation == "batch_decompile" else "rows": result}
    if isinstance(result, str):
        return {"pseudocode": result} if operation == "procedure_pseudo_code" else {"lines": result.splitlines()}
    if not isinstance(result, Mapping):
        return {}
    if operation == "get_call_graph":
        levels = sorted((int(k), v) for k, v in result.items() if k.isdigit() and isinstance(v, list))
        return {"nodes": [{**n, "depth": depth} for depth, nodes in levels for n in nodes]}
    return {k: v for k, v in result.items() if isinstance(v, list) and k not in ("limitations", "residual_unknowns")}


def _facts(result: Any, shown: Mapping[str, Any]) -> dict[str, Any]:
    """The answer's scalar fields, and the few small mappings worth a glance (KEPT_FACTS); a field already shown
    as a collection (a dossier's pseudocode) is not repeated, and a call graph's depth keys are its nodes."""
    if not isinstance(result, Mapping):
        return {}
    return {
        k: v
        for k, v in result.items()
        if (not isinstance(v, (list, Mapping)) or k in KEPT_FACTS) and not k.isdigit() and k not in shown
    }


def _procedure_of(result: Any) -> Any:
    procedure = result.get("procedure") if isinstance(result, Mapping) else None
    return procedure if isinstance(procedure, Mapping) else None


def _procedure_brief(procedure: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The procedure without its per-local and per-range lists (their counts instead): the procedure facet of
    the parent has them whole."""
    if procedure is None:
        return None
    brief = {k: v for k, v in procedure.items() if k not in ("locals", "body")}
    if isinstance(procedure.get("locals"), list):
        brief["local_count"] = len(procedure["locals"])
    body = procedure.get("body")
    if isinstance(body, Mapping):
        brief["body_available"] = body.get("available")
        brief["range_count"] = len(body.get("ranges") or ())
    return brief


def _next_view(source: Evidence, facet: str, shown: int, total: int) -> dict[str, Any] | None:
    if shown >= total:
        return None
    view = {"kind": "native", "facet": facet, "offset": shown, "limit": 64}
    return {
        "name": "inspect_analysis_view",
        "arguments": {"source": {"kind": "retained-evidence", "evidence_id": source.evidence_id}, "view": view},
    }


def _collection(source: Evidence, facet: str, value: Any, rows: int = SUMMARY_ROWS) -> dict[str, Any]:
    if isinstance(value, str):
        units = len(value.encode("utf-16-le")) // 2
        page, _, end, _ = utf16_window(value, 0, SUMMARY_CHARS).value_or(("", 0, 0, units))
        return {
            "facet": facet,
            "unit": "utf16-code-units",
            "total": units,
            "first": [page] if page else [],
            "next_view": _next_view(source, facet, end, units),
        }
    first = list(value[:rows])
    return {
        "facet": facet,
        "unit": "rows",
        "total": len(value),
        "first": first,
        "next_view": _next_view(source, facet, len(first), len(value)),
    }


def summary(source: Evidence) -> dict[str, Any]:
    """Any native answer summarized: per collection its total, first rows and the call that reads on."""
    result = source.normalized_result
    found = collections(source.operation, result)
    dossier = source.operation == OPERATION

    def rows(facet: str) -> int:
        return DOSSIER_FIRST_ROWS.get(facet, 0) if dossier else SUMMARY_ROWS

    return {
        "kind": "summary",
        "view": {"kind": "summary"},
        "summary": {
            "operation": source.operation,
            "procedure": _procedure_brief(_procedure_of(result)),
            "collections": [_collection(source, facet, value, rows(facet)) for facet, value in found.items()],
            "facts": _facts(result, found),
        },
        "coverage": complete_coverage(1, 1),
        "limitations": unique_sorted(source.limitations),
        "unknowns": [],
    }


def _collection_view(source: Evidence, view: Mapping[str, Any]) -> Result[dict[str, Any], ReaError]:
    """One page of a collection of a native answer other than the dossier."""
    found = collections(source.operation, source.normalized_result)
    facet = view.get("facet")
    if view["kind"] != "native" or facet not in found:
        return Failure(
            view_error(
                f"{source.operation} Evidence is read with a summary view or "
                f'{{"kind": "native", "facet": one of {", ".join(sorted(found)) or "none"}}}.',
                ("view", "facet"),
            )
        )
    value = found[facet]
    paged = (
        utf16_window(value, view["offset"], view["limit"]).map(_text_page)
        if isinstance(value, str)
        else Success(page_rows(value, view["offset"], view["limit"]))
    )
    return paged.map(lambda page: _collection_page(source, view, *page))


def _collection_page(source: Evidence, view: Mapping[str, Any], item: Any, coverage: dict[str, Any]) -> dict[str, Any]:
    """One page of a collection facet of a native answer other than a dossier."""
    procedure = _procedure_of(source.normalized_result)
    return {
        "kind": "native",
        "view": dict(view),
        "procedure_address": procedure.get("address") if procedure else None,
        "item": item,
        "coverage": coverage,
        "limitations": unique_sorted(source.limitations),
        "unknowns": [],
    }
