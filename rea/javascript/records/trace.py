"""Results of trace_application_feature (REA 6.x javascriptFeatureTraceSchemas) and
trace_javascript_semantics (javascriptSemanticQuerySchemas)."""

from __future__ import annotations

from typing import Literal

import attrs

from rea.javascript.ids import EDGE_ID, NODE_ID
from rea.javascript.records.arguments import FeatureSeed, QueryLimits, SemanticDirection, SemanticSeed
from rea.javascript.records.fields import EVIDENCE_ID, SEMANTIC_NODE_ID, GraphStatus, id_list, open_rows
from rea.javascript.records.graph import ApplicationGraph, EdgeStrategy
from rea.javascript.records.semantic_graph import SemanticEvidenceContext, SemanticUnknownRow
from rea.wire.schema import Open, field

# ---------------------------------------------------- trace_application_feature


@attrs.frozen(kw_only=True)
class SeedMatch:
    node_id: str = field("Matched node", pattern=NODE_ID)
    kind: str = field("Its kind")
    basis: Literal["node-id", "label", "identity", "property"] = field("What matched")
    field_: str = field("The field that matched", alias="field")


@attrs.frozen(kw_only=True)
class TracePath:
    path_id: str = field("jatp_<sha256> of the path")
    start_node_id: str = field("Seed end", pattern=NODE_ID)
    end_node_id: str = field("Terminal end (entry point, or implementing handler)", pattern=NODE_ID)
    end_kind: str = field("Kind of the terminal node")
    node_ids: tuple[str, ...] = field(
        "Nodes in order", schema={"type": "array", "minItems": 1, "items": {"type": "string", "pattern": NODE_ID}}
    )
    edge_ids: tuple[str, ...] = id_list("Edges in order", EDGE_ID)
    authorities: tuple[str, ...] = field("Authorities of the facts on the path")
    contains_inference: bool = field("A step rests on a resolution inference")
    direction: Literal["outgoing", "incoming"] = field("Which traversal found it (extra)")
    end_roles: tuple[str, ...] = field("Roles of the terminal node (extra)")


@attrs.frozen(kw_only=True)
class NativeHandoff:
    native_node_id: str = field("Native add-on node", pattern=NODE_ID)
    artifact_sha256: str | None = field("Add-on digest, when read")
    artifact_path: str | None = field("Add-on path")
    export_node_ids: tuple[str, ...] = field("Export nodes")
    requested_exports: tuple[str, ...] = field("Exports the JavaScript side names")
    status: Literal["evidence-linked", "requires-provider-analysis"] = field("Whether native Evidence covers it")
    providers: tuple[Open, ...] = field(
        "Providers of linked Evidence",
        schema={"type": "array", "items": {"type": "object", "description": "A provider"}},
    )
    evidence_ids: tuple[str, ...] = field("Linked native Evidence")
    recommended_tools: tuple[
        Literal["open_binary", "binary_overview", "search_procedures", "analyze_function", "xrefs"], ...
    ] = field("Next tools for the add-on")


@attrs.frozen(kw_only=True)
class TraceSummary:
    matched_seeds: int = field("Seed matches", minimum=0)
    traced_nodes: int = field("Nodes in the subgraph", minimum=0)
    traced_edges: int = field("Edges in the subgraph", minimum=0)
    terminal_paths: int = field("Paths listed", minimum=0)
    native_handoffs: int = field("Native handoffs", minimum=0)
    observed_facts: int = field("Facts read from artifact bytes", minimum=0)
    inferred_facts: int = field("Facts resting on resolution inference", minimum=0)
    unknown_facts: int = field("Unknowns touching the subgraph", minimum=0)
    unavailable_facts: int = field("Facts unavailable", minimum=0)


@attrs.frozen(kw_only=True)
class TraceRelevance:
    policy: str = field("Which reached nodes are not traversed from")
    pruned_nodes: int = field("Nodes reached but not traversed from", minimum=0)
    pruned_edges: int = field("Edges those nodes would have led on (unexplored)", minimum=0)
    pruned_node_ids: tuple[str, ...] = id_list("The first 100 of them")


