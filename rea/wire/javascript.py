"""Wire records of the JavaScript application family: REA 6.x argument and result shapes.

Names, types and enums follow the reference (applicationWorkflowInputContracts,
javascriptApplicationAnalysis, javascriptFeatureTraceSchemas, javascriptSemanticQuerySchemas
and the 3.1 comparison results). Our extras are optional arguments or additional result
fields, never a different shape for a shared name. Graph node and edge ids are the reference's
`jag_node_`/`jag_edge_` digests (rea.javascript.ids); a node keeps its readable key as `label`
and its kind-specific facts as optional fields (absent when the kind has none).
"""

from __future__ import annotations

import typing
from typing import Any, Literal

import attrs

from rea.javascript.ids import EDGE_ID, NODE_ID
from rea.wire.schema import Open, field, local_path

_field = field  # for a record whose key is `field`

EVIDENCE_ID = "^ev_[a-f0-9]{64}$"
SEMANTIC_NODE_ID = "^jsrg_node_[a-f0-9]{64}$"
SHA256 = "^[a-f0-9]{64}$"
_MAX = 2**53 - 1

Relation = Literal["contains", "loads", "imports", "maps_to", "exposes", "sends", "invokes", "handles", "calls"]
GraphStatus = Literal["complete", "partial", "unknown", "unavailable"]
SEMANTIC_RELATIONS = (
    "acquires aggregates aliases argument-to-parameter awaits calls cancels-timer captures chains coerces "
    "connects-stdio consumed-by constructs-request creates-promise defaults defines destructures detaches-task "
    "dispatches-candidate forwards-signal listens-error listens-exit owns overrides parses reads reads-argv "
    "reads-config reads-environment reads-property registers-listener releases removes-listener returns-task "
    "returns-to-call schedules-timer spawns spreads supplies-argv supplies-env supplies-request-field validates "
    "writes writes-property"
).split()
SEMANTIC_NODE_KINDS = (
    "module function parameter binding expression literal property-slot call-site return-site closure-capture "
    "promise task event listener timer child-process stdio signal config-source request response boundary "
    "resource unknown-frontier"
).split()


def _open_rows(description: str, required: tuple[str, ...] = ("kind",)) -> dict[str, Any]:
    """An array of open objects: our extra fact lists whose rows vary by kind (each names its kind)."""
    return {
        "type": "array",
        "description": description,
        "items": {
            "type": "object",
            "description": description,
            "properties": {k: {"type": "string"} for k in required},
            "required": list(required),
        },
    }


def _application(side: str = "application") -> Any:
    return field(
        f'{side}: analyze_javascript_application Evidence, inline or {{"kind": "retained-evidence", "evidence_id"}}',
        omit_none=True,
        type="object",
    )


def _semantic_graph_input() -> Any:
    return field(
        (
            "The semantic graph Evidence the application names (semantic_graph.retained), inline or "
            "retained; omitted: read from this connection"
        ),
        omit_none=True,
        type="object",
    )


def _evidence_id(what: str) -> Any:
    return field(f"Id of retained {what}", omit_none=True, pattern=EVIDENCE_ID)


def _native_ids() -> Any:
    return field(
        "Native observation Evidence ids retained by this connection",
        factory=tuple,
        schema={"type": "array", "maxItems": 64, "items": {"type": "string", "pattern": EVIDENCE_ID}, "default": []},
    )


def _native_observations() -> Any:
    return field(
        "Native Evidence to hand off to (unusable ones are named in limitations)",
        factory=tuple,
        schema={
            "type": "array",
            "items": {"type": "object", "description": "Native Evidence, complete inline"},
            "default": [],
        },
    )


# ------------------------------------------------------------------ arguments


def _ids(description: str, pattern: str = NODE_ID) -> Any:
    """A list of graph ids of one family (jag_node_ by default)."""
    return field(description, schema={"type": "array", "items": {"type": "string", "pattern": pattern}})


def _limit(default: int, maximum: int, minimum: int = 1) -> Any:
    return field(f"default {default}", default=default, minimum=minimum, maximum=maximum)


