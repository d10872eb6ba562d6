"""Contracts of the JavaScript / Electron application family."""

from __future__ import annotations

from typing import Any

from rea.catalog.contract import ToolContract
from rea.catalog.schemas import EVIDENCE_ID_PATTERN, evidence_output, input_schema, integer, obj, string
from rea.javascript.graph import DEFAULT_LIMITS, LIMIT_MAXIMA, RELATIONS, ZERO_DISABLES
from rea.javascript.trace import DEFAULT_TRACE_LIMITS, DIRECTIONS, SEED_KINDS

_RETAINED_EXAMPLE = {"kind": "retained-evidence", "evidence_id": "ev_" + "1" * 64}
_APPLICATION = {
    "description": (
        "analyze_javascript_application Evidence: the complete record inline, or "
        '{"kind": "retained-evidence", "evidence_id": ...} for one retained by this connection'
    ),
    "type": "object",
}


def _evidence_id(what: str) -> dict[str, Any]:
    return string(f"Evidence id of {what} retained by this connection", pattern=EVIDENCE_ID_PATTERN)


def _limits(defaults: dict[str, int], maxima: dict[str, int] | None = None) -> dict[str, Any]:
    return obj(
        {
            k: integer(
                f"{k.replace('_', ' ')} (default {v})",
                0 if (k == "max_depth" and maxima is None) or k in ZERO_DISABLES else 1,
                (maxima or {}).get(k, 100_000),
                default=v,
            )
            for k, v in defaults.items()
        }
    )


def _workflow(
    name: str, title: str, description: str, properties: dict[str, Any], example: dict[str, Any]
) -> ToolContract:
    return ToolContract(
        name=name,
        title=title,
        description=description,
        surface="application",
        input_schema=input_schema(properties, examples=[example]),
        output_schema=evidence_output(),
        annotations={"read_only", "idempotent"},
        effects={"mutatesSession", "idempotent"},
        result_kind="evidence",
    )


ANALYZE = ToolContract(
    name="analyze_javascript_application",
    title="Analyze JavaScript Application",
    description=(
        "Statically analyse a local JavaScript / Electron application (directory, or .asar with .asar.unpacked) "
        "without running it: files "
        "classified, JavaScript and TypeScript parsed with tree-sitter, a graph of modules, import/require/"
        "dynamic-import/re-export edges (relative, node_modules with exports maps, node: builtins; unresolved "
        "kept as unknowns), exports and their shapes, Electron process roles, IPC channels with both ends, "
        "contextBridge APIs, URLs, routes, protocols, bundler runtimes and source maps. Every node and edge names "
        "its file, line and byte range. detail summary retains the complete record and returns a summary view "
        "with parent_evidence_id."
    ),
    surface="application",
    input_schema=input_schema(
        {
            "input_path": string(
                "Local path of the application: a directory (unpacked app, source tree) or an .asar",
                minLength=1,
                maxLength=16384,
            ),
            "format": {
                "type": "string",
                "enum": ["auto", "directory", "asar"],
                "default": "auto",
                "description": "Input format; auto decides from the path (a directory named x.js is a directory)",
            },
            "detail": {
                "type": "string",
                "enum": ["complete", "summary"],
                "default": "complete",
                "description": "complete returns the whole record; summary retains it and returns a summary view",
            },
            "limits": _limits(dict(DEFAULT_LIMITS), dict(LIMIT_MAXIMA)),
            "integrity_policy": {
                "type": "string",
                "enum": ["fail-closed", "record-and-continue"],
                "default": "fail-closed",
                "description": "For ASAR integrity mismatches: fail, or record and continue with verified siblings",
            },
        },
        ("input_path",),
        examples=[{"input_path": "/path/to/app", "detail": "summary"}],
    ),
    output_schema=evidence_output(),
    annotations={"read_only", "idempotent"},
    effects={"mutatesSession", "idempotent"},
    result_kind="evidence",
)

_SEED = obj(
    {
        "kind": {"type": "string", "enum": list(SEED_KINDS), "description": "What the value names"},
        "value": string("Literal to find (no regular expressions)", minLength=1, maxLength=4096),
        "match": {
            "type": "string",
            "enum": ["exact", "contains"],
            "description": "exact, or substring (default: exact for node-id, ipc-channel and route, else contains)",
        },
        "case_sensitive": {"type": "boolean", "default": False},
    },
    ("kind", "value"),
)

