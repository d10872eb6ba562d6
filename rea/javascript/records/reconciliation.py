"""Wire records of reconcile_javascript_runtime (REA 6.x domain/javascript/javascriptRuntimeReconciliation*).

Static application layers (analyze_javascript_application Evidence) and passive runtime captures
(inspect_web_page, inspect_electron_page, observe_javascript_runtime, capture_electron_scenario
Evidence) come in; one derived record goes out: a runtime-to-static correspondence per runtime
entity (matched, ambiguous, unmatched or unknown, with its basis), a load state per static
JavaScript node, and the combined application graph with inferred `observed_as` edges. Inputs are
complete Evidence inline, or (our extra) `{"kind": "retained-evidence", "evidence_id": ...}`.
"""

from __future__ import annotations

from typing import Any, Literal

import attrs

from rea.javascript.ids import EDGE_ID, NODE_ID
from rea.javascript.records.graph import (
    ArtifactRef,
    CanonicalPathIdentity,
    EdgeStrategy,
    Extractor,
    GraphCoverage,
    LocalKeyIdentity,
    LocatedAt,
    NodeStrategy,
    ReferenceNodeKind,
    SourceMapIdentity,
    Unavailable,
)
from rea.managed.records.graph import DigestIdentity
from rea.wire.schema import Open, field

SHA256 = "^[a-f0-9]{64}$"
EVIDENCE_ID = "^ev_[a-f0-9]{64}$"
LAYER_ID = "^jrl_[a-f0-9]{64}$"
_MAX = 2**53 - 1
Role = Literal["application", "cache", "assets"]
_SAFE_PREFIX = "Artifact-relative POSIX prefix ('' for the layer root; no leading /, '.', '..' or empty segments)"


def _count(description: str = "") -> Any:
    return field(description, minimum=0, maximum=_MAX)


def _limit(description: str, default: int) -> Any:
    return field(f"{description} (default {default})", default=default, minimum=1, maximum=50_000)


@attrs.frozen(kw_only=True)
class FileRootMapping:
    kind: Literal["file-root"] = field("A runtime filesystem root")
    root: str = field("Absolute runtime root (normalized)", minLength=1, maxLength=16_384)
    artifact_prefix: str = field(_SAFE_PREFIX, default="", maxLength=4096)


@attrs.frozen(kw_only=True)
class UrlPrefixMapping:
    kind: Literal["url-prefix"] = field("One HTTP(S) origin and path prefix")
    prefix: str = field("http(s) URL without credentials, query or fragment", minLength=1, maxLength=16_384)
    artifact_prefix: str = field(_SAFE_PREFIX, default="", maxLength=4096)


RuntimeMapping = FileRootMapping | UrlPrefixMapping


@attrs.frozen(kw_only=True)
class StaticLayer:
    role: Role = field("Exactly one application layer; cache and assets layers are optional")
    analysis: Open = field(
        'analyze_javascript_application Evidence, inline or {"kind": "retained-evidence", "evidence_id"}',
        schema={"type": "object"},
    )
    runtime_mappings: tuple[RuntimeMapping, ...] = field(
        "Your translations of runtime locations into this layer (inference inputs; never widen authority)",
        default=(),
        maxItems=32,
    )


@attrs.frozen(kw_only=True)
class ReconciliationLimits:
    max_runtime_entities: int = _limit("Runtime targets, frames, scripts and workers retained", 10_000)
    max_reconciliation_items: int = _limit("Reconciliation records retained", 20_000)
    max_static_load_states: int = _limit("Static load states retained", 20_000)


@attrs.frozen(kw_only=True)
class ReconcileArgs:
    static_layers: tuple[StaticLayer, ...] = field("Static application graph layers", minItems=1, maxItems=8)
    runtime_observations: tuple[Open, ...] = field(
        (
            "Runtime capture Evidence (inspect_web_page, inspect_electron_page, "
            "observe_javascript_runtime, capture_electron_scenario)"
        ),
        minItems=1,
        maxItems=32,
        schema={"type": "array", "minItems": 1, "maxItems": 32, "items": {"type": "object"}},
    )
    limits: ReconciliationLimits = field("Output bounds", factory=ReconciliationLimits)


# --------------------------------------------------------------------- result


@attrs.frozen(kw_only=True)
class LayerSummary:
    layer_id: str = field("jrl_<sha256> of role, Evidence id and mappings", pattern=LAYER_ID)
    role: Role = field("Its role")
    evidence_id: str = field("Its analyze_javascript_application Evidence", pattern=EVIDENCE_ID)
    graph_id: str = field("Its graph", pattern="^jag_[a-f0-9]{64}$")
    root_artifact_sha256: str = field("Its tree digest", pattern=SHA256)
    input_path: str = field("The path analyzed", minLength=1)
    format: Literal["asar", "directory"] = field("What was analyzed")
    runtime_mappings: tuple[RuntimeMapping, ...] = field("Its mappings, normalized, deduplicated and sorted")
    source_map_read_approved: bool = field("Our extra: whether its analysis read original sources")


CaptureKind = Literal["browser", "electron", "v8-inspector", "electron-active"]


