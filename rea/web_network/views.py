"""inspect_analysis_view over inspect_web_network_capture Evidence: summary, a page of records, the api surface.

A capture's complete Evidence is sized by its bodies (a 7.5 MB HAR needs about
twice that), so an agent reads it through views: the summary is counts, the first
rows, the capture-wide redaction index and the ready calls to page on, bounded
whatever the capture; a records page holds the parent's records exactly, in its
order, and stops early at PAGE_BYTES (never fewer than one record), so a page of
large bodies stays readable; coverage.next_offset continues either way.

The redaction index says which records had what withheld, where (the pointer with
its array indexes as `*`) and by which rule, never the values; it is computed over
every decoded record, before record_ordinals selects.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

from returns.result import Failure, Result, Success

from rea.errors import ReaError
from rea.evidence import Evidence
from rea.views.projection import complete_coverage, page_coverage, view_error
from rea.web_network.api_surface import api_surface_view, request_line
from rea.web_network.capture import Reason, UrlComponent
from rea.web_network.records import (
    CaptureCalls,
    CaptureCounts,
    CaptureOrigin,
    CaptureRow,
    Redaction,
    RedactionIndex,
    RedactionIndexEntry,
    ViewCall,
)
from rea.wire.convert import to_wire

FIRST_ROWS = 20  # request rows in a summary
MAX_URL = 256  # UTF-16-safe code points of a URL shown in a summary row
MAX_ORIGINS = 20  # origins listed in a summary (by requests, then name)
INDEX_ORDINALS = 16  # record ordinals listed per redaction-index entry
MAX_INDEX_ENTRIES = 256  # entries of the index in the complete Evidence
SUMMARY_INDEX_ENTRIES = 24  # entries of the index in a summary
MAX_NAME = 160  # characters of a location or origin in the index or the counts
PAGE_BYTES = 24 << 10  # a records page stops past this many JSON bytes (after its first record): replies near 32 KB
UNKNOWNS = ["runtime attribution of each request", "whether the recorded URLs still answer (none was contacted)"]
_INDEX = re.compile(r"/[0-9]+(?=/|$)")


def location_template(pointer: str) -> str:
    """A redaction's pointer with its array indexes as `*` (/request/headers/3/value -> /request/headers/*/value)."""
    return _INDEX.sub("/*", pointer)


# (rule, reason, scope, location, url_component, parameter); absent parts are empty strings, so keys sort
IndexKey = tuple[str, Reason, Literal["record", "container"], str, UrlComponent | Literal[""], str]


def _index_key(redaction: Redaction, scope: Literal["record", "container"]) -> IndexKey:
    return (
        redaction.rule or redaction.reason,
        redaction.reason,
        scope,
        _clip(location_template(redaction.pointer), MAX_NAME),
        redaction.url_component or "",
        redaction.parameter or "",
    )


def _entry(key: IndexKey, redactions: int, records: int, ordinals: list[int]) -> RedactionIndexEntry:
    return RedactionIndexEntry(
        rule=key[0],
        reason=key[1],
        scope=key[2],
        location=key[3],
        url_component=key[4] or None,
        parameter=key[5] or None,
        redactions=redactions,
        records=records,
        record_ordinals=tuple(ordinals),
    )


def redaction_index(
    records: Iterable[tuple[int, Sequence[Redaction]]],
    container: Sequence[Redaction] = (),
    limit: int = MAX_INDEX_ENTRIES,
) -> RedactionIndex:
    """Capture-wide, over each record's (ordinal, redactions): per (rule, location, component, parameter) how many
    redactions, in how many records, which."""
    counts: Counter[IndexKey] = Counter(_index_key(r, "container") for r in container)
    ordinals: dict[IndexKey, list[int]] = {}
    seen: dict[IndexKey, int] = {}
    last: dict[IndexKey, int] = {}
    touched = 0
    for ordinal, found in records:
        touched += bool(found)
        for redaction in found:
            key = _index_key(redaction, "record")
            counts[key] += 1
            listed = ordinals.setdefault(key, [])
            if last.get(key) != ordinal:
                last[key] = ordinal
                seen[key] = seen.get(key, 0) + 1
                if len(listed) < INDEX_ORDINALS:
                    listed.append(ordinal)
    ranked = sorted(counts, key=lambda k: (-counts[k], k))
    rules: Counter[str] = Counter()
    for kind, count in counts.items():
        rules[kind[0]] += count
    return RedactionIndex(
        total_redactions=sum(counts.values()),
        records_with_redactions=touched,
        by_rule=dict(sorted(rules.items())),
        entries=tuple(_entry(k, counts[k], seen.get(k, 0), ordinals.get(k, [])) for k in ranked[:limit]),
        total_entries=len(counts),
        truncated=len(counts) > limit,
    )


def stored_redactions(records: Iterable[Mapping[str, Any]]) -> list[tuple[int, list[Redaction]]]:
    """Each stored record's (ordinal, redactions), read back from its Evidence JSON."""
    return [(r["ordinal"], [Redaction(**x) for x in r["redactions"]]) for r in records]


