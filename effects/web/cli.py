"""`rea list-browser-targets ENDPOINT` and `rea inspect-web-page ENDPOINT TARGET`: JSON or readable text."""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from typing import Any

from effects.commands import ToolCommand

INSPECT_FLAGS = (
    "include_accessibility_text",
    "include_console_text",
    "include_json_body_shapes",
    "include_websocket_shapes",
    "include_storage_keys",
    "include_storage_fingerprints",
    "include_script_sources",
)


def _browser(parser: argparse.ArgumentParser, target: bool) -> None:
    parser.add_argument("cdp_endpoint", help="loopback DevTools endpoint, e.g. http://127.0.0.1:9222")
    if target:
        parser.add_argument("target_id", help="page target id (rea list-browser-targets)")
    parser.add_argument("--origin", action="append", default=[], help="allowed exact origin (repeatable)")


def _base(ns: argparse.Namespace) -> dict[str, Any]:
    args: dict[str, Any] = {"cdp_endpoint": ns.cdp_endpoint, "allowed_origins": list(ns.origin)}
    if getattr(ns, "target_id", None) is not None:
        args["target_id"] = ns.target_id
    return args


def _configure_inspect(parser: argparse.ArgumentParser) -> None:
    _browser(parser, True)
    parser.add_argument("--observation-ms", type=int, default=None)
    for flag in INSPECT_FLAGS:
        parser.add_argument("--" + flag.replace("_", "-"), action="store_true")


def _inspect_steps(ns: argparse.Namespace) -> Sequence[tuple[str, Mapping[str, Any]]]:
    args = _base(ns) | {flag: True for flag in INSPECT_FLAGS if getattr(ns, flag)}
    if ns.observation_ms is not None:
        args["observation_ms"] = ns.observation_ms
    return [("inspect_web_page", args)]


def _head(value: Mapping[str, Any]) -> list[str]:
    return [f"{value['operation']} {value['evidence_id']}"]


def _tail(value: Mapping[str, Any]) -> list[str]:
    return [f"  limitation: {text}" for text in value.get("limitations", [])]


def _render_targets(value: Mapping[str, Any]) -> str:
    r = value["normalized_result"]
    lines = _head(value) + [f"  browser {r['browser']['product']} (protocol {r['browser']['protocol_version']})"]
    lines += [f"  {t['target_id']}  {t['type']:<6} {t['url']}  {t['title']!r}" for t in r["targets"]]
    lines.append("  excluded " + ", ".join(f"{k}={v}" for k, v in r["excluded"].items()))
    return "\n".join(lines + _tail(value))


def _render_page(value: Mapping[str, Any]) -> str:
    r = value["normalized_result"]
    c = r["completeness"]
    lines = _head(value) + [
        f"  {r['target']['url']} ({r['target']['title']!r}) in {r['capture_window']['observation_ms']} ms",
        f"  completeness {c['status']} ({', '.join(c['conditions'])})",
        f"  frames {len(r['frames'])}, DOM nodes {r['dom']['total_nodes']}, accessibility nodes "
        f"{r['accessibility']['total_nodes']}, scripts {len(r['scripts']['items'])}/{r['scripts']['total']}, "
        f"resources {len(r['resources'])}",
        f"  requests {len(r['network']['requests'])}, console events {len(r['console']['events'])}, "
        f"workers {len(r['workers'])}",
    ]
    lines += [f"  script {s['url']} ({s['length']} chars)" for s in r["scripts"]["items"]]
    lines += [f"  request {q['method']} {q['url']} -> {q['status']}" for q in r["network"]["requests"]]
    s = r["storage"]
    lines.append(
        f"  storage {s['origin']}: local keys {len(s['local_storage_keys'])}, session keys "
        f"{len(s['session_storage_keys'])}, IndexedDB {s['indexed_db_names']}, caches {s['cache_names']} (values redacted)"
    )
    return "\n".join(lines + _tail(value))


def _configure_window(default_ms: str) -> Any:
    def configure(parser: argparse.ArgumentParser) -> None:
        _browser(parser, True)
        parser.add_argument("--observation-ms", type=int, default=None, help=f"window length (default {default_ms})")

    return configure


def _window_steps(tool: str, extra: Mapping[str, Any]) -> Any:
    def steps(ns: argparse.Namespace) -> Sequence[tuple[str, Mapping[str, Any]]]:
        args = _base(ns) | dict(extra)
        if ns.observation_ms is not None:
            args["observation_ms"] = ns.observation_ms
        return [(tool, args)]

    return steps


def _configure_listeners(parser: argparse.ArgumentParser) -> None:
    _browser(parser, True)
    parser.add_argument("selector", help="CSS selector (its first match in the main document)")


