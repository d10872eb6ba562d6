"""The browser and script-export commands' readable text: pure functions from a reply to text (each command is declared on its
catalog row, rea.web.contract.browser)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def header(value: Mapping[str, Any]) -> list[str]:
    """The reply's first line: the operation and its Evidence id (every browser and script command)."""
    return [f"{value['operation']} {value['evidence_id']}"]


def footer(value: Mapping[str, Any]) -> list[str]:
    """The reply's limitations, one line each."""
    return [f"  limitation: {text}" for text in value.get("limitations", [])]


def targets(value: Mapping[str, Any]) -> str:
    r = value["normalized_result"]
    lines = header(value) + [f"  browser {r['browser']['product']} (protocol {r['browser']['protocol_version']})"]
    lines += [f"  {t['target_id']}  {t['type']:<6} {t['url']}  {t['title']!r}" for t in r["targets"]]
    lines.append("  excluded " + ", ".join(f"{k}={v}" for k, v in r["excluded"].items()))
    return "\n".join(lines + footer(value))


def page(value: Mapping[str, Any]) -> str:
    r = value["normalized_result"]
    c = r["completeness"]
    lines = header(value) + [
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
    return "\n".join(lines + footer(value))


def webmcp(value: Mapping[str, Any]) -> str:
    r = value["normalized_result"]
    lines = header(value) + [f"  {r['target']['url']}: WebMCP {r['status']}, {r['tools']['total']} tool(s)"]
    for t in r["tools"]["items"]:
        summary = t["input_schema_summary"] or {}
        lines.append(
            f"  {t['declaration_kind']:<11} {t['name']}: {t['description']!r} "
            f"properties {summary.get('top_level_properties', [])} ({t['trust']})"
        )
    return "\n".join(lines + footer(value))


def screenshot(value: Mapping[str, Any]) -> str:
    r = value["normalized_result"]
    a = r["artifact"]
    lines = header(value) + [
        f"  {r['target']['url']} {r['viewport']['width']}x{r['viewport']['height']} PNG {a['bytes']} bytes",
        f"  {a['uri']}",
    ]
    return "\n".join(lines + footer(value))


def listeners(value: Mapping[str, Any]) -> str:
    r = value["normalized_result"]
    node = r["selected_node"]
    lines = header(value) + [f"  {node['selector']}: {node['match']} (backend node {node['backend_node_id']})"]
    for item in r["listeners"]:
        loc = item["location"]
        lines.append(
            f"  {item['type']} at {loc['url']}:{loc['line_number']}:{loc['column_number']} (script {loc['script_id']})"
        )
    return "\n".join(lines + footer(value))


def execution(value: Mapping[str, Any]) -> str:
    r = value["normalized_result"]
    lines = header(value) + [f"  window {r['window']['end_reason']}, coverage {r['coverage']['state']}"]
    for script in r["coverage"]["scripts"]:
        called = [f["name"] or "(anonymous)" for f in script["functions"] if any(x["count"] for x in f["ranges"])]
        lines.append(f"  {script['reported_url']}: {len(script['functions'])} function(s), called {called[:20]}")
    lines += [f"  request {q['method']} {q['url']} ({len(q['callsites'])} callsite(s))" for q in r["requests"]]
    return "\n".join(lines + footer(value))


def session(value: Mapping[str, Any]) -> str:
    r = value["normalized_result"]
    lines = header(value) + [
        f"  {r['target']['initial_url']} -> {r['target']['final_url']} ({r['window']['end_reason']})"
    ]
    lines += [
        f"  {e['sequence']:>4} {e['timestamp']:>9.1f} ms {e['type']} {e['url'] or ''} {e['detail'] or ''}"
        for e in r["timeline"]
    ]
    return "\n".join(lines + footer(value))


def export(value: Mapping[str, Any]) -> str:
    r = value["normalized_result"]
    lines = header(value) + [f"  {r['output_directory']} (manifest sha256 {r['manifest']['sha256']})"]
    for script in r["scripts"]:
        c = script["content"]
        if c["state"] == "exported":
            lines.append(f"  {c['relative_path']} <- {script['url']} ({c['bytes']} bytes, {c['layout']})")
        else:
            lines.append(f"  unavailable {script['url']}: {c['reason']}")
    return "\n".join(lines + footer(value))