@attrs.frozen(kw_only=True)
class AnalyzeLimits:
    """Bounds of one analysis (our extra); a reached bound makes coverage partial and says which."""

    max_entries: int = _limit(100_000, 1_000_000)
    max_depth: int = _limit(64, 100)
    max_text_files: int = _limit(20_000, 100_000)
    max_text_file_bytes: int = _limit(32 * 1024 * 1024, 64 * 1024 * 1024)
    max_total_text_bytes: int = _limit(256 * 1024 * 1024, 1024 * 1024 * 1024)
    max_ast_nodes: int = _limit(2_000_000, 20_000_000)
    max_findings: int = _limit(8_000, 200_000)
    max_source_map_sources: int = _limit(5_000, 100_000)
    max_original_source_bytes: int = _limit(64 * 1024 * 1024, 1024 * 1024 * 1024, minimum=0)


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

    max_depth: int = _limit(12, 100_000, minimum=0)
    max_nodes: int = _limit(2000, 100_000)
    max_edges: int = _limit(4000, 100_000)
    max_paths: int = _limit(100, 100_000)
    max_seed_matches: int = _limit(25, 100_000)


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
    application: Open = _application()
    application_evidence_id: str | None = _evidence_id("application Evidence")
    semantic_graph: Open = _semantic_graph_input()
    native_observations: tuple[Open, ...] = _native_observations()
    native_observation_evidence_ids: tuple[str, ...] = _native_ids()
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

    max_depth: int = _limit(12, 64, minimum=0)
    max_edges: int = _limit(4000, 100_000)
    max_functions: int = _limit(500, 10_000)
    max_modules: int = _limit(500, 10_000)
    max_nodes: int = _limit(2000, 50_000)
    max_seed_matches: int = _limit(25, 1000)
    max_unknowns: int = _limit(1000, 10_000, minimum=0)
    page_size: int = _limit(200, 1000)


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
    application: Open = _application()
    application_evidence_id: str | None = _evidence_id("application Evidence")
    semantic_graph: Open = _semantic_graph_input()
    query: SemanticQuery = field("The semantic query")
    limits: TraceLimits = field("Traversal bounds", factory=TraceLimits)


@attrs.frozen(kw_only=True)
class VersionLimits:
    """Comparison bounds; max_candidate_nodes is accepted (each item has at most one candidate per side)."""

    max_comparison_items: int = _limit(20_000, 50_000)
    max_candidate_nodes: int = _limit(100, 1000)
    max_graph_nodes: int = _limit(20_000, 100_000)
    max_graph_edges: int = _limit(40_000, 200_000)


@attrs.frozen(kw_only=True)
class CompareVersionsArgs:
    left: Open = _application("left")
    right: Open = _application("right")
    left_evidence_id: str | None = _evidence_id("left application Evidence")
    right_evidence_id: str | None = _evidence_id("right application Evidence")
    left_native_observations: tuple[Open, ...] = _native_observations()
    right_native_observations: tuple[Open, ...] = _native_observations()
    left_native_observation_evidence_ids: tuple[str, ...] = _native_ids()
    right_native_observation_evidence_ids: tuple[str, ...] = _native_ids()
    limits: VersionLimits = field("Comparison bounds", factory=VersionLimits)
    detail: Literal["complete", "summary"] = field(
        "complete (default) or summary: counts, first items and parent_evidence_id to page with the comparison view",
        default="complete",
    )


@attrs.frozen(kw_only=True)
class SourceLimits:
    max_source_files: int = _limit(10_000, 100_000)
    max_application_nodes: int = _limit(20_000, 100_000)
    max_candidate_nodes: int = _limit(100, 1000)
    max_candidate_evaluations: int = _limit(1_000_000, 10_000_000)


@attrs.frozen(kw_only=True)
class ShapeLimits:
    """max_return_variants is accepted: shapes keep each direct return's keys, not variants."""

    max_candidate_exports: int = _limit(100, 1000)
    max_changes: int = _limit(1000, 10_000)
    max_return_variants: int = _limit(128, 1000)


@attrs.frozen(kw_only=True)
class SourceToBundleArgs:
    application: Open = _application()
    application_evidence_id: str | None = _evidence_id("application Evidence")
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
    left: Open = _application("left")
    right: Open = _application("right")
    left_evidence_id: str | None = _evidence_id("left application Evidence")
    right_evidence_id: str | None = _evidence_id("right application Evidence")
    left_module_path: str = field("Module path in the left record", minLength=1, maxLength=4096)
    left_export_name: str = field("Export name (default for the default export)", minLength=1, maxLength=4096)
    right_module_path: str = field("Module path in the right record", minLength=1, maxLength=4096)
    right_export_name: str = field("Export name", minLength=1, maxLength=4096)
    limits: ShapeLimits = field("Comparison bounds", factory=ShapeLimits)


# -------------------------------------------------------------- the graph


