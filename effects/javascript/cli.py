"""`rea analyze-javascript-application PATH`: one analysis on a one-shot connection."""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Mapping
from typing import Any

from returns.result import Failure, Result, Success

from effects.commands import ToolCommand
from rea.errors import ReaError, invalid_request


def _configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", help="application directory (unpacked app or source tree)")
    parser.add_argument(
        "--detail",
        choices=("complete", "summary"),
        default="summary",
        help="summary (default) prints counts, roles, IPC and unknowns; complete prints the whole record",
    )
    parser.add_argument(
        "--integrity-policy",
        choices=("fail", "record-and-continue", "fail-closed"),
        default="fail",
        help="ASAR integrity mismatches: fail (default), or record them and continue (fail-closed: same as fail)",
    )
    parser.add_argument("--input-format", choices=("auto", "directory", "asar"), default="auto")


def _steps(ns: argparse.Namespace) -> list[tuple[str, Mapping[str, Any]]]:
    return [
        (
            "analyze_javascript_application",
            {
                "input_path": os.path.abspath(ns.path),
                "detail": ns.detail,
                "format": ns.input_format,
                "integrity_policy": ns.integrity_policy,
            },
        )
    ]


def _summary_view(r: Mapping[str, Any]) -> dict[str, Any]:
    """The fields this renderer reads, from an inspect_analysis_view summary (rea.views.records.summaries.ApplicationSummary)."""
    s = r["summary"]
    electron = (s["highlights"].get("application") or {}).get("electron")
    return {
        **s["highlights"],
        "view": "summary",
        "statistics": {"unknowns": s["highlights"]["unknowns_total"], **s["statistics"]},
        "coverage": s["coverage"].get("analysis", s["coverage"]["application"]),
        "application": {"root": s["input_path"], "electron": electron},
        "parent_evidence_id": r["parent_evidence_id"],
    }


def render(value: Mapping[str, Any]) -> str:
    r = value.get("normalized_result", value)
    if r.get("kind") == "summary":
        r = _summary_view(r)
    if r.get("view") != "summary":
        s, c, e = r["statistics"], r["coverage"], r["summary"]
        return (
            f"{r['input_path']}\n  {s['modules']} modules, {s['nodes']} nodes, {s['edges']} edges, "
            f"{s['parse_failures']} parse failures, coverage {c['status']}\n"
            f"  {e['browser_windows']} windows, {e['context_bridge_apis']} bridge APIs, IPC: "
            f"{e['ipc']['main_handlers']} main handlers, {e['ipc']['renderer_transmissions']} renderer "
            f"transmissions ({e['ipc']['paired_renderer_transmissions']} paired)\n"
            f"  graph {r['graph']['graph_id'][:20]}...\nevidence: {value.get('evidence_id', '-')}"
        )
    s, c = r["statistics"], r["coverage"]
    lines = [
        f"{r['application']['root']} ({'Electron' if r['application']['electron'] else 'JavaScript'} application)",
        f"  {s['files']} files, {s['files_read']} read ({s['bytes_read']} bytes), {s['parsed_files']} parsed, "
        f"{s['parse_failures']} failures; coverage {c['status']}"
        + (f" ({', '.join(c['limits_reached'])})" if c["limits_reached"] else ""),
        f"  {s['modules']} modules, {s['nodes']} nodes, {s['edges']} edges, {s['unknowns']} unknowns",
    ]
    for e in r["entry_points"][:10]:
        chains = " | ".join(" + ".join(c) or "(any)" for c in e.get("conditions") or ())
        how = f", {chains} -> {e['format']}" if e.get("format") else ""
        lines.append(f"  entry: {e.get('label', e['node'])} ({e['basis']}{how}{', ' + e['role'] if e['role'] else ''})")
    for p in (r.get("protocols") or {}).get("items", ()):
        lines.append(f"  protocol {p['scheme']}: ({', '.join(p['registrations'])})")
    for p in (r.get("content_security_policies") or {}).get("items", ())[:10]:
        shown = p["value"] if p.get("value") is not None else f"(not a literal: {p.get('reason')})"
        lines.append(f"  csp ({p['form']}) {p['path']}:{p['line']}: {shown}")
    for role, info in r["roles"].items():
        lines.append(f"  {role}: {info['count']} modules, e.g. {', '.join(info['paths'][:3])}")
    for ch in r["ipc_channels"]["items"]:
        lines.append(
            f"  ipc {ch['channel']!r}: {', '.join(f'{k}={v}' for k, v in ch['ends'].items())}"
            f"{'' if ch['linked'] else ' (one end only)'}"
        )
    for b in r.get("bundles", ())[:10]:
        how = ", ".join(f"{n} by {k}" for k, n in sorted(b["recovered_by"].items()))
        lines.append(
            f"  bundle {b['path']} ({', '.join(b['bundlers']) or 'no runtime mark'}): "
            f"{b['bundled_modules']} bundled modules{' (' + how + ')' if how else ''}, "
            f"{b['named']} with their source path"
        )
    for u in r["unknowns"][:5]:
        lines.append(
            f"  unknown: {u['kind']}"
            + (f" ({u['reason']})" if isinstance(u.get("reason"), str) else "")
            + (f" at {u['path']}" if u.get("path") else "")
        )
    if r["unknowns_total"] > 5:
        lines.append(f"  ... {r['unknowns_total'] - 5} more unknowns (inspect_analysis_view or --json)")
    lines.append(f"  evidence: {value.get('evidence_id', '-')}")
    lines.append(f"  complete record: {r['parent_evidence_id']}")
    return "\n".join(lines)


def _configure_trace(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", help="application directory or .asar (analysed first, on the same connection)")
    parser.add_argument("--query", required=True, help="the semantic query as JSON: {seed, direction, ...}")
    parser.add_argument("--integrity-policy", choices=("fail", "record-and-continue"), default="fail")


def _trace_steps(ns: argparse.Namespace) -> Result[list[tuple[str, Any]], ReaError]:
    """Analyse, then trace over the record just retained (its semantic graph is retained beside it)."""
    try:
        query = json.loads(ns.query)
    except json.JSONDecodeError as bad:
        return Failure(
            invalid_request(
                f"--query is not JSON: {bad}", field="query", accepted='{"seed": {...}, "direction": "..."}'
            )
        )
    analysis = {
        "input_path": os.path.abspath(ns.path),
        "detail": "complete",
        "integrity_policy": ns.integrity_policy,
    }
    return Success(
        [
            ("analyze_javascript_application", analysis),
            (
                "trace_javascript_semantics",
                lambda earlier: {"application_evidence_id": earlier[0]["evidence_id"], "query": query},
            ),
        ]
    )


def _render_trace(value: Mapping[str, Any]) -> str:
    r = value.get("normalized_result", value)
    lines = [
        f"{r['direction']} from {r['seed']['kind']}: {r['status']}, {len(r['nodes'])} nodes, "
        f"{len(r['relations'])} relations, coverage {r['coverage']['status']}"
    ]
    lines += [f"  {n['kind']}: {n['label']}" for n in r["nodes"][:40]]
    lines.append(f"evidence: {value.get('evidence_id', '-')}")
    return "\n".join(lines)


COMMANDS = (
    ToolCommand(
        name="trace-javascript-semantics",
        help="analyse an application, then trace a semantic query over its semantic graph",
        configure=_configure_trace,
        steps=_trace_steps,
        render=_render_trace,
    ),
    ToolCommand(
        name="analyze-javascript-application",
        help="static graph of a JavaScript / Electron application",
        configure=_configure,
        steps=_steps,
        render=render,
    ),
)
