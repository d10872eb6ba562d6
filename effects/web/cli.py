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
)
