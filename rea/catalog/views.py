"""The inspect_analysis_view contract: selected views of completed Evidence, declared by rea.wire.views records."""

from __future__ import annotations

from typing import Any

from rea.catalog.contract import ToolContract
from rea.wire.schema import Role, schema_of
from rea.wire.tool import evidence_tool
from rea.wire.views import AnalysisViewArgs, AnalysisViewResult

_REF = {"kind": "retained-evidence", "evidence_id": "ev_" + "a" * 64}

VIEW_RESULT_SCHEMA: dict[str, Any] = schema_of(AnalysisViewResult, Role.OUTPUT)
"""normalized_result of a view; producers answering detail "summary" advertise it too."""


INSPECT_ANALYSIS_VIEW: ToolContract = evidence_tool(
    "inspect_analysis_view",
    "Inspect Analysis View",
    (
        "Inspect one selected view of completed Evidence without repeating analysis or starting a provider. source: "
        '{"kind": "retained-evidence", "evidence_id"} or {"kind": "inline", "evidence"}. view (by kind): '
        '{"kind": "summary"}; analyze_function Evidence: {"kind": "native", facet, offset = 0, limit = 64} with '
        "facet procedure|pseudocode|assembly|basic_blocks|comments|callers|callees|incoming_references|"
        "outgoing_references|unresolved_calls|referenced_strings|referenced_names|native_api|value_flow_* "
        "(pseudocode pages count UTF-16 code units); inspect_artifact / inventory_artifact Evidence: "
        '{"kind": "inventory", facet nodes|occurrences|edges|integrity_contradictions, offset, limit, '
        "logical_paths}; analyze_javascript_application Evidence: "
        '{"kind": "item", "collection": "modules", selector {node_id | path}} or {"kind": "page", '
        '"collection": "modules", offset, limit}; inspect_web_network_capture Evidence: summary (counts, first rows, '
        'redaction index), {"kind": "page", "collection": "records", offset, limit} (records exactly, a page stops '
        'after 32 KB) or {"kind": "api-surface", offset, limit} (request lines grouped by method, origin and path '
        "template; templated segments are inferred, and the view is inferred Evidence when any group of the whole "
        "grouping is); "
        'inspect_managed_artifact / inspect_managed_members Evidence: {"kind": "managed", facet '
        "references|resources|attributes|pdb_documents or types|methods|fields|member_refs|call_edges|field_accesses, "
        'offset, limit}; compare_application_versions Evidence: {"kind": "comparison", facet items|graph_nodes|'
        "graph_edges, offset, limit}; managed and comparison pages end early to stay within 32 KB. "
        "Follow normalized_result.coverage.next_offset until null. "
        "Returns the parent's identity, artifact, a view digest, coverage, limitations and unknowns."
    ),
    args=AnalysisViewArgs,
    result=AnalysisViewResult,
    surface="application",
    examples=[
        {"source": _REF, "view": {"kind": "summary"}},
        {"source": _REF, "view": {"kind": "native", "facet": "pseudocode", "offset": 0, "limit": 64}},
        {"source": _REF, "view": {"kind": "inventory", "facet": "occurrences", "offset": 0, "limit": 64}},
        {"source": _REF, "view": {"kind": "page", "collection": "modules", "offset": 0, "limit": 32}},
        {"source": _REF, "view": {"kind": "managed", "facet": "methods", "offset": 0, "limit": 64}},
    ],
    effects={"mutatesSession", "idempotent"},
)

CLI_COMMANDS: tuple[str, ...] = ("inspect-analysis-view",)
TOOLS = (INSPECT_ANALYSIS_VIEW,)