@attrs.frozen(kw_only=True)
class CaptureSummary:
    evidence_id: str = field("The capture's Evidence", pattern=EVIDENCE_ID)
    capture_sha256: str = field("Canonical digest of its normalized result", pattern=SHA256)
    kind: CaptureKind = field("browser page, Electron page, V8 inspector or active Electron scenario")
    target_node_id: str = field("Its target node in the graph", pattern=NODE_ID)
    target_key: str = field("The target id", minLength=1)
    target_location: str = field("The target's file path or URL", minLength=1)
    frames: int = _count("Frames in the capture")
    scripts: int = _count("Scripts in the capture")
    workers: int = _count("Workers in the capture")
    scripts_complete_within_scope: bool = field("No script was cut, dropped or unreadable in the capture")


Reason = Literal[
    "content-and-location-match",
    "unique-content-match",
    "unique-location-match",
    "ambiguous-static-candidates",
    "captured-content-disagrees-with-static-location",
    "no-static-content-match",
    "no-authorized-location-mapping",
    "runtime-frame-unattributed",
    "static-or-runtime-coverage-incomplete",
    "reconciliation-limit-reached",
]
Basis = Literal[
    "content-and-location",
    "content-sha256",
    "module-source-sha256",
    "artifact-path",
    "operator-file-mapping",
    "operator-url-mapping",
    "none",
]


@attrs.frozen(kw_only=True)
class CandidateRef:
    static_layer_id: str = field("Layer", pattern=LAYER_ID)
    static_node_id: str = field("Node", pattern=NODE_ID)


@attrs.frozen(kw_only=True)
class Reconciliation:
    reconciliation_id: str = field("jrr_item_<sha256> of the record", pattern="^jrr_item_[a-f0-9]{64}$")
    entity_kind: Literal["target", "frame", "script", "worker"] = field("Runtime entity")
    runtime_evidence_id: str = field("Its capture", pattern=EVIDENCE_ID)
    runtime_node_id: str = field("Its node in the graph", pattern=NODE_ID)
    static_layer_id: str | None = field("Matched layer (null unless matched)", pattern=LAYER_ID)
    static_node_id: str | None = field("Matched node (null unless matched)", pattern=NODE_ID)
    status: Literal["matched", "ambiguous", "unmatched", "unknown"] = field("The outcome")
    basis: Basis = field("What the outcome rests on")
    confidence: Literal["exact", "high", "medium", "low", "unknown"] = field("Confidence")
    reason: Reason = field("Why")
    candidate_static_count: int = field("Qualified static candidates", minimum=0, maximum=800_000)
    candidate_static_nodes: tuple[CandidateRef, ...] = field("The first 1000 of them", maxItems=1000)


@attrs.frozen(kw_only=True)
class StaticLoadState:
    static_layer_id: str = field("Layer", pattern=LAYER_ID)
    static_node_id: str = field("Node", pattern=NODE_ID)
    kind: Literal["javascript-asset", "javascript-chunk", "javascript-module"] = field("Node kind")
    status: Literal["loaded", "resident-in-loaded-asset", "not-observed-in-capture", "unknown"] = field(
        "loaded: a runtime script corresponds; resident: inside a loaded file, not itself observed; "
        "not-observed: absent from complete captures of its mapped scope (never 'globally unloaded')"
    )
    runtime_node_ids: tuple[str, ...] = field("Runtime scripts that correspond", maxItems=10_000)
    reason: Literal[
        "runtime-script-correspondence",
        "containing-asset-was-loaded",
        "not-observed-in-bounded-capture",
        "layer-outside-runtime-scope",
        "static-or-runtime-coverage-incomplete",
    ] = field("Why")
    path: str | None = field("Our extra: the node's artifact path", omit_none=True)


@attrs.frozen(kw_only=True)
class Summary:
    runtime_targets: int = _count()
    runtime_frames: int = _count()
    runtime_scripts: int = _count()
    runtime_workers: int = _count()
    matched: int = _count()
    ambiguous: int = _count()
    unmatched: int = _count()
    unknown: int = _count()
    static_loaded: int = _count()
    static_resident: int = _count()
    static_not_observed: int = _count()
    static_unknown: int = _count()


@attrs.frozen(kw_only=True)
class SourceMapAuthority:
    used_for_primary_matching: Literal[False] = field("Source maps never make a runtime match")
    static_layer_count: int = _count("Static layers")
    static_layers_with_read_approval: int = _count("Layers whose analysis read original sources")
    runtime_script_declarations: int = _count("Browser scripts declaring a sourceMappingURL")
    limitation: str = field("What this means", minLength=1)


@attrs.frozen(kw_only=True)
class Coverage:
    status: Literal["complete-within-inputs", "partial", "truncated"] = field("Whether every input was whole")
    truncated: bool = field("A limit cut the output or an input")
    omitted_runtime_entities: int = _count()
    omitted_reconciliation_items: int = _count()
    omitted_static_load_states: int = _count()
    omitted_graph_items: int = _count()


# ------------------------------------------------------- the combined graph


