"""Arguments of the JavaScript application tools (REA 6.x applicationWorkflowInputContracts and the
3.1 comparisons): analysis, feature and semantic traces, version, source and export-shape comparisons."""

from __future__ import annotations

import typing
from typing import Literal

import attrs

from rea.javascript.records.fields import (
    SEMANTIC_NODE_KINDS,
    SEMANTIC_RELATIONS,
    SHA256,
    Relation,
    application_field,
    evidence_id_field,
    limit_field,
    native_ids_field,
    native_observations_field,
    semantic_graph_field,
)
from rea.wire.schema import Open, field, local_path

_field = field  # for a record whose key is `field`


@attrs.frozen(kw_only=True)
class AnalyzeLimits:
    """Bounds of one analysis (our extra); a reached bound makes coverage partial and says which."""

    max_entries: int = limit_field(100_000, 1_000_000)
    max_depth: int = limit_field(64, 100)
    max_text_files: int = limit_field(20_000, 100_000)
    max_text_file_bytes: int = limit_field(32 * 1024 * 1024, 64 * 1024 * 1024)
    max_total_text_bytes: int = limit_field(256 * 1024 * 1024, 1024 * 1024 * 1024)
    max_ast_nodes: int = limit_field(2_000_000, 20_000_000)
    max_findings: int = limit_field(8_000, 200_000)
    max_source_map_sources: int = limit_field(5_000, 100_000)
    max_original_source_bytes: int = limit_field(64 * 1024 * 1024, 1024 * 1024 * 1024, minimum=0)


@attrs.frozen(kw_only=True)
class AnalyzeArgs:
    input_path: str = local_path("The application: a directory (unpacked app, source tree) or an .asar")
    format: Literal["auto", "asar", "directory"] = field(
        "Input format; auto decides from the path (a directory named x.js is a directory)", default="auto"
    )
    detail: Literal["complete", "summary"] = field(
        "complete returns the whole record; summary retains it and returns a summary view", default="complete"
    )
    integrity_policy: Literal["fail", "record-and-continue", "fail-closed"] = field(
        (
            "ASAR integrity mismatch: fail, or record it and continue with verified files "
            "(fail-closed: older spelling of fail)"
        ),
        default="fail",
    )
    limits: AnalyzeLimits = field("Analysis bounds", factory=AnalyzeLimits)


@attrs.frozen(kw_only=True)
class TraceLimits:
    """Bounds of one traversal (our extra)."""

    max_depth: int = limit_field(12, 100_000, minimum=0)
    max_nodes: int = limit_field(2000, 100_000)
    max_edges: int = limit_field(4000, 100_000)
    max_paths: int = limit_field(100, 100_000)
    max_seed_matches: int = limit_field(25, 100_000)


FeatureSeedKind = Literal[
    "node-id", "route", "string", "api", "channel", "module", "native-export", "ipc-channel", "url"
]


@attrs.frozen(kw_only=True)
class FeatureSeed:
    kind: FeatureSeedKind = field(
        "What the value names (ipc-channel and url are our older spellings of channel and a URL string)"
    )
    value: str = field("Literal to find (no regular expressions); empty only with match exact", maxLength=4096)
    match: Literal["exact", "contains"] | None = field(
        "exact or substring; null: contains for string seeds, exact otherwise", default=None
    )
    case_sensitive: bool = field("Compare case-sensitively", default=False)


@attrs.frozen(kw_only=True)
class TraceFeatureArgs:
    application: Open = application_field()
    application_evidence_id: str | None = evidence_id_field("application Evidence")
    semantic_graph: Open = semantic_graph_field()
    native_observations: tuple[Open, ...] = native_observations_field()
    native_observation_evidence_ids: tuple[str, ...] = native_ids_field()
    seed: FeatureSeed = field("The literal starting point")
    direction: Literal["outgoing", "incoming", "both", "forward", "backward"] = field(
        (
            "outgoing follows the flow (renderer -> channel -> handler), incoming goes back to entry "
            "points (forward/backward: older spellings)"
        ),
        default="both",
    )
    limits: TraceLimits = field("Traversal bounds", factory=TraceLimits)


