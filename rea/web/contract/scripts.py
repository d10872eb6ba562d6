"""Contracts of the web family's script tools: analyze_web_bundle (live, passive), export_web_scripts and the
manifest traces (local files only)."""

from __future__ import annotations

from rea.catalog.cli import Command, Positional, declared
from rea.web import browser_text as text
from rea.web.contract.browser import ENDPOINT, PASSIVE, TARGET
from rea.web.records.scripts import AnalyzeWebBundleArgs, ExportWebScriptsArgs, WebBundleAnalysis, WebScriptExport
from rea.web.records.traces import ModuleImportsArgs, SourceLocationArgs, WebModuleTrace, WebSourceLocation
from rea.wire.tool import evidence_tool

ANALYZE_WEB_BUNDLE = evidence_tool(
    "analyze_web_bundle",
    "Analyze Web Bundle",
    (
        "Capture the JavaScript of one page target passively over loopback CDP (never navigates, clicks "
        "or evaluates page script) and parse it with tree-sitter into a bounded chunk graph (imports, "
        "requires, workers), route and endpoint candidates, page-declared WebMCP registrations (never "
        "invoked) and vendor fingerprints. fetch_source_maps fetches declared source maps only from "
        "allowed origins (the page's own when none are given), without credentials, and decodes original "
        "sources, module edges and mappings. Nothing is executed."
    ),
    args=AnalyzeWebBundleArgs,
    result=WebBundleAnalysis,
    examples=[
        {"cdp_endpoint": ENDPOINT, "target_id": TARGET},
        {
            "cdp_endpoint": ENDPOINT,
            "allowed_origins": ["https://app.example.test"],
            "target_id": TARGET,
            "fetch_source_maps": True,
        },
    ],
    surface="browser-provider",
    effects=PASSIVE,
)

EXPORT_WEB_SCRIPTS = evidence_tool(
    "export_web_scripts",
    "Export Web Scripts",
    (
        "Export the scripts a saved inspect_web_page capture retained (captured with "
        "include_script_sources) into an absent output_directory, or one REA chooses: scripts/ and "
        "manifest.json, published at once and read back against each SHA-256. Returns each script's URL, "
        "relative path and digest or unavailable state, the manifest digest and an analysis_input for "
        "analyze_javascript_application. Safe URLs keep their path so relative imports resolve; query "
        "variants, unsafe paths and collisions are isolated with the reason. No refetch, no execution."
    ),
    args=ExportWebScriptsArgs,
    result=WebScriptExport,
    examples=[
        {"capture_path": "/analysis/capture.json", "output_directory": "/analysis/exported-scripts"},
        {"capture_path": "/analysis/capture.json"},
    ],
    surface="application",
    effects={"mutatesSession", "writesFilesystem"},
)

TRACE_WEB_SOURCE_LOCATION = evidence_tool(
    "trace_web_source_location",
    "Trace Web Source Location",
    (
        "Map one generated position of an exported script (export_web_scripts manifest and script index; "
        "its SHA-256 and size verified) through a local source map you pair with it (never fetched): "
        "every segment at the greatest mapped position <= the one asked, with its source, sourcesContent "
        "(text, SHA-256) and original position checked against that text. Lines one-based, columns "
        "zero-based UTF-16. Indexed maps with inline sections are read, external sections refused; maps "
        "up to 4 MiB. The pairing proves neither deployment nor execution."
    ),
    args=SourceLocationArgs,
    result=WebSourceLocation,
    examples=[
        {
            "manifest_path": "/analysis/scripts/manifest.json",
            "script_index": 0,
            "source_map": {"path": "/analysis/app.js.map", "url": "https://example.test/app.js.map"},
            "generated_position": {"line": 1, "column": 25},
        }
    ],
    surface="application",
    effects={"mutatesSession", "idempotent"},
)

TRACE_WEB_MODULE_IMPORTS = evidence_tool(
    "trace_web_module_imports",
    "Trace Web Module Imports",
    (
        "List one exported script's outgoing ES imports, re-exports and dynamic imports "
        "(export_web_scripts manifest and script index; SHA-256 and size verified), parsed with "
        "tree-sitter with UTF-16 positions, each resolved by the HTML module-specifier algorithm against "
        "the script URL (or importer_url) and an optional local import map (never fetched): the resolved "
        "URL or the exact rejection, and the exported scripts at that URL as candidates. Computed imports "
        "stay unknown. No request, no execution."
    ),
    args=ModuleImportsArgs,
    result=WebModuleTrace,
    examples=[
        {
            "manifest_path": "/analysis/exported-scripts/manifest.json",
            "script_index": 0,
            "import_map": {"path": "/analysis/import-map.json", "base_url": "https://example.test/app/"},
        }
    ],
    surface="application",
    effects={"mutatesSession", "idempotent"},
)

# written by hand (effects.web.scripts_cli): each builds nested arguments from several words or flags
CLI_COMMANDS = ("analyze-web-bundle", "trace-web-module-imports", "trace-web-source-location")
COMMANDS = {
    "export_web_scripts": Command(
        name="export-web-scripts",
        help="export the scripts a saved inspect_web_page capture retained, with a digest manifest",
        positionals=(
            Positional(argument="capture_path", help="saved inspect_web_page JSON (Evidence or normalized result)"),
        ),
        render=text.export,
    ),
}
TOOLS = declared(
    (ANALYZE_WEB_BUNDLE, EXPORT_WEB_SCRIPTS, TRACE_WEB_MODULE_IMPORTS, TRACE_WEB_SOURCE_LOCATION), COMMANDS
)
