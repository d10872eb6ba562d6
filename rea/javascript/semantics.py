"""trace_javascript_semantics over application Evidence (pure).

The reference answers from a semantic companion graph (functions, bindings, value flow). This
analyzer builds none, so only an application-node seed has an answer: its reach over the
application graph's relations, each application node and edge standing in for a module-level
semantic node and relation (`jsrg_node_`/`jsrg_relation_` digests of their application ids).
Every other seed kind gets a typed `unsupported` answer that says why, never a guessed one.
Answers are paged over their relations (`page_size`, `cursor`) as the reference pages them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from rea.canonical_json import canonical_sha256
from rea.javascript.graph_kinds import MODULE_KINDS, RELATIONS
from rea.javascript.ids import semantic_node_id, semantic_relation_id
from rea.javascript.observations import EDGE_STRATEGY
from rea.javascript.records.arguments import QueryLimits
from rea.javascript.semantic_trace import answer, seed_nodes
from rea.javascript.trace import reach
from rea.javascript.trace_records import Reached
from rea.wire.schema import wire_of

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
    "boundary fields), which this record lacks (its analysis stopped before building it); only application-node "
    "seeds are answered."
)
_LABELS = ("path", "channel", "route", "url", "key", "scheme", "specifier", "name")
# the reference's accepted range of every query bound, read from the one argument record
ACCEPTED_LIMIT_RANGES: Mapping[str, Mapping[str, int]] = {
    a.name: {"minimum": wire_of(a).constraints["minimum"], "maximum": wire_of(a).constraints["maximum"]}
    for a in attrs.fields(QueryLimits)
}


class CursorError(ValueError):
    """A cursor that does not belong to this query, or points past its answer."""


def _label(node: Mapping[str, Any]) -> str | None:
    return next((node[k] for k in _LABELS if isinstance(node.get(k), str)), None)


def query_id(source_graph_id: str, source_evidence_id: str, query: Mapping[str, Any]) -> str:
    """jsrq_ of the query without its cursor: every page of one answer has the same id."""
    semantic = {k: v for k, v in query.items() if k != "cursor"}
    return "jsrq_" + canonical_sha256({"source": source_evidence_id, "graph": source_graph_id, "query": semantic})


def cursor_for(qid: str, offset: int) -> str:
    return f"jsrqc_{offset}_" + canonical_sha256({"query_id": qid, "offset": offset})


def cursor_offset(qid: str, cursor: str | None) -> int:
    """The offset a cursor of this query names (0 without one); CursorError otherwise."""
    if cursor is None:
        return 0
    parts = cursor.split("_")
    if len(parts) != 3 or parts[0] != "jsrqc" or not parts[1].isdigit() or cursor != cursor_for(qid, int(parts[1])):
        raise CursorError(f"cursor {cursor!r} does not continue this query (query_id {qid})")
    return int(parts[1])


def _base(
    result: Mapping[str, Any],
    qid: str,
    source_evidence_id: str,
    query: Mapping[str, Any],
    applied: Mapping[str, int],
) -> dict[str, Any]:
    return {
        "schema_version": 1,
        "query_id": qid,
        "source_graph_id": result["semantic_graph"]["graph_id"],
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
            "retained_seed_matches": 0,
            "traversed_nodes": 0,
            "traversed_relations": 0,
            "traversed_functions": 0,
            "traversed_modules": 0,
            "relevant_unknowns": 0,
            "retained_unknowns": 0,
        },
        "page": {"offset": 0, "size": 0, "next_cursor": None},
        "applied_limits": dict(applied),
        "accepted_limit_ranges": {k: dict(v) for k, v in ACCEPTED_LIMIT_RANGES.items()},
        "source_evidence_id": source_evidence_id,
        "application_graph_id": result["graph"]["graph_id"],
        "evidence_links": [source_evidence_id],
        "limits_reached": [],
    }


def _unanswered(base: dict[str, Any], status: str, coverage: str, why: str) -> dict[str, Any]:
    return {**base, "status": status, "coverage": {"status": coverage, "frontier": []}, "limitations": [why]}


def _seed(graph: Mapping[str, Any], node_id: str) -> Mapping[str, Any] | None:
    """The application node a seed names, by wire id or by its readable label."""
    return next((n for n in graph["nodes"] if node_id in (n["node_id"], n.get("label"))), None)


def semantic_query(
    result: Mapping[str, Any],
    source_evidence_id: str,
    query: Mapping[str, Any],
    limits: Mapping[str, int],
    applied: Mapping[str, int],
) -> dict[str, Any]:
    """The answer to one query page; `limits` bound the traversal, `applied` are the query limits in force."""
    qid = query_id(result["semantic_graph"]["graph_id"], source_evidence_id, query)
    offset = cursor_offset(qid, query.get("cursor"))
    base = _base(result, qid, source_evidence_id, query, applied)
    seed = query["seed"]
    if seed["kind"] != "application-node":
        if result["semantic_graph"]["coverage"]["status"] == "unavailable":
            return _unanswered(base, "unsupported", "unavailable", UNSUPPORTED.format(kind=seed["kind"]))
        return _semantic_answer(result, base, qid, offset, query, applied)
    graph = result["graph"]
    found = _seed(graph, seed["node_id"])
    if found is None:
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
    reached = reach(graph["edges"], [found["node_id"]], run, limits, follow)
    answer = _answer(result, {n["node_id"]: n for n in graph["nodes"]}, reached, query, found["node_id"])
    return {**base, **_page(answer, qid, offset, applied["page_size"]), "limitations": limitations}


class _Contexts:
    """The evidence contexts of an application-node answer, as 6.x shares them: each distinct evidence record
    (authority, artifact, extractor, coverage, ...) once, under a context id; nodes and relations carry only
    `{context_id, location}`. An answer then costs its facts, not one extractor and coverage block per edge."""

    def __init__(self, by_path: Mapping[str, str]) -> None:
        self.by_path = by_path  # file path -> its application node id
        self.records: dict[str, dict[str, Any]] = {}

    def ref(self, record: Mapping[str, Any], where: Mapping[str, Any] | None = None) -> dict[str, Any]:
        if not record:
            return {}
        location = dict(record.get("location") or {"available": False, "reason": "not-applicable"})
        path = (location.get("value") or {}).get("path")
        shared = {k: v for k, v in record.items() if k != "location"}
        artifact = shared.get("artifact") or {}
        context = {
            **shared,
            "module_path": path,
            "artifact_sha256": artifact.get("sha256"),
            "application_node_id": self.by_path.get(path) if path else None,
        }
        cid = "jsrg_evidence_" + canonical_sha256(context)
        self.records.setdefault(cid, {"context_id": cid, **context})
        if where and location.get("available") and where.get("line") is not None:
            value = {**location["value"], "line": where["line"]}
            if where.get("start") is not None and where.get("end") is not None:
                value.update(start_byte=where["start"], end_byte=where["end"])
            location = {**location, "value": value}
        return {"context_id": cid, "location": location}

    def listed(self) -> list[dict[str, Any]]:
        return [self.records[c] for c in sorted(self.records)]


def _answer(
    result: Mapping[str, Any],
    by_id: Mapping[str, Mapping[str, Any]],
    reached: Reached,
    query: Mapping[str, Any],
    seed_id: str,
) -> dict[str, Any]:
    depth = reached["depth"]
    by_path = {
        n["path"]: n["node_id"]
        for n in result["graph"]["nodes"]
        if n.get("path") and (n.get("identity") or {}).get("strategy") == "canonical-path"
    }
    contexts = _Contexts(by_path)
    nodes = []
    for n, d in sorted(depth.items()):
        if n not in by_id:
            continue
        observed = (by_id[n].get("observations") or [{}])[0]
        nodes.append(
            {
                "node_id": semantic_node_id(n),
                "kind": by_id[n]["subkind"],
                "label": _label(by_id[n]),
                "application_node_ids": [n],
                "function_node_id": None,
                "depth": d,
                "identity": by_id[n].get("identity") or {},
                "properties": observed.get("properties") or {},
                "evidence": contexts.ref(observed.get("evidence") or {}, by_id[n].get("location")),
                "identifier_strategy": by_id[n].get("identifier_strategy") or observed.get("identifier_strategy") or {},
            }
        )
    edges = [result["graph"]["edges"][i] for i in reached["edges"]]
    expected = query.get("expected")
    classes = set(expected["classes"]) if expected else set()
    relevant = sum(1 for u in result["unknowns"] if u.get("node") in depth)
    return {
        "status": "partial" if reached["truncated"] else "found",
        "seed_node_ids": [semantic_node_id(seed_id)],
        "nodes": nodes,
        "relations": [
            {
                "relation_id": semantic_relation_id(e["edge_id"]),
                "relation": e["relation"],
                "source_node_id": semantic_node_id(e["source_node_id"]),
                "target_node_id": semantic_node_id(e["target_node_id"]),
                "resolution": "resolved",
                "properties": e.get("properties") or {},
                "evidence": contexts.ref(e.get("evidence") or {}, e.get("location")),
                "identifier_strategy": e.get("identifier_strategy") or EDGE_STRATEGY,
            }
            for e in edges
        ],
        "evidence_contexts": contexts.listed(),
        "expected_match_node_ids": [n["node_id"] for n in nodes if n["kind"] in classes],
        "summary": {
            "total_seed_matches": 1,
            "retained_seed_matches": 1,
            "traversed_nodes": len(nodes),
            "traversed_relations": len(edges),
            "traversed_functions": 0,
            "traversed_modules": sum(1 for n in nodes if n["kind"] in MODULE_KINDS),
            "relevant_unknowns": relevant,
            "retained_unknowns": 0,  # application unknowns are counted, not listed as semantic unknowns
        },
        "coverage": {
            "status": "truncated" if reached["truncated"] else "partial",
            "frontier": [
                {"node_id": semantic_node_id(f["node"]), "depth": depth[f["node"]], "reason": _REASON[f["reason"]]}
                for f in reached["frontier"]
            ],
        },
        "limits_reached": reached["truncated"],
    }


_REASON = {"max_depth": "max-depth", "max_edges": "max-edges", "max_nodes": "max-nodes"}


def _page(answer: dict[str, Any], qid: str, offset: int, size: int) -> dict[str, Any]:
    """One page of relations, with the seeds and the nodes those relations join."""
    relations = answer["relations"]
    if offset > len(relations):
        raise CursorError(f"the cursor's offset {offset} is past the answer's {len(relations)} relations")
    page = relations[offset : offset + size]
    keep = set(answer["seed_node_ids"]) | {n for r in page for n in (r["source_node_id"], r["target_node_id"])}
    more = offset + len(page) < len(relations)
    return {
        **answer,
        "relations": page,
        "nodes": [n for n in answer["nodes"] if n["node_id"] in keep],
        "page": {
            "offset": offset,
            "size": len(page),
            "next_cursor": cursor_for(qid, offset + len(page)) if more else None,
        },
    }


def applied_limits(query_limits: Mapping[str, int] | None, traversal: Mapping[str, int]) -> dict[str, int]:
    """The query bounds in force: the query's own, else the reference defaults with the traversal's bounds."""
    if query_limits:
        return dict(query_limits)
    defaults: dict[str, int] = attrs.asdict(QueryLimits())  # every field has its reference default
    return {**defaults, **{k: traversal[k] for k in defaults if k in traversal}}


def _unparsed_modules(result: Mapping[str, Any]) -> int:
    return sum(
        1
        for n in result["graph"]["nodes"]
        if n["subkind"] == "module"
        and n.get("parse") in ("failed", "omitted", "not-read", "quarantined")
        and not (n.get("path") or "").endswith((".d.ts", ".d.mts", ".d.cts"))
    )


def _semantic_answer(
    result: Mapping[str, Any],
    base: dict[str, Any],
    qid: str,
    offset: int,
    query: Mapping[str, Any],
    applied: Mapping[str, int],
) -> dict[str, Any]:
    """A seed over the semantic graph: its matches, their reach in the query's direction, paged."""
    graph = result["semantic_graph"]
    seeds = seed_nodes(graph, query["seed"])
    limitations = list(graph["limitations"])
    unparsed = _unparsed_modules(result)
    if unparsed:
        limitations.append(
            f"{unparsed} module(s) were not parsed and have no semantic facts: the answer cannot rest on them."
        )
    generated = sum(1 for u in graph["unknowns"] if u["reason"] == "eval-or-generated-code")
    if generated:
        limitations.append(f"{generated} eval/Function call(s) generate code this analysis never sees (nor runs).")
    incomplete = bool(unparsed) or graph["coverage"]["status"] != "complete"
    if not seeds:
        incomplete = incomplete or bool(generated)
        why = "No semantic node matches the seed" + (" (what it rests on is incomplete)." if incomplete else ".")
        return _unanswered(base, "no-match", "partial" if incomplete else "complete", why) | {
            "limitations": [why, *limitations]
        }
    got = answer(graph, seeds, query, applied, applied["max_seed_matches"], applied["max_unknowns"])
    if incomplete and got["coverage"]["status"] == "complete":
        got["coverage"]["status"] = "partial"
    limitations = got.pop("semantic_limitations") + limitations
    return {**base, **_page(got, qid, offset, applied["page_size"]), "limitations": limitations}
