"""The analyze_javascript_application result in the reference's shape (rea.javascript.records.analysis.AnalyzeResult).

build_graph keeps its working form (nodes keyed by readable `id`, edges `from`/`to`); this module
projects it once: nodes under their `jag_node_` ids with the reference's kind, identity and observation
(rea.javascript.observations), edges under `jag_edge_` ids with `source_node_id`/`target_node_id`,
properties and evidence, all inside `graph` (the node list lives only there); findings, unknowns and
entry points name nodes by the same ids; the Electron summary counted from the graph, the reference's
statistics, and an explicitly unavailable semantic companion graph. Everything here is a pure function of
its inputs.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

from rea.canonical_json import canonical_sha256
from rea.javascript.ids import edge_id, edge_key, node_id
from rea.javascript.observations import Context, edge_envelope, node_envelope
from rea.javascript.records.analysis import ElectronSummary, IpcSummary
from rea.javascript.records.graph import GraphCoverage, LimitRow
from rea.wire.convert import to_wire

GRAPH_SCHEMA = "JavaScriptApplicationGraph"
_EXPORT_KEYS = ("name", "form", "shape", "line")
NO_SEMANTIC_GRAPH = (
    "The semantic companion graph was not built (the analysis stopped before its phase), so semantic_graph is "
    "empty with coverage unavailable; trace_javascript_semantics answers application-node seeds only."
)
NOT_MODELLED = "sender_validation_observations is 0 because sender checks in IPC handlers are not modelled."


def graph_id(root_sha256: str, limits: Mapping[str, int], parsers: Mapping[str, Any]) -> str:
    """The graph's identity: what it is a function of (the tree read, the bounds, the analyzer)."""
    return "jag_" + canonical_sha256(
        {"schema": GRAPH_SCHEMA, "root": root_sha256, "limits": limits, "parsers": parsers}
    )


def inventory_identity(
    files: Sequence[Mapping[str, Any]], facts: Mapping[str, Mapping[str, Any]], fmt: str
) -> tuple[str, str]:
    """(inventory_manifest_id, inventory_graph_sha256) of the scanned inventory. The graph digest covers
    every entry's path, kind and size and the content digest of every file read (null for one not read);
    the `agm_` manifest commits to that digest, the entry count and the root format."""
    records = [
        {"path": f["path"], "kind": f["kind"], "size": f["size"], "sha256": facts.get(f["path"], {}).get("sha256")}
        for f in files
    ]
    graph_sha256 = canonical_sha256(records)
    manifest = {"schema_version": 1, "root_format": fmt, "entry_count": len(records), "graph_sha256": graph_sha256}
    return "agm_" + canonical_sha256(manifest), graph_sha256


def observation_context(nodes: Iterable[Mapping[str, Any]], root_sha256: str, parsers: Mapping[str, Any]) -> Context:
    """The files read (every file node with a digest) and the extractor, for the observations' evidence."""
    files = {n["path"]: (n["sha256"], n["size"]) for n in nodes if n.get("sha256") and n.get("size") is not None}
    return Context(root_sha256=root_sha256, files=files, extractor_version=str(parsers.get("tree_sitter") or "unknown"))


def _wire_node(node: Mapping[str, Any], ctx: Context) -> dict[str, Any]:
    """A working-form node (readable `id`) on the wire: hashed `node_id`, the reference's kind, identity and
    observation, then our readable key (`label`), kind (`subkind`) and facts."""
    wire_id = node_id(node["id"])
    out: dict[str, Any] = {"node_id": wire_id, "label": node["id"], **node_envelope(node, wire_id, ctx)}
    for key, value in node.items():
        if key in ("id", "kind") or value is None:
            continue
        if key == "exports":
            value = [{k: e[k] for k in _EXPORT_KEYS if e.get(k) is not None} for e in value]
        out[key] = value
    return out


def _wire_edge(edge: Mapping[str, Any], ctx: Context) -> dict[str, Any]:
    rest = {k: v for k, v in edge.items() if k not in ("from", "to") and v is not None}
    return {
        "edge_id": edge_id(edge_key(edge)),
        "source_node_id": node_id(edge["from"]),
        "target_node_id": node_id(edge["to"]),
        **rest,
        **edge_envelope(edge, ctx),
    }


def wire_refs(rows: Iterable[Mapping[str, Any]], labelled: bool = False) -> list[dict[str, Any]]:
    """Findings, unknowns and entry points name their node by wire id, like every other reference
    (entry points, which are few, keep the readable `label` beside it)."""
    out = []
    for row in rows:
        key = row.get("node")
        if isinstance(key, str):
            out.append({**row, "node": node_id(key), **({"label": key} if labelled else {})})
        else:
            out.append(dict(row))
    return out


