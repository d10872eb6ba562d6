"""Contracts of the JavaScript / Electron application family, declared from their wire records."""

from __future__ import annotations

from typing import Any

from rea.catalog.cli import Alias, Command, Positional, declared
from rea.catalog.contract import ToolContract
from rea.javascript import application_text
from rea.javascript.ids import node_id
from rea.javascript.records.analysis import AnalyzeResult
from rea.javascript.records.arguments import (
    AnalyzeArgs,
    CompareVersionsArgs,
    ExportShapesArgs,
    SourceToBundleArgs,
    TraceFeatureArgs,
    TraceSemanticsArgs,
)
from rea.javascript.records.comparison import ExportShapesResult, SourceToBundleResult, VersionsResult
from rea.javascript.records.trace import FeatureTraceResult, SemanticQueryResult
from rea.views.records.results import SummaryResult
from rea.wire.tool import evidence_tool

_RETAINED_EXAMPLE = {"kind": "retained-evidence", "evidence_id": "ev_" + "1" * 64}
_RIGHT_EXAMPLE = {"kind": "retained-evidence", "evidence_id": "ev_" + "2" * 64}


def _workflow(
    name: str, title: str, description: str, args: type, result: Any, example: dict[str, Any], **extra: Any
) -> ToolContract:
    return evidence_tool(
        name,
        title,
        description,
        args=args,
        result=result,
        examples=[example],
        surface="application",
        effects={"mutatesSession", "idempotent"},
        **extra,
    )


ANALYZE = _workflow(
    "analyze_javascript_application",
    "Analyze JavaScript Application",
    (
        "Statically analyse a local JavaScript or Electron application (directory, or .asar with "
        ".asar.unpacked) without running it: a graph of modules and import, require and re-export edges "
        "(node_modules exports maps, node: builtins; unresolved kept as unknowns), exports and their shapes, "
        "Electron process roles, IPC channels with both ends, contextBridge APIs, URLs, routes, protocols, "
        "bundler runtimes and source maps, each node and edge with its file, line and byte range. detail "
        "summary retains the complete record and returns a summary view with parent_evidence_id."
    ),
    AnalyzeArgs,
    AnalyzeResult | SummaryResult,  # detail summary: the shared view result (rea.views.records)
    {"input_path": "/path/to/app", "detail": "summary"},
    operation=False,  # detail summary answers with inspect_analysis_view Evidence
)

TOOLS: tuple[ToolContract, ...] = (
    ANALYZE,
    _workflow(
        "trace_application_feature",
        "Trace Application Feature",
        (
            "Trace a literal seed (node-id, route, string, api, channel, module or native-export) through "
            "application Evidence, outgoing along the flow (renderer -> IPC channel -> main handler), "
            "incoming back to entry points, or both: matches, the traced subgraph, paths, native handoffs "
            "and coverage."
        ),
        TraceFeatureArgs,
        FeatureTraceResult,
        {"application": _RETAINED_EXAMPLE, "seed": {"kind": "channel", "value": "ping"}},
    ),
    _workflow(
        "trace_javascript_semantics",
        "Trace JavaScript Semantics",
        (
            "Query application Evidence from a seed in one direction (backward-provenance, forward-influence, "
            "callers, ownership). An application-node seed walks the application graph (module, IPC, bridge, "
            "load, URL relations); semantic-node, literal, function, property, endpoint, event and "
            "boundary-field seeds walk the semantic companion graph the analysis builds, e.g. where a literal "
            "URL or channel flows (status unsupported only when the analysis stopped before building it). "
            "Relations are paged (query.page_size, page.next_cursor)."
        ),
        TraceSemanticsArgs,
        SemanticQueryResult,
        {
            "application": _RETAINED_EXAMPLE,
            "query": {
                "seed": {"kind": "application-node", "node_id": node_id("ipc-channel:ping")},
                "direction": "backward-provenance",
            },
        },
    ),
    _workflow(
        "compare_application_versions",
        "Compare Application Versions",
        (
            "Compare two application records: modules, bundled modules, exports, IPC channels, routes, "
            "dependencies, URLs, protocols, bridge APIs and windows, each item added, removed, changed, "
            "unchanged or unknown (absence on a partial side stays unknown), with a summary and coverage. "
            "Complete by default; detail: summary returns counts and first items, then page with "
            "inspect_analysis_view {kind: comparison}."
        ),
        CompareVersionsArgs,
        VersionsResult | SummaryResult,  # detail summary: the shared view result (rea.views.records)
        {"left": _RETAINED_EXAMPLE, "right": _RIGHT_EXAMPLE},
        operation=False,  # detail summary answers with inspect_analysis_view Evidence
    ),
    _workflow(
        "compare_source_to_bundle",
        "Compare Source To Bundle",
        (
            "Map reference sources (a HistoricalSourceGraph, a source tree analysed with "
            "analyze_javascript_application, or, when reference is omitted, the bundle's own source-map "
            "sources) to what the bundle ships: each source unchanged, modified, removed, duplicated or "
            "unknown, with scored candidates."
        ),
        SourceToBundleArgs,
        SourceToBundleResult,
        {"application": _RETAINED_EXAMPLE},
    ),
    _workflow(
        "compare_javascript_export_shapes",
        "Compare JavaScript Export Shapes",
        "Compare one export of one module in each version: members (object keys, class members, keys of "
        "directly returned objects) added / removed / changed, unknown where a shape is not statically "
        "resolvable.",
        ExportShapesArgs,
        ExportShapesResult,
        {
            "left": _RETAINED_EXAMPLE,
            "right": _RIGHT_EXAMPLE,
            "left_module_path": "lib/api.js",
            "left_export_name": "default",
            "right_module_path": "lib/api.js",
            "right_export_name": "default",
        },
    ),
)

# trace-javascript-semantics analyses first, then traces over that record: written by hand (effects.javascript.cli)
CLI_COMMANDS = ("trace-javascript-semantics",)
COMMANDS = {
    "analyze_javascript_application": Command(
        name="analyze-javascript-application",
        help="static graph of a JavaScript / Electron application",
        positionals=(
            Positional(
                argument="input_path", metavar="path", help="application directory (unpacked app or source tree)"
            ),
        ),
        aliases=(Alias(option="--input-format", argument="format", help="auto, directory or asar (default auto)"),),
        # the command's summary by default (the tool's default is complete), and every default always sent
        defaults={"detail": "summary", "format": "auto", "integrity_policy": "fail"},
        render=application_text.render,
    ),
}
TOOLS = declared(TOOLS, COMMANDS)