def _render_webmcp(value: Mapping[str, Any]) -> str:
    r = value["normalized_result"]
    lines = _head(value) + [f"  {r['target']['url']}: WebMCP {r['status']}, {r['tools']['total']} tool(s)"]
    for t in r["tools"]["items"]:
        summary = t["input_schema_summary"] or {}
        lines.append(
            f"  {t['declaration_kind']:<11} {t['name']}: {t['description']!r} "
            f"properties {summary.get('top_level_properties', [])} ({t['trust']})"
        )
    return "\n".join(lines + _tail(value))


def _render_screenshot(value: Mapping[str, Any]) -> str:
    r = value["normalized_result"]
    a = r["artifact"]
    lines = _head(value) + [
        f"  {r['target']['url']} {r['viewport']['width']}x{r['viewport']['height']} PNG {a['bytes']} bytes",
        f"  {a['uri']}",
    ]
    return "\n".join(lines + _tail(value))


def _render_listeners(value: Mapping[str, Any]) -> str:
    r = value["normalized_result"]
    node = r["selected_node"]
    lines = _head(value) + [f"  {node['selector']}: {node['match']} (backend node {node['backend_node_id']})"]
    for item in r["listeners"]:
        loc = item["location"]
        lines.append(
            f"  {item['type']} at {loc['url']}:{loc['line_number']}:{loc['column_number']} (script {loc['script_id']})"
        )
    return "\n".join(lines + _tail(value))


def _render_execution(value: Mapping[str, Any]) -> str:
    r = value["normalized_result"]
    lines = _head(value) + [f"  window {r['window']['end_reason']}, coverage {r['coverage']['state']}"]
    for script in r["coverage"]["scripts"]:
        called = [f["name"] or "(anonymous)" for f in script["functions"] if any(x["count"] for x in f["ranges"])]
        lines.append(f"  {script['reported_url']}: {len(script['functions'])} function(s), called {called[:20]}")
    lines += [f"  request {q['method']} {q['url']} ({len(q['callsites'])} callsite(s))" for q in r["requests"]]
    return "\n".join(lines + _tail(value))


def _render_session(value: Mapping[str, Any]) -> str:
    r = value["normalized_result"]
    lines = _head(value) + [
        f"  {r['target']['initial_url']} -> {r['target']['final_url']} ({r['window']['end_reason']})"
    ]
    lines += [
        f"  {e['sequence']:>4} {e['timestamp']:>9.1f} ms {e['type']} {e['url'] or ''} {e['detail'] or ''}"
        for e in r["timeline"]
    ]
    return "\n".join(lines + _tail(value))


COMMANDS: tuple[ToolCommand, ...] = (
    ToolCommand(
        name="list-browser-targets",
        help="list the page targets of a loopback Chromium DevTools endpoint",
        configure=lambda p: _browser(p, False),
        steps=lambda ns: [("list_browser_targets", _base(ns))],
        render=_render_targets,
    ),
    ToolCommand(
        name="inspect-web-page",
        help="passively inspect one page target: DOM, accessibility, scripts, resources, network, storage",
        configure=_configure_inspect,
        steps=_inspect_steps,
        render=_render_page,
    ),
    ToolCommand(
        name="discover-webmcp-tools",
        help="inventory the WebMCP tools a page registered (never invoked)",
        configure=_configure_window("100"),
        steps=_window_steps("discover_webmcp_tools", {}),
        render=_render_webmcp,
    ),
    ToolCommand(
        name="capture-web-screenshot",
        help="capture a page's visible viewport as a content-addressed PNG",
        configure=lambda p: _browser(p, True),
        steps=lambda ns: [("capture_web_screenshot", _base(ns) | {"approved": True, "screenshot_approved": True})],
        render=_render_screenshot,
    ),
    ToolCommand(
        name="inspect-web-event-listeners",
        help="list the event listeners on a selector's first match, with their script locations",
        configure=_configure_listeners,
        steps=lambda ns: [("inspect_web_event_listeners", _base(ns) | {"selector": ns.selector})],
        render=_render_listeners,
    ),
    ToolCommand(
        name="observe-web-execution",
        help="precise V8 coverage and request initiators over a window while the page is driven",
        configure=_configure_window("10000"),
        steps=_window_steps("observe_web_execution", {}),
        render=_render_execution,
    ),
    ToolCommand(
        name="observe-web-session",
        help="navigation, redirect, lifecycle and failure timeline over a window",
        configure=_configure_window("10000"),
        steps=_window_steps("observe_web_session", {"approved": True}),
        render=_render_session,
    ),
)
