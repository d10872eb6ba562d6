"""Results of the 3.1 comparisons: compare_application_versions, compare_source_to_bundle and
compare_javascript_export_shapes."""

from __future__ import annotations

from typing import Literal

import attrs

from rea.javascript.ids import EDGE_ID, NODE_ID
from rea.javascript.records.fields import EVIDENCE_ID, SHA256, GraphStatus, id_list
from rea.javascript.records.graph import EdgeStrategy, GraphCoverage, GraphEdge, GraphEvidence, GraphNode
from rea.wire.schema import Open, field

# ----------------------------------------------------------- comparisons


@attrs.frozen(kw_only=True)
class GraphSide:
    evidence_id: str = field("Application Evidence", pattern=EVIDENCE_ID)
    graph_id: str = field("Its graph")
    root_artifact_sha256: str = field("Its root artifact", pattern=SHA256)


@attrs.frozen(kw_only=True)
class VersionMatch:
    status: Literal["matched", "unmatched", "ambiguous"] = field("Pairing outcome")
    basis: Literal["exact-node-identity", "semantic-key", "none"] = field("Pairing basis (none: unmatched)")
    confidence: Literal["exact", "medium", "unknown"] = field("Pairing confidence")
    candidate_left_node_ids: tuple[str, ...] = id_list("Left candidates")
    candidate_right_node_ids: tuple[str, ...] = id_list("Right candidates")


Dimension = Literal["content", "location", "properties", "relationships", "availability", "coverage"]


@attrs.frozen(kw_only=True)
class VersionItem:
    item_id: str = field("javc_item_<sha256> of the category and pairing key", pattern="^javc_item_[a-f0-9]{64}$")
    node_kind: str = field("Node kind compared")
    left_node_id: str | None = field("Left node; null when absent", pattern=NODE_ID)
    right_node_id: str | None = field("Right node; null when absent", pattern=NODE_ID)
    status: Literal["added", "changed", "removed", "unchanged", "unknown"] = field("Outcome")
    match: VersionMatch = field("How the two sides were paired")
    dimensions: tuple[Dimension, ...] = field("What differs")
    evidence_links: tuple[str, ...] = field("Evidence of the two sides")
    limitations: tuple[str, ...] = field("Why an outcome is unknown")
    category: str = field("Our category (extra)")
    key: str = field("Pairing key (extra)")
    changed_fields: tuple[str, ...] = field("Facts that differ (extra)")
    left: Open = field("Left facts compared (extra)", omit_none=True)
    right: Open = field("Right facts compared (extra)", omit_none=True)


@attrs.frozen(kw_only=True)
class VersionMatching:
    exact_node_identity: int = field("Pairs by node id", minimum=0)
    exact_content_digest: int = field("Pairs by content digest (0: pairing is by key)", minimum=0)
    exact_module_source_digest: int = field("Pairs by module source digest (0)", minimum=0)
    source_map_identity: int = field("Pairs by source-map identity (0)", minimum=0)
    structural_fingerprint: int = field("Pairs by fingerprint (0)", minimum=0)
    semantic_key: int = field("Pairs by semantic key", minimum=0)
    ambiguous: int = field("Ambiguous pairs", minimum=0)
    unmatched: int = field("One-sided items", minimum=0)


@attrs.frozen(kw_only=True)
class Outcomes:
    added: int = field("Added", minimum=0)
    changed: int = field("Changed", minimum=0)
    removed: int = field("Removed", minimum=0)
    unchanged: int = field("Unchanged", minimum=0)
    unknown: int = field("Unknown", minimum=0)


@attrs.frozen(kw_only=True)
class VersionCoverage:
    status: Literal["complete-within-inputs", "partial", "truncated"] = field("Completeness")
    left_graph_status: GraphStatus = field("Left coverage")
    right_graph_status: GraphStatus = field("Right coverage")
    omitted_comparison_items: int = field("Items past the bound", minimum=0)
    omitted_candidate_references: int = field("Candidates omitted", minimum=0)
    omitted_graph_nodes: int = field("Graph nodes omitted", minimum=0)
    omitted_graph_edges: int = field("Graph edges omitted", minimum=0)
    omitted_graph_observations: int = field("Observations omitted", minimum=0)


@attrs.frozen(kw_only=True)
class CategoryCounts:
    counts: Outcomes = field("Outcomes in this category")


