"""Call graphs and call paths over the snapshot, in the reference's shapes.

A node's `calls` is only as complete as its coverage says. Forward, a procedure
with indirect call sites angr did not resolve (or a call into angr's
Unresolvable* placeholder) is partial, an import's callees are outside the
binary (unknown), and only a procedure whose every call site resolved is
complete. Backward, any unresolved call site in the binary may call anything,
so callers are partial while one exists. An empty list with partial or unknown
coverage is not proof of no calls.

Both traversals are walks: generators that yield after each step (a level, an
expansion) so the workflow can checkpoint between steps. Thrown `Interrupted`,
a walk returns what it observed so far, marked partial, instead of raising.
"""

from __future__ import annotations

from collections.abc import Generator, Mapping
from typing import Any

import attrs

from rea.native import queries as q
from rea.native.answers import address_order
from rea.native.records import arguments as wa
from rea.native.records import procedures as wp

NOT_RECOVERED = "Not a recovered procedure; its relationships were not read."
IMPORT_BODY = "An imported function: its body is outside this binary."
PLACEHOLDER = "angr's placeholder for an indirect call or jump it could not resolve: the real targets are unknown."
TRACE_NOTICE = "Calls come from angr's recovered control-flow graph: code it did not discover is not traversed."

Walk = Generator[int, None, Any]  # yields the number of procedures seen so far


class Interrupted(Exception):
    """Thrown into a walk at a step: it stops there and returns its partial observation."""


@attrs.frozen(kw_only=True)
class Read:
    """One procedure's relationships in one direction, and how far they can be trusted."""

    calls: tuple[str, ...]
    coverage: wa.Coverage
    caveats: tuple[str, ...]
    expandable: bool  # its relationships were read at all


def _placeholder(proc: Mapping[str, Any]) -> bool:
    return proc["kind"] == "external" and str(proc["name"]).startswith("Unresolvable")


def unresolved_sites(index: Mapping[str, Mapping[str, Any]], proc: Mapping[str, Any]) -> int:
    """Call sites of proc angr did not resolve: listed ones, and calls into its Unresolvable* placeholder."""
    placeholders = sum(1 for c in proc["callees"] if c in index and _placeholder(index[c]))
    return len(proc.get("unresolved_calls", ())) + placeholders


def binary_unresolved(index: Mapping[str, Mapping[str, Any]]) -> int:
    return sum(unresolved_sites(index, p) for p in index.values() if p["kind"] != "external")


def read(index: Mapping[str, Mapping[str, Any]], address: str, direction: str, anywhere: int) -> Read:
    """The relationships of `address`; `anywhere` is the binary's count of unresolved call sites."""
    proc = index.get(address)
    if proc is None:
        return Read(calls=(), coverage="unknown", caveats=(NOT_RECOVERED,), expandable=False)
    if direction == "forward":
        if _placeholder(proc):
            return Read(calls=(), coverage="unknown", caveats=(PLACEHOLDER,), expandable=False)
        if proc["kind"] == "external":
            return Read(calls=(), coverage="unknown", caveats=(IMPORT_BODY,), expandable=False)
        missing = unresolved_sites(index, proc)
        caveat = (f"{missing} indirect call sites angr could not resolve are not listed.",) if missing else ()
        return Read(
            calls=tuple(proc["callees"]), coverage="partial" if missing else "complete", caveats=caveat, expandable=True
        )
    caveat = (
        (f"{anywhere} indirect call sites in this binary were not resolved: callers through them are not listed.",)
        if anywhere
        else ()
    )
    return Read(
        calls=tuple(proc["callers"]), coverage="partial" if anywhere else "complete", caveats=caveat, expandable=True
    )


def _node(index: Mapping[str, Mapping[str, Any]], address: str, direction: str, anywhere: int) -> wp.GraphNodeOk:
    r = read(index, address, direction, anywhere)
    proc = index.get(address)
    return wp.GraphNodeOk(
        address=address,
        status="ok",
        calls=r.calls,
        name=proc["name"] if proc is not None else None,
        coverage=r.coverage,
        limitations=r.caveats,
    )


def call_graph_walk(snapshot: Mapping[str, Any], root: Mapping[str, Any], depth: int | None, direction: str) -> Walk:
    """Breadth-first from root, one level a step; depth None walks the whole reachable graph."""
    index = q.by_address(snapshot)
    anywhere = binary_unresolved(index)
    levels: dict[str, tuple[wp.GraphNodeOk | wp.GraphNodeError, ...]] = {}
    seen, frontier, level = {root["address"]}, [root["address"]], 0
    stopped: list[str] = []
    while frontier:
        nodes = [_node(index, a, direction, anywhere) for a in frontier]
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
        if frontier:
            try:
                yield len(seen)
            except Interrupted as stop:
                stopped.append(
                    f"Partial: {stop or 'interrupted'} after level {level - 1}; "
                    f"{len(frontier)} procedures at level {level} and beyond were not read."
                )
                break
    caveats = dict.fromkeys(c for nodes in levels.values() for n in nodes for c in getattr(n, "limitations", ()))
    return wp.CallGraph(levels=levels, limitations=(*stopped, *sorted(caveats)))


