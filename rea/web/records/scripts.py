"""Wire records of the web family's script tools (REA 6.x domain/webBundleAnalysis, webScriptExport,
webScriptArtifacts, webModuleTrace, webSourceLocation).

analyze_web_bundle captures script sources passively over a caller's loopback CDP endpoint and parses
them; export_web_scripts publishes the sources a saved capture retained; the two traces read that
export's manifest. Names, enums and fields are the reference's; extras are optional.
"""

from __future__ import annotations

from typing import Literal

import attrs

from rea.wire.schema import field, local_path
from rea.web.records.browser import SHA256, Completeness, InspectWebPageArgs, WebTextArtifact

# ---------------------------------------------------------------- analyze_web_bundle


@attrs.frozen(kw_only=True)
class BundleLimits:
    max_findings: int = field(
        "Edges, routes, endpoints, declarations and inferences kept", default=1_000, minimum=1, maximum=10_000
    )
    max_ast_nodes: int = field("Syntax nodes walked over all scripts", default=250_000, minimum=1, maximum=2_000_000)
    max_source_maps: int = field("Source maps fetched", default=100, minimum=1, maximum=1_000)
    max_source_map_bytes: int = field("Bytes of one source map", default=4 << 20, minimum=1, maximum=16 << 20)
    max_total_source_map_bytes: int = field("Bytes of all source maps", default=16 << 20, minimum=1, maximum=64 << 20)
    max_source_map_mappings: int = field("Mappings kept per map", default=10_000, minimum=1, maximum=100_000)
    max_original_sources: int = field("Original sources one map may list", default=2_000, minimum=1, maximum=20_000)


@attrs.frozen(kw_only=True)
class AnalyzeWebBundleArgs(InspectWebPageArgs):
    include_script_sources: bool = field(
        "Capture script sources (the analysis needs them; false is refused)", default=True
    )
    approved: bool = field("Ignored (kept for older clients)", default=True)
    source_capture_approved: bool = field("Ignored (kept for older clients)", default=True)
    analysis_limits: BundleLimits = field("Analysis bounds", factory=BundleLimits)
    fetch_source_maps: bool = field(
        "Fetch each script's declared source map, only from allowed origins (the page's own when none given)",
        default=False,
    )
    source_map_fetch_approved: bool = field(
        "Ignored (older clients; fetch_source_maps decides)",
        default=False,
    )


@attrs.frozen(kw_only=True)
class SourceArtifactSummary:
    uri: str = field("rea://web-content/sha256/<sha256>", pattern="^rea://web-content/sha256/[a-f0-9]{64}$")
    sha256: str = field("", pattern=SHA256)
    bytes: int = field("UTF-8 length", minimum=0)
    media_type: str = field("", minLength=1, maxLength=256)
    charset: Literal["utf-8"] = field("")
    text_available: Literal[True] = field("The text was captured (export it with include_script_sources)")


@attrs.frozen(kw_only=True)
class BundleCapture:
    target_url: str = field("The page's URL")
    scripts_observed: int = field("Scripts the page parsed", minimum=0)
    scripts_analyzed: int = field("Scripts whose source was captured and parsed", minimum=0)
    source_artifacts: tuple[SourceArtifactSummary, ...] = field("Identity of each analyzed source")


@attrs.frozen(kw_only=True)
class SourceLocation:
    script_key: str = field("")
    line: int | None = field("One-based line", minimum=1)
    column: int | None = field("Zero-based UTF-16 column", minimum=0)


@attrs.frozen(kw_only=True)
class ChunkNode:
    script_key: str = field("")
    url: str = field("")
    artifact_sha256: str = field("", pattern=SHA256)
    bytes: int = field("", minimum=0)


ChunkEdgeKind = Literal["static_import", "dynamic_import", "require", "worker_import"]


@attrs.frozen(kw_only=True)
class ChunkEdge:
    from_script_key: str = field("")
    kind: ChunkEdgeKind = field("")
    specifier: str = field("As written (at most 4096 characters)")
    resolved_url: str | None = field("Against the script URL; null for a bare or non-http(s) specifier")
    location: SourceLocation = field("")


