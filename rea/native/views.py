"""Views of completed analyze_function Evidence: one facet, one stable page, no provider.

Pseudocode pages count UTF-16 code units and never split a surrogate pair; other
facets page rows. Every view carries a digest of exactly the facts it selected.
"""

from __future__ import annotations

from typing import Any
from collections.abc import Mapping

from returns.result import Failure, Result, Success

from rea.canonical_json import canonical_sha256
from rea.errors import ReaError, invalid_request
from rea.evidence import Evidence
from rea.native.queries import utf16_page

ROW_FACETS = ("assembly", "basic_blocks", "callers", "callees", "references", "strings", "names")
FACETS = ("summary", "procedure", "pseudocode", *ROW_FACETS)
DEFAULT_LIMIT = 64


def _rows(result: Mapping[str, Any], facet: str) -> list[Any] | None:
    if facet == "references":
        refs = result.get("references")
        if refs is None:
            return None
        return [{"direction": d, **r} for d in ("incoming", "outgoing") for r in refs.get(d, ())]
    value = result.get(facet)
    return None if value is None else list(value)


def native_view(source: Evidence, args: Mapping[str, Any]) -> Result[dict[str, Any], ReaError]:
    result = source.normalized_result
    facet = args.get("facet", "summary")
    if facet not in FACETS:
        return Failure(
            invalid_request(
                f"{facet!r} is not a view of analyze_function Evidence",
                field="facet",
                accepted="one of " + ", ".join(FACETS),
            )
        )
    availability = result.get("facet_availability") or {}
    offset, limit = args.get("offset", 0), args.get("limit", DEFAULT_LIMIT)
    view: dict[str, Any] = {
        "view": "native",
        "facet": facet,
        "parent_evidence_id": source.evidence_id,
        "source_operation": source.operation,
        "procedure": result.get("procedure"),
        "limitations": list(source.limitations),
    }
    if facet == "summary":
        selected: Any = {
            "procedure": result.get("procedure"),
            "counts": result.get("counts"),
            "facet_availability": availability,
            "pseudocode_length": result.get("pseudocode_length"),
            "assembly_total": result.get("assembly_total"),
        }
        view.update(selected)
    elif facet == "procedure":
        selected = result.get("procedure")
        view["value"] = selected
    elif facet == "pseudocode":
        text = result.get("pseudocode")
        if text is None:
            entry = availability.get("pseudocode") or {}
            view.update(
                available=False,
                reason=entry.get("reason", "the dossier holds no pseudocode"),
                text=None,
                offset=offset,
                limit=limit,
                total=0,
                next_offset=None,
            )
            selected = None
        else:
            page, next_offset, total = utf16_page(text, offset, limit)
            view.update(
                available=True,
                text=page,
                offset=offset,
                limit=limit,
                total=total,
                next_offset=next_offset,
                unit="utf-16 code units",
                truncated_at_source=bool(result.get("pseudocode_truncated")),
            )
            selected = page
    else:
        rows = _rows(result, facet)
        key = {"strings": "strings_names", "names": "strings_names", "basic_blocks": "cfg"}.get(facet, facet)
        entry = availability.get(key)
        if rows is None:
            reason = (entry or {}).get("reason", f"the dossier holds no {facet}")
            view.update(available=False, reason=reason, items=[], offset=offset, limit=limit, total=0, next_offset=None)
            selected = None
        else:
            page = rows[offset : offset + limit]
            end = offset + len(page)
            view.update(
                available=entry is None or bool(entry.get("available")),
                items=page,
                offset=offset,
                limit=limit,
                total=len(rows),
                next_offset=end if end < len(rows) else None,
            )
            if entry is None:
                view["limitations"].append(
                    f"The dossier does not declare the {key} facet; an empty page is not proof of absence."
                )
            selected = page
    view["selected_facts_sha256"] = canonical_sha256({"facet": facet, "facts": selected})
    view["source_complete"] = not result.get("pseudocode_truncated", False)
    return Success(view)
