"""Runtime evidence of a live page: listener declarations and one precise-coverage window.

Sources are bound to the session's script ids (never URL equality); locations stay CDP's
zero-based lines and UTF-16 columns. A declaration or a coverage count does not say who
caused what: listeners are `execution: unknown`, requests `causal_attribution: unknown`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rea.web.records.runtime import (
    AsyncParent,
    InitiatedRequest,
    Listener,
    ResourceStart,
    RuntimeLocation,
    RuntimeSource,
    RuntimeTarget,
    SelectedNode,
    SourceCaptured,
    SourceMissing,
    WebEventListeners,
)
from rea.web.redaction import sha256_text
from rea.web.scope import clean_url, in_scope, origin_text
from rea.web.targets import browser_version
from rea.wire.convert import to_wire

Raw = Mapping[str, Any]
LISTENER_LIMITATIONS = (
    "Listeners registered directly on the first match are listed; ancestors' and delegated listeners are not.",
    "A listener declaration does not establish that it ran.",
)
EXECUTION_LIMITATIONS = (
    "Precise coverage resets V8's execution counters and disables optimized execution for the window.",
    "Absence from coverage does not prove a script did not run; request callsites are not causal proof.",
)


def runtime_target(target: Raw, frame: Raw) -> RuntimeTarget:
    url = str(frame.get("url") or target.get("url", ""))
    return RuntimeTarget(
        target_id=str(target["id"]),
        origin=origin_text(url),
        initial_url=clean_url(url),
        frame_id=str(frame.get("id") or target["id"]),
        loader_id=frame.get("loaderId"),
    )


def _captured(text: str | None, reason: str) -> SourceCaptured | SourceMissing:
    if text is None:
        return SourceMissing(state="unavailable", reason=reason)
    return SourceCaptured(
        state="captured",
        text=text,
        sha256=sha256_text(text),
        utf8_bytes=len(text.encode("utf-8", "surrogatepass")),
        utf16_units=len(text.encode("utf-16-le", "surrogatepass")) // 2,
    )


def sources(
    ids: Sequence[str],
    scripts: Sequence[Raw],
    contexts: Mapping[int, Raw],
    texts: Mapping[str, str | None],
    origins: Sequence[str],
) -> list[RuntimeSource]:
    """One source record per script id, in first-seen order; out-of-scope scripts are `excluded`."""
    parsed = {str(s.get("scriptId")): s for s in scripts}
    out = []
    for sid in dict.fromkeys(ids):
        script = parsed.get(sid, {})
        url = str(script.get("url", ""))
        context_id = script.get("executionContextId")
        allowed = bool(url) and in_scope(url, origins)
        source = (
            _captured(texts.get(sid), "the browser did not return the source or the source budget was spent")
            if allowed
            else SourceMissing(state="excluded", reason="outside the origin scope" if url else "no script URL")
        )
        aux = script.get("executionContextAuxData")
        out.append(
            RuntimeSource(
                script_id=sid,
                url=clean_url(url),
                execution_context_id=context_id if isinstance(context_id, int) else None,
                reported_execution_context=dict(contexts[context_id])
                if isinstance(context_id, int) and context_id in contexts
                else None,
                reported_script_context_aux_data=dict(aux) if isinstance(aux, dict) else None,
                frame_id=aux.get("frameId") if isinstance(aux, dict) else None,
                producer_hash=script.get("hash"),
                source_map_url=script.get("sourceMapURL") or None,
                has_source_url=script.get("hasSourceURL") if isinstance(script.get("hasSourceURL"), bool) else None,
                language=script.get("scriptLanguage"),
                resource_start=ResourceStart(
                    line_number=int(script.get("startLine", 0)), column_number=int(script.get("startColumn", 0))
                )
                if script
                else None,
                source=source,
            )
        )
    return out


def location(raw: Raw, known: set[str], urls: Mapping[str, str]) -> RuntimeLocation:
    sid = str(raw.get("scriptId", ""))
    column = raw.get("columnNumber")
    url = raw.get("url") or urls.get(sid)
    return RuntimeLocation(
        script_id=sid,
        url=clean_url(str(url)) if url else None,
        line_number=max(0, int(raw.get("lineNumber", 0))),
        column_number=column if isinstance(column, int) and column >= 0 else None,
        function_name=raw.get("functionName") if isinstance(raw.get("functionName"), str) else None,
        source_association="script_id" if sid in known else "unknown",
    )


def _urls(scripts: Sequence[Raw]) -> dict[str, str]:
    return {str(s.get("scriptId")): str(s.get("url", "")) for s in scripts if s.get("url")}


def listeners(version: Raw, target: Raw, raw: Raw, selector: str, origins: Sequence[str]) -> WebEventListeners:
    found = raw.get("listeners") or []
    ids = [str(item.get("scriptId")) for item in found]
    srcs = sources(ids, raw.get("scripts") or [], raw.get("contexts") or {}, raw.get("sources") or {}, origins)
    known = {s.script_id for s in srcs if s.resource_start is not None}
    urls = _urls(raw.get("scripts") or [])
    backend = raw.get("backend_node_id")
    return WebEventListeners(
        browser=browser_version(version),
        target=runtime_target(target, raw.get("frame") or {}),
        inspected_at=raw["inspected_at"],
        selected_node=SelectedNode(
            selector=selector,
            match="found" if backend else "not_found",
            backend_node_id=backend if isinstance(backend, int) and backend > 0 else None,
        ),
        listeners=tuple(
            Listener(
                type=str(item.get("type", "")),
                use_capture=bool(item.get("useCapture", False)),
                passive=bool(item.get("passive", False)),
                once=bool(item.get("once", False)),
                location=location(item, known, urls),
                execution="unknown",
            )
            for item in found
        ),
        sources=tuple(srcs),
        cleanup="confirmed",
        limitations=LISTENER_LIMITATIONS,
    )


def _ranges(ranges: Sequence[Raw], length: int | None) -> list[dict[str, Any]]:
    return [
        {
            "start_offset": int(r.get("startOffset", 0)),
            "end_offset": int(r.get("endOffset", 0)),
            "count": int(r.get("count", 0)),
            "source_bounds": "verified"
            if length is not None and 0 <= int(r.get("startOffset", 0)) <= int(r.get("endOffset", 0)) <= length
            else "unknown",
        }
        for r in ranges
    ]


def _coverage(raw: Raw, origins: Sequence[str], lengths: Mapping[str, int]) -> tuple[dict[str, Any], list[str]]:
    taken = raw.get("coverage")
    base = {"offset_units": "utf16-code-units", "end_offset": "exclusive"}
    if taken is None:
        return {
            **base,
            "state": "unavailable",
            "reason": raw.get("coverage_error"),
            "scripts": [],
            "excluded_scripts": 0,
        }, []
    scripts: list[dict[str, Any]] = []
    excluded = 0
    for entry in taken.get("result") or []:
        url = str(entry.get("url", ""))
        if not url or not in_scope(url, origins):
            excluded += 1
            continue
        sid = str(entry.get("scriptId"))
        scripts.append(
            {
                "script_id": sid,
                "reported_url": clean_url(url),
                "functions": [
                    {
                        "name": str(f.get("functionName", "")),
                        "is_block_coverage": bool(f.get("isBlockCoverage", False)),
                        "ranges": _ranges(f.get("ranges") or [], lengths.get(sid)),
                    }
                    for f in entry.get("functions") or []
                ],
            }
        )
    covered = [str(s["script_id"]) for s in scripts]
    return {**base, "state": "captured", "reason": None, "scripts": scripts, "excluded_scripts": excluded}, covered


def _request(raw: Raw, known: set[str], urls: Mapping[str, str]) -> InitiatedRequest:
    initiator = raw.get("initiator") or {}
    stack = initiator.get("stack") or {}
    callsites: list[RuntimeLocation] = []
    parents: list[AsyncParent] = []
    while stack:
        callsites += [location(f, known, urls) for f in stack.get("callFrames") or []]
        parent = stack.get("parentId")
        if isinstance(parent, dict):
            parents.append(AsyncParent(id=str(parent.get("id", "")), debugger_id=parent.get("debuggerId")))
        stack = stack.get("parent") or {}
    request = raw.get("request") or {}
    return InitiatedRequest(
        request_id=str(raw.get("requestId", "")),
        url=clean_url(str(request.get("url", ""))),
        method=str(request.get("method", "")),
        timestamp_seconds=max(0.0, float(raw.get("timestamp", 0.0))),
        initiator_type=str(initiator.get("type", "other")),
        reported_initiator=dict(initiator),
        callsites=tuple(callsites),
        async_parent_ids=tuple(parents),
        causal_attribution="unknown",
    )


def execution(version: Raw, target: Raw, raw: Raw, requested_ms: int, origins: Sequence[str]) -> dict[str, Any]:
    """The result's JSON: its parts are records, wired here. The top and its coverage stay JSON because the
    reply has always put coverage's offset_units and end_offset first, which is not Coverage's field order."""
    texts = raw.get("sources") or {}
    lengths = {sid: len(t.encode("utf-16-le", "surrogatepass")) // 2 for sid, t in texts.items() if t is not None}
    coverage, covered = _coverage(raw, origins, lengths)
    scripts = raw.get("scripts") or []
    srcs = sources(covered, scripts, raw.get("contexts") or {}, texts, origins)
    known = {s.script_id for s in srcs}
    urls = _urls(scripts)
    kept = [r for r in raw.get("requests") or [] if in_scope(str((r.get("request") or {}).get("url", "")), origins)]
    frame = raw.get("frame") or {}
    main = [s for s in scripts if (s.get("executionContextAuxData") or {}).get("frameId") == frame.get("id")]
    reported = {str(s.get("scriptId")) for s in (raw.get("coverage") or {}).get("result") or []}
    return {
        "browser": to_wire(browser_version(version)),
        "target": to_wire(runtime_target(target, frame)),
        "window": {
            "armed_at": raw["armed_at"],
            "ended_at": raw["ended_at"],
            "requested_ms": requested_ms,
            "end_reason": raw["end"],
            "producer_started_seconds": max(0.0, float(raw.get("started_seconds") or 0.0)),
            "producer_sampled_seconds": (raw.get("coverage") or {}).get("timestamp"),
        },
        "coverage": coverage,
        "requests": [to_wire(_request(r, known, urls)) for r in kept],
        "excluded_requests": len(raw.get("requests") or []) - len(kept),
        "script_inventory": {
            "main_document_scripts": len(main),
            "not_reported_script_ids": sorted(
                str(s.get("scriptId")) for s in main if str(s.get("scriptId")) not in reported
            ),
            "coverage_absence": "unknown",
        },
        "sources": to_wire(srcs),
        "instrumentation": {
            "resets_execution_counters": True,
            "disables_optimized_execution": True,
            "takes_one_resetting_sample": True,
            "executes_selected_code": False,
            "cleanup": "confirmed",
            "page_ownership": "external",
        },
        "limitations": list(EXECUTION_LIMITATIONS),
    }