@attrs.frozen(kw_only=True)
class Location:
    path: str = field("File path in the application tree")
    line: int | None = field("1-based line", omit_none=True)
    start: int | None = field("Byte offset where the fact starts", omit_none=True)
    end: int | None = field("Byte offset where it ends", omit_none=True)


@attrs.frozen(kw_only=True)
class RoleRow:
    role: Literal["main", "preload", "renderer", "utility"] = field("Electron process role")
    basis: str = field("Why the module has the role")


@attrs.frozen(kw_only=True)
class ExportRow:
    name: str = field("Export name (default for the default export)")
    form: str | None = field("How it is exported", omit_none=True)
    shape: Open = field("Static shape: {type, members?, returns?, ...}", omit_none=True)
    line: int | None = field("Line of the export", omit_none=True)


@attrs.frozen(kw_only=True)
class OpenExports:
    reason: Literal[
        "star-re-export",
        "computed-define-property",
        "computed-export-assignment",
        "module-exports-assigned-value",
        "umd-factory-returns-value",
        "umd-factory-returns-nothing-static",
    ] = field("Why exports beyond those listed may exist")
    line: int = field("Line of the form", minimum=1)
    specifier: str | None = field("The re-exported module (star re-exports)", omit_none=True)
    value: str | None = field("Syntax of the assigned value", omit_none=True)


@attrs.frozen(kw_only=True)
class EffectiveConfig:
    base_url: str | None = field("compilerOptions.baseUrl after extends")
    paths: int = field("Path mappings after extends")
    paths_from: str | None = field("Config the mappings come from")


ReferenceNodeKind = Literal[
    "package", "installer", "artifact", "asar-entry", "electron-main", "electron-preload", "electron-renderer",
    "electron-utility", "javascript-asset", "javascript-chunk", "javascript-module", "source-map", "source-module",
    "browser-window", "frame", "target", "context-bridge-api", "ipc-channel", "ipc-handler", "worker",
    "service-worker", "endpoint", "storage", "native-addon", "native-export", "managed-assembly", "managed-module",
    "managed-type", "managed-method", "managed-field", "managed-pinvoke-import", "managed-native-implementation",
    "runtime-script-instance", "unknown",
]  # fmt: skip
UnavailableReason = Literal[
    "not-applicable", "not-observed", "not-approved", "truncated", "provider-unavailable", "unresolved", "unknown"
]
Authority = Literal[
    "artifact-bytes", "ast-static-analysis", "static-relationship-inference", "passive-cdp-runtime",
    "cross-layer-reconciliation", "cross-version-comparison", "controlled-replay", "native-analysis-provider",
    "managed-static-analysis", "historical-reference", "user-assertion", "unknown",
]  # fmt: skip


@attrs.frozen(kw_only=True)
class Unavailable:
    available: Literal[False] = field("Not available")
    reason: UnavailableReason = field("Why")
    detail: str = field("What is missing", minLength=1)


@attrs.frozen(kw_only=True)
class ArtifactRef:
    available: Literal[True] = field("The bytes it was read from")
    artifact_id: str = field("art_<sha256> of the file's digest and size (as inventory_artifact names it)")
    sha256: str = field("The file's digest", pattern=SHA256)


@attrs.frozen(kw_only=True)
class ArtifactPath:
    kind: Literal["artifact-path"] = field("A path in the application tree")
    path: str = field("The path", minLength=1)


@attrs.frozen(kw_only=True)
class LocatedAt:
    available: Literal[True] = field("Where it was read")
    value: ArtifactPath = field("The location (line and byte range: the node's or edge's own location)")


@attrs.frozen(kw_only=True)
class Extractor:
    name: str = field("What extracted it")
    version: str = field("Its version", minLength=1)
    operation: str = field("The operation")
    executable_sha256: str | None = field("Digest of its executable (null: a library)")


@attrs.frozen(kw_only=True)
class GraphEvidence:
    authority: Authority = field("What the fact rests on")
    state: Literal["observed", "inferred", "unknown", "unavailable"] = field("observed, inferred or unknown")
    confidence: Literal["exact", "high", "medium", "low", "unknown"] = field("Confidence")
    artifact: ArtifactRef | Unavailable = field("The file it was read from")
    location: LocatedAt | Unavailable = field("Where in the tree")
    extractor: Extractor = field("What extracted it")
    coverage: GraphCoverage = field("Completeness of this observation (partial: facts omitted or not read)")
    limitations: tuple[str, ...] = field("What it does not establish")
    evidence_ids: tuple[str, ...] = field("Other Evidence it rests on")