@attrs.define
class _Trace:
    """The mutable state of one breadth-first trace (local to trace_walk)."""

    start: str
    parents: dict[str, str | None]
    depth_of: dict[str, int]
    queue: list[str]
    edges: dict[tuple[str, str], wp.PathEdge] = attrs.field(factory=dict)
    residual: dict[str, None] = attrs.field(factory=dict)  # ordered set
    frontier: dict[str, None] = attrs.field(factory=dict)
    operations: int = 0

    def edge(self, expanded: str, other: str, direction: str) -> None:
        """Oriented as the call goes (caller -> callee), whichever way the trace walks."""
        source, target = (expanded, other) if direction == "forward" else (other, expanded)
        self.edges.setdefault(
            (source, target),
            wp.PathEdge(source_address=source, target_address=target, discovery_depth=self.depth_of[expanded] + 1),
        )

    def unexpanded(self, address: str, reason: str) -> None:
        self.frontier[address] = None
        self.residual[reason] = None


def trace_walk(
    snapshot: Mapping[str, Any], start: Mapping[str, Any], goal: Mapping[str, Any] | None, args: Mapping[str, Any]
) -> Walk:
    """Breadth-first paths from start, one expansion a step; every limited or unresolved expansion stays a
    residual unknown (and makes the result truncated)."""
    index = q.by_address(snapshot)
    anywhere = binary_unresolved(index)
    direction, max_depth, max_nodes, max_ops = (
        args["direction"],
        args["max_depth"],
        args["max_nodes"],
        args["max_operations"],
    )
    s = _Trace(
        start=start["address"],
        parents={start["address"]: None},
        depth_of={start["address"]: 0},
        queue=[start["address"]],
    )
    goal_address = goal["address"] if goal is not None else None
    reached = goal_address == s.start
    while s.queue and not reached:
        if s.operations >= max_ops:
            for address in s.queue:
                s.frontier[address] = None
            s.residual[f"max_operations {max_ops} reached: {len(s.queue)} queued procedures were not expanded"] = None
            break
        try:
            yield len(s.parents)
        except Interrupted as stop:
            for address in s.queue:
                s.frontier[address] = None
            s.residual[f"{stop or 'interrupted'}: {len(s.queue)} queued procedures were not expanded"] = None
            break
        reached = _expand(s, index, s.queue.pop(0), direction, anywhere, max_depth, max_nodes, goal_address)
    return _project(s, start, goal, args, reached, index)


def _expand(
    s: _Trace,
    index: Mapping[str, Mapping[str, Any]],
    address: str,
    direction: str,
    anywhere: int,
    max_depth: int,
    max_nodes: int,
    goal: str | None,
) -> bool:
    """One relationship read; True when it discovered the goal."""
    r = read(index, address, direction, anywhere)
    if not r.expandable:
        s.residual[f"{address}: {r.caveats[0]}"] = None
        return False
    if s.depth_of[address] >= max_depth:
        if r.calls:
            s.unexpanded(address, f"{address}: max_depth {max_depth} reached before expanding")
        return False
    s.operations += 1
    if r.coverage == "partial":
        s.residual[f"{address}: {r.caveats[0]}" if direction == "forward" else r.caveats[0]] = None
    for nxt in r.calls:
        if nxt in s.parents:
            s.edge(address, nxt, direction)
            continue
        if len(s.parents) >= max_nodes:
            s.unexpanded(address, f"{address}: max_nodes {max_nodes} reached")
            break
        s.parents[nxt], s.depth_of[nxt] = address, s.depth_of[address] + 1
        s.edge(address, nxt, direction)
        s.queue.append(nxt)
        if nxt == goal:
            return True
    return False


def _project(
    s: _Trace,
    start: Mapping[str, Any],
    goal: Mapping[str, Any] | None,
    args: Mapping[str, Any],
    reached: bool,
    index: Mapping[str, Mapping[str, Any]],
) -> wp.CallPath:
    """The walk as the reference's call path; each node also names its procedure (an extra field)."""
    path = _path_to(s.parents, goal) if reached else []
    nodes = sorted(s.depth_of.items(), key=lambda item: (item[1], address_order(item[0])))
    edges = sorted(
        s.edges.values(),
        key=lambda e: (e.discovery_depth, address_order(e.source_address), address_order(e.target_address)),
    )
    return wp.CallPath(
        start=start["address"],
        goal=goal["address"] if goal is not None else None,
        direction=args["direction"],
        goal_status=_goal_status(goal, path, unresolved=bool(s.residual)),
        nodes=tuple(wp.PathNode(address=a, depth=d, name=(index.get(a) or {}).get("name")) for a, d in nodes),
        edges=tuple(edges),
        traversal_path=tuple(path),
        failures=(),
        traversal=wp.Traversal(nodes_visited=len(s.parents)),
        frontier=tuple(s.frontier),
        truncated=bool(s.residual),
        residual_unknowns=tuple(s.residual),
        limitations=(TRACE_NOTICE,),
        limits=wp.PathLimits(
            max_depth=args["max_depth"], max_nodes=args["max_nodes"], max_operations=args["max_operations"]
        ),
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


def _goal_status(goal: Mapping[str, Any] | None, path: list[str], *, unresolved: bool) -> wa.GoalStatus:
    """not_reached only when nothing was left unexpanded; otherwise the goal may lie beyond: unknown."""
    if goal is None:
        return "not_requested"
    if path:
        return "reached"
    return "unknown" if unresolved else "not_reached"


def finish(walk: Walk) -> Any:
    """Run a walk to its end with no checkpoints (library use and tests)."""
    try:
        while True:
            next(walk)
    except StopIteration as done:
        return done.value