@attrs.frozen(kw_only=True)
class Chunks:
    nodes: tuple[ChunkNode, ...] = field("Analyzed scripts")
    edges: tuple[ChunkEdge, ...] = field("Literal imports, requires and importScripts")


@attrs.frozen(kw_only=True)
class Finding:
    value: str = field("Route or endpoint (query values and fragment removed)")
    mechanism: str = field("call:<callee>, property:<key>, new:<constructor>")
    location: SourceLocation = field("")


@attrs.frozen(kw_only=True)
class WebMcpDeclaration:
    name: str | None = field("")
    description: str | None = field("")
    schema_property_names: tuple[str, ...] = field("")
    trust: Literal["page-declared-untrusted"] = field("")
    location: SourceLocation = field("")


@attrs.frozen(kw_only=True)
class OriginalSource:
    source: str = field("Resolved original source name")
    artifact: WebTextArtifact | None = field("Its sourcesContent, when embedded")


@attrs.frozen(kw_only=True)
class OriginalModuleEdge:
    from_source: str = field("")
    kind: Literal["static_import", "dynamic_import", "require"] = field("")
    specifier: str = field("")
    resolved_source: str | None = field("")


@attrs.frozen(kw_only=True)
class SourceMapMapping:
    generated_line: int = field("", minimum=1)
    generated_column: int = field("", minimum=0)
    source: str = field("")
    original_line: int = field("", minimum=1)
    original_column: int = field("", minimum=0)
    name: str | None = field("")


SourceMapStatus = Literal["included", "truncated", "fetch_failed", "invalid", "policy_filtered"]


@attrs.frozen(kw_only=True)
class SourceMapItem:
    script_key: str = field("")
    declared_url: str = field("sourceMappingURL as the browser reported it")
    status: SourceMapStatus = field("")
    artifact: WebTextArtifact | None = field("The map's text (null unless included or truncated)")
    original_sources: tuple[OriginalSource, ...] = field("")
    original_module_edges: tuple[OriginalModuleEdge, ...] = field("")
    mappings: tuple[SourceMapMapping, ...] = field("")
    limitation: str | None = field("Why it is not complete (null when included)")


@attrs.frozen(kw_only=True)
class SourceMaps:
    status: Literal["not_requested", "included", "partial", "unavailable", "truncated"] = field("")
    requested: int = field("Scripts declaring a map", minimum=0)
    processed: int = field("", minimum=0)
    dropped: int = field("Past max_source_maps or the byte budget", minimum=0)
    dropped_script_keys: tuple[str, ...] = field("")
    items: tuple[SourceMapItem, ...] = field("")


@attrs.frozen(kw_only=True)
class BundleObservations:
    chunks: Chunks = field("")
    routes: tuple[Finding, ...] = field("")
    endpoints: tuple[Finding, ...] = field("")
    webmcp_declarations: tuple[WebMcpDeclaration, ...] = field("")
    source_maps: SourceMaps = field("")


@attrs.frozen(kw_only=True)
class InferenceBasis:
    script_key: str = field("")
    artifact_sha256: str = field("", pattern=SHA256)
    line: int | None = field("", minimum=1)
    column: int | None = field("", minimum=0)
    detector: str = field("")


@attrs.frozen(kw_only=True)
class BundleInference:
    kind: Literal["vendor_fingerprint", "route_framework", "bundle_runtime"] = field("")
    value: str = field("")
    confidence: Literal["low", "medium", "high"] = field("")
    basis: tuple[InferenceBasis, ...] = field("", minItems=1)


@attrs.frozen(kw_only=True)
class BundleUnknown:
    dimension: str = field("script_source, javascript_ast, source_maps")
    reason: str = field("")
    affected_script_keys: tuple[str, ...] = field("")


@attrs.frozen(kw_only=True)
class BundleCompleteness:
    status: Literal["complete_within_limits", "truncated", "partial"] = field("")
    parsed_scripts: int = field("", minimum=0)
    parse_failures: int = field("Scripts the parser could not read (or recovered from syntax errors)", minimum=0)
    visited_ast_nodes: int = field("", minimum=0)
    dropped_findings: int = field("", minimum=0)