@attrs.frozen(kw_only=True)
class NodeStrategy:
    strategy: Literal["semantic-content-sha256"] = field("Ids are digests of content")
    stability: Literal["observation-exact"] = field("One id per distinct observation")


@attrs.frozen(kw_only=True)
class EdgeStrategy:
    strategy: Literal["semantic-content-sha256"] = field("Ids are digests of content")
    stability: Literal["relationship-exact"] = field("One id per distinct relationship")


@attrs.frozen(kw_only=True)
class Observation:
    label: str | None = field("The node's readable key")
    source_map_reference: None = field("Source-map reference (not recorded: null)")
    properties: Open = field("The node's facts (the same as its flat fields)", schema={"type": "object"})
    evidence: GraphEvidence = field("Where the observation comes from")
    observation_id: str = field("jag_observation_<sha256> of the observation", pattern="^jag_observation_[a-f0-9]{64}$")
    identifier_strategy: NodeStrategy = field("How the observation id is derived")


@attrs.frozen(kw_only=True)
class CanonicalPathIdentity:
    strategy: Literal["canonical-path"] = field("A file of the tree, by its path")
    stability: Literal["artifact-version"] = field("Stable within this version of the application")
    artifact_sha256: str = field("The application tree (root_artifact_sha256)", pattern=SHA256)
    path: str = field("The path", minLength=1)


@attrs.frozen(kw_only=True)
class SourceMapIdentity:
    strategy: Literal["source-map-original"] = field("An original source a source map names")
    stability: Literal["source-map-exact"] = field("Stable for this source map")
    source_map_sha256: str = field("The source map's digest", pattern=SHA256)
    original_source: str = field("The source's name in the map", minLength=1)
    source_sha256: str | None = field("Digest of its embedded content, when embedded", pattern=SHA256)


@attrs.frozen(kw_only=True)
class LocalKeyIdentity:
    strategy: Literal["artifact-local-key"] = field("A key local to this application version")
    stability: Literal["artifact-version"] = field("Stable within this version of the application")
    artifact_sha256: str = field("The application tree (root_artifact_sha256)", pattern=SHA256)
    namespace: str = field("Our node kind", minLength=1)
    key: str = field("The node's readable key", minLength=1)