def wire_graph(
    nodes: Iterable[Mapping[str, Any]],
    edges: Iterable[Mapping[str, Any]],
    *,
    graph: str,
    roots: Sequence[str],
    coverage: GraphCoverage,
    limitations: Sequence[str],
    context: Context | None = None,
) -> dict[str, Any]:
    """A JavaScriptApplicationGraph. With a `context`, nodes and edges are still in working form (readable
    keys) and are projected here; without one they are wire nodes and edges already."""
    working = context is not None
    return {
        "schema": GRAPH_SCHEMA,
        "schema_version": 1,
        "graph_id": graph,
        "root_node_ids": list(dict.fromkeys(node_id(r) for r in roots) if working else dict.fromkeys(roots)),
        "nodes": [_wire_node(n, context) for n in nodes] if context is not None else [dict(n) for n in nodes],
        "edges": [_wire_edge(e, context) for e in edges] if context is not None else [dict(e) for e in edges],
        "coverage": to_wire(coverage),
        "limitations": list(limitations),
    }


def graph_coverage(ours: Mapping[str, Any], limits: Mapping[str, int], omitted: int) -> GraphCoverage:
    """The reference's coverage block: status, whether a bound cut the graph, and which bounds."""
    reached = ours["limits_reached"]
    return GraphCoverage(
        status=ours["status"],
        truncated=bool(reached),
        omitted_count=omitted,
        limits=tuple(LimitRow(name=n, unit=_unit(n), value=limits[n]) for n in reached if n in limits),
    )


def _unit(limit: str) -> Literal["bytes", "depth", "items"]:
    if limit.endswith("_bytes"):
        return "bytes"
    return "depth" if limit == "max_depth" else "items"


def _ipc_summary(
    edges: Sequence[Mapping[str, Any]], nodes: Mapping[str, Mapping[str, Any]], dynamic: Sequence[Mapping[str, Any]]
) -> IpcSummary:
    ipc = [e for e in edges if e["to"].startswith("ipc-channel:")]
    sends = [e for e in ipc if e["relation"] in ("sends", "invokes") and e.get("direction") == "renderer-to-main"]
    dynamic_sends = [u for u in dynamic if u["relation"] != "handles" and u["direction"] == "renderer-to-main"]

    def handled(edge: Mapping[str, Any]) -> bool:
        return "renderer-to-main:handler" in nodes[edge["to"]].get("ends", {})

    def count(relation: str, direction: str) -> int:
        return sum(1 for e in ipc if e["relation"] == relation and e.get("direction") == direction) + sum(
            1 for u in dynamic if u["relation"] == relation and u["direction"] == direction
        )

    return IpcSummary(
        operations=len(ipc) + len(dynamic),
        literal_channels=sum(1 for n in nodes.values() if n["kind"] == "ipc-channel"),
        dynamic_channel_operations=len(dynamic),
        renderer_transmissions=len(sends) + len(dynamic_sends),
        renderer_listeners=count("handles", "main-to-renderer"),
        main_handlers=count("handles", "renderer-to-main"),
        paired_renderer_transmissions=sum(1 for e in sends if handled(e)),
        ambiguous_renderer_transmissions=len(dynamic_sends),
        unpaired_literal_renderer_transmissions=sum(1 for e in sends if not handled(e)),
    )


def electron_summary(
    nodes: Sequence[Mapping[str, Any]], edges: Sequence[Mapping[str, Any]], unknowns: Sequence[Mapping[str, Any]]
) -> ElectronSummary:
    """The reference's Electron boundary counts, counted from our graph."""
    by_id = {n["id"]: n for n in nodes}
    kinds = Counter(n["kind"] for n in nodes)
    windows = [n for n in nodes if n["kind"] == "browser-window"]
    apis = [n for n in nodes if n["kind"] == "context-bridge-api"]
    loads = [e for e in edges if e["relation"] == "loads"]
    utility = [e for e in loads if e.get("kind") == "utility-process"]
    reached = {e["to"] for e in edges}
    return ElectronSummary(
        browser_windows=len(windows),
        explicit_web_preferences=sum(1 for n in windows if n.get("web_preferences")),
        preload_entrypoints=len({e["to"] for e in loads if e.get("kind") == "preload"}),
        context_bridge_apis=len(apis),
        exposed_api_members=sum(len(n.get("members") or ()) for n in apis),
        ipc=_ipc_summary(edges, by_id, [u for u in unknowns if u["kind"] == "dynamic-ipc-channel"]),
        sender_validation_observations=0,
        utility_processes=len(utility) + sum(1 for u in unknowns if u["kind"] == "unresolved-utility-process"),
        resolved_utility_entrypoints=len({e["to"] for e in utility}),
        native_addon_bindings=kinds.get("native-addon", 0),
        resolved_native_addon_bindings=sum(1 for n in nodes if n["kind"] == "native-addon" and n["id"] in reached),
    )


