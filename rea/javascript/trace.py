"""Feature tracing and semantic reach over an application graph (pure, bounded)."""

from __future__ import annotations

from collections import defaultdict, deque
from typing import Any
from collections.abc import Mapping

SEED_KINDS = ("module", "string", "route", "ipc-channel", "url", "node-id")
DIRECTIONS = ("forward", "backward", "both")
DEFAULT_TRACE_LIMITS = {"max_depth": 12, "max_nodes": 2000, "max_edges": 4000, "max_paths": 100, "max_seed_matches": 25}
# Data flows against the recorded direction for these relations: a handler `handles` a channel,
# so the flow goes channel -> handler; a preload `exposes` an API, so renderer -> API -> preload.
REVERSED_FLOW = frozenset(("handles", "exposes"))
_SEED_NODE_KINDS = {
    "module": ("module", "bundled-module", "original-source-module", "html-document"),
    "route": ("route",),
    "ipc-channel": ("ipc-channel",),
    "url": ("url", "protocol"),
}
_TEXT_FIELDS = ("id", "path", "channel", "route", "url", "key", "scheme", "specifier", "name")


def _matches(text: str | None, value: str, match: str, case_sensitive: bool) -> bool:
    if not isinstance(text, str):
        return False
    if not case_sensitive:
        text, value = text.lower(), value.lower()
    return text == value if match == "exact" else value in text


def seed_matches(result: Mapping[str, Any], seed: Mapping[str, Any]) -> list[str]:
    kind, value = seed["kind"], seed["value"]
    match = seed.get("match") or ("exact" if kind in ("node-id", "ipc-channel", "route") else "contains")
    case = seed.get("case_sensitive", False)
    found = []
    for node in result["nodes"]:
        if kind == "node-id":
            ok = node["id"] == value
        elif kind == "string":
            ok = any(_matches(node.get(f), value, match, case) for f in _TEXT_FIELDS) or any(
                _matches(m, value, match, case) for m in (node.get("members") or ())
            )
        elif node["kind"] not in _SEED_NODE_KINDS[kind]:
            ok = False
        elif kind == "module":
            ok = _matches(node.get("path"), value, match, case)
        elif kind == "route":
            ok = _matches(node.get("route"), value, match, case) or _matches(node["id"][6:], value, match, case)
        elif kind == "ipc-channel":
            ok = _matches(node.get("channel"), value, match, case)
        else:
            ok = _matches(node.get("url") or node.get("scheme"), value, match, case)
        if ok:
            found.append(node["id"])
    return sorted(found)


def _flow(edge: Mapping[str, Any]) -> tuple[str, str]:
    return (edge["to"], edge["from"]) if edge["relation"] in REVERSED_FLOW else (edge["from"], edge["to"])


def reach(
    result: Mapping[str, Any],
    seeds: list[str],
    direction: str,
    limits: Mapping[str, int],
    relations: frozenset[str] | None = None,
) -> dict[str, Any]:
    """Breadth-first reach from seeds along the flow (forward), against it (backward) or both."""
    out_adj: dict[str, list[tuple[str, int]]] = defaultdict(list)
    in_adj: dict[str, list[tuple[str, int]]] = defaultdict(list)
    edges = result["edges"]
    for index, edge in enumerate(edges):
        if relations is not None and edge["relation"] not in relations:
            continue
        a, b = _flow(edge)
        out_adj[a].append((b, index))
        in_adj[b].append((a, index))
    steps = []
    if direction in ("forward", "both"):
        steps.append(out_adj)
    if direction in ("backward", "both"):
        steps.append(in_adj)
    depth = {s: 0 for s in seeds}
    parent: dict[str, tuple[str, int]] = {}
    used_edges: set[int] = set()
    frontier: list[dict[str, Any]] = []
    queue = deque(seeds)
    truncated = []
    while queue:
        node = queue.popleft()
        if depth[node] >= limits["max_depth"]:
            if any(adj.get(node) for adj in steps):
                frontier.append({"node": node, "reason": "max_depth"})
            continue
        for adj in steps:
            for nxt, index in adj.get(node, ()):
                if len(used_edges) >= limits["max_edges"] and index not in used_edges:
                    frontier.append({"node": node, "reason": "max_edges"})
                    break
                used_edges.add(index)
                if nxt in depth:
                    continue
                if len(depth) >= limits["max_nodes"]:
                    frontier.append({"node": node, "reason": "max_nodes"})
                    break
                depth[nxt] = depth[node] + 1
                parent[nxt] = (node, index)
                queue.append(nxt)
    if frontier:
        truncated = sorted({f["reason"] for f in frontier})
    return {"depth": depth, "parent": parent, "edges": sorted(used_edges), "frontier": frontier, "truncated": truncated}