@attrs.frozen(kw_only=True)
class GraphNode:
    """One node: the reference's fields (node_id, kind, identity, observations), then our readable key,
    our kind and the facts of that kind as optional flat fields."""

    node_id: str = field("jag_node_<sha256> of the node's readable key", pattern=NODE_ID)
    kind: ReferenceNodeKind = field("The reference's node kind (ours is subkind)")
    identity: CanonicalPathIdentity | SourceMapIdentity | LocalKeyIdentity = field("What the node is")
    observations: tuple[Observation, ...] = field("What this analysis observed of it", minItems=1)
    label: str = field("The readable key the id is derived from (kind:path, ipc-channel:name, ...)")
    subkind: str = field("Our node kind: module, html-document, ipc-channel, browser-window, package, ...")
    location: Location | None = field("Where the node is evidenced", omit_none=True)
    path: str | None = field("File or original source path", omit_none=True)
    language: str | None = field("javascript or typescript", omit_none=True)
    size: int | None = field("File size in bytes", omit_none=True)
    sha256: str | None = field("Content digest of the file read", omit_none=True)
    parse: str | None = field("ok, recovered, failed, not-read", omit_none=True)
    package: str | None = field("Directory of the owning package.json", omit_none=True)
    roles: tuple[RoleRow, ...] | None = field("Electron roles of a module", omit_none=True)
    syntax_errors: int | None = field("Syntax errors the parser recovered from", omit_none=True)
    omitted_reason: str | None = field("Why the file's facts are incomplete", omit_none=True)
    exports: tuple[ExportRow, ...] | None = field("Exports and their static shapes", omit_none=True)
    exports_open: tuple[OpenExports, ...] | None = field(
        "Why the export list is not closed (a star re-export, a computed name, an assigned value)", omit_none=True
    )
    es_module: bool | None = field("Marked __esModule (TypeScript/Babel CommonJS output)", omit_none=True)
    bundlers: tuple[str, ...] | None = field("Bundler runtimes detected", omit_none=True)
    inline_scripts: int | None = field("Inline <script> blocks of an HTML document", omit_none=True)
    sources: int | None = field("Sources a source map lists", omit_none=True)
    sources_with_content: int | None = field("Sources with embedded content", omit_none=True)
    sources_omitted: int | None = field("Sources past the bound", omit_none=True)
    sources_parsed: int | None = field("Embedded sources parsed", omit_none=True)
    status: str | None = field("Nested ASAR: expanded, or why not", omit_none=True)
    name: str | None = field("Package or builtin module name", omit_none=True)
    version: str | None = field("Package version", omit_none=True)
    main: str | None = field("package.json main", omit_none=True)
    type: str | None = field("package.json type", omit_none=True)
    has_exports: bool | None = field("package.json has an exports map", omit_none=True)
    has_imports: bool | None = field("package.json has an imports map", omit_none=True)
    bin: Open = field("package.json bin: a path or {name: path}", omit_none=True)
    dependencies: dict[str, str] | None = field("Runtime dependencies and their ranges", omit_none=True)
    dev_dependencies: dict[str, str] | None = field("Root package's devDependencies", omit_none=True)
    extends: tuple[str, ...] | None = field("tsconfig extends", omit_none=True)
    base_url: str | None = field("tsconfig baseUrl", omit_none=True)
    paths: int | None = field("tsconfig path mappings", omit_none=True)
    paths_omitted: int | None = field("tsconfig path mappings past the bound", omit_none=True)
    governs: bool | None = field("A governing tsconfig", omit_none=True)
    effective: EffectiveConfig | None = field("What a governing tsconfig ends up with", omit_none=True)
    specifier: str | None = field("Unresolved import specifier", omit_none=True)
    url: str | None = field("URL literal", omit_none=True)
    constructor: str | None = field("BrowserWindow, BrowserView or WebContentsView", omit_none=True)
    web_preferences: dict[str, bool] | None = field("Literal webPreferences flags", omit_none=True)
    key: str | None = field("contextBridge key", omit_none=True)
    members: tuple[str, ...] | None = field("Exposed API members", omit_none=True)
    members_truncated: bool | None = field("Member list past the bound", omit_none=True)
    scheme: str | None = field("Custom protocol scheme", omit_none=True)
    method: str | None = field("Route HTTP method", omit_none=True)
    route: str | None = field("Route path", omit_none=True)
    channel: str | None = field("IPC channel name", omit_none=True)
    ends: dict[str, int] | None = field("IPC ends by direction:handler|sender", omit_none=True)
    linked: bool | None = field("Both ends of an IPC direction were seen", omit_none=True)
    source: str | None = field("Original source name in its source map", omit_none=True)
    content_sha256: str | None = field("Digest of the embedded original source", omit_none=True)
    segments: int | None = field("Mapped segments", omit_none=True)
    bundle: str | None = field("Bundle file of a bundled module", omit_none=True)
    module_id: str | None = field("Bundler module id", omit_none=True)
    recovered_by: str | None = field("How the bundled module was recovered", omit_none=True)
    runs: int | None = field("Mapping runs of the bundled module", omit_none=True)
    generated_lines: tuple[int | None, ...] | None = field("First and last generated line", omit_none=True)


@attrs.frozen(kw_only=True)
class GraphEdge:
    edge_id: str = field("jag_edge_<sha256> of the edge's ends, relation and location", pattern=EDGE_ID)
    source_node_id: str = field("Where the relation starts", pattern=NODE_ID)
    target_node_id: str = field("Where it ends", pattern=NODE_ID)
    relation: Relation = field("Relation kind")
    location: Location = field("Where the relation is evidenced")
    kind: str | None = field("Sub-kind (require, invoke, preload, mappings, ...)", omit_none=True)
    specifier: str | None = field("Import specifier", omit_none=True)
    basis: str | None = field("Rule that resolved the target", omit_none=True)
    type_only: bool | None = field("A type-only import", omit_none=True)
    computed: bool | None = field("A computed preload path", omit_none=True)
    direction: str | None = field("IPC direction", omit_none=True)
    reference: str | None = field("tsconfig extends reference", omit_none=True)
    module_id: str | None = field("Bundler module id a require names", omit_none=True)
    source_line: int | None = field("Line in the original source", omit_none=True)
    mapped: str | None = field("Target a package imports map gave", omit_none=True)
    via: str | None = field("Rule that resolved the mapped target", omit_none=True)
    subpath: str | None = field(
        "package.json exports subpath ('.', './feature', a `*` pattern expanded) or imports key ('#x')",
        omit_none=True,
    )
    conditions: tuple[tuple[str, ...], ...] | None = field(
        "The condition chains that select the target, outermost first ([['node', 'import'], ['default']]; [] for "
        "a plain string target)",
        omit_none=True,
    )
    format: str | None = field(
        "How Node loads the target: esm (.mjs, or .js under type module), commonjs, types (.d.ts), json, node",
        omit_none=True,
    )
    syntax: str | None = field(
        "What the target is written in (esm, commonjs) when it differs from format: ESM text a bundler's "
        "`module`/`import` condition names in a package Node would load as CommonJS",
        omit_none=True,
    )
    properties: Open = field("The edge's facts (the same as its flat fields)", schema={"type": "object"})
    evidence: GraphEvidence = field("Where the relation comes from")
    identifier_strategy: EdgeStrategy = field("How the edge id is derived")


