"""WebMCP declarations as the page made them: bounded schema summaries, never an invocation surface.

A page's input schema is hostile input: it is walked iteratively with depth and node bounds
(a schema 100 levels deep cannot exhaust a stack or the reply), digested over its canonical
JSON, and carried inline only within the bounds; past them `input_schema` is null and the
summary says which bound it exceeded. Every tool is `page-declared-untrusted`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from rea.canonical_json import canonicalize
from rea.web.completeness import Ledger, classify
from rea.web.records.webmcp import (
    PageRef,
    RegistrationSource,
    SchemaSummary,
    WebMcpAnnotations,
    WebMcpDiscovery,
    WebMcpTool,
    WebMcpTools,
)
from rea.web.redaction import json_type
from rea.web.scope import clean_url, in_scope, origin_text
from rea.web.targets import browser_version

Bound = Literal["depth", "nodes", "bytes"]
LIMITATIONS = (
    "WebMCP metadata is declared by the page and untrusted; REA never invokes, registers or validates tools.",
    "Only tools registered when WebMCP.enable answered or within the observation window are seen.",
)


def _walk(schema: Any, max_depth: int, max_nodes: int) -> tuple[int, int]:
    """(deepest level, nodes) walked iteratively, stopping just past either bound."""
    pending: list[tuple[Any, int]] = [(schema, 0)]
    deepest = nodes = 0
    while pending and nodes <= max_nodes and deepest <= max_depth:
        value, depth = pending.pop()
        nodes += 1
        deepest = max(deepest, depth)
        children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
        pending.extend((child, depth + 1) for child in children)
    return deepest, nodes


def _canonical(schema: Any) -> bytes | None:
    try:
        return canonicalize(schema)
    except (ValueError, TypeError, RecursionError):
        return None


def summarize_schema(schema: Any, limits: Mapping[str, int]) -> tuple[Any, str | None, SchemaSummary | None]:
    """(inline schema or None, sha256 of canonical JSON or None, summary or None)."""
    if schema is None:
        return None, None, None
    depth, nodes = _walk(schema, limits["max_schema_depth"], limits["max_schema_nodes"])
    bounds: tuple[tuple[bool, Bound], ...] = (
        (depth > limits["max_schema_depth"], "depth"),
        (nodes > limits["max_schema_nodes"], "nodes"),
    )
    exceeded = [bound for past, bound in bounds if past]
    text = None if exceeded else _canonical(schema)
    if text is not None and len(text) > limits["max_schema_bytes"]:
        exceeded.append("bytes")
    props = schema.get("properties") if isinstance(schema, dict) else None
    required = schema.get("required") if isinstance(schema, dict) else None
    summary = SchemaSummary(
        root_type=json_type(schema),
        max_depth=depth,
        node_count=nodes,
        canonical_bytes=0 if text is None else len(text),
        top_level_properties=tuple(sorted(str(k) for k in props)[:1000]) if isinstance(props, dict) else (),
        required=tuple([str(r) for r in required][:1000]) if isinstance(required, list) else (),
        within_bounds=not exceeded,
        exceeded=tuple(exceeded),
    )
    digest = None if text is None else hashlib.sha256(text).hexdigest()
    return (schema if not exceeded else None), digest, summary


def _annotations(raw: Mapping[str, Any] | None) -> WebMcpAnnotations:
    raw = raw or {}

    def flag(*names: str) -> bool | None:
        return next((bool(raw[n]) for n in names if isinstance(raw.get(n), bool)), None)

    return WebMcpAnnotations(
        read_only=flag("readOnly", "readOnlyHint"),
        untrusted_content=flag("untrustedContent", "untrustedContentHint"),
        autosubmit=flag("autosubmit", "autoSubmit"),
    )


def _source(raw: Mapping[str, Any]) -> RegistrationSource | None:
    frames = (raw.get("stackTrace") or {}).get("callFrames") or []
    if not frames:
        return None
    top = frames[0]
    line, column = top.get("lineNumber"), top.get("columnNumber")
    return RegistrationSource(
        url=clean_url(str(top.get("url", ""))),
        line=line if isinstance(line, int) and line >= 0 else None,
        column=column if isinstance(column, int) and column >= 0 else None,
    )


def tool_record(
    raw: Mapping[str, Any], frame_urls: Mapping[str, str], limits: Mapping[str, int], ledger: Ledger
) -> WebMcpTool:
    frame_id = str(raw.get("frameId", ""))
    frame_url = frame_urls.get(frame_id, "")
    name = str(raw.get("name", ""))
    inline, digest, summary = summarize_schema(raw.get("inputSchema"), limits)
    if summary is not None and not summary.within_bounds:
        ledger.truncated.add("webmcp_tools")
        ledger.note(
            f"WebMCP tool {name!r}: input schema exceeds {', '.join(summary.exceeded)}; summarized, not inlined."
        )
    return WebMcpTool(
        tool_key="webmcp_" + hashlib.sha256(f"{frame_id}\0{name}".encode("utf-8", "surrogatepass")).hexdigest(),
        name=name,
        description=str(raw.get("description", "")),
        frame_id=frame_id,
        frame_url=clean_url(frame_url),
        owner_origin=origin_text(frame_url),
        declaration_kind="declarative" if "backendNodeId" in raw else "imperative",
        input_schema=inline,
        input_schema_sha256=digest,
        input_schema_summary=summary,
        annotations=_annotations(raw.get("annotations")),
        registration_source=_source(raw),
        trust="page-declared-untrusted",
    )


def discovery(
    version: Mapping[str, Any],
    target: Mapping[str, Any],
    raw: Mapping[str, Any],
    origins: Sequence[str],
    limits: Mapping[str, int],
) -> WebMcpDiscovery:
    ledger = Ledger()
    frame = raw.get("frame") or {}
    url = str(frame.get("url") or target.get("url", ""))
    frame_urls = {str(frame.get("id", "")): url}
    items: list[WebMcpTool] = []
    tools = sorted(raw.get("tools") or [], key=lambda t: (str(t.get("frameId", "")), str(t.get("name", ""))))
    for tool in tools:
        owner = frame_urls.get(str(tool.get("frameId", "")), url)
        if not in_scope(owner, origins):
            ledger.exclude("webmcp_tools", "disallowed_origin")
            continue
        if len(items) >= limits["max_tools"]:
            ledger.drop("webmcp_tools", 1, "webmcp_tools")
            continue
        items.append(tool_record(tool, frame_urls, limits, ledger))
    available = bool(raw.get("available"))
    if not available:
        ledger.exclude("webmcp_tools", "provider_unavailable", None)
        ledger.note(
            f"The browser has no WebMCP domain ({raw.get('reason')}); start Chromium with --enable-blink-features=WebMCP."
        )
    if raw.get("removed"):
        ledger.note(f"{raw['removed']} tool(s) were removed by the page during the window.")
    return WebMcpDiscovery(
        browser=browser_version(version),
        target=PageRef(target_id=str(target["id"]), url=clean_url(url), origin=origin_text(url)),
        status="available" if available else "unavailable",
        tools=WebMcpTools(total=len(tools), items=tuple(items)),
        completeness=classify(ledger),
        limitations=(*LIMITATIONS, *ledger.limitations),
    )
