"""Feature tracing and graph reach over application Evidence (pure, bounded).

Reads the wire graph (`graph.nodes[].node_id`, our kind as `subkind`, the readable key as `label`;
edges `source_node_id`/`target_node_id`/`edge_id`) and answers in the reference's trace shape
(rea.javascript.records.trace.FeatureTraceResult).
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Literal

from rea.canonical_json import canonical_sha256
from rea.evidence import Evidence
from rea.javascript.observations import inferred
from rea.javascript.record import wire_graph
from rea.javascript.records.arguments import TraceFeatureArgs
from rea.javascript.records.graph import GraphCoverage, LimitRow
from rea.javascript.records.trace import (
    Frontier,
    NativeHandoff,
    SeedMatch,
    TraceCoverage,
    TracePath,
    TraceRelevance,
    TraceSummary,
)
from rea.javascript.trace_gaps import rests_on
from rea.javascript.trace_records import Reached, Walked
from rea.javascript.trace_seeds import seed_matches, with_code_matches
from rea.wire.convert import to_wire

# Data flows against the recorded direction for these relations: a handler `handles` a channel,
# so the flow goes channel -> handler; a preload `exposes` an API, so renderer -> API -> preload.
REVERSED_FLOW = frozenset(("handles", "exposes"))
DIRECTION_ALIASES = {"forward": "outgoing", "backward": "incoming"}
_RUNS = {"incoming": "backward", "outgoing": "forward"}


def _flow(edge: Mapping[str, Any]) -> tuple[str, str]:
    a, b = edge["source_node_id"], edge["target_node_id"]
    return (b, a) if edge["relation"] in REVERSED_FLOW else (a, b)


def reach(
    edges: Sequence[Mapping[str, Any]],
    seeds: list[str],
    direction: str,
    limits: Mapping[str, int],
    relations: frozenset[str] | None = None,
    expand: Callable[[str, int, int | None], bool] | None = None,
) -> Reached:
    """Breadth-first reach from seeds along the flow (forward), against it (backward) or both; `expand(node,
    depth, edge that reached it)` says whether a reached node is relevant enough to traverse from."""
    out_adj: dict[str, list[tuple[str, int]]] = defaultdict(list)
    in_adj: dict[str, list[tuple[str, int]]] = defaultdict(list)
    for index, edge in enumerate(edges):
        if relations is not None and edge["relation"] not in relations:
            continue
        a, b = _flow(edge)
        out_adj[a].append((b, index))
        in_adj[b].append((a, index))
    steps = ([out_adj] if direction in ("forward", "both") else []) + (
        [in_adj] if direction in ("backward", "both") else []
    )
    return _walk(steps, seeds, limits, expand)


def _walk(
    steps: list[dict[str, list[tuple[str, int]]]],
    seeds: list[str],
    limits: Mapping[str, int],
    expand: Callable[[str, int, int | None], bool] | None = None,
) -> Reached:
    """Breadth first; an edge is used only with its target admitted, and what a bound kept out is counted.
    A node `expand` declines is reached but not traversed from: it is listed in `pruned` with the edges
    it would have led on."""
    depth = {s: 0 for s in seeds}
    parent: dict[str, tuple[str, int]] = {}
    used_edges: set[int] = set()
    held_nodes: set[str] = set()
    held_edges: set[int] = set()
    frontier: dict[tuple[str, str], None] = {}
    pruned: dict[str, int] = {}
    queue = deque(seeds)
    while queue:
        node = queue.popleft()
        if expand is not None and node not in seeds and not expand(node, depth[node], parent[node][1]):
            pruned[node] = sum(1 for adj in steps for _nxt, index in adj.get(node, ()) if index not in used_edges)
            continue
        at_depth = depth[node] >= limits["max_depth"]
        for adj in steps:
            for nxt, index in adj.get(node, ()):
                if index in used_edges:
                    continue
                bound = (
                    "max_depth"
                    if at_depth
                    else "max_edges"
                    if len(used_edges) >= limits["max_edges"]
                    else "max_nodes"
                    if nxt not in depth and len(depth) >= limits["max_nodes"]
                    else None
                )
                if bound is not None:
                    frontier.setdefault((node, bound))
                    held_edges.add(index)
                    held_nodes.add(nxt)
                    continue
                used_edges.add(index)
                if nxt not in depth:
                    depth[nxt] = depth[node] + 1
                    parent[nxt] = (node, index)
                    queue.append(nxt)
    return {
        "depth": depth,
        "parent": parent,
        "edges": sorted(used_edges),
        "frontier": [{"node": n, "reason": r} for n, r in frontier],
        "truncated": sorted({r for _, r in frontier}),
        "omitted_nodes": held_nodes - set(depth),
        "omitted_edges": held_edges - used_edges,
        "pruned": pruned,
    }


def _entry_like(node: Mapping[str, Any], entries: set[str]) -> bool:
    return (
        node["node_id"] in entries
        or node["subkind"] == "html-document"
        or any(r["role"] == "main" and r["basis"] == "package-main" for r in node.get("roles", ()))
    )


def _terminal(
    node: Mapping[str, Any], run: str, reached: Reached, edges: Sequence[Mapping[str, Any]], entries: set[str]
) -> bool:
    if run == "backward":
        return _entry_like(node, entries)
    return node["subkind"] == "module" and any(
        edges[i]["relation"] == "handles" and edges[i]["source_node_id"] == node["node_id"] for i in reached["edges"]
    )


def _path(node: Mapping[str, Any], run: str, reached: Reached, edges: Sequence[Mapping[str, Any]]) -> TracePath:
    """The seed-to-terminal chain that reached `node`, seed first."""
    node_ids, cursor = [node["node_id"]], node["node_id"]
    chain: list[Mapping[str, Any]] = []
    while cursor in reached["parent"]:
        cursor, index = reached["parent"][cursor]
        chain.append(edges[index])
        node_ids.append(cursor)
    node_ids.reverse()
    chain.reverse()
    authorities = sorted(
        {"ast-static-analysis"} | ({"static-relationship-inference"} if any(map(inferred, chain)) else set())
    )
    edge_ids = [e["edge_id"] for e in chain]
    return TracePath(
        path_id="jatp_" + canonical_sha256({"nodes": node_ids, "edges": edge_ids}),
        start_node_id=node_ids[0],
        end_node_id=node["node_id"],
        end_kind=node["kind"],
        node_ids=tuple(node_ids),
        edge_ids=tuple(edge_ids),
        authorities=tuple(authorities),
        contains_inference=len(authorities) > 1,
        direction="incoming" if run == "backward" else "outgoing",
        end_roles=tuple(r["role"] for r in node.get("roles", ())),
    )


def _paths(
    reached: Reached,
    seeds: list[str],
    run: str,
    limits: Mapping[str, int],
    entries: set[str],
    by_id: Mapping[str, Mapping[str, Any]],
    edges: Sequence[Mapping[str, Any]],
) -> list[TracePath]:
    paths: list[TracePath] = []
    omitted = 0
    for node_id in sorted(reached["depth"], key=lambda n: (reached["depth"][n], n)):
        node = by_id.get(node_id)
        if node is None or node_id in seeds or not _terminal(node, run, reached, edges, entries):
            continue
        if len(paths) < limits["max_paths"]:
            paths.append(_path(node, run, reached, edges))
        else:
            omitted += 1
    if omitted:
        reached["truncated"] = sorted({*reached["truncated"], "max_paths"})
    reached["omitted_paths"] = omitted
    return paths


# Reached, never traversed from: libraries and leaves (a builtin's other importers are not this feature)
_LEAVES = frozenset(
    (
        "builtin-module",
        "electron-module",
        "package",
        "unresolved-module",
        "asset",
        "url",
        "route",
        "protocol",
        "native-addon",
        "source-map",
        "tsconfig",
    )
)
RELEVANCE = (
    "Relevance: libraries and leaves (builtins, packages, assets, URLs, unresolved modules), dependencies in "
    "node_modules (unless the seed is one), nodes reached through containment, handlers reached through a "
    "channel (outgoing) and entry points (incoming) are reached but not traversed from; coverage.relevance "
    "lists them and counts the edges left unexplored."
)


def _in_dependencies(node: Mapping[str, Any] | None) -> bool:
    return "node_modules/" in ((node or {}).get("path") or "")


def _relevant(
    by_id: Mapping[str, Mapping[str, Any]],
    edges: Sequence[Mapping[str, Any]],
    seeds: list[str],
    run: str,
    entries: set[str],
) -> Callable[[str, int, int | None], bool]:
    inside = any(_in_dependencies(by_id.get(s)) for s in seeds)

    def expand(node_id: str, _depth: int, via: int | None) -> bool:
        node = by_id.get(node_id)
        if node is None or node["subkind"] in _LEAVES or (not inside and _in_dependencies(node)):
            return False
        relation = edges[via]["relation"] if via is not None else None
        if relation == "contains":
            return False
        if run == "forward" and relation == "handles" and node["subkind"] == "module":
            return False
        return not (run == "backward" and _entry_like(node, entries))

    return expand


def _traverse(result: Mapping[str, Any], seeds: list[str], direction: str, limits: Mapping[str, int]) -> Walked:
    graph = result["graph"]
    edges = graph["edges"]
    by_id = {n["node_id"]: n for n in graph["nodes"]}
    entries = set(graph["root_node_ids"])
    out: Walked = {
        "depth": {},
        "used": set(),
        "paths": [],
        "frontier": [],
        "limited": set(),
        "omitted_nodes": set(),
        "omitted_edges": set(),
        "omitted_paths": 0,
        "pruned": {},
    }
    for name in ("incoming", "outgoing"):
        if direction not in (name, "both"):
            continue
        run = _RUNS[name]
        reached = reach(edges, seeds, run, limits, expand=_relevant(by_id, edges, seeds, run, entries))
        for n, count in reached["pruned"].items():
            out["pruned"][n] = out["pruned"].get(n, 0) + count
        for n, d in reached["depth"].items():
            out["depth"][n] = min(d, out["depth"].get(n, d))
        out["used"].update(reached["edges"])
        out["paths"] += _paths(reached, seeds, run, limits, entries, by_id, edges)
        out["frontier"] += [Frontier(node=f["node"], reason=f["reason"], direction=name) for f in reached["frontier"]]
        out["limited"].update(reached["truncated"])
        out["omitted_nodes"] |= reached["omitted_nodes"]
        out["omitted_edges"] |= reached["omitted_edges"]
        out["omitted_paths"] += reached["omitted_paths"]
    out["omitted_nodes"] -= set(out["depth"])
    out["omitted_edges"] -= out["used"]
    return out


def native_handoffs(nodes: Iterable[Mapping[str, Any]], observations: Sequence[Evidence]) -> list[NativeHandoff]:
    """Native add-ons the subgraph reaches; linked to a native observation whose subject names the same file."""
    out: list[NativeHandoff] = []
    for node in nodes:
        if node["subkind"] != "native-addon":
            continue
        base = node["path"].rsplit("/", 1)[-1]
        linked = [o for o in observations if o.subject is not None and o.subject.name == base]
        out.append(
            NativeHandoff(
                native_node_id=node["node_id"],
                artifact_sha256=node.get("sha256"),
                artifact_path=node["path"],
                export_node_ids=(),
                requested_exports=(),
                status="evidence-linked" if linked else "requires-provider-analysis",
                providers=tuple(o.provider.to_json() for o in linked),
                evidence_ids=tuple(o.evidence_id for o in linked),
                recommended_tools=("open_binary", "binary_overview", "search_procedures", "analyze_function"),
            )
        )
    return out


def trace_feature(
    result: Mapping[str, Any],
    source_evidence_id: str,
    args: TraceFeatureArgs,
    observations: Sequence[Evidence] = (),
) -> dict[str, Any]:
    """Backward from the seed to entry points, forward from it to implementing modules (handlers). The
    FeatureTraceResult on the wire, its parts built as records; the subgraph's nodes and edges are the
    application record's own, passed through."""
    seed, limits = args.seed, to_wire(args.limits)
    direction = DIRECTION_ALIASES.get(args.direction, args.direction)
    graph = result["graph"]
    matches = seed_matches(graph["nodes"], seed)
    if seed.kind == "string":
        matches = with_code_matches(matches, result.get("semantic_graph") or {}, seed)
    kept = matches[: args.limits.max_seed_matches]
    walked = _traverse(result, [m.node_id for m in kept], direction, limits)
    if len(matches) > args.limits.max_seed_matches:
        walked["limited"].add("max_seed_matches")
    by_id = {n["node_id"]: n for n in graph["nodes"]}
    nodes = [{k: v for k, v in by_id[n].items() if k != "exports"} for n in sorted(walked["depth"]) if n in by_id]
    edges = [graph["edges"][i] for i in sorted(walked["used"])]
    paths = walked["paths"][: args.limits.max_paths]
    handoffs = native_handoffs(nodes, observations)
    reasons, unknowns = rests_on(result, by_id, matches, set(walked["depth"]), to_wire(seed))
    summary = TraceSummary(
        matched_seeds=len(kept),
        traced_nodes=len(nodes),
        traced_edges=len(edges),
        terminal_paths=len(paths),
        native_handoffs=len(handoffs),
        observed_facts=len(nodes) + sum(1 for e in edges if not inferred(e)),
        inferred_facts=sum(1 for e in edges if inferred(e)),
        unknown_facts=len(unknowns),
        unavailable_facts=0,
    )
    wire_seed = to_wire(seed)
    return {
        "schema_version": 1,
        "trace_id": "jatr_"
        + canonical_sha256({"source": source_evidence_id, "seed": wire_seed, "direction": direction, "limits": limits}),
        "source_evidence_id": source_evidence_id,
        "source_graph_id": graph["graph_id"],
        "seed": wire_seed,
        "direction": direction,
        "seed_matches": to_wire(kept),
        "graph": _subgraph(graph, nodes, edges, walked, kept, limits) if matches else None,
        "paths": to_wire(paths),
        "native_handoffs": to_wire(handoffs),
        "summary": to_wire(summary),
        "coverage": to_wire(
            _coverage(graph, walked, (len(matches), len(kept)), len(walked["paths"]) - len(paths), reasons)
        ),
        "evidence_links": [source_evidence_id, *(o.evidence_id for o in observations)],
        "frontier": to_wire(walked["frontier"][:100]),
        "unknowns": unknowns[:MAX_LISTED],
    }