@attrs.frozen(kw_only=True)
class LimitRow:
    name: str = field("Limit name")
    unit: Literal["items", "bytes", "milliseconds", "depth", "characters", "instructions", "other"] = field("Unit")
    value: int = field("Limit value", minimum=0)


@attrs.frozen(kw_only=True)
class GraphCoverage:
    status: GraphStatus = field("complete, partial, unknown or unavailable")
    truncated: bool = field("A bound cut the graph")
    omitted_count: int | None = field("Facts omitted, when counted")
    limits: tuple[LimitRow, ...] = field("The bounds that were reached")


@attrs.frozen(kw_only=True)
class ApplicationGraph:
    schema: Literal["JavaScriptApplicationGraph"] = field("Graph schema")
    schema_version: Literal[1] = field("Graph schema version")
    graph_id: str = field("jag_<sha256>: identity of the graph (tree digest, bounds, analyzer)")
    root_node_ids: tuple[str, ...] = _ids("Entry points of the graph")
    nodes: tuple[GraphNode, ...] = field("Every node, by node_id")
    edges: tuple[GraphEdge, ...] = field("Every edge")
    coverage: GraphCoverage = field("What the graph covers")
    limitations: tuple[str, ...] = field("What the graph does not establish")


# ------------------------------------------------------ analyze: the result


@attrs.frozen(kw_only=True)
class IpcSummary:
    operations: int = field("IPC calls seen (literal or dynamic channel)", minimum=0)
    literal_channels: int = field("Distinct literal channels", minimum=0)
    dynamic_channel_operations: int = field("IPC calls whose channel is computed", minimum=0)
    renderer_transmissions: int = field("Renderer send/invoke calls", minimum=0)
    renderer_listeners: int = field("Renderer on/once listeners", minimum=0)
    main_handlers: int = field("Main-process handle/on handlers", minimum=0)
    paired_renderer_transmissions: int = field("Renderer transmissions with a main handler", minimum=0)
    ambiguous_renderer_transmissions: int = field("Renderer transmissions with a dynamic channel", minimum=0)
    unpaired_literal_renderer_transmissions: int = field("Literal transmissions no handler answers", minimum=0)


@attrs.frozen(kw_only=True)
class ElectronSummary:
    browser_windows: int = field("BrowserWindow/BrowserView constructions", minimum=0)
    explicit_web_preferences: int = field("Windows with literal webPreferences flags", minimum=0)
    preload_entrypoints: int = field("Modules with the preload role", minimum=0)
    context_bridge_apis: int = field("contextBridge.exposeInMainWorld keys", minimum=0)
    exposed_api_members: int = field("Members of the exposed APIs", minimum=0)
    ipc: IpcSummary = field("IPC counts")
    sender_validation_observations: int = field("Sender checks seen (not modelled: 0)", minimum=0)
    utility_processes: int = field("utilityProcess.fork calls", minimum=0)
    resolved_utility_entrypoints: int = field("utilityProcess entry files resolved", minimum=0)
    native_addon_bindings: int = field("Native add-ons in the tree", minimum=0)
    resolved_native_addon_bindings: int = field("Native add-ons a module loads", minimum=0)