@attrs.frozen(kw_only=True)
class TraceCoverage:
    status: Literal["complete-within-source", "partial", "no-match"] = field("How complete the trace is")
    source_graph_status: GraphStatus = field("Coverage of the source graph")
    scanned_nodes: int = field("Nodes the traversal visited", minimum=0)
    total_seed_matches: int = field("All seed matches (before the bound)", minimum=0)
    omitted_seed_matches: int = field("Seed matches past max_seed_matches", minimum=0)
    omitted_nodes: int = field("Nodes a bound kept out of the traversal", minimum=0)
    omitted_edges: int = field("Edges a bound kept out of the traversal", minimum=0)
    omitted_paths: int = field("Terminal paths past max_paths", minimum=0)
    frontier_node_ids: tuple[str, ...] = id_list("Nodes where a bound stopped the traversal")
    limits_reached: tuple[str, ...] = field("Trace bounds reached (extra)")
    incomplete_because: tuple[str, ...] = field(
        "What the answer rests on that was not parsed or not resolved (extra; empty when complete)"
    )
    relevance: TraceRelevance = field("What the relevance policy reached but did not traverse from (extra)")


@attrs.frozen(kw_only=True)
class Frontier:
    node: str = field("Node where a bound stopped the traversal", pattern=NODE_ID)
    reason: str = field("The bound")
    direction: str = field("Traversal")


@attrs.frozen(kw_only=True)
class FeatureTraceResult:
    schema_version: Literal[1] = field("Result schema version")
    trace_id: str = field("jatr_<sha256> of the trace")
    source_evidence_id: str = field("The application Evidence traced", pattern=EVIDENCE_ID)
    source_graph_id: str = field("Its graph")
    seed: FeatureSeed = field("The seed, as given")
    direction: Literal["outgoing", "incoming", "both"] = field("Direction traced")
    seed_matches: tuple[SeedMatch, ...] = field("Nodes the seed matched (bounded by max_seed_matches)")
    graph: ApplicationGraph | None = field("The traced subgraph; null when nothing matched")
    paths: tuple[TracePath, ...] = field("Seed-to-terminal paths")
    native_handoffs: tuple[NativeHandoff, ...] = field("Native add-ons the subgraph reaches")
    summary: TraceSummary = field("Counts")
    coverage: TraceCoverage = field("Completeness")
    evidence_links: tuple[str, ...] = field("Evidence the trace rests on", minItems=1)
    limitations: tuple[str, ...] = field("What the trace does not establish")
    frontier: tuple[Frontier, ...] = field("Where bounds stopped the traversal, first 100 (extra)")
    unknowns: tuple[Open, ...] = field(
        "Application unknowns bearing on the answer, first 100: on reached nodes, and a channel's dynamic IPC "
        "operations (extra)",
        schema=open_rows("An unknown: {kind, node?, path?, line?, direction?, ...}"),
    )


# --------------------------------------------------- trace_javascript_semantics


@attrs.frozen(kw_only=True)
class SemanticNodeRow:
    node_id: str = field(
        "A semantic graph node (for an application-node seed: jsrg_node_<sha256> of the application node)",
        pattern=SEMANTIC_NODE_ID,
    )
    kind: str = field("Node kind (semantic, or the application node's for an application-node seed)")
    label: str | None = field("Readable label")
    application_node_ids: tuple[str, ...] = id_list("Application graph nodes it stands for")
    function_node_id: str | None = field("Owning function node (null at module level)")
    depth: int = field("Steps from the seed (extra)", minimum=0)
    identity: Open = field("What the id is a digest of (the semantic identity, or the application node's)")
    properties: Open = field("Facts of its kind")
    evidence: Open = field("Provenance: the semantic evidence context and location, or the application node's")
    identifier_strategy: Open = field("How the id is derived")


@attrs.frozen(kw_only=True)
class SemanticRelationRow:
    relation_id: str = field(
        "A semantic relation (for an application-node seed: of the application edge)",
        pattern="^jsrg_relation_[a-f0-9]{64}$",
    )
    relation: str = field("Relation kind (semantic, or the application graph's for an application-node seed)")
    source_node_id: str = field("Start", pattern=SEMANTIC_NODE_ID)
    target_node_id: str = field("End", pattern=SEMANTIC_NODE_ID)
    resolution: Literal["resolved", "candidate"] = field("resolved: a static fact")
    properties: Open = field("The relation's facts (argument index, ...)")
    evidence: Open = field("Provenance: the semantic evidence context and location, or the application edge's evidence")
    identifier_strategy: EdgeStrategy = field("How the id is derived")


