"""The application record from the built graph: findings, statistics (ours and the reference's names),
omissions, coverage, and every list in its stable order."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from rea.javascript.graph_builder import Builder, EntryPoint, GraphState, finding_order
from rea.javascript.graph_kinds import SCHEMA, TEXT_KINDS


def _node_findings(b: Builder, entries: Sequence[EntryPoint]) -> list[dict[str, Any]]:
    for nid, node in sorted(b.nodes.items()):
        kind = node["kind"]
        if kind == "ipc-channel":
            loc = node["location"]
            b.findings.append(
                {"kind": kind, "node": nid, "linked": node["linked"], "path": loc["path"], "line": loc.get("line")}
            )
        elif kind in ("context-bridge-api", "protocol"):
            b.findings.append(
                {"kind": "custom-protocol" if kind == "protocol" else kind, "node": nid, **node["location"]}
            )
        elif kind == "source-map":
            with_content = node.get("sources_with_content", 0)
            b.findings.append({"kind": kind, "node": nid, "path": node["path"], "sources_with_content": with_content})
        elif kind == "module" and node.get("bundlers"):
            b.findings.append(
                {"kind": "bundler-runtime", "node": nid, "bundlers": node["bundlers"], "path": node["path"]}
            )
    for e in entries:
        b.findings.append({"kind": "entry-point", "node": e["node"], "basis": e["basis"], "role": e["role"]})
    return sorted(b.findings, key=finding_order)


def _omissions(
    scan: Mapping[str, Any], facts: Mapping[str, Mapping[str, Any]], read_omissions: Sequence[Mapping[str, Any]]
) -> dict[str, int]:
    omissions: dict[str, int] = defaultdict(int)
    for o in (*scan["omitted"], *read_omissions):
        omissions[o["reason"]] += 1
    for f in facts.values():
        if f.get("omitted_reason"):
            omissions[f["omitted_reason"]] += 1
    per_file = sum(f.get("omitted_facts", 0) + f.get("urls_omitted", 0) for f in facts.values())
    if per_file:
        omissions["facts_per_file"] = per_file
    return omissions


def _counts(items: Iterable[Mapping[str, Any]], key: str) -> dict[str, int]:
    out: dict[str, int] = defaultdict(int)
    for item in items:
        out[item[key]] += 1
    return dict(sorted(out.items()))


def _statistics(
    g: GraphState, nodes: Sequence[Mapping[str, Any]], edges: Sequence[Mapping[str, Any]], sizes: Mapping[str, int]
) -> dict[str, Any]:
    facts, files = g.facts, g.files
    node_kinds = _counts(nodes, "kind")
    return {
        "entries": len(files) + len(g.scan["omitted"]),
        "files": len(files),
        "relevant_files": sum(1 for f in files if f["kind"] in TEXT_KINDS),
        "files_read": len(facts),
        "parsed_files": sum(1 for f in facts.values() if f.get("parse") in ("ok", "recovered") and "ast_nodes" in f),
        "recovered_parses": sum(1 for f in facts.values() if f.get("parse") == "recovered"),
        "parse_failures": sizes["parse_failures"],
        "bytes_read": sum(f.get("bytes_read", 0) for f in facts.values()),
        "ast_nodes": sum(f.get("ast_nodes", 0) for f in facts.values()),
        "modules": node_kinds.get("module", 0),
        "bundled_modules": node_kinds.get("bundled-module", 0),
        "original_source_modules": node_kinds.get("original-source-module", 0),
        "nodes": len(nodes),
        "edges": len(edges),
        "findings": sizes["findings"],
        "unknowns": sizes["unknowns"],
        "ipc_channels": node_kinds.get("ipc-channel", 0),
        "files_by_kind": _counts(files, "kind"),
        "nodes_by_kind": node_kinds,
        "edges_by_relation": _counts(edges, "relation"),
        **_reference_statistics(g, sizes),
    }


def _reference_statistics(g: GraphState, sizes: Mapping[str, int]) -> dict[str, int]:
    """The reference's reconstruction counts, in its names (some repeat ours under another name)."""
    facts = g.facts
    truncated = ("omitted_reason", "omitted_facts", "urls_omitted", "sources_omitted", "contents_not_parsed")
    return {
        "nested_asar_containers": sum(1 for f in g.files if f["kind"] == "asar"),
        "text_bytes_read": sum(f.get("bytes_read", 0) for f in facts.values()),
        "invalid_utf8_files": 0,  # bytes are parsed as UTF-8 with replacement; not counted
        "parsed_javascript_files": sum(
            1 for f in facts.values() if f.get("parse") in ("ok", "recovered") and "ast_nodes" in f
        ),
        "visited_ast_nodes": sum(f.get("ast_nodes", 0) for f in facts.values()),
        "truncated_scopes": sum(1 for f in facts.values() if any(f.get(k) for k in truncated)),
        "text_files_selected": len(facts),
        "omitted_text_files": sizes["omitted_text_files"],
        "limit_omitted_text_files": sizes["limit_omitted_text_files"],
        "policy_filtered_text_files": 0,
    }