@attrs.frozen(kw_only=True)
class ParserIdentity:
    """Our extra: the parser every script went through."""

    name: Literal["tree-sitter"] = field("")
    grammar: str = field("tree-sitter-javascript")


@attrs.frozen(kw_only=True)
class WebBundleAnalysis:
    schema_version: Literal[1] = field("")
    capture: BundleCapture = field("")
    observations: BundleObservations = field("")
    inferences: tuple[BundleInference, ...] = field("")
    unknowns: tuple[BundleUnknown, ...] = field("")
    completeness: BundleCompleteness = field("")
    limitations: tuple[str, ...] = field("")
    parser: ParserIdentity = field("Our extra")
    capture_completeness: Completeness = field("Our extra: completeness of the page capture behind the analysis")


# ---------------------------------------------------------------- export_web_scripts


@attrs.frozen(kw_only=True)
class ExportWebScriptsArgs:
    capture_path: str = local_path("Saved inspect_web_page JSON (normalized result or Evidence) with script sources")
    output_directory: str | None = local_path(
        "Absent directory (its parent exists); omitted: a fresh temporary one, named in the result",
        omit_none=True,
    )


@attrs.frozen(kw_only=True)
class PageScriptSource:
    kind: Literal["page-script"] = field("")
    script_key: str = field("")
    frame_id: str | None = field("")
    is_module: bool | None = field("")
    language: str | None = field("")
    source_map_url: str | None = field("")


@attrs.frozen(kw_only=True)
class ScenarioResponseSource:
    kind: Literal["scenario-response"] = field("")
    transaction_id: str | None = field("")
    request_sequence: int = field("", minimum=1)
    response_sequence: int | None = field("", minimum=1)
    status: float | None = field("")


@attrs.frozen(kw_only=True)
class ExportedContent:
    state: Literal["exported"] = field("")
    relative_path: str = field("Path under output_directory", minLength=1)
    layout: Literal["url-path", "isolated"] = field("url-path keeps the URL's path; isolated when it cannot")
    layout_reason: str | None = field("Why the script was isolated")
    sha256: str = field("Of the written bytes", pattern=SHA256)
    bytes: int = field("", minimum=0)
    media_type: str | None = field("")
    redacted: bool | None = field("")
    representation: Literal["debugger-source-utf8", "browser-decoded-response-bytes"] = field("")


@attrs.frozen(kw_only=True)
class UnavailableContent:
    state: Literal["unavailable"] = field("")
    reason: str = field("", minLength=1)
    message: str = field("", minLength=1)


@attrs.frozen(kw_only=True)
class ExportedWebScript:
    source: PageScriptSource | ScenarioResponseSource = field("")
    url: str = field("")
    content: ExportedContent | UnavailableContent = field("")


@attrs.frozen(kw_only=True)
class AnalysisInput:
    input_path: str = field("", minLength=1)
    format: Literal["directory"] = field("")


@attrs.frozen(kw_only=True)
class FileIdentity:
    path: str = field("", minLength=1)
    sha256: str = field("", pattern=SHA256)
    bytes: int = field("", minimum=0)


@attrs.frozen(kw_only=True)
class WebScriptExport:
    capture_path: str = field("", minLength=1)
    capture_sha256: str = field("", pattern=SHA256)
    capture_kind: Literal["page-inspection", "browser-scenario"] = field("")
    source_evidence_id: str | None = field(
        "The capture's Evidence id when it was complete Evidence", pattern="^ev_[a-f0-9]{64}$"
    )
    capture_completeness: Completeness = field("")
    output_directory: str = field("", minLength=1)
    analysis_input: AnalysisInput | None = field("For analyze_javascript_application (null when nothing exported)")
    scripts: tuple[ExportedWebScript, ...] = field("Every script of the capture, exported or not")
    limitations: tuple[str, ...] = field("")
    manifest: FileIdentity = field("manifest.json as written")


# ---------------------------------------------------------- manifest-reading traces