TOOLS: tuple[ToolContract, ...] = (
    ANALYZE,
    _workflow(
        "trace_application_feature",
        "Trace Application Feature",
        "Trace a literal seed (module, string, route, ipc-channel, url or node-id) through application Evidence: "
        "forward along the flow (renderer -> IPC channel -> main handler), backward to entry points, or both. "
        "Returns the matches, the bounded subgraph, paths from the seed to entry points or implementing "
        "modules, and the truncation frontier. Never reruns the analysis.",
        {
            "application": _APPLICATION,
            "application_evidence_id": _evidence_id("application Evidence"),
            "seed": _SEED,
            "direction": {"type": "string", "enum": list(DIRECTIONS), "default": "both"},
            "limits": _limits(dict(DEFAULT_TRACE_LIMITS)),
        },
        {"application": _RETAINED_EXAMPLE, "seed": {"kind": "ipc-channel", "value": "ping"}},
    ),
    _workflow(
        "trace_javascript_semantics",
        "Trace JavaScript Semantics",
        "From one graph node, its backward provenance (what reaches it) or forward reach (what it reaches), "
        "optionally restricted to relation kinds; bounded and paged by limits.",
        {
            "application": _APPLICATION,
            "application_evidence_id": _evidence_id("application Evidence"),
            "query": obj(
                {
                    "node_id": string("Exact node id", minLength=1),
                    "direction": {"type": "string", "enum": ["provenance", "reach"], "default": "reach"},
                    "relations": {"type": "array", "items": {"enum": list(RELATIONS)}, "maxItems": 16},
                },
                ("node_id",),
            ),
            "limits": _limits(dict(DEFAULT_TRACE_LIMITS)),
        },
        {"application": _RETAINED_EXAMPLE, "query": {"node_id": "ipc-channel:ping", "direction": "provenance"}},
    ),
    _workflow(
        "compare_application_versions",
        "Compare Application Versions",
        "Compare two application records: modules, exports, IPC channels, routes, dependencies, URLs, "
        "protocols, bridge APIs and windows, each unchanged / added / removed / changed / unknown (absence on "
        "a partial side stays unknown).",
        {
            "left": _APPLICATION,
            "right": _APPLICATION,
            "left_evidence_id": _evidence_id("the left application Evidence"),
            "right_evidence_id": _evidence_id("the right application Evidence"),
            "limits": obj(
                {"max_comparison_items": integer("Changed items listed (default 20000)", 1, 50_000, default=20_000)}
            ),
        },
        {"left": _RETAINED_EXAMPLE, "right": {"kind": "retained-evidence", "evidence_id": "ev_" + "2" * 64}},
    ),
    _workflow(
        "compare_source_to_bundle",
        "Compare Source To Bundle",
        "Compare reference sources (a source tree analysed with analyze_javascript_application, or the "
        "bundle's own source-map sources when reference is omitted) with what the bundle ships (source-map "
        "sources and recovered bundled modules): matched, missing, extra, ambiguous.",
        {
            "application": _APPLICATION,
            "application_evidence_id": _evidence_id("application Evidence"),
            "reference": {**_APPLICATION, "description": "Application Evidence of the reference source tree"},
        },
        {"application": _RETAINED_EXAMPLE},
    ),
    _workflow(
        "compare_javascript_export_shapes",
        "Compare JavaScript Export Shapes",
        "Compare one export of one module in each version: members (object keys, class members, keys of "
        "directly returned objects) added / removed, unknown where a shape is not statically resolvable.",
        {
            "left": _APPLICATION,
            "right": _APPLICATION,
            "left_evidence_id": _evidence_id("the left application Evidence"),
            "right_evidence_id": _evidence_id("the right application Evidence"),
            "left_module_path": string("Module path in the left record", minLength=1, maxLength=4096),
            "left_export_name": string("Export name (default for the default export)", minLength=1, maxLength=4096),
            "right_module_path": string("Module path in the right record", minLength=1, maxLength=4096),
            "right_export_name": string("Export name", minLength=1, maxLength=4096),
        },
        {
            "left": _RETAINED_EXAMPLE,
            "right": {"kind": "retained-evidence", "evidence_id": "ev_" + "2" * 64},
            "left_module_path": "lib/api.js",
            "left_export_name": "default",
            "right_module_path": "lib/api.js",
            "right_export_name": "default",
        },
    ),
)

# required fields the root schema cannot express without a union are checked by the programs
_REQUIRED = {
    "trace_application_feature": ("seed",),
    "trace_javascript_semantics": ("query",),
    "compare_javascript_export_shapes": (
        "left_module_path",
        "left_export_name",
        "right_module_path",
        "right_export_name",
    ),
}
TOOLS = tuple(
    t
    if t.name not in _REQUIRED
    else ToolContract(
        **{
            **{
                f: getattr(t, f)
                for f in (
                    "name",
                    "title",
                    "description",
                    "surface",
                    "output_schema",
                    "annotations",
                    "effects",
                    "result_kind",
                )
            },
            "input_schema": {**t.input_schema, "required": list(_REQUIRED[t.name])},
        }
    )
    for t in TOOLS
)

CLI_COMMANDS = ("analyze-javascript-application",)