@attrs.frozen(kw_only=True)
class SemanticNodeSeed:
    kind: Literal["semantic-node"] = field("A semantic companion graph node")
    node_id: str = field("Semantic node id", minLength=1)


@attrs.frozen(kw_only=True)
class ApplicationNodeSeed:
    kind: Literal["application-node"] = field("An application graph node")
    node_id: str = field("Application graph node id (graph.nodes[].node_id)", minLength=1)


@attrs.frozen(kw_only=True)
class LiteralSeed:
    kind: Literal["literal"] = field("A literal value")
    value: Open = field("The literal: string, number, boolean or null")


@attrs.frozen(kw_only=True)
class FunctionSeed:
    kind: Literal["function"] = field("A function by its semantic fingerprint")
    fingerprint_sha256: str = field("Fingerprint digest", pattern=SHA256)


@attrs.frozen(kw_only=True)
class PropertySeed:
    kind: Literal["property"] = field("A property name")
    name: str = field("Property name", minLength=1)


@attrs.frozen(kw_only=True)
class EndpointSeed:
    kind: Literal["endpoint"] = field("A network endpoint")
    value: str = field("Endpoint text", minLength=1)


@attrs.frozen(kw_only=True)
class EventSeed:
    kind: Literal["event"] = field("An event name")
    name: str = field("Event name", minLength=1)


@attrs.frozen(kw_only=True)
class BoundaryFieldSeed:
    kind: Literal["boundary-field"] = field("A field crossing a process boundary")
    field: str = _field("Field name", minLength=1)


SemanticSeed = (
    SemanticNodeSeed
    | ApplicationNodeSeed
    | LiteralSeed
    | FunctionSeed
    | PropertySeed
    | EndpointSeed
    | EventSeed
    | BoundaryFieldSeed
)
SemanticDirection = Literal["backward-provenance", "forward-influence", "callers", "ownership"]


@attrs.frozen(kw_only=True)
class ExpectedClasses:
    role: Literal["source", "sink"] = field("Whether the classes are expected as sources or sinks")
    classes: tuple[str, ...] = field(
        "Semantic node kinds", minItems=1, schema={"type": "array", "items": {"enum": SEMANTIC_NODE_KINDS}}
    )


@attrs.frozen(kw_only=True)
class SourceMapAuthority:
    authority: Literal["none"] = field("Source maps are not an authority for the answer")


@attrs.frozen(kw_only=True)
class QueryLimits:
    """The reference's per-query bounds; the traversal bounds (depth, nodes, edges, seeds) apply here."""

    max_depth: int = limit_field(12, 64, minimum=0)
    max_edges: int = limit_field(4000, 100_000)
    max_functions: int = limit_field(500, 10_000)
    max_modules: int = limit_field(500, 10_000)
    max_nodes: int = limit_field(2000, 50_000)
    max_seed_matches: int = limit_field(25, 1000)
    max_unknowns: int = limit_field(1000, 10_000, minimum=0)
    page_size: int = limit_field(200, 1000)


@attrs.frozen(kw_only=True)
class SemanticQuery:
    seed: SemanticSeed = field("Where the query starts")
    direction: SemanticDirection = field("Which way to traverse")
    allowed_relations: tuple[str, ...] | None = field(
        "Relations to follow (semantic or application-graph relations)",
        omit_none=True,
        schema={"type": "array", "minItems": 1, "items": {"enum": [*SEMANTIC_RELATIONS, *typing.get_args(Relation)]}},
    )
    include_ambiguous_dynamic_edges: bool = field("Follow candidate (unresolved) edges too", default=False)
    expected: ExpectedClasses | None = field("Expected source/sink classes", default=None)
    source_map_authority: SourceMapAuthority = field(
        "Source-map authority (only none)", factory=lambda: SourceMapAuthority(authority="none")
    )
    cursor: str | None = field("page.next_cursor of an earlier answer: the next page of its relations", default=None)
    limits: QueryLimits | None = field("Query bounds; when given they replace the tool's limits", omit_none=True)