@attrs.frozen(kw_only=True)
class ChangeProperties:
    comparison_item_id: str = field("The comparison item")
    status: str = field("Its outcome")
    match_basis: str = field("How the two nodes were paired")
    match_confidence: str = field("Pairing confidence")
    dimensions: tuple[Dimension, ...] = field("What differs")


@attrs.frozen(kw_only=True)
class ChangedFromEdge:
    edge_id: str = field("jag_edge_<sha256> of the pairing", pattern=EDGE_ID)
    source_node_id: str = field("The right (newer) node", pattern=NODE_ID)
    target_node_id: str = field("The left (older) node it changed from", pattern=NODE_ID)
    relation: Literal["changed_from"] = field("A cross-version pairing (an inference)")
    properties: ChangeProperties = field("The pairing")
    evidence: GraphEvidence = field("A cross-version comparison (inferred)")
    identifier_strategy: EdgeStrategy = field("How the edge id is derived")


@attrs.frozen(kw_only=True)
class ChangeGraph:
    schema: Literal["JavaScriptApplicationGraph"] = field("Graph schema")
    schema_version: Literal[1] = field("Graph schema version")
    graph_id: str = field("jag_<sha256> of the change graph")
    root_node_ids: tuple[str, ...] = id_list("Roots of both sides that are kept")
    nodes: tuple[GraphNode, ...] = field("Roots and the nodes of changed, added, removed and unknown items")
    edges: tuple[GraphEdge | ChangedFromEdge, ...] = field("Their relationships in either version, and changed_from")
    coverage: GraphCoverage = field("What the change graph covers")
    limitations: tuple[str, ...] = field("What it does not establish")


@attrs.frozen(kw_only=True)
class ContentOnlyChanges:
    category: Literal["modules"] = field("The category summarized")
    count: int = field("Modules changed only in their content digest", minimum=0)
    sample_keys: tuple[str, ...] = field("The first of them (at most 20)", maxItems=20)
    note: str = field("Why they are not items")


@attrs.frozen(kw_only=True)
class VersionsResult:
    schema_version: Literal[1] = field("Result schema version")
    comparison_id: str = field("javc_<sha256> of the comparison", pattern="^javc_[a-f0-9]{64}$")
    left: GraphSide = field("Left application")
    right: GraphSide = field("Right application")
    matching: VersionMatching = field("How items were paired")
    items: tuple[VersionItem, ...] = field("Every compared item, changed ones first (bounded)")
    graph: ChangeGraph = field("The change graph")
    summary: Outcomes = field("Outcomes over all items")
    coverage: VersionCoverage = field("Completeness")
    evidence_links: tuple[str, ...] = field("Both sides")
    limitations: tuple[str, ...] = field("What the comparison does not establish")
    categories: dict[str, CategoryCounts] = field("Outcomes per category (extra)")
    pairing: str = field("Pairing keys (extra)")
    content_only_changes: ContentOnlyChanges = field("Modules whose bytes alone differ: counted, not listed (extra)")


SignalKind = Literal[
    "exact-source-digest",
    "source-map-original-path",
    "current-path-exact",
    "current-path-suffix",
    "basename-match",
    "language-extension",
]
MappingStatus = Literal["unchanged", "modified", "removed", "split", "merged", "duplicated", "unknown"]


@attrs.frozen(kw_only=True)
class SourceSignal:
    kind: SignalKind = field("Signal")
    weight: int = field("Weight", minimum=1, maximum=100)
    source_value: str = field("Reference side value")
    current_values: tuple[str, ...] = field("Application side values", minItems=1)


@attrs.frozen(kw_only=True)
class SourceCandidate:
    current_node_id: str = field("Application node", pattern=NODE_ID)
    current_node_kind: str = field("Its kind")
    score: int = field("Sum of signal weights", minimum=0)
    confidence: Literal["exact", "high", "medium", "low"] = field("Confidence")
    signals: tuple[SourceSignal, ...] = field("Signals", minItems=1)


@attrs.frozen(kw_only=True)
class SourceMapping:
    mapping_id: str = field("stbc_item_<sha256> of the source path", pattern="^stbc_item_[a-f0-9]{64}$")
    source_path: str = field("Reference source path")
    source_language: str | None = field("Its language")
    source_sha256: str | None = field("Its digest, when hashed")
    status: MappingStatus = field("Outcome")
    confidence: Literal["exact", "high", "medium", "unknown"] = field("Confidence of the mapping")
    current_node_ids: tuple[str, ...] = id_list("Application nodes it maps to")
    candidates: tuple[SourceCandidate, ...] = field("Candidates considered")
    omitted_candidates: int = field("Candidates past the bound", minimum=0)
    limitations: tuple[str, ...] = field("Why an outcome is unknown")


