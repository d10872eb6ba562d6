"""Contracts of the web family's script tools: analyze_web_bundle (live, passive), export_web_scripts and the
manifest traces (local files only)."""

from __future__ import annotations

from rea.catalog.web import ENDPOINT, PASSIVE, TARGET
from rea.wire.tool import evidence_tool
from rea.wire.web_scripts import (
    AnalyzeWebBundleArgs,
    ExportWebScriptsArgs,
    ModuleImportsArgs,
    SourceLocationArgs,
    WebBundleAnalysis,
    WebModuleTrace,
    WebScriptExport,
    WebSourceLocation,
)

ANALYZE_WEB_BUNDLE = evidence_tool(
    "analyze_web_bundle",
    "Analyze Web Bundle",
    (
        "Capture the JavaScript sources of one page target passively over a loopback CDP endpoint "
        "(Debugger.scriptParsed / getScriptSource; never navigates, clicks or evaluates page script) and parse "
        "them with tree-sitter into a bounded chunk graph (literal imports, requires, workers), route and endpoint "
        "candidates, page-declared WebMCP registrations (untrusted, never invoked) and vendor/runtime "
        "fingerprints. With fetch_source_maps, declared source maps are fetched "
        "only from allowed origins (the page's own when none are given), without browser credentials, and "
        "decoded into original sources, module edges and mappings. JavaScript is parsed, never executed. "
        "approved, source_capture_approved and source_map_fetch_approved are accepted from older clients and "
        "ignored (REA requires no approval flags)."
    ),
    args=AnalyzeWebBundleArgs,
    result=WebBundleAnalysis,
    examples=[
        {"cdp_endpoint": ENDPOINT, "target_id": TARGET},
        {
            "cdp_endpoint": ENDPOINT,
            "allowed_origins": ["https://app.example.test"],
            "target_id": TARGET,
            "observation_ms": 500,
            "include_script_sources": True,
            "fetch_source_maps": True,
            "analysis_limits": {"max_findings": 1_000, "max_ast_nodes": 250_000, "max_source_maps": 100},
        },
    ],
    surface="browser-provider",
    effects=PASSIVE,
)

EXPORT_WEB_SCRIPTS = evidence_tool(
    "export_web_scripts",
    "Export Web Scripts",
    (
        "Export the JavaScript a saved inspect_web_page capture retained (its normalized result or complete "
        "Evidence, captured with include_script_sources) into an absent output_directory, or a fresh one REA "
        "chooses when it is omitted: scripts/ and a manifest.json, staged and renamed into place at once, every "
        "file read back against its SHA-256. Returns every script's URL and capture reference with its relative "
        "path and digest or its unavailable state, the manifest's digest, and an analysis_input for "
        "analyze_javascript_application. Safe unambiguous URLs keep their path (relative module imports "
        "resolve); query variants, unsafe paths and collisions are isolated with the reason. No refetch, no "
        "execution."
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
        "Trace one generated position in an exported website script (an export_web_scripts manifest and script "
        "index) through a source map the caller pairs with it (a local file and its URL context; never fetched). "
        "Verifies the manifest's recorded SHA-256 and size of the script; returns every segment at the greatest "
        "mapped generated position <= the requested one across lines, with its reported and resolved source, "
        "embedded sourcesContent (text, SHA-256) and original position checked against that text. One-based "
        "lines, zero-based UTF-16 columns. Regular maps and indexed maps with inline sections; external section "
        "URLs are refused. The pairing does not establish deployment or execution. 4 MiB map."
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
        "Trace one exported website script's outgoing ES imports, re-exports and dynamic imports (an "
        "export_web_scripts manifest and script index; the script's SHA-256 and size verified against the "
        "manifest). Parsed by tree-sitter; each import keeps its UTF-16 positions and is resolved by the HTML "
        "standard's module-specifier algorithm against the script's URL (or importer_url) and an optional local "
        "import map (path and base_url; never fetched): resolved URL or the exact rejection, every exported "
        "script at that URL as a captured candidate, execution unknown. Computed imports stay unknown. No "
        "request, no execution."
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

CLI_COMMANDS = ("analyze-web-bundle", "export-web-scripts", "trace-web-module-imports", "trace-web-source-location")
TOOLS = (ANALYZE_WEB_BUNDLE, EXPORT_WEB_SCRIPTS, TRACE_WEB_MODULE_IMPORTS, TRACE_WEB_SOURCE_LOCATION)