def semantic_graph(application_graph_id: str, root_sha256: str) -> dict[str, Any]:
    """The semantic companion of an analysis that stopped before building it: empty, coverage unavailable."""
    return {
        "schema": "JavaScriptSemanticRelationGraph",
        "schema_version": 1,
        "graph_id": "jsrg_" + canonical_sha256({"application_graph_id": application_graph_id, "nodes": []}),
        "application_graph_id": application_graph_id,
        "root_artifact_sha256": root_sha256,
        "root_node_ids": [],
        "evidence_contexts": [],
        "nodes": [],
        "relations": [],
        "unknowns": [],
        "fingerprints": [],
        "coverage": {
            "status": "unavailable",
            "truncated": False,
            "omitted_nodes": None,
            "omitted_relations": None,
            "families": [],
            "limits": [],
        },
        "limitations": [NO_SEMANTIC_GRAPH],
    }


SEMANTIC_OPERATION = "javascript_semantic_graph"
_COUNTED = ("nodes", "relations", "unknowns", "fingerprints", "evidence_contexts")


def retained_semantic(graph: Mapping[str, Any], evidence_id: str) -> dict[str, Any]:
    """What the application record keeps of its semantic graph: the header, the counts and the id of the
    Evidence that holds it (the facts are ~30-60x the text read, past the reply budget on real trees)."""
    return {
        **{k: graph[k] for k in ("schema", "schema_version", "graph_id", "application_graph_id")},
        "root_artifact_sha256": graph["root_artifact_sha256"],
        "retained": {"kind": "retained-evidence", "evidence_id": evidence_id},
        "counts": {k: len(graph[k]) for k in _COUNTED},
        "coverage": graph["coverage"],
        "limitations": list(graph["limitations"]),
    }


def semantic_reference(result: Mapping[str, Any]) -> str | None:
    """The Evidence id a record's retained semantic graph names (None when the graph is inline)."""
    retained = (result.get("semantic_graph") or {}).get("retained")
    return retained.get("evidence_id") if isinstance(retained, Mapping) else None


def contradiction(record: Mapping[str, Any]) -> dict[str, Any]:
    """An integrity mismatch in the reference's names (logical_path, calculated_sha256); other facts kept.
    A dict, not IntegrityContradiction: the scan's record is passed on as it is (a digest it lacks is null)."""
    out = {
        "logical_path": record.get("logical_path", record.get("path")),
        "declared_sha256": record.get("declared_sha256"),
        "calculated_sha256": record.get("calculated_sha256", record.get("observed_sha256")),
        "unpacked": bool(record.get("unpacked", False)),
    }
    for key in ("archive", "trust", "provenance", "blocks", "nested_archive"):
        if record.get(key) is not None:
            out[key] = record[key]
    return out


def application_result(
    built: Mapping[str, Any],
    *,
    input_path: str,
    root_sha256: str,
    inventory: tuple[str, str],
    parsers: Mapping[str, Any],
    policy: str,
    limitations: Sequence[str],
    semantic: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The complete normalized_result: the reference's fields first, then ours (the graph only once); the
    semantic companion when it was built (a cancelled analysis records it unavailable)."""
    nodes, edges = built["nodes"], built["edges"]
    gid = graph_id(root_sha256, built["limits"], parsers)
    omitted = sum(built["statistics"]["omissions_by_reason"].values())
    graph = wire_graph(
        nodes,
        edges,
        graph=gid,
        roots=[e["node"] for e in built["entry_points"]],
        coverage=graph_coverage(built["coverage"], built["limits"], omitted),
        limitations=[built["coverage"]["note"]],
        context=observation_context(nodes, root_sha256, parsers),
    )
    rest = {k: v for k, v in built.items() if k not in ("nodes", "edges", "integrity_contradictions")}
    rest["entry_points"] = wire_refs(built["entry_points"], labelled=True)
    for name in ("findings", "unknowns"):
        rest[name] = wire_refs(built[name])
    return {
        "schema_version": 1,
        "input_path": input_path,
        "format": built["application"]["format"],
        "root_artifact_sha256": root_sha256,
        "inventory_manifest_id": inventory[0],
        "inventory_graph_sha256": inventory[1],
        "graph": graph,
        "summary": to_wire(electron_summary(nodes, edges, built["unknowns"])),
        "statistics": built["statistics"],
        "limitations": [*limitations, *(() if semantic else (NO_SEMANTIC_GRAPH,)), NOT_MODELLED],
        "semantic_graph": dict(semantic) if semantic else semantic_graph(gid, root_sha256),
        **rest,
        "integrity_contradictions": [contradiction(c) for c in built["integrity_contradictions"]],
        "integrity_policy": "fail" if policy == "fail-closed" else policy,
    }
