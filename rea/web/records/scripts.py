"""Wire records of the web family's script tools (REA 6.x domain/webBundleAnalysis, webScriptExport,
webScriptArtifacts, webModuleTrace, webSourceLocation).

analyze_web_bundle captures script sources passively over a caller's loopback CDP endpoint and parses
them; export_web_scripts publishes the sources a saved capture retained; the two traces read that
export's manifest. Names, enums and fields are the reference's; extras are optional.
"""

from __future__ import annotations

from typing import Literal

import attrs

from rea.web.records.browser import SHA256, Completeness, InspectWebPageArgs
from rea.web.records.page import WebTextArtifact
from rea.wire.schema import field, local_path

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