@attrs.frozen(kw_only=True)
class ManifestIdentity:
    path: str = field("", minLength=1)
    sha256: str = field("", pattern=SHA256)
    bytes: int = field("", minimum=0)
    reported_output_directory: str = field("output_directory the manifest names")
    capture_path: str = field("", minLength=1)
    capture_sha256: str = field("", pattern=SHA256)
    capture_kind: Literal["page-inspection", "browser-scenario"] = field("")
    capture_completeness: Completeness = field("")
    source_evidence_id: str | None = field("", pattern="^ev_[a-f0-9]{64}$")


@attrs.frozen(kw_only=True)
class SelectedSource:
    path: str = field("", minLength=1)
    sha256: str = field("", pattern=SHA256)
    bytes: int = field("", minimum=0)
    script_index: int = field("", minimum=0)
    script: ExportedWebScript = field("")


@attrs.frozen(kw_only=True)
class SourceMapFile:
    path: str = local_path("Local source map; never fetched")
    url: str = field("URL context that resolves original source names", minLength=1)


@attrs.frozen(kw_only=True)
class Position:
    line: int = field("One-based line", minimum=1)
    column: int = field("Zero-based UTF-16 column", minimum=0)


@attrs.frozen(kw_only=True)
class SourceLocationArgs:
    manifest_path: str = local_path("An export_web_scripts manifest.json")
    script_index: int = field("Zero-based index in manifest.scripts", minimum=0)
    source_map: SourceMapFile = field("The map the caller pairs with the script")
    generated_position: Position = field("Position in the exported script")


@attrs.frozen(kw_only=True)
class Engine:
    id: str = field("", minLength=1)
    version: str = field("", minLength=1)


@attrs.frozen(kw_only=True)
class Runtime:
    id: str = field("", minLength=1)
    version: str = field("", minLength=1)
    v8_heap_limit_bytes: int | None = field("6.x's decoding heap; null: REA decodes in its own process", minimum=1)


@attrs.frozen(kw_only=True)
class Lookup:
    requested: Position = field("")
    matched_generated_position: Position | None = field("Greatest mapped position <= requested")
    semantics: Literal["greatest generated position <= requested, across lines; all equal-position segments"] = field(
        ""
    )
    location_units: Literal["one-based lines; zero-based UTF-16 columns"] = field("")


@attrs.frozen(kw_only=True)
class EmbeddedContent:
    state: Literal["embedded"] = field("")
    text: str = field("")
    utf8_sha256: str = field("", pattern=SHA256)
    utf8_bytes: int = field("", minimum=0)
    representation: Literal["UTF-8 encoding of decoded sourcesContent text"] = field("")


@attrs.frozen(kw_only=True)
class ContentUnavailable:
    state: Literal["unavailable"] = field("")
    reason: Literal["sourcesContent-not-retained"] = field("")


@attrs.frozen(kw_only=True)
class OriginalPosition:
    line: int = field("", minimum=1)
    column: int = field("", minimum=0)
    offset: int | None = field("UTF-16 offset in the embedded text", minimum=0)
    content_position: Literal["verified-in-embedded-text", "outside-embedded-text", "content-unavailable"] = field("")


@attrs.frozen(kw_only=True)
class GeneratedOnly:
    state: Literal["generated-only"] = field("")


@attrs.frozen(kw_only=True)
class MappedMatch:
    state: Literal["mapped"] = field("")
    flattened_source_index: int = field("", minimum=0)
    section_path: tuple[int, ...] = field("Indexed-map section indices (empty for a regular map)")
    source_index: int = field("", minimum=0)
    reported_source: str | None = field("")
    reported_source_root: str | None = field("")
    resolved_url: str | None = field("")
    ignored: bool = field("In ignoreList")
    content: EmbeddedContent | ContentUnavailable = field("")
    original_position: OriginalPosition = field("")
    name: str | None = field("")


@attrs.frozen(kw_only=True)
class MapUsed:
    path: str = field("", minLength=1)
    sha256: str = field("", pattern=SHA256)
    bytes: int = field("", minimum=0)
    url: str = field("", minLength=1)
    association: Literal["caller-selected"] = field("")


