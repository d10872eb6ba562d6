"""trace_javascript_semantics over the semantic companion graph (pure, bounded).

Seeds name semantic nodes (by id, literal value, fingerprint, property, endpoint, event or boundary
field); directions follow value flow forward (forward-influence) or back to its sources
(backward-provenance), calls back to their callers' functions (callers), or ownership back to the
owning function and module (ownership). Candidate relations (resolved by name only) are followed
only with include_ambiguous_dynamic_edges. Relevance: module nodes are reached, never traversed
from (a module owns everything in it), and each bound reached says where it stopped.
"""

from __future__ import annotations

import hashlib
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from rea.javascript.semantic_model import STRATEGY_RELATION

# direction -> (run against the relation?, relations followed)
DATA = frozenset(
    (
        "defines",
        "writes",
        "reads",
        "reads-property",
        "writes-property",
        "argument-to-parameter",
        "returns-to-call",
        "registers-listener",
        "dispatches-candidate",
    )
)
DIRECTIONS: Mapping[str, tuple[bool, frozenset[str]]] = {
    "forward-influence": (False, DATA),
    "backward-provenance": (True, DATA),
    "callers": (True, frozenset(("calls", "owns"))),
    "ownership": (True, frozenset(("owns",))),
}
_REASON = {
    "max_depth": "max-depth",
    "max_edges": "max-edges",
    "max_nodes": "max-nodes",
    "max_functions": "max-functions",
    "max_modules": "max-modules",
}