def _subgraph(
    graph: Mapping[str, Any],
    nodes: Sequence[Mapping[str, Any]],
    edges: Sequence[Mapping[str, Any]],
    walked: Walked,
    kept: Sequence[SeedMatch],
    limits: Mapping[str, int],
) -> dict[str, Any]:
    """The traced slice of the application graph: partial by construction (the trace's own completeness
    is the top-level coverage.status)."""
    return wire_graph(
        nodes,
        edges,
        graph="jag_" + canonical_sha256({"source": graph["graph_id"], "nodes": sorted(walked["depth"])}),
        roots=[m.node_id for m in kept],
        coverage=GraphCoverage(
            status="partial",
            truncated=bool(walked["limited"]),
            omitted_count=None,
            limits=tuple(LimitRow(name=n, unit=_unit(n), value=limits[n]) for n in sorted(walked["limited"])),
        ),
        limitations=list(graph["limitations"]),
    )


def _coverage(
    graph: Mapping[str, Any], walked: Walked, matched: tuple[int, int], cut_paths: int, reasons: Sequence[str]
) -> TraceCoverage:
    every, kept = matched
    return TraceCoverage(
        status="no-match" if not every else "partial" if walked["limited"] or reasons else "complete-within-source",
        source_graph_status=graph["coverage"]["status"],
        scanned_nodes=len(walked["depth"]),
        total_seed_matches=every,
        omitted_seed_matches=every - kept,
        omitted_nodes=len(walked["omitted_nodes"]),
        omitted_edges=len(walked["omitted_edges"]),
        omitted_paths=walked["omitted_paths"] + cut_paths,
        frontier_node_ids=tuple(sorted({f.node for f in walked["frontier"]})),
        limits_reached=tuple(sorted(walked["limited"])),
        incomplete_because=tuple(reasons),
        relevance=TraceRelevance(
            policy=RELEVANCE,
            pruned_nodes=len(walked["pruned"]),
            pruned_edges=sum(walked["pruned"].values()),
            pruned_node_ids=tuple(sorted(walked["pruned"])[:MAX_LISTED]),
        ),
    )


MAX_LISTED = 100


def _unit(limit: str) -> Literal["depth", "items"]:
    return "depth" if limit == "max_depth" else "items"
