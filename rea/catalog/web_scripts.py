"""Contracts of the web family's script tools: analyze_web_bundle (live, passive), export_web_scripts and the
manifest traces (local files only)."""

from __future__ import annotations

from rea.catalog.web import ENDPOINT, PASSIVE, TARGET
from rea.wire.tool import evidence_tool
from rea.wire.web_scripts import AnalyzeWebBundleArgs, WebBundleAnalysis

ANALYZE_WEB_BUNDLE = evidence_tool(
    "analyze_web_bundle",
    "Analyze Web Bundle",
    (
        "Capture the JavaScript sources of one page target passively over a loopback CDP endpoint "
        "(Debugger.scriptParsed / getScriptSource; never navigates, clicks or evaluates page script) and parse "
        "them with tree-sitter into a bounded chunk graph (literal imports, requires, workers), route and endpoint "
        "candidates, page-declared WebMCP registrations (untrusted, never invoked) and vendor/runtime "
        "fingerprints. With fetch_source_maps and source_map_fetch_approved, declared source maps are fetched "
        "only from allowed origins (the page's own when none are given), without browser credentials, and "
        "decoded into original sources, module edges and mappings. JavaScript is parsed, never executed."
    ),
    args=AnalyzeWebBundleArgs,
    result=WebBundleAnalysis,
    examples=[
        {"cdp_endpoint": ENDPOINT, "target_id": TARGET},
        {
            "cdp_endpoint": ENDPOINT,
            "allowed_origins": ["https://app.example.test"],
            "approved": True,
            "target_id": TARGET,
            "observation_ms": 500,
            "include_script_sources": True,
            "source_capture_approved": True,
            "fetch_source_maps": True,
            "source_map_fetch_approved": True,
            "analysis_limits": {"max_findings": 1_000, "max_ast_nodes": 250_000, "max_source_maps": 100},
        },
    ],
    surface="browser-provider",
    effects=PASSIVE,
)

CLI_COMMANDS = ("analyze-web-bundle",)
TOOLS = (ANALYZE_WEB_BUNDLE,)