@attrs.frozen(kw_only=True)
class ReferenceSide:
    inventory_state: Literal["complete", "partial", "unknown"] = field("How complete the reference is")
    root_sha256: str = field("Reference root digest", pattern=SHA256)
    kind: Literal["historical-source-graph", "application-evidence", "source-map-sources"] = field(
        "What the reference was (extra)"
    )
    evidence_id: str | None = field("Reference Evidence, when it was Evidence (extra)", omit_none=True)


@attrs.frozen(kw_only=True)
class SourceWeight:
    signal: str = field("Signal")
    weight: int = field("Weight", minimum=1, maximum=100)


@attrs.frozen(kw_only=True)
class Scoring:
    algorithm: str = field("Scoring algorithm")
    minimum_candidate_score: int = field("Smallest score a candidate needs", minimum=0)
    weights: tuple[SourceWeight, ...] = field("Signal weights")


@attrs.frozen(kw_only=True)
class SourceCoverage:
    status: Literal["complete-within-inputs", "partial", "truncated"] = field("Completeness")
    application_graph_status: GraphStatus = field("Application coverage")
    reference_inventory_state: Literal["complete", "partial", "unknown"] = field("Reference completeness")
    retained_source_files: int = field("Reference files compared", minimum=0)
    omitted_source_files: int = field("Reference files omitted", minimum=0)
    retained_application_nodes: int = field("Application nodes considered", minimum=0)
    omitted_application_nodes: int = field("Application nodes omitted", minimum=0)
    candidate_evaluations: int = field("Candidate evaluations", minimum=0)
    omitted_candidate_evaluations: int = field("Evaluations omitted", minimum=0)
    omitted_candidate_references: int = field("Candidates omitted", minimum=0)
    omitted_unmapped_current_nodes: int = field("Unmapped nodes omitted", minimum=0)


@attrs.frozen(kw_only=True)
class SourceSummary:
    unchanged: int = field("Same content", minimum=0)
    modified: int = field("Mapped, content differs or is not comparable", minimum=0)
    removed: int = field("Not shipped", minimum=0)
    split: int = field("Split over several modules", minimum=0)
    merged: int = field("Merged with others", minimum=0)
    duplicated: int = field("Shipped more than once", minimum=0)
    unknown: int = field("Undecided", minimum=0)


@attrs.frozen(kw_only=True)
class SourceToBundleResult:
    schema_version: Literal[1] = field("Result schema version")
    comparison_id: str = field("stbc_<sha256> of the comparison", pattern="^stbc_[a-f0-9]{64}$")
    application: GraphSide = field("The shipped application")
    reference: ReferenceSide = field("The reference sources")
    items: tuple[SourceMapping, ...] = field("One mapping per reference source file")
    unmapped_current_node_ids: tuple[str, ...] = id_list("Shipped modules no reference source maps to")
    summary: SourceSummary = field("Outcomes")
    scoring: Scoring = field("How candidates are scored")
    coverage: SourceCoverage = field("Completeness")
    evidence_links: tuple[str, ...] = field("Evidence compared")
    limitations: tuple[str, ...] = field("What the mapping does not establish")


@attrs.frozen(kw_only=True)
class ExportCandidate:
    node_id: str = field("Module node", pattern=NODE_ID)
    module_path: str = field("Module path")
    export_name: str = field("Export name")
    matches_requested_module: bool = field("Same module path as requested")
    matches_requested_export: bool = field("Same export name as requested")


@attrs.frozen(kw_only=True)
class ExportSide:
    status: Literal["selected", "missing", "ambiguous", "unavailable"] = field("Whether one export was selected")
    evidence_id: str = field("Application Evidence", pattern=EVIDENCE_ID)
    graph_id: str = field("Its graph")
    requested_module_path: str = field("Module path asked for")
    requested_export_name: str = field("Export name asked for")
    selected_node_id: str | None = field("The module node selected", pattern=NODE_ID)
    candidates: tuple[ExportCandidate, ...] = field("Candidates when not exactly one")
    omitted_candidates: int = field("Candidates past the bound", minimum=0)
    form: str | None = field("How the export is made (extra)", omit_none=True)
    shape: Open = field("Its static shape (extra)", omit_none=True)
    resolved_through: tuple[str, ...] | None = field(
        "The re-exports followed to reach the shape, `path#name` each (a getter's `_v.default`; extra)",
        omit_none=True,
    )


