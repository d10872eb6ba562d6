"""The semantic companion graph of an application (pure): functions, parameters, bindings, literals,
call and return sites, property slots, events and boundaries, with def-use, call, argument/return
binding, property read/write and ownership relations.

Built from the per-file facts effects.javascript.semantic_facts reads from tree-sitter trees. Names
resolve through lexical scopes (a function's parameters and declarations, then its enclosing
functions, then the module), imports through the application graph's resolved `imports` edges.
What cannot be resolved statically (eval, `Function`, computed properties, calls of computed
callees) is a semantic unknown; a method call resolved only by name is a `candidate` relation.
Bounded by node and relation budgets; a bound reached makes coverage partial and says so.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from rea.canonical_json import canonical_sha256, without_floats
from rea.collector import collector_paused
from rea.javascript.observations import Context
from rea.javascript.semantic_declare import declare
from rea.javascript.semantic_flows import add_calls, add_flows
from rea.javascript.semantic_model import FAMILIES, LIMITATIONS, MODELLED, ModuleFacts, SemanticBuilder


@collector_paused()
def build_semantic_graph(
    facts_list: Iterable[Mapping[str, Any]],
    built_edges: Sequence[Mapping[str, Any]],
    application_graph_id: str,
    root_sha256: str,
    limits: Mapping[str, int],
    ctx: Context,
) -> dict[str, Any]:
    """The companion graph record (schema JavaScriptSemanticRelationGraph), sealed with its graph_id. ctx names
    the files read and the extractor, for the evidence contexts. Built with the collector paused."""
    b = SemanticBuilder(limits, ctx)
    resolved = {
        (e["from"][7:], e.get("specifier")): e["to"][7:]
        for e in built_edges
        if e["relation"] == "imports" and e["from"].startswith("module:") and e["to"].startswith("module:")
    }
    # first-party modules first: when a budget runs out, it runs out in dependencies, not in the app's own code
    ordered = sorted(facts_list, key=lambda f: ("node_modules/" in f["path"], f["path"]))
    modules = [ModuleFacts(b, f["path"], f) for f in ordered if f.get("semantic")]
    for m in modules:
        declare(b, m)
    by_path = {m.path: m for m in modules}
    names: dict[str, list[tuple[ModuleFacts, str]]] = {}
    for m in modules:
        for fid, fn in zip(m.functions, m.facts["functions"]):
            if fid is not None and fn["name"]:
                names.setdefault(fn["name"], []).append((m, fid))
    slots: dict[str, str | None] = {}
    for m in modules:
        add_flows(b, m, slots)
    for m in modules:
        add_calls(b, m, by_path, resolved, names, slots)
    truncated = [m.path for m in modules if m.facts.get("truncated")]
    return _seal(b, modules, truncated, application_graph_id, root_sha256)


def _seal(
    b: SemanticBuilder, modules: Sequence[ModuleFacts], truncated: list[str], gid: str, root_sha: str
) -> dict[str, Any]:
    node_ids, relation_ids = sorted(b.nodes), sorted(b.relations)
    nodes = [b.nodes[k] for k in node_ids]  # keyed by their ids: the same order as sorting by id
    relations = [b.relations[k] for k in relation_ids]
    unknowns = [b.unknowns[k] for k in sorted(b.unknowns)]
    cut = bool(b.omitted_nodes or b.omitted_relations or b.omitted_unknowns or truncated)
    limits = [
        {"name": "max_semantic_nodes", "value": b.max_nodes, "unit": "items"},
        {"name": "max_semantic_relations", "value": b.max_relations, "unit": "items"},
        {"name": "max_semantic_file_bytes", "value": 1024 * 1024, "unit": "bytes"},
    ]
    by_family: dict[str, list[str]] = {f: [] for f in FAMILIES}
    for u in unknowns:
        by_family[u["family"]].append(u["unknown_id"])
    families = [
        {
            "family": f,
            "status": ("partial" if cut or by_family[f] else "complete") if f in MODELLED else "unsupported",
            "retained_relations": b.family_counts[f],
            "omitted_relations": (b.omitted_relations if cut else 0) if f in MODELLED else None,
            "unknown_ids": by_family[f][:1000],
        }
        for f in FAMILIES
    ]
    limitations = list(LIMITATIONS)
    if truncated:
        limitations.append(
            f"{len(truncated)} module(s) are larger than the semantic byte bound and were read in part: "
            + ", ".join(truncated[:10])
        )
    if b.omitted_nodes or b.omitted_relations:
        limitations.append(f"Budgets reached: {b.omitted_nodes} nodes and {b.omitted_relations} relations omitted.")
    roots = [m.id for m in modules if m.id is not None]
    body = {
        "schema": "JavaScriptSemanticRelationGraph",
        "schema_version": 1,
        "application_graph_id": gid,
        "root_artifact_sha256": root_sha,
        "root_node_ids": roots,
        "evidence_contexts": sorted(b.contexts.values(), key=lambda c: c["context_id"]),
        "nodes": nodes,
        "relations": relations,
        "fingerprints": sorted(b.fingerprints, key=lambda f: f["fingerprint_id"]),
        "unknowns": unknowns,
        "coverage": {
            "status": "partial" if cut else "complete",
            "truncated": cut,
            "omitted_nodes": b.omitted_nodes,
            "omitted_relations": b.omitted_relations,
            "limits": limits,
            "families": families,
            "truncated_modules": truncated[:1000],
        },
        "limitations": limitations,
    }
    with without_floats(node_ids, relation_ids):  # ids: strings
        digest = canonical_sha256({"application_graph_id": gid, "nodes": node_ids, "relations": relation_ids})
    return {**body, "graph_id": "jsrg_" + digest}
