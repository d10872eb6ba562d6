"""Call graphs and call paths over the snapshot, in the reference's shapes.

A node's `calls` is only as complete as its coverage says: an import's callees
are outside the binary, and indirect calls angr did not resolve are not listed.
An empty list with partial or unknown coverage is not proof of no calls.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeGuard

from rea.native import queries as q
from rea.wire import native as w

NOT_RECOVERED = "Not a recovered procedure; its relationships were not read."
IMPORT_BODY = "An imported function: its body is outside this binary."
INDIRECT = "Indirect calls angr could not resolve are not listed."


def _node(index: Mapping[str, Mapping[str, Any]], address: str, direction: str) -> w.GraphNodeOk:
    proc = index.get(address)
    edge = "callees" if direction == "forward" else "callers"
    if proc is None:
        return w.GraphNodeOk(
            address=address, status="ok", calls=(), name=None, coverage="unknown", limitations=(NOT_RECOVERED,)
        )
    coverage: w.Coverage
    caveats: tuple[str, ...]
    if proc["kind"] == "external":
        forward = direction == "forward"
        coverage, caveats = ("unknown", (IMPORT_BODY,)) if forward else ("complete", ())
    else:
        coverage, caveats = "partial", (INDIRECT,)
    return w.GraphNodeOk(
        address=address, status="ok", calls=tuple(proc[edge]), name=proc["name"], coverage=coverage, limitations=caveats
    )


def call_graph(snapshot: Mapping[str, Any], root: Mapping[str, Any], depth: int | None, direction: str) -> w.CallGraph:
    """Breadth-first from root; depth None walks the whole reachable graph."""
    index = q.by_address(snapshot)
    levels: dict[str, tuple[w.GraphNodeOk | w.GraphNodeError, ...]] = {}
    seen, frontier, level = {root["address"]}, [root["address"]], 0
    while frontier:
        nodes = [_node(index, a, direction) for a in frontier]
        levels[str(level)] = tuple(nodes)
        if depth is not None and level >= depth:
            break
        following = []
        for node in nodes:
            for callee in node.calls:
                if callee not in seen:
                    seen.add(callee)
                    following.append(callee)
        frontier, level = following, level + 1
    caveats = sorted({c for nodes in levels.values() for n in nodes for c in getattr(n, "limitations", ())})
    return w.CallGraph(levels=levels, limitations=tuple(caveats))


def _expandable(proc: Mapping[str, Any] | None, direction: str) -> TypeGuard[Mapping[str, Any]]:
    """A recovered procedure whose edges in this direction were read (a guard: proc is then not None)."""
    return proc is not None and not (proc["kind"] == "external" and direction == "forward")


def trace(
    snapshot: Mapping[str, Any], start: Mapping[str, Any], goal: Mapping[str, Any] | None, args: Mapping[str, Any]
) -> w.CallPath:
    """Breadth-first paths from start; every limited or unresolved expansion stays a residual unknown."""
    index = q.by_address(snapshot)
    direction, max_depth, max_nodes = args["direction"], args["max_depth"], args["max_nodes"]
    edge = "callees" if direction == "forward" else "callers"
    parents: dict[str, str | None] = {start["address"]: None}
    depth_of = {start["address"]: 0}
    queue, residual, frontier, edges = [start["address"]], [], [], []
    truncated = False
    reached = goal is not None and start["address"] == goal["address"]
    while queue and not reached:
        address = queue.pop(0)
        proc = index.get(address)
        if not _expandable(proc, direction):
            residual.append(f"{address}: an import or unrecovered target, its calls are unknown")
            continue
        if depth_of[address] >= max_depth:
            if proc[edge]:
                truncated = True
                frontier.append(address)
                residual.append(f"{address}: max_depth {max_depth} reached before expanding")
            continue
        for nxt in proc[edge]:
            if nxt in parents:
                continue
            if len(parents) >= max_nodes:
                truncated = True
                frontier.append(address)
                residual.append(f"{address}: max_nodes {max_nodes} reached")
                break
            parents[nxt], depth_of[nxt] = address, depth_of[address] + 1
            edges.append(w.PathEdge(source_address=address, target_address=nxt, discovery_depth=depth_of[nxt]))
            queue.append(nxt)
            if goal is not None and nxt == goal["address"]:
                reached = True
                break
    path = _path_to(parents, goal)
    return w.CallPath(
        start=start["address"],
        goal=goal["address"] if goal is not None else None,
        direction=direction,
        goal_status=_goal_status(goal, path, unresolved=bool(residual) or truncated),
        nodes=tuple(w.PathNode(address=a, depth=d) for a, d in depth_of.items()),
        edges=tuple(edges),
        traversal_path=tuple(path),
        failures=(),
        traversal=w.Traversal(nodes_visited=len(parents)),
        frontier=tuple(dict.fromkeys(frontier)),
        truncated=truncated,
        residual_unknowns=tuple(residual),
        limitations=(INDIRECT,) if direction == "forward" else (),
        limits=w.PathLimits(max_depth=max_depth, max_nodes=max_nodes, max_operations=args["max_operations"]),
    )


def _path_to(parents: Mapping[str, str | None], goal: Mapping[str, Any] | None) -> list[str]:
    """start ... goal along the breadth-first parents, or empty when the goal was not reached."""
    path: list[str] = []
    if goal is not None and goal["address"] in parents:
        cursor: str | None = goal["address"]
        while cursor is not None:
            path.append(cursor)
            cursor = parents[cursor]
        path.reverse()
    return path


def _goal_status(goal: Mapping[str, Any] | None, path: list[str], *, unresolved: bool) -> w.GoalStatus:
    """not_reached only when nothing was left unexpanded; otherwise the goal may lie beyond: unknown."""
    if goal is None:
        return "not_requested"
    if path:
        return "reached"
    return "unknown" if unresolved else "not_reached"
