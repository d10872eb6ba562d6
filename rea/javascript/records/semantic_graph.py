"""The semantic companion graph (REA 6.x javascriptSemanticGraph): nodes, relations, unknowns, evidence
contexts, fingerprints and coverage, inline or retained."""

from __future__ import annotations

from typing import Any, Literal

import attrs

from rea.javascript.ids import NODE_ID
from rea.javascript.records.fields import (
    SEMANTIC_NODE_ID,
    SEMANTIC_NODE_KINDS,
    SEMANTIC_RELATIONS,
    SHA256,
    GraphStatus,
    id_list,
)
from rea.javascript.records.graph import (
    ArtifactPath,
    ArtifactRef,
    EdgeStrategy,
    Extractor,
    GraphCoverage,
    LimitRow,
    Unavailable,
)
from rea.wire.schema import Open, field

SEMANTIC_FAMILIES = (
    "boundary call-flow child-process closure configuration data-flow event object-flow promise-ownership "
    "request resource-lifecycle timer"
).split()
SEMANTIC_UNKNOWN_REASONS = (
    "ambiguous-target bound-reached dynamic-call dynamic-property dynamic-scope eval-or-generated-code "
    "incomplete-module missing-source resource-limit unknown-value unsupported-syntax"
).split()
SEMANTIC_RELATION_ID = "^jsrg_relation_[a-f0-9]{64}$"
SEMANTIC_UNKNOWN_ID = "^jsrg_unknown_[a-f0-9]{64}$"
SEMANTIC_CONTEXT_ID = "^jsrg_evidence_[a-f0-9]{64}$"


@attrs.frozen(kw_only=True)
class SemanticFamilyCoverage:
    family: str = field("Relation family", schema={"enum": SEMANTIC_FAMILIES})
    status: Literal["complete", "partial", "unknown", "unsupported"] = field(
        "unsupported: the family is not modelled by this analyzer"
    )
    retained_relations: int = field("Relations of the family kept", minimum=0)
    omitted_relations: int | None = field("Relations a budget left out (null: not modelled)", minimum=0)
    unknown_ids: tuple[str, ...] = id_list("Unknowns of the family (first 1000)", SEMANTIC_UNKNOWN_ID)


@attrs.frozen(kw_only=True)
class SemanticCoverage:
    status: GraphStatus = field("complete, partial (a budget or the per-file byte bound was reached) or unavailable")
    truncated: bool = field("A bound cut the semantic graph")
    omitted_nodes: int | None = field("Nodes omitted, when counted")
    omitted_relations: int | None = field("Relations omitted, when counted")
    families: tuple[SemanticFamilyCoverage, ...] = field(
        "Coverage per relation family (the reference's twelve; none when unavailable)", maxItems=12
    )
    limits: tuple[LimitRow, ...] = field("Bounds applied")
    truncated_modules: tuple[str, ...] | None = field(
        "Modules read in part (larger than the per-file byte bound; extra)", omit_none=True
    )


def _empty(description: str) -> Any:
    return field(
        description, schema={"type": "array", "maxItems": 0, "items": {"type": "object", "description": description}}
    )


@attrs.frozen(kw_only=True)
class SemanticEvidenceContext:
    """6.x's evidence context (the application graph's evidence record without its location), plus the module."""

    context_id: str = field("jsrg_evidence_<sha256>", pattern=SEMANTIC_CONTEXT_ID)
    authority: Literal["ast-static-analysis", "artifact-bytes", "static-relationship-inference", "unknown"] = field(
        "How the facts were obtained (an application-node answer's contexts keep their application evidence's)"
    )
    state: Literal["observed", "inferred", "unknown"] = field("observed: read from the syntax tree or bytes")
    confidence: Literal["exact", "high", "medium", "unknown"] = field("Confidence")
    artifact: ArtifactRef | Unavailable = field("The module's bytes")
    extractor: Extractor = field("What extracted it")
    coverage: GraphCoverage = field("partial when the module was larger than the semantic byte bound")
    limitations: tuple[str, ...] = field("What it does not establish")
    evidence_ids: tuple[str, ...] = field("Other Evidence it rests on")
    module_path: str | None = field("The module read (null: a fact named by code, not located in a file)")
    artifact_sha256: str | None = field("Its content digest")
    application_node_id: str | None = field("Its application graph node (null: no file node)", pattern=NODE_ID)