@attrs.frozen(kw_only=True)
class RuntimeLocation:
    kind: Literal["runtime"] = field("A place in one passive capture")
    capture_sha256: str = field("The capture", pattern=SHA256)
    target_key: str = field("Its target")
    frame_key: str | None = field("Its frame")
    script_key: str | None = field("Its script")


@attrs.frozen(kw_only=True)
class RuntimeLocatedAt:
    available: Literal[True] = field("Located")
    value: RuntimeLocation = field("Where")


@attrs.frozen(kw_only=True)
class ReconciledEvidence:
    authority: str = field("What the fact rests on (passive-cdp-runtime, cross-layer-reconciliation, ...)")
    state: Literal["observed", "inferred", "unknown", "unavailable"] = field("State")
    confidence: Literal["exact", "high", "medium", "low", "unknown"] = field("Confidence")
    artifact: ArtifactRef | Unavailable = field("The bytes")
    location: LocatedAt | RuntimeLocatedAt | Unavailable = field("Where")
    extractor: Extractor = field("What extracted it")
    coverage: GraphCoverage = field("Completeness")
    limitations: tuple[str, ...] = field("What it does not establish")
    evidence_ids: tuple[str, ...] = field("Evidence it rests on")


@attrs.frozen(kw_only=True)
class ReconciledObservation:
    label: str | None = field("Readable key")
    source_map_reference: None = field("Not recorded: null")
    properties: Open = field("Facts", schema={"type": "object"})
    evidence: ReconciledEvidence = field("Where the observation comes from")
    observation_id: str = field("jag_observation_<sha256>", pattern="^jag_observation_[a-f0-9]{64}$")
    identifier_strategy: NodeStrategy = field("How the observation id is derived")


@attrs.frozen(kw_only=True)
class RuntimeIdentity:
    strategy: Literal["runtime-instance"] = field("An entity of one capture")
    stability: Literal["capture-only"] = field("Stable only within that capture")
    capture_sha256: str = field("The capture", pattern=SHA256)
    runtime_key: str = field("Its key in the capture", minLength=1)


@attrs.frozen(kw_only=True)
class ReconciledNode:
    node_id: str = field("jag_node_<sha256>", pattern=NODE_ID)
    kind: ReferenceNodeKind = field("Node kind (target, frame, runtime-script-instance, worker for runtime nodes)")
    identity: CanonicalPathIdentity | SourceMapIdentity | LocalKeyIdentity | DigestIdentity | RuntimeIdentity = field(
        "What the node is"
    )
    observations: tuple[ReconciledObservation, ...] = field("Observations from every layer and capture (64 kept)")
    label: str | None = field("Our extra: readable key", omit_none=True)
    subkind: str | None = field("Our extra: our node kind", omit_none=True)


@attrs.frozen(kw_only=True)
class ReconciledEdge:
    edge_id: str = field("jag_edge_<sha256>", pattern=EDGE_ID)
    source_node_id: str = field("From", pattern=NODE_ID)
    target_node_id: str = field("To", pattern=NODE_ID)
    relation: str = field("contains, loads, imports, ... and observed_as (static -> runtime, inferred)")
    properties: Open = field("Facts", schema={"type": "object"})
    evidence: ReconciledEvidence = field("Where the relation comes from")
    identifier_strategy: EdgeStrategy = field("How the edge id is derived")


@attrs.frozen(kw_only=True)
class ReconciledGraph:
    schema: Literal["JavaScriptApplicationGraph"] = field("Graph schema")
    schema_version: Literal[1] = field("Graph schema version")
    graph_id: str = field("jag_<sha256> of its node and edge ids", pattern="^jag_[a-f0-9]{64}$")
    root_node_ids: tuple[str, ...] = field("Runtime targets, then the layers' roots (1000 kept)")
    nodes: tuple[ReconciledNode, ...] = field("Static and runtime nodes (100000 kept)")
    edges: tuple[ReconciledEdge, ...] = field("Static, runtime and observed_as edges (200000 kept)")
    coverage: GraphCoverage = field("What the graph covers")
    limitations: tuple[str, ...] = field("What it does not establish")


@attrs.frozen(kw_only=True)
class RuntimeReconciliation:
    schema_version: Literal[1] = field("Result schema version")
    reconciliation_id: str = field("jrr_<sha256> of the result", pattern="^jrr_[a-f0-9]{64}$")
    static_layers: tuple[LayerSummary, ...] = field("The layers, by layer_id", minItems=1, maxItems=8)
    runtime_captures: tuple[CaptureSummary, ...] = field("The captures, by evidence_id", minItems=1, maxItems=32)
    graph: ReconciledGraph = field("The combined graph")
    summary: Summary = field("Counts")
    reconciliations: tuple[Reconciliation, ...] = field("One per runtime entity, by reconciliation_id")
    static_load_states: tuple[StaticLoadState, ...] = field("One per static asset, chunk or module")
    source_map_authority: SourceMapAuthority = field("Source maps stay static authority")
    coverage: Coverage = field("What was omitted")
    evidence_links: tuple[str, ...] = field("Every input Evidence", minItems=2, maxItems=40)
    limitations: tuple[str, ...] = field("What this does not establish")