@attrs.frozen(kw_only=True)
class TraceSemanticsArgs:
    application: Open = application_field()
    application_evidence_id: str | None = evidence_id_field("application Evidence")
    semantic_graph: Open = semantic_graph_field()
    query: SemanticQuery = field("The semantic query")
    limits: TraceLimits = field("Traversal bounds", factory=TraceLimits)


@attrs.frozen(kw_only=True)
class VersionLimits:
    """Comparison bounds; max_candidate_nodes is accepted (each item has at most one candidate per side)."""

    max_comparison_items: int = limit_field(20_000, 50_000)
    max_candidate_nodes: int = limit_field(100, 1000)
    max_graph_nodes: int = limit_field(20_000, 100_000)
    max_graph_edges: int = limit_field(40_000, 200_000)


@attrs.frozen(kw_only=True)
class CompareVersionsArgs:
    left: Open = application_field("left")
    right: Open = application_field("right")
    left_evidence_id: str | None = evidence_id_field("left application Evidence")
    right_evidence_id: str | None = evidence_id_field("right application Evidence")
    left_native_observations: tuple[Open, ...] = native_observations_field()
    right_native_observations: tuple[Open, ...] = native_observations_field()
    left_native_observation_evidence_ids: tuple[str, ...] = native_ids_field()
    right_native_observation_evidence_ids: tuple[str, ...] = native_ids_field()
    limits: VersionLimits = field("Comparison bounds", factory=VersionLimits)
    detail: Literal["complete", "summary"] = field(
        "complete (default) or summary: counts, first items and parent_evidence_id to page with the comparison view",
        default="complete",
    )


@attrs.frozen(kw_only=True)
class SourceLimits:
    max_source_files: int = limit_field(10_000, 100_000)
    max_application_nodes: int = limit_field(20_000, 100_000)
    max_candidate_nodes: int = limit_field(100, 1000)
    max_candidate_evaluations: int = limit_field(1_000_000, 10_000_000)


@attrs.frozen(kw_only=True)
class ShapeLimits:
    """max_return_variants is accepted: shapes keep each direct return's keys, not variants."""

    max_candidate_exports: int = limit_field(100, 1000)
    max_changes: int = limit_field(1000, 10_000)
    max_return_variants: int = limit_field(128, 1000)


@attrs.frozen(kw_only=True)
class SourceToBundleArgs:
    application: Open = application_field()
    application_evidence_id: str | None = evidence_id_field("application Evidence")
    reference: Open = field(
        (
            "Reference sources: a HistoricalSourceGraph {authority: historical-reference, schema, "
            "entries, ...} or application Evidence of a source tree (inline or retained); omitted: "
            "the bundle's source-map sources"
        ),
        omit_none=True,
        type="object",
    )
    limits: SourceLimits = field("Mapping bounds", factory=SourceLimits)


@attrs.frozen(kw_only=True)
class ExportShapesArgs:
    left: Open = application_field("left")
    right: Open = application_field("right")
    left_evidence_id: str | None = evidence_id_field("left application Evidence")
    right_evidence_id: str | None = evidence_id_field("right application Evidence")
    left_module_path: str = field("Module path in the left record", minLength=1, maxLength=4096)
    left_export_name: str = field("Export name (default for the default export)", minLength=1, maxLength=4096)
    right_module_path: str = field("Module path in the right record", minLength=1, maxLength=4096)
    right_export_name: str = field("Export name", minLength=1, maxLength=4096)
    limits: ShapeLimits = field("Comparison bounds", factory=ShapeLimits)