@attrs.frozen(kw_only=True)
class SemanticPoint:
    line: int = field("Line", minimum=1)
    column: int = field("Column (bytes)", minimum=0)


@attrs.frozen(kw_only=True)
class SemanticSourceRange:
    kind: Literal["source-range"] = field("A range of the module")
    source: str = field("The module's path (the evidence context's module_path)", minLength=1)
    start: SemanticPoint = field("Start")
    end: SemanticPoint = field("End")
    start_byte: int = field("Start byte", minimum=0)
    end_byte: int = field("End byte", minimum=0)


@attrs.frozen(kw_only=True)
class SemanticLocated:
    available: Literal[True] = field("Where in the module")
    value: SemanticSourceRange | ArtifactPath = field("A source range, or the module as a whole")


@attrs.frozen(kw_only=True)
class SemanticEvidenceRef:
    context_id: str = field("The evidence context", pattern=SEMANTIC_CONTEXT_ID)
    location: SemanticLocated = field("Where in the module")


@attrs.frozen(kw_only=True)
class SourcePoint:
    line: int = field("Line", minimum=1)
    column: int = field("Column (bytes)", minimum=0)


@attrs.frozen(kw_only=True)
class SourceRange:
    start: SourcePoint = field("Start")
    end: SourcePoint = field("End")


@attrs.frozen(kw_only=True)
class SemanticIdentity:
    artifact_sha256: str | None = field("The module's content digest")
    module_path: str = field("The module")
    source_range: SourceRange | None = field("Where (null for module-wide and application-wide nodes)")
    role_key: str = field("What the node is in that place (function, parameter:0, literal, ipc:channel, ...)")


@attrs.frozen(kw_only=True)
class SemanticNodeStrategy:
    strategy: Literal["semantic-content-sha256"] = field("Ids are digests of content")
    stability: Literal["artifact-version"] = field("One id per node of this artifact version")


@attrs.frozen(kw_only=True)
class SemanticGraphNode:
    node_id: str = field("jsrg_node_<sha256> of kind and identity", pattern=SEMANTIC_NODE_ID)
    kind: str = field("Semantic node kind", schema={"enum": SEMANTIC_NODE_KINDS})
    identity: SemanticIdentity = field("What the id is a digest of")
    function_node_id: str | None = field("Enclosing function", pattern=SEMANTIC_NODE_ID)
    application_node_ids: tuple[str, ...] = id_list("The application graph module it is in")
    label: str | None = field("Readable name, value or callee")
    properties: Open = field("Facts of its kind (value, callee, parameters, endpoint, dynamic, ...)")
    evidence: SemanticEvidenceRef = field("Provenance")
    identifier_strategy: SemanticNodeStrategy = field("How the id is derived")


@attrs.frozen(kw_only=True)
class SemanticGraphRelation:
    relation_id: str = field("jsrg_relation_<sha256>", pattern=SEMANTIC_RELATION_ID)
    source_node_id: str = field("Where the value or control comes from", pattern=SEMANTIC_NODE_ID)
    target_node_id: str = field("Where it goes", pattern=SEMANTIC_NODE_ID)
    relation: str = field("Semantic relation", schema={"enum": list(SEMANTIC_RELATIONS)})
    resolution: Literal["resolved", "candidate"] = field("candidate: resolved by name only (ambiguous, dynamic)")
    properties: Open = field("argument index, ...")
    evidence: SemanticEvidenceRef = field("Provenance")
    identifier_strategy: EdgeStrategy = field("How the id is derived")


@attrs.frozen(kw_only=True)
class SemanticUnknownRow:
    unknown_id: str = field("jsrg_unknown_<sha256>", pattern=SEMANTIC_UNKNOWN_ID)
    node_id: str | None = field("Where it stands", pattern=SEMANTIC_NODE_ID)
    family: str = field("Relation family", schema={"enum": SEMANTIC_FAMILIES})
    relation_kinds: tuple[str, ...] = field(
        "Relations it could have been",
        minItems=1,
        schema={"type": "array", "items": {"enum": list(SEMANTIC_RELATIONS)}},
    )
    reason: str = field("Why it is unknown", schema={"enum": SEMANTIC_UNKNOWN_REASONS})
    detail: str = field("What was seen", minLength=1)
    candidate_node_ids: tuple[str, ...] = id_list("Candidates", SEMANTIC_NODE_ID)
    evidence: SemanticEvidenceRef = field("Provenance")