@attrs.frozen(kw_only=True)
class Statistics:
    relevant_files: int = field("Text files of the kinds analysed", minimum=0)
    nested_asar_containers: int = field("Nested .asar files", minimum=0)
    text_bytes_read: int = field("Bytes read", minimum=0)
    invalid_utf8_files: int = field("Files that were not UTF-8", minimum=0)
    parsed_javascript_files: int = field("JavaScript/TypeScript files parsed", minimum=0)
    visited_ast_nodes: int = field("Syntax nodes visited", minimum=0)
    findings: int = field("Findings listed", minimum=0)
    modules: int = field("Module nodes", minimum=0)
    parse_failures: int = field("Files that failed to parse", minimum=0)
    truncated_scopes: int = field("Files or maps whose facts a bound cut", minimum=0)
    text_files_selected: int = field("Text files chosen for reading", minimum=0)
    omitted_text_files: int = field("Text files not read", minimum=0)
    limit_omitted_text_files: int = field("Text files a limit kept out", minimum=0)
    policy_filtered_text_files: int = field("Text files a policy kept out (none here)", minimum=0)
    entries: int = field("Entries scanned (our extra)", minimum=0)
    files: int = field("Files scanned", minimum=0)
    files_read: int = field("Files read", minimum=0)
    parsed_files: int = field("Files parsed", minimum=0)
    recovered_parses: int = field("Parses with recovered syntax errors", minimum=0)
    bytes_read: int = field("Bytes read", minimum=0)
    ast_nodes: int = field("Syntax nodes", minimum=0)
    bundled_modules: int = field("Bundled modules recovered", minimum=0)
    original_source_modules: int = field("Source-map original sources", minimum=0)
    nodes: int = field("Graph nodes", minimum=0)
    edges: int = field("Graph edges", minimum=0)
    unknowns: int = field("Unknowns recorded", minimum=0)
    ipc_channels: int = field("IPC channel nodes", minimum=0)
    files_by_kind: dict[str, int] = field("Files per kind")
    nodes_by_kind: dict[str, int] = field("Nodes per kind")
    edges_by_relation: dict[str, int] = field("Edges per relation")
    omissions_by_reason: dict[str, int] = field("Omissions per reason")


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
    unknown_ids: tuple[str, ...] = _ids("Unknowns of the family (first 1000)", SEMANTIC_UNKNOWN_ID)


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
    application_node_ids: tuple[str, ...] = _ids("The application graph module it is in")
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
    candidate_node_ids: tuple[str, ...] = _ids("Candidates", SEMANTIC_NODE_ID)
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
    root_node_ids: tuple[str, ...] = _ids("Module nodes", SEMANTIC_NODE_ID)
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


@attrs.frozen(kw_only=True)
class ApplicationInfo:
    root: str = field("Local root that was analysed")
    format: Literal["asar", "directory"] = field("What was read")
    electron: bool = field("An Electron application")
    unpacked_directory: bool | None = field("An .asar.unpacked companion exists", omit_none=True)


@attrs.frozen(kw_only=True)
class OurCoverage:
    status: Literal["complete", "partial"] = field("complete, or partial (a limit, failure or mismatch)")
    limits_reached: tuple[str, ...] = field("Limits that were reached")
    parse_failures: int = field("Files that failed to parse", minimum=0)
    integrity_contradictions: int = field("Integrity mismatches continued past", minimum=0)
    note: str = field("What static coverage means")
    cancelled_during: str | None = field("Phase a cancellation stopped", omit_none=True)


@attrs.frozen(kw_only=True)
class EntryPoint:
    node: str = field("Entry node id (graph.nodes[].node_id)", pattern=NODE_ID)
    label: str = field("Its readable key")
    basis: str = field("Why it is an entry point")
    role: str | None = field("Electron role, when known")
    subpath: str | None = field("package.json exports subpath of a public entry point", omit_none=True)
    conditions: tuple[tuple[str, ...], ...] | None = field(
        "Condition chains that select it (node/browser/import/require/default, nested)", omit_none=True
    )
    format: str | None = field("How Node loads it: esm, commonjs, types, json, node", omit_none=True)
    syntax: str | None = field("What it is written in, when that differs from format", omit_none=True)


@attrs.frozen(kw_only=True)
class ParseFailure:
    path: str = field("File")
    error: str = field("Parser message")


@attrs.frozen(kw_only=True)
class Omission:
    path: str = field("Entry")
    reason: str = field("Why it was not read")
    size: int | None = field("Size, when known", omit_none=True)
    detail: str | None = field("What went wrong, when known", omit_none=True)
    target: str | None = field("A symlink's target (symlinks are not followed)", omit_none=True)


@attrs.frozen(kw_only=True)
class IntegrityContradiction:
    logical_path: str = field("Entry path inside the archive")
    declared_sha256: str = field("Digest the ASAR header declares")
    calculated_sha256: str = field("Digest of the bytes read")
    unpacked: bool = field("The entry lives in .asar.unpacked")
    archive: str | None = field("Archive holding the entry", omit_none=True)
    trust: str | None = field("contradicted", omit_none=True)
    provenance: str | None = field("Which check found it", omit_none=True)
    blocks: str | None = field("Block hashes that failed", omit_none=True)
    nested_archive: bool | None = field("The entry is a nested archive", omit_none=True)