def _clip(text: str, limit: int = MAX_URL) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _row(record: Mapping[str, Any]) -> CaptureRow:
    """One request as a line: ordinal, method, URL (clipped), status."""
    reported = record.get("reported") or {}
    request = reported.get("request") if isinstance(reported, Mapping) else None
    response = reported.get("response") if isinstance(reported, Mapping) else None
    request = request if isinstance(request, Mapping) else {}
    response = response if isinstance(response, Mapping) else {}
    url = request.get("url")
    if not isinstance(url, str):
        line = request_line(reported) if isinstance(reported, Mapping) else None
        url = f"{line[1]}{request.get('path') or line[2]}" if line else None
    status = response.get("status", response.get("status_code"))
    method = request.get("method")
    return CaptureRow(
        ordinal=record["ordinal"],
        method=_clip(method, 32) if isinstance(method, str) else None,
        url=_clip(url) if isinstance(url, str) else None,
        status=status if isinstance(status, int) and not isinstance(status, bool) else None,
        binary_fields=len(record["binary_fields"]),
        redactions=len(record["redactions"]),
    )


def _status_class(row: CaptureRow) -> str:
    status = row.status
    return f"{status // 100}xx" if status is not None and 100 <= status < 600 else "none"


def _counts(records: Sequence[Mapping[str, Any]], rows: Sequence[CaptureRow]) -> CaptureCounts:
    origins: Counter[str] = Counter()
    for record in records:
        reported = record.get("reported")
        line = request_line(reported) if isinstance(reported, Mapping) else None
        origins[line[1] if line else "(none)"] += 1
    ranked = sorted(origins, key=lambda o: (-origins[o], o))
    binaries = [f for r in records for f in r["binary_fields"]]
    return CaptureCounts(
        methods=dict(sorted(Counter(str(r.method) for r in rows).most_common(MAX_ORIGINS))),
        status_classes=dict(sorted(Counter(_status_class(r) for r in rows).items())),
        origins=tuple(CaptureOrigin(origin=_clip(o, MAX_NAME), requests=origins[o]) for o in ranked[:MAX_ORIGINS]),
        total_origins=len(origins),
        binary_fields=len(binaries),
        binary_bytes=sum(f["bytes"] or 0 for f in binaries),
        redactions=sum(len(r["redactions"]) for r in records),
    )


def _calls(evidence_id: str) -> CaptureCalls:
    """Ready inspect_analysis_view calls over the retained parent (the evidence id to page from)."""
    source = {"kind": "retained-evidence", "evidence_id": evidence_id}
    page = {"kind": "page", "collection": "records", "offset": 0, "limit": 8}
    surface = {"kind": "api-surface", "offset": 0, "limit": 64}
    return CaptureCalls(
        records=ViewCall(name="inspect_analysis_view", arguments={"source": source, "view": page}),
        api_surface=ViewCall(name="inspect_analysis_view", arguments={"source": source, "view": surface}),
    )


def capture_summary(source: Evidence) -> dict[str, Any]:
    """Counts, the first rows, the redaction index (bounded) and the calls to page on."""
    result = source.normalized_result
    records = list(result["records"])
    rows = [_row(r) for r in records]
    index = result.get("redaction_index") or to_wire(
        redaction_index(stored_redactions(records), [Redaction(**x) for x in result["container"]["redactions"]])
    )
    shown = {
        **index,
        "entries": index["entries"][:SUMMARY_INDEX_ENTRIES],
        "truncated": index["truncated"] or len(index["entries"]) > SUMMARY_INDEX_ENTRIES,
    }
    reported = result["container"]["reported"]
    return {
        "format": result["format"],
        "decoder": result["decoder"],
        "capture": result["artifact"],
        "total_records": result["total_records"],
        "records_in_evidence": len(records),
        "format_versions_found": list(reported.get("format_versions_found") or [])
        if isinstance(reported, Mapping)
        else [],
        "counts": to_wire(_counts(records, rows)),
        "first_records": to_wire(rows[:FIRST_ROWS]),
        "redaction_index": shown,
        "continue_with": to_wire(_calls(source.evidence_id)),
    }


def _records_page(records: Sequence[Mapping[str, Any]], offset: int, limit: int) -> tuple[list[Any], dict[str, Any]]:
    """The parent's records [offset, offset + limit), cut after PAGE_BYTES of JSON (at least one record)."""
    page: list[Any] = []
    size = 0
    for record in records[offset : offset + limit]:
        cost = len(json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
        if page and size + cost > PAGE_BYTES:
            break
        page.append(record)
        size += cost
    return page, page_coverage(offset, len(page), len(records))


def capture_view(source: Evidence, view: Mapping[str, Any]) -> Result[dict[str, Any], ReaError]:
    """summary, page (collection records) or api-surface of one capture Evidence record."""
    result = source.normalized_result
    if not isinstance(result, dict) or "records" not in result:
        return Failure(view_error("The source is not inspect_web_network_capture output.", ("source",)))
    kind = view["kind"]
    if kind == "api-surface":
        return api_surface_view(source, view)
    shared = {"limitations": list(source.limitations), "unknowns": list(UNKNOWNS)}
    if kind == "summary":
        total = len(result["records"])
        summary = capture_summary(source)
        return Success(
            {"kind": "summary", "view": dict(view), "summary": summary, "coverage": complete_coverage(total, total)}
            | shared
        )
    if kind == "page" and view.get("collection") == "records":
        items, coverage = _records_page(result["records"], view["offset"], view["limit"])
        return Success({"kind": "page", "view": dict(view), "items": items, "coverage": coverage} | shared)
    return Failure(
        view_error(
            f"inspect_web_network_capture Evidence has summary, page (collection records) and api-surface views, "
            f"not {kind}" + (f" of {view['collection']}" if view.get("collection") else "") + ".",
            ("view", "kind"),
            accepted='{"kind": "summary"}, {"kind": "page", "collection": "records"}, {"kind": "api-surface"}',
        )
    )
