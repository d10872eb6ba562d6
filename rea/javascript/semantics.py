"""trace_javascript_semantics over application Evidence (pure).

The reference answers from a semantic companion graph (functions, bindings, value flow). This
analyzer builds none, so only an application-node seed has an answer: its reach over the
application graph's relations. Every other seed kind gets a typed `unsupported` answer that says
why, never a guessed one.
"""

from __future__ import annotations

from typing import Any
from collections.abc import Mapping

from rea.canonical_json import canonical_sha256
from rea.javascript.graph import MODULE_KINDS, RELATIONS
from rea.javascript.trace import reach

# direction -> (traversal, relations it follows; None: all)
_DIRECTIONS: dict[str, tuple[str, frozenset[str] | None]] = {
    "forward-influence": ("forward", None),
    "backward-provenance": ("backward", None),
    "callers": ("backward", frozenset(("calls", "imports", "invokes", "sends", "loads"))),
    "ownership": ("backward", frozenset(("contains",))),
}
MODULE_LEVEL = (
    "Relations are the application graph's module, IPC, bridge, load and URL relations; value flow inside "
    "functions is not modelled, so the answer is partial by construction."
)
UNSUPPORTED = (
    "Seed kind {kind} needs the semantic companion graph (functions, bindings, literals, properties, events, "
    "boundary fields), which this analyzer does not build; only application-node seeds are answered."
)
_LABELS = ("path", "channel", "route", "url", "key", "scheme", "specifier", "name")


def _label(node: Mapping[str, Any]) -> str | None:
    return next((node[k] for k in _LABELS if isinstance(node.get(k), str)), None)


def _base(result: Mapping[str, Any], source_evidence_id: str, query: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "schema_version": 1,
        "query_id": "jsrq_" + canonical_sha256({"source": source_evidence_id, "query": query}),
        "source_graph_id": result["graph"]["graph_id"],
        "seed": dict(query["seed"]),
        "direction": query["direction"],
        "seed_node_ids": [],
        "evidence_contexts": [],
        "nodes": [],
        "relations": [],
        "unknowns": [],
        "expected_match_node_ids": [],
        "summary": {
            "total_seed_matches": 0,
            "traversed_nodes": 0,
            "traversed_relations": 0,
            "traversed_functions": 0,
            "traversed_modules": 0,
            "relevant_unknowns": 0,
        },
        "source_evidence_id": source_evidence_id,
        "limits_reached": [],
    }


def _unanswered(base: dict[str, Any], status: str, coverage: str, why: str) -> dict[str, Any]:
    return {**base, "status": status, "coverage": {"status": coverage}, "limitations": [why]}


def semantic_query(
    result: Mapping[str, Any], source_evidence_id: str, query: Mapping[str, Any], limits: Mapping[str, int]
) -> dict[str, Any]:
    base = _base(result, source_evidence_id, query)
    seed = query["seed"]
    if seed["kind"] != "application-node":
        return _unanswered(base, "unsupported", "unavailable", UNSUPPORTED.format(kind=seed["kind"]))
    graph = result["graph"]
    by_id = {n["node_id"]: n for n in graph["nodes"]}
    if seed["node_id"] not in by_id:
        return _unanswered(base, "no-match", "partial", f"No application node has id {seed['node_id']!r}.")
    run, follow = _DIRECTIONS[query["direction"]]
    limitations = [MODULE_LEVEL]
    if query.get("allowed_relations"):
        ours = frozenset(query["allowed_relations"]) & frozenset(RELATIONS)
        follow = ours if follow is None else follow & ours
        if not follow:
            why = "None of allowed_relations is a relation of the application graph: " + ", ".join(RELATIONS)
            return _unanswered(base, "unsupported", "unavailable", why)
    if query["include_ambiguous_dynamic_edges"]:
        limitations.append("The application graph has no candidate edges: dynamic targets are unknowns, not edges.")
    reached = reach(graph["edges"], [seed["node_id"]], run, limits, follow)
    return {**base, **_answer(result, by_id, reached, query), "limitations": limitations}


def _answer(result, by_id, reached, query) -> dict[str, Any]:
    depth = reached["depth"]
    nodes = [
        {
            "node_id": n,
            "kind": by_id[n]["kind"],
            "label": _label(by_id[n]),
            "application_node_ids": [n],
            "function_node_id": None,
            "depth": d,
        }
        for n, d in sorted(depth.items())
        if n in by_id
    ]
    edges = [result["graph"]["edges"][i] for i in reached["edges"]]
    expected = query.get("expected")
    classes = set(expected["classes"]) if expected else set()
    return {
        "status": "partial" if reached["truncated"] else "found",
        "seed_node_ids": [query["seed"]["node_id"]],
        "nodes": nodes,
        "relations": [
            {
                "relation_id": e["edge_id"],
                "relation": e["relation"],
                "source_node_id": e["source_node_id"],
                "target_node_id": e["target_node_id"],
                "resolution": "resolved",
            }
            for e in edges
        ],
        "expected_match_node_ids": [n["node_id"] for n in nodes if n["kind"] in classes],
        "summary": {
            "total_seed_matches": 1,
            "traversed_nodes": len(nodes),
            "traversed_relations": len(edges),
            "traversed_functions": 0,
            "traversed_modules": sum(1 for n in nodes if n["kind"] in MODULE_KINDS),
            "relevant_unknowns": sum(1 for u in result["unknowns"] if u.get("node") in depth),
        },
        "coverage": {"status": "partial"},
        "limits_reached": reached["truncated"],
    }
