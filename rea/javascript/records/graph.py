"""Wire records of the JavaScript application family: REA 6.x argument and result shapes.

Names, types and enums follow the reference (applicationWorkflowInputContracts,
javascriptApplicationAnalysis, javascriptFeatureTraceSchemas, javascriptSemanticQuerySchemas
and the 3.1 comparison results). Our extras are optional arguments or additional result
fields, never a different shape for a shared name. Graph node and edge ids are the reference's
`jag_node_`/`jag_edge_` digests (rea.javascript.ids); a node keeps its readable key as `label`
and its kind-specific facts as optional fields (absent when the kind has none).
"""

from __future__ import annotations

from typing import Literal

import attrs

from rea.javascript.ids import EDGE_ID, NODE_ID
from rea.javascript.records.fields import SHA256, GraphStatus, Relation, id_list
from rea.wire.schema import Open, field

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
    root_node_ids: tuple[str, ...] = id_list("Entry points of the graph")
    nodes: tuple[GraphNode, ...] = field("Every node, by node_id")
    edges: tuple[GraphEdge, ...] = field("Every edge")
    coverage: GraphCoverage = field("What the graph covers")
    limitations: tuple[str, ...] = field("What the graph does not establish")