@attrs.frozen(kw_only=True)
class WebSourceLocation:
    source_map_sha256: str = field("", pattern=SHA256)
    url_context: str = field("", minLength=1)
    engine: Engine = field("")
    runtime: Runtime = field("")
    format: Literal["regular", "indexed"] = field("")
    reported_file: str | None = field("")
    lookup: Lookup = field("")
    matches: tuple[GeneratedOnly | MappedMatch, ...] = field("")
    diagnostics: tuple[str, ...] = field("")
    manifest: ManifestIdentity = field("")
    source: SelectedSource = field("")
    source_map: MapUsed = field("")
    generated_offset: int = field("UTF-16 offset of the requested position in the script", minimum=0)
    source_authenticity: Literal["unknown"] = field("")
    execution: Literal["unknown"] = field("")
    limitations: tuple[str, ...] = field("")


# ------------------------------------------------------------ trace_web_module_imports


@attrs.frozen(kw_only=True)
class ImportMapFile:
    path: str = local_path("Local import-map JSON; never fetched")
    base_url: str = field("HTTP(S) base the map's addresses resolve against", minLength=1)


@attrs.frozen(kw_only=True)
class ModuleImportsArgs:
    manifest_path: str = local_path("An export_web_scripts manifest.json")
    script_index: int = field("Zero-based index in manifest.scripts", minimum=0)
    importer_url: str | None = field(
        "HTTP(S) URL of the module (default: its reported URL)", minLength=1, omit_none=True
    )
    import_map: ImportMapFile | None = field("An import map to resolve bare specifiers with", omit_none=True)


@attrs.frozen(kw_only=True)
class TextPosition:
    offset: int = field("UTF-16 offset", minimum=0)
    line: int = field("One-based", minimum=1)
    column: int = field("Zero-based UTF-16", minimum=0)


@attrs.frozen(kw_only=True)
class Resolved:
    state: Literal["resolved"] = field("")
    url: str = field("", minLength=1)


@attrs.frozen(kw_only=True)
class Rejected:
    state: Literal["rejected"] = field("")
    message: str = field("Why resolution fails, in the browser's words")


@attrs.frozen(kw_only=True)
class Computed:
    state: Literal["unknown"] = field("")
    reason: Literal["computed-specifier"] = field("")


@attrs.frozen(kw_only=True)
class CapturedCandidate:
    script_index: int = field("", minimum=0)
    match: Literal["exact-reported-url", "response-url-without-fragment"] = field("")
    script: ExportedWebScript = field("")


@attrs.frozen(kw_only=True)
class ModuleImport:
    kind: Literal["static-import", "re-export", "dynamic-import"] = field("")
    specifier: str | None = field("null when computed")
    expression: str = field("The specifier expression's text")
    start: TextPosition = field("")
    end: TextPosition = field("")
    resolution: Resolved | Rejected | Computed = field("")
    captured_candidates: tuple[CapturedCandidate, ...] = field("Exported scripts at the resolved URL")
    execution: Literal["unknown"] = field("")


@attrs.frozen(kw_only=True)
class ModuleManifestIdentity:
    path: str = field("", minLength=1)
    sha256: str = field("", pattern=SHA256)
    bytes: int = field("", minimum=0)
    reported_output_directory: str = field("")
    capture_sha256: str = field("", pattern=SHA256)


@attrs.frozen(kw_only=True)
class Importer:
    url: str = field("", minLength=1)
    basis: Literal["caller-selected", "reported-source-url"] = field("")


@attrs.frozen(kw_only=True)
class ImportMapUsed:
    path: str = field("", minLength=1)
    sha256: str = field("", pattern=SHA256)
    bytes: int = field("", minimum=0)
    base_url: str = field("", minLength=1)


@attrs.frozen(kw_only=True)
class ModuleParser:
    state: Literal["parsed", "unparseable"] = field("")
    diagnostics: tuple[str, ...] = field("")
    location_units: Literal["UTF-16 offsets and columns; one-based lines"] = field("")


@attrs.frozen(kw_only=True)
class WebModuleTrace:
    manifest: ModuleManifestIdentity = field("")
    source: SelectedSource = field("")
    importer: Importer = field("")
    import_map: ImportMapUsed | None = field("")
    parser: ModuleParser = field("")
    engine: Engine | None = field("The resolver")
    imports: tuple[ModuleImport, ...] = field("")
    diagnostics: tuple[str, ...] = field("")
    limitations: tuple[str, ...] = field("")