def _entry_like(node: Mapping[str, Any], entries: set[str]) -> bool:
    return (
        node["id"] in entries
        or node["kind"] == "html-document"
        or any(r["role"] == "main" and r["basis"] == "package-main" for r in node.get("roles", ()))
    )


def _paths(result, reached, seeds, direction, limits, entries, by_id):
    edges = result["edges"]
    paths = []
    for node_id in sorted(reached["depth"], key=lambda n: (reached["depth"][n], n)):
        node = by_id.get(node_id)
        if node is None or node_id in seeds:
            continue
        if direction == "backward":
            terminal = _entry_like(node, entries)
        else:
            terminal = node["kind"] == "module" and any(
                edges[i]["relation"] == "handles" and edges[i]["from"] == node_id for i in reached["edges"]
            )
        if not terminal:
            continue
        chain, cursor = [], node_id
        while cursor in reached["parent"]:
            previous, index = reached["parent"][cursor]
            e = edges[index]
            chain.append({"from": e["from"], "relation": e["relation"], "to": e["to"], "location": e["location"]})
            cursor = previous
        if direction == "forward":
            chain.reverse()  # seed first; backward chains already run from the entry point to the seed
        paths.append(
            {
                "direction": direction,
                "seed": cursor,
                "end": node_id,
                "end_kind": node["kind"],
                "end_roles": [r["role"] for r in node.get("roles", ())],
                "edges": chain,
            }
        )
        if len(paths) >= limits["max_paths"]:
            reached["truncated"] = sorted({*reached["truncated"], "max_paths"})
            break
    return paths


def trace_feature(
    result: Mapping[str, Any], seed: Mapping[str, Any], direction: str, limits: Mapping[str, int]
) -> dict[str, Any]:
    """Backward from the seed to entry points, forward from it to implementing modules (handlers)."""
    matches = seed_matches(result, seed)
    seeds = matches[: limits["max_seed_matches"]]
    by_id = {n["id"]: n for n in result["nodes"]}
    entries = {e["node"] for e in result["entry_points"]}
    runs = [d for d in ("backward", "forward") if direction in (d, "both")]
    depth: dict[str, int] = {}
    used: set[int] = set()
    paths: list[dict[str, Any]] = []
    frontier: list[dict[str, Any]] = []
    limited: set[str] = set()
    for run in runs:
        reached = reach(result, seeds, run, limits)
        for n, d in reached["depth"].items():
            depth[n] = min(d, depth.get(n, d))
        used.update(reached["edges"])
        paths += _paths(result, reached, seeds, run, limits, entries, by_id)
        frontier += [{**f, "direction": run} for f in reached["frontier"]]
        limited.update(reached["truncated"])
    if len(matches) > limits["max_seed_matches"]:
        limited.add("max_seed_matches")
    nodes = [{k: v for k, v in by_id[n].items() if k != "exports"} for n in sorted(depth) if n in by_id]
    return {
        "seed": dict(seed),
        "direction": direction,
        "limits": dict(limits),
        "matches": seeds,
        "matches_total": len(matches),
        "status": "matched" if matches else "no-match",
        "nodes": nodes,
        "edges": [result["edges"][i] for i in sorted(used)],
        "paths": paths[: limits["max_paths"]],
        "depth": dict(sorted(depth.items())),
        "truncated": bool(limited),
        "truncation": {"limits_reached": sorted(limited), "frontier": frontier[:100]},
        "source_coverage": result["coverage"]["status"],
    }