@attrs.frozen(kw_only=True)
class Absent:
    availability: Literal["absent"] = field("The member is absent on this side")


@attrs.frozen(kw_only=True)
class LiteralValue:
    availability: Literal["literal"] = field("A literal value")
    value: str | float | bool | None = field("The value")
    sha256: str | None = field("Digest of the literal's whole source text (extra)", omit_none=True, default=None)


@attrs.frozen(kw_only=True)
class UnknownValue:
    availability: Literal["unknown"] = field("Present, value not known statically")
    reason: str = field("Why", minLength=1)


SideValue = Absent | LiteralValue | UnknownValue


@attrs.frozen(kw_only=True)
class ShapeChange:
    change_id: str = field("jesc_change_<sha256>")
    path: str = field("JSON Pointer of the member")
    status: Literal["added", "removed", "changed", "unknown"] = field("Outcome")
    left: SideValue = field("Left value")
    right: SideValue = field("Right value")
    discriminant: None = field("Union discriminant (not modelled: null)")
    left_source_range: None = field("Left source range (not recorded: null)")
    right_source_range: None = field("Right source range (not recorded: null)")
    evidence_links: tuple[str, ...] = field("Evidence of the two sides")
    limitations: tuple[str, ...] = field("Why an outcome is unknown")


@attrs.frozen(kw_only=True)
class ShapeSummary:
    added: int = field("Members added", minimum=0)
    changed: int = field("Members changed", minimum=0)
    removed: int = field("Members removed", minimum=0)
    unknown: int = field("Members not comparable", minimum=0)


@attrs.frozen(kw_only=True)
class ExportCoverage:
    status: Literal["complete-within-inputs", "partial", "truncated"] = field("Completeness")
    left_graph_status: GraphStatus = field("Left coverage")
    right_graph_status: GraphStatus = field("Right coverage")
    omitted_changes: int = field("Changes past max_changes", minimum=0)
    omitted_candidates: int = field("Candidates past max_candidate_exports", minimum=0)
    paired_variants: int = field("Shape variants paired (one static shape per selected export)", minimum=0)
    unpaired_left_variants: int = field("Left variants with no right partner", minimum=0)
    unpaired_right_variants: int = field("Right variants with no left partner", minimum=0)
    omitted_left_variants: int = field("Left variants past the bound (returns are merged: 0)", minimum=0)
    omitted_right_variants: int = field("Right variants past the bound (returns are merged: 0)", minimum=0)
    left_source_omitted_variants: int | None = field("Variants the left source omits (not counted: null)")
    right_source_omitted_variants: int | None = field("Variants the right source omits (not counted: null)")
    left_omitted_fields: int = field("Left member lists cut by the per-node bound", minimum=0)
    right_omitted_fields: int = field("Right member lists cut by the per-node bound", minimum=0)
    left_omitted_property_coverage: int = field("Left property coverage omitted (0)", minimum=0)
    right_omitted_property_coverage: int = field("Right property coverage omitted (0)", minimum=0)
    reason: str | None = field("Why the shapes could not be compared (extra)", omit_none=True)


@attrs.frozen(kw_only=True)
class RuntimeValidation:
    automatically_started: Literal[False] = field("Nothing was run")
    recommended_tool: Literal["run_controlled_replay"] = field("Tool for runtime semantics")
    required_for: Literal["runtime-semantics"] = field("What it would establish")


@attrs.frozen(kw_only=True)
class ExportShapesResult:
    schema_version: Literal[1] = field("Result schema version")
    comparison_id: str = field("jesc_<sha256> of the comparison")
    left: ExportSide = field("Left selection")
    right: ExportSide = field("Right selection")
    changes: tuple[ShapeChange, ...] = field("Member changes")
    summary: ShapeSummary = field("Outcomes over the changes")
    coverage: ExportCoverage = field("Completeness")
    runtime_validation: RuntimeValidation = field("Static only")
    evidence_links: tuple[str, ...] = field("Both sides")
    limitations: tuple[str, ...] = field("What the comparison does not establish")
    status: Literal["changed", "unchanged", "unknown"] = field("Overall outcome (extra)")