@attrs.frozen(kw_only=True)
class AnalyzeResult:
    schema_version: Literal[1] = field("Result schema version")
    input_path: str = field("The path analysed")
    format: Literal["asar", "directory"] = field("What was read")
    root_artifact_sha256: str = field("Identity of the tree read (paths, sizes, contents)", pattern=SHA256)
    inventory_manifest_id: str = field(
        "agm_<sha256> of the scanned inventory's manifest (commits to inventory_graph_sha256)",
        pattern="^agm_[a-f0-9]{64}$",
    )
    inventory_graph_sha256: str = field(
        "Digest of the scanned inventory: every entry's path, kind and size, and each file read's digest",
        pattern=SHA256,
    )
    graph: ApplicationGraph = field("The application graph")
    summary: ElectronSummary = field("Electron architecture and boundary counts")
    statistics: Statistics = field("Reconstruction statistics")
    limitations: tuple[str, ...] = field("What the analysis does not establish")
    semantic_graph: RetainedSemanticGraph | SemanticGraph = field(
        "The semantic companion graph: retained as its own Evidence (named here), or inline and unavailable "
        "for an analysis cancelled before its phase"
    )
    schema: str = field("Our record schema (extra)")
    application: ApplicationInfo = field("Application facts (extra)")
    limits: dict[str, int] = field("Bounds applied (extra)")
    coverage: OurCoverage = field("Coverage of the analysis (extra)")
    entry_points: tuple[EntryPoint, ...] = field("Entry points and why (extra)")
    findings: tuple[Open, ...] = field(
        "Top facts (extra)", schema=_open_rows("A finding: {kind, node?, path?, line?, ...}")
    )
    unknowns: tuple[Open, ...] = field(
        "What static analysis could not decide (extra)",
        schema=_open_rows("An unknown: {kind, node?, path?, reason?, ...}"),
    )
    parse_failures: tuple[ParseFailure, ...] = field("Files that failed to parse (extra)")
    omitted_entries: tuple[Omission, ...] = field("Entries not read, first 1000 (extra)")
    integrity_contradictions: tuple[IntegrityContradiction, ...] = field("ASAR integrity mismatches (extra)")
    integrity_policy: Literal["fail", "record-and-continue"] = field("Policy applied")


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
    edge_ids: tuple[str, ...] = _ids("Edges in order", EDGE_ID)
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
    pruned_node_ids: tuple[str, ...] = _ids("The first 100 of them")


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
    frontier_node_ids: tuple[str, ...] = _ids("Nodes where a bound stopped the traversal")
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
        schema=_open_rows("An unknown: {kind, node?, path?, line?, direction?, ...}"),
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
    application_node_ids: tuple[str, ...] = _ids("Application graph nodes it stands for")
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
    seed_node_ids: tuple[str, ...] = _ids("Seed nodes", SEMANTIC_NODE_ID)
    evidence_contexts: tuple[SemanticEvidenceContext, ...] = field("Provenance of the nodes and relations returned")
    nodes: tuple[SemanticNodeRow, ...] = field("Nodes reached")
    relations: tuple[SemanticRelationRow, ...] = field("Relations followed")
    unknowns: tuple[SemanticUnknownRow, ...] = field("Semantic unknowns on the reached nodes (bounded by max_unknowns)")
    expected_match_node_ids: tuple[str, ...] = _ids("Reached nodes of the expected classes", SEMANTIC_NODE_ID)
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
    candidate_left_node_ids: tuple[str, ...] = _ids("Left candidates")
    candidate_right_node_ids: tuple[str, ...] = _ids("Right candidates")


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
    root_node_ids: tuple[str, ...] = _ids("Roots of both sides that are kept")
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


@attrs.frozen(kw_only=True)
class SourceSignal:
    kind: Literal[
        "exact-source-digest",
        "source-map-original-path",
        "current-path-exact",
        "current-path-suffix",
        "basename-match",
        "language-extension",
    ] = field("Signal")
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
    status: Literal["unchanged", "modified", "removed", "split", "merged", "duplicated", "unknown"] = field("Outcome")
    confidence: Literal["exact", "high", "medium", "unknown"] = field("Confidence of the mapping")
    current_node_ids: tuple[str, ...] = _ids("Application nodes it maps to")
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
    unmapped_current_node_ids: tuple[str, ...] = _ids("Shipped modules no reference source maps to")
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