def owns_relations(graph: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Ownership from function_node_id (the enclosing function, else the module): the graph stores no owns
    relations (they would double it); their ids are digests of owner and owned, stable like stored ones."""
    roots = {n["identity"]["module_path"]: n["node_id"] for n in graph["nodes"] if n["kind"] == "module"}
    out = []
    for n in graph["nodes"]:
        if n["kind"] == "module":
            continue
        owner = n["function_node_id"] or roots.get(n["identity"]["module_path"])
        if owner is None:
            continue
        digest = hashlib.sha256(f"{owner}\x00owns\x00{n['node_id']}".encode()).hexdigest()
        out.append(
            {
                "relation_id": "jsrg_relation_" + digest,
                "source_node_id": owner,
                "target_node_id": n["node_id"],
                "relation": "owns",
                "resolution": "resolved",
                "properties": {},
                "evidence": n["evidence"],  # where the owned node sits, inside its owner
                "identifier_strategy": STRATEGY_RELATION,
            }
        )
    return out


def seed_nodes(graph: Mapping[str, Any], seed: Mapping[str, Any]) -> list[str]:
    """The semantic nodes a seed names, in id order."""
    kind = seed["kind"]
    nodes = graph["nodes"]
    if kind == "semantic-node":
        return [n["node_id"] for n in nodes if n["node_id"] == seed["node_id"]]
    if kind == "function":
        fps = {
            f["function_node_id"]
            for f in graph["fingerprints"]
            if f["fingerprint_sha256"] == seed["fingerprint_sha256"]
        }
        return sorted(fps)
    tests: dict[str, Callable[[Mapping[str, Any]], bool]] = {
        "literal": lambda n: n["kind"] == "literal" and n["properties"].get("value") == seed["value"],
        "property": lambda n: n["kind"] == "property-slot" and n["properties"].get("name") == seed["name"],
        "endpoint": lambda n: (
            n["kind"] == "literal"
            and "endpoint" in n["properties"]
            and seed["value"] in n["properties"].get("value", "")
        ),
        "event": lambda n: n["kind"] == "event" and n["properties"].get("event") == seed["name"],
        "boundary-field": lambda n: n["kind"] == "boundary" and n["properties"].get("field") == seed["field"],
    }
    test = tests[kind]
    return sorted(n["node_id"] for n in nodes if test(n))


def traverse(
    graph: Mapping[str, Any], seeds: Sequence[str], query: Mapping[str, Any], limits: Mapping[str, int]
) -> dict[str, Any]:
    """Breadth first from the seeds; an edge joins the answer only with its far end admitted."""
    backward, follow = DIRECTIONS[query["direction"]]
    if query.get("allowed_relations"):
        follow = follow & frozenset(query["allowed_relations"])
    ambiguous = query.get("include_ambiguous_dynamic_edges", False)
    kinds = {n["node_id"]: n for n in graph["nodes"]}
    adj: dict[str, list[tuple[str, int]]] = {}
    skipped_candidates = 0
    relations = list(graph["relations"]) + (owns_relations(graph) if "owns" in follow else [])
    for i, r in enumerate(relations):
        if r["relation"] not in follow:
            continue
        if r["resolution"] == "candidate" and not ambiguous:
            skipped_candidates += 1
            continue
        a, b = (r["target_node_id"], r["source_node_id"]) if backward else (r["source_node_id"], r["target_node_id"])
        adj.setdefault(a, []).append((b, i))
    depth = {s: 0 for s in seeds}
    used: list[int] = []
    frontier: dict[str, str] = {}
    functions = {s for s in seeds if kinds.get(s, {}).get("kind") == "function"}
    modules = {kinds[s]["identity"]["module_path"] for s in seeds if s in kinds}
    queue = deque(seeds)
    while queue:
        node = queue.popleft()
        if node not in seeds and kinds.get(node, {}).get("kind") == "module":
            continue  # reached, never traversed from: a module owns everything in it
        for nxt, index in adj.get(node, ()):
            bound = _bound(node, nxt, depth, used, functions, modules, kinds, limits)
            if bound is not None:
                frontier.setdefault(node, bound)
                continue
            used.append(index)
            if nxt not in depth:
                depth[nxt] = depth[node] + 1
                queue.append(nxt)
                if kinds.get(nxt, {}).get("kind") == "function":
                    functions.add(nxt)
                if nxt in kinds:
                    modules.add(kinds[nxt]["identity"]["module_path"])
    return {
        "depth": depth,
        "relations": [relations[i] for i in sorted(set(used))],
        "frontier": [{"node_id": n, "depth": depth[n], "reason": _REASON[r]} for n, r in sorted(frontier.items())],
        "truncated": sorted({r for r in frontier.values()}),
        "functions": len(functions),
        "modules": len(modules),
        "skipped_candidates": skipped_candidates,
    }


def _bound(
    node: str,
    nxt: str,
    depth: Mapping[str, int],
    used: Sequence[int],
    functions: set[str],
    modules: set[str],
    kinds: Mapping[str, Mapping[str, Any]],
    limits: Mapping[str, int],
) -> str | None:
    if depth[node] >= limits["max_depth"]:
        return "max_depth"
    if len(used) >= limits["max_edges"]:
        return "max_edges"
    if nxt in depth:
        return None
    if len(depth) >= limits["max_nodes"]:
        return "max_nodes"
    target = kinds.get(nxt, {})
    if target.get("kind") == "function" and len(functions) >= limits["max_functions"]:
        return "max_functions"
    path = target.get("identity", {}).get("module_path")
    if path is not None and path not in modules and len(modules) >= limits["max_modules"]:
        return "max_modules"
    return None


def answer(
    graph: Mapping[str, Any],
    seed_ids: list[str],
    query: Mapping[str, Any],
    limits: Mapping[str, int],
    max_seeds: int,
    max_unknowns: int,
) -> dict[str, Any]:
    """The query's answer (before paging): nodes with their depth, relations, unknowns, contexts."""
    kept = seed_ids[:max_seeds]
    walked = traverse(graph, kept, query, limits)
    by_id = {n["node_id"]: n for n in graph["nodes"]}
    reached = walked["depth"]
    nodes = [
        {
            "node_id": n,
            "kind": by_id[n]["kind"],
            "label": by_id[n]["label"],
            "application_node_ids": list(by_id[n]["application_node_ids"]),
            "function_node_id": by_id[n]["function_node_id"],
            "depth": d,
            "identity": by_id[n]["identity"],
            "properties": by_id[n]["properties"],
            "evidence": by_id[n]["evidence"],
            "identifier_strategy": by_id[n]["identifier_strategy"],
        }
        for n, d in sorted(reached.items())
        if n in by_id
    ]
    rels = walked["relations"]
    relevant = [u for u in graph["unknowns"] if u["node_id"] in reached]
    unknowns = relevant[:max_unknowns]
    contexts = {by_id[n]["evidence"]["context_id"] for n in reached if n in by_id}
    expected = query.get("expected")
    classes = set(expected["classes"]) if expected else set()
    partial_modules = set(graph["coverage"].get("truncated_modules") or ())
    rests_on_partial = any(by_id[n]["identity"]["module_path"] in partial_modules for n in reached if n in by_id)
    truncated = bool(walked["truncated"]) or len(seed_ids) > max_seeds
    status = (
        "truncated"
        if truncated
        else "partial"
        if (relevant or rests_on_partial or walked["skipped_candidates"])
        else "complete"
    )
    limitations = []
    if walked["skipped_candidates"]:
        limitations.append(
            f"{walked['skipped_candidates']} candidate relation(s) (calls resolved by method name only) were not "
            "followed; include_ambiguous_dynamic_edges follows them."
        )
    if relevant:
        limitations.append(
            f"{len(relevant)} semantic unknown(s) on the reached nodes (dynamic calls, eval, computed properties)."
        )
    if rests_on_partial:
        limitations.append("The answer reaches modules read only in part (larger than the semantic byte bound).")
    return {
        "status": "partial" if truncated else "found",
        "seed_node_ids": kept,
        "evidence_contexts": [c for c in graph["evidence_contexts"] if c["context_id"] in contexts],
        "nodes": nodes,
        "relations": [
            {
                "relation_id": r["relation_id"],
                "relation": r["relation"],
                "source_node_id": r["source_node_id"],
                "target_node_id": r["target_node_id"],
                "resolution": r["resolution"],
                "properties": r["properties"],
                "evidence": r["evidence"],
                "identifier_strategy": r["identifier_strategy"],
            }
            for r in rels
        ],
        "unknowns": unknowns,
        "expected_match_node_ids": [n["node_id"] for n in nodes if n["kind"] in classes and n["node_id"] not in kept],
        "summary": {
            "total_seed_matches": len(seed_ids),
            "retained_seed_matches": len(kept),
            "traversed_nodes": len(nodes),
            "traversed_relations": len(rels),
            "traversed_functions": walked["functions"],
            "traversed_modules": walked["modules"],
            "relevant_unknowns": len(relevant),
            "retained_unknowns": len(unknowns),
        },
        "coverage": {"status": status, "frontier": walked["frontier"]},
        "limits_reached": walked["truncated"] + (["max_seed_matches"] if len(seed_ids) > max_seeds else []),
        "semantic_limitations": limitations,
    }