@attrs.frozen(kw_only=True)
class FingerprintComponents:
    parameter_arity: int = field("Parameters", minimum=0)
    normalized_ast_sha256: str = field("Digest of the syntax tree without identifier text", pattern=SHA256)
    control_flow_sha256: str = field("Digest of the branch structure", pattern=SHA256)
    relation_shape_sha256: str = field("Digest of arity and control shape", pattern=SHA256)
    literal_set_sha256: str = field("Digest of the literals it contains", pattern=SHA256)
    effects: tuple[Literal["async", "child-process", "event", "network", "promise", "resource", "timer"], ...] = field(
        "Effects its calls name"
    )


@attrs.frozen(kw_only=True)
class SemanticFingerprint:
    fingerprint_id: str = field("jsrg_fingerprint_<sha256>", pattern="^jsrg_fingerprint_[a-f0-9]{64}$")
    function_node_id: str = field("The function", pattern=SEMANTIC_NODE_ID)
    algorithm: Literal["rea.javascript-semantic-function"] = field("Fingerprint algorithm")
    status: Literal["complete", "partial", "unavailable"] = field("partial: a large function's syntax not hashed")
    components: FingerprintComponents = field("What it digests")
    fingerprint_sha256: str = field("The rename-resistant digest (a function seed names it)", pattern=SHA256)
    limitations: tuple[str, ...] = field("What it leaves out")
    evidence: SemanticEvidenceRef = field("Provenance")


@attrs.frozen(kw_only=True)
class SemanticGraph:
    """The semantic companion graph: functions, bindings, literals, call and return sites, property slots,
    events and boundaries with their relations; unavailable (empty) only for a cancelled analysis."""

    schema: Literal["JavaScriptSemanticRelationGraph"] = field("Graph schema")
    schema_version: Literal[1] = field("Graph schema version")
    graph_id: str = field("jsrg_<sha256> of the graph's node and relation ids", pattern="^jsrg_[a-f0-9]{64}$")
    application_graph_id: str = field("The application graph it accompanies")
    root_artifact_sha256: str = field("The root artifact", pattern=SHA256)
    root_node_ids: tuple[str, ...] = id_list("Module nodes", SEMANTIC_NODE_ID)
    evidence_contexts: tuple[SemanticEvidenceContext, ...] = field("Provenance shared by the facts", factory=tuple)
    nodes: tuple[SemanticGraphNode, ...] = field("Semantic nodes")
    relations: tuple[SemanticGraphRelation, ...] = field("Semantic relations")
    unknowns: tuple[SemanticUnknownRow, ...] = field("What could not be resolved statically")
    fingerprints: tuple[SemanticFingerprint, ...] = field("Function fingerprints")
    coverage: SemanticCoverage = field("Completeness")
    limitations: tuple[str, ...] = field("What the graph does not establish")


@attrs.frozen(kw_only=True)
class RetainedGraphReference:
    kind: Literal["retained-evidence"] = field("A reference to Evidence retained in this session")
    evidence_id: str = field("The semantic graph Evidence", pattern="^ev_[a-f0-9]{64}$")


@attrs.frozen(kw_only=True)
class SemanticGraphCounts:
    nodes: int = field("Semantic nodes", minimum=0)
    relations: int = field("Semantic relations", minimum=0)
    unknowns: int = field("Semantic unknowns", minimum=0)
    fingerprints: int = field("Function fingerprints", minimum=0)
    evidence_contexts: int = field("Evidence contexts", minimum=0)


@attrs.frozen(kw_only=True)
class RetainedSemanticGraph:
    """The semantic companion graph retained as its own Evidence (operation javascript_semantic_graph): the
    application record names it, so the complete record stays within the reply budget."""

    schema: Literal["JavaScriptSemanticRelationGraph"] = field("Graph schema")
    schema_version: Literal[1] = field("Graph schema version")
    graph_id: str = field("jsrg_<sha256> of the graph's node and relation ids", pattern="^jsrg_[a-f0-9]{64}$")
    application_graph_id: str = field("The application graph it accompanies")
    root_artifact_sha256: str = field("The root artifact", pattern=SHA256)
    retained: RetainedGraphReference = field("The Evidence that holds the graph's nodes and relations")
    counts: SemanticGraphCounts = field("What the retained graph holds")
    coverage: SemanticCoverage = field("Completeness")
    limitations: tuple[str, ...] = field("What the graph does not establish")
