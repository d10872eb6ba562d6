"""build_call_path: bounded direct-callee paths between two functions, reconstructed only from the
analyze_function dossiers the caller supplies (no provider). A function reached without a dossier, or
whose dossier declares callees unobserved or lists unresolved calls, makes a negative answer unknown;
not_found is said only when the search was exhaustive. Paths come out shortest first."""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from rea.native.addresses import normalize
from rea.native.answers import address_order
from rea.native.records import analyses as w

MAX_GRAPH_EDGES = 10_000
MAX_EXPANSIONS = 100_000


@attrs.frozen(kw_only=True)
class Dossier:
    """What one analyze_function Evidence says about calls out of its function."""

    evidence_id: str
    address: str
    name: str
    callees: tuple[tuple[str, str | None], ...]  # (address, name), ram space only
    complete: bool  # callees observed and every call site resolved


def dossier(evidence_id: str, result: Mapping[str, Any]) -> Dossier | str:
    """The call facts of one dossier, or why it is not one."""
    try:
        proc = result["procedure"]
        address = normalize(str(proc["address"]))
        callees = [(normalize(str(c["address"])), c.get("name")) for c in result["callees"]]
        facet = (result.get("facet_availability") or {}).get("callees") or {}
    except (KeyError, TypeError, AttributeError) as exc:
        return f"{evidence_id} is not an analyze_function dossier (missing {exc})"
    if address is None or ":" in address:
        return f"{evidence_id} describes {proc['address']!r}, not a procedure address in the binary"
    kept = tuple((c, n) for c, n in callees if c is not None and ":" not in c)
    complete = facet.get("available") is True and not result.get("unresolved_calls") and len(kept) == len(callees)
    return Dossier(evidence_id=evidence_id, address=address, name=str(proc["name"]), callees=kept, complete=complete)


def _graph(dossiers: Mapping[str, Dossier]) -> dict[str, tuple[str, ...]] | str:
    graph: dict[str, tuple[str, ...]] = {}
    edges = 0
    for address, d in dossiers.items():
        out = tuple(sorted({c for c, _ in d.callees}, key=address_order))
        graph[address] = out
        edges += len(out)
        if edges > MAX_GRAPH_EDGES:
            return f"the dossiers hold more than {MAX_GRAPH_EDGES} call edges"
    return graph


def _reach(
    graph: Mapping[str, Sequence[str]], dossiers: Mapping[str, Dossier], start: str, goal: str, max_depth: int
) -> tuple[dict[str, int], list[str]]:
    """Breadth-first reach from start (not through goal), and every gap that leaves a negative answer open."""
    reached, queue, gaps = {start: 0}, deque([start]), []
    while queue:
        node = queue.popleft()
        if node == goal:
            continue
        d = dossiers.get(node)
        if d is None:
            gaps.append(f"No analyze_function Evidence covers reachable function {node}")
            continue
        if not d.complete:
            gaps.append(f"Callee coverage is incomplete for reachable function {node}")
        if reached[node] == max_depth:
            if graph[node]:
                gaps.append(f"Search reached max_depth={max_depth} at {node}")
            continue
        for n in graph[node]:
            if n not in reached:
                reached[n] = reached[node] + 1
                queue.append(n)
    return reached, gaps


def _enumerate(
    graph: Mapping[str, Sequence[str]], start: str, goal: str, max_depth: int, wanted: int
) -> tuple[list[tuple[str, ...]], bool]:
    """Simple paths start -> goal of at most max_depth hops, shortest first; (paths, expansion budget hit)."""
    found: list[tuple[str, ...]] = []
    queue: deque[tuple[str, ...]] = deque([(start,)])
    expansions = 0
    while queue and len(found) < wanted:
        path = queue.popleft()
        if path[-1] == goal:
            found.append(path)
            continue
        if len(path) - 1 >= max_depth:
            continue
        for n in graph.get(path[-1], ()):
            expansions += 1
            if expansions > MAX_EXPANSIONS:
                return found, True
            if n not in path:
                queue.append((*path, n))
    return found, False


def _cite(path: tuple[str, ...], dossiers: Mapping[str, Dossier]) -> w.CallPathRoute:
    nodes, edges = [], []
    for i, address in enumerate(path):
        own = dossiers.get(address)
        caller = dossiers[path[i - 1]] if i else None
        links = (own.evidence_id,) if own is not None else (caller.evidence_id,) if caller is not None else ()
        name = own.name if own is not None else dict(caller.callees).get(address) if caller is not None else None
        nodes.append(w.PathNode(address=address, name=name, evidence_links=links))
        if caller is not None:
            edges.append(w.PathEdge(source=caller.address, target=address, evidence_links=(caller.evidence_id,)))
    cited = sorted({x for n in nodes for x in n.evidence_links})
    return w.CallPathRoute(hops=len(path) - 1, nodes=tuple(nodes), edges=tuple(edges), evidence_links=tuple(cited))


def build(dossiers: Mapping[str, Dossier], start: str, goal: str, args: Mapping[str, Any]) -> w.CallPaths | str:
    graph = _graph(dossiers)
    if isinstance(graph, str):
        return graph
    max_depth, max_paths = args["max_depth"], args["max_paths"]
    reached, gaps = _reach(graph, dossiers, start, goal, max_depth)
    paths, exhausted = _enumerate(graph, start, goal, max_depth, max_paths + 1)
    extra = len(paths) > max_paths
    capped = extra or exhausted
    routes = [_cite(p, dossiers) for p in paths[:max_paths]]
    page = routes[args["offset"] : args["offset"] + args["limit"]]
    found = bool(routes)
    exhaustive = not gaps and not capped
    limitations = list(gaps)
    if capped:
        limitations.append(
            f"Path enumeration stopped at {MAX_EXPANSIONS} expansions"
            if exhausted
            else f"Path enumeration stopped at max_paths={max_paths}"
        )
    status = "truncated" if capped else "found" if found else "not_found" if exhaustive else "unknown"
    end = args["offset"] + len(page)
    return w.CallPaths(
        start=start,
        goal=goal,
        status=status,  # type: ignore[arg-type]
        shortest_hops=routes[0].hops if found else None,
        explored=w.Explored(
            nodes=len(reached),
            edges=sum(len(graph.get(n, ())) for n in reached),
            depth_reached=max(reached.values(), default=0),
        ),
        search_scope=w.SearchScope(max_depth=max_depth, max_paths=max_paths, exhaustive=exhaustive),
        paths=w.PathPage(
            offset=args["offset"],
            limit=args["limit"],
            items=tuple(page) if found else (),
            returned=len(page) if found else 0,
            next_offset=end if found and end < len(routes) else None,
            total=None if capped else len(routes),
            truncated=capped,
            lower_bound=len(routes) + (1 if extra else 0),
        ),
        evidence_links=tuple(sorted({d.evidence_id for d in dossiers.values()})),
        limitations=tuple(sorted(set(limitations))),
    )
