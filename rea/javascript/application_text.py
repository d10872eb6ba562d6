"""The application analysis's readable text (`rea analyze-javascript-application`, and `rea analyze` on an
application directory or .asar): a pure function from the reply to text."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


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
