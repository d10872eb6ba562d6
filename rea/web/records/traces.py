"""Wire records of the manifest-reading traces: trace_web_source_location and trace_web_module_imports
(REA 6.x domain/webSourceLocation, webModuleTrace)."""

from __future__ import annotations

from typing import Literal

import attrs

from rea.web.records.browser import SHA256, Completeness
from rea.web.records.scripts import ExportedWebScript
from rea.wire.schema import field, local_path

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