@attrs.frozen(kw_only=True)
class SemanticSummary:
    total_seed_matches: int = field("Seed nodes", minimum=0)
    retained_seed_matches: int = field("Seed nodes kept (bounded by max_seed_matches)", minimum=0)
    traversed_nodes: int = field("Nodes reached", minimum=0)
    traversed_relations: int = field("Relations followed", minimum=0)
    traversed_functions: int = field("Functions reached", minimum=0)
    traversed_modules: int = field("Modules reached", minimum=0)
    relevant_unknowns: int = field("Application unknowns touching the reached nodes", minimum=0)
    retained_unknowns: int = field("Semantic unknowns listed", minimum=0)


@attrs.frozen(kw_only=True)
class SemanticFrontier:
    node_id: str = field("Node where a bound stopped the traversal", pattern=SEMANTIC_NODE_ID)
    depth: int = field("Its depth", minimum=0, maximum=65)
    reason: Literal["max-depth", "max-edges", "max-functions", "max-modules", "max-nodes", "max-seed-matches"] = field(
        "The bound"
    )


@attrs.frozen(kw_only=True)
class SemanticQueryCoverage:
    status: Literal["complete", "partial", "truncated", "unavailable"] = field("Completeness of the answer")
    frontier: tuple[SemanticFrontier, ...] = field("Where bounds stopped the traversal")


@attrs.frozen(kw_only=True)
class QueryPage:
    offset: int = field("First relation of this page", minimum=0)
    size: int = field("Relations on this page", minimum=0, maximum=1000)
    next_cursor: str | None = field(
        "query.cursor for the next page; null on the last", pattern="^jsrqc_[0-9]+_[a-f0-9]{64}$"
    )


@attrs.frozen(kw_only=True)
class LimitRange:
    minimum: int = field("Smallest accepted value", minimum=0)
    maximum: int = field("Largest accepted value", minimum=0)


@attrs.frozen(kw_only=True)
class QueryLimitRanges:
    max_seed_matches: LimitRange = field("Accepted max_seed_matches")
    max_nodes: LimitRange = field("Accepted max_nodes")
    max_edges: LimitRange = field("Accepted max_edges")
    max_depth: LimitRange = field("Accepted max_depth")
    max_functions: LimitRange = field("Accepted max_functions")
    max_modules: LimitRange = field("Accepted max_modules")
    max_unknowns: LimitRange = field("Accepted max_unknowns")
    page_size: LimitRange = field("Accepted page_size")


@attrs.frozen(kw_only=True)
class SemanticQueryResult:
    schema_version: Literal[1] = field("Result schema version")
    query_id: str = field("jsrq_<sha256> of the query (without its cursor)", pattern="^jsrq_[a-f0-9]{64}$")
    source_graph_id: str = field(
        "The semantic companion graph answered from (semantic_graph.graph_id)", pattern="^jsrg_[a-f0-9]{64}$"
    )
    seed: SemanticSeed = field("The seed, as given")
    direction: SemanticDirection = field("Direction, as given")
    status: Literal["found", "no-match", "ambiguous", "partial", "unsupported"] = field(
        "found, no-match, partial (a bound stopped it), unsupported (no semantic graph: a cancelled analysis)"
    )
    seed_node_ids: tuple[str, ...] = id_list("Seed nodes", SEMANTIC_NODE_ID)
    evidence_contexts: tuple[SemanticEvidenceContext, ...] = field("Provenance of the nodes and relations returned")
    nodes: tuple[SemanticNodeRow, ...] = field("Nodes reached")
    relations: tuple[SemanticRelationRow, ...] = field("Relations followed")
    unknowns: tuple[SemanticUnknownRow, ...] = field("Semantic unknowns on the reached nodes (bounded by max_unknowns)")
    expected_match_node_ids: tuple[str, ...] = id_list("Reached nodes of the expected classes", SEMANTIC_NODE_ID)
    summary: SemanticSummary = field("Counts")
    coverage: SemanticQueryCoverage = field("Completeness")
    page: QueryPage = field("This page of the answer's relations")
    applied_limits: QueryLimits = field("The query bounds in force")
    accepted_limit_ranges: QueryLimitRanges = field("What each query bound accepts")
    limitations: tuple[str, ...] = field("Why the answer is limited")
    source_evidence_id: str = field("The application Evidence", pattern=EVIDENCE_ID)
    evidence_links: tuple[str, ...] = field("Evidence the answer rests on", minItems=1)
    application_graph_id: str = field("The application graph traversed (extra)")
    limits_reached: tuple[str, ...] = field("Traversal bounds reached (extra)")