def _edge_order(e: Mapping[str, Any]) -> tuple[Any, ...]:
    loc = e["location"]
    return (e["from"], e["relation"], e["to"], loc.get("path", ""), loc.get("start", -1), e.get("kind", ""))


def assemble(
    g: GraphState,
    entries: list[EntryPoint],
    limits: Mapping[str, int],
    read_omissions: Sequence[Mapping[str, Any]],
    electron_app: bool,
) -> dict[str, Any]:
    scan, facts = g.scan, g.facts
    findings = _node_findings(g.b, entries)
    limits_reached = sorted(
        {o["reason"] for o in (*scan["omitted"], *read_omissions) if o["reason"].startswith("max_")}
        | {f["omitted_reason"] for f in facts.values() if f.get("omitted_reason")}
        | {"max_original_source_bytes" for f in facts.values() if f.get("contents_not_parsed")}
        | ({"max_findings"} if len(findings) > limits["max_findings"] else set())
    )
    omissions = _omissions(scan, facts, read_omissions)
    if len(findings) > limits["max_findings"]:
        omissions["max_findings"] = len(findings) - limits["max_findings"]
    findings = findings[: limits["max_findings"]]
    nodes = sorted(g.b.nodes.values(), key=lambda n: n["id"])
    edges = sorted(g.b.edges.values(), key=_edge_order)
    unknowns = sorted(g.b.unknowns, key=finding_order)
    failures = sorted(
        ({"path": p, "error": f.get("error", "")} for p, f in facts.items() if f.get("parse") == "failed"),
        key=lambda f: f["path"],
    )
    sizes = {
        "parse_failures": len(failures),
        "findings": len(findings),
        "unknowns": len(unknowns),
        "omitted_text_files": len(read_omissions),
        "limit_omitted_text_files": sum(1 for o in read_omissions if o["reason"].startswith("max_")),
    }
    statistics = _statistics(g, nodes, edges, sizes)
    statistics["omissions_by_reason"] = dict(sorted(omissions.items()))
    contradictions = sorted(
        [
            *scan.get("integrity_contradictions", ()),
            *(f["integrity_contradiction"] for f in facts.values() if f.get("integrity_contradiction")),
        ],
        key=lambda c: c["path"],
    )
    partial = bool(
        limits_reached or failures or contradictions or any(o["reason"] == "unreadable" for o in scan["omitted"])
    )
    coverage = {
        "status": "partial" if partial else "complete",
        "limits_reached": limits_reached,
        "parse_failures": len(failures),
        "integrity_contradictions": len(contradictions),
        "note": (
            "Static analysis of the files read: dynamic requires, computed channels and runtime-only "
            "behaviour are recorded as unknowns, never as absence."
        ),
    }
    return {
        "schema": SCHEMA,
        "application": {"root": scan["root"], "format": scan["kind"], "electron": electron_app},
        "limits": dict(limits),
        "coverage": coverage,
        "statistics": statistics,
        "entry_points": entries,
        "nodes": nodes,
        "edges": edges,
        "findings": findings,
        "unknowns": unknowns,
        "parse_failures": failures,
        "omitted_entries": sorted([*scan["omitted"], *read_omissions], key=lambda o: o["path"])[:1000],
        "integrity_contradictions": contradictions,
    }
