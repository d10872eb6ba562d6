"""The inspect_analysis_view contract: selected views of completed Evidence, declared by rea.views.records."""

from __future__ import annotations

from typing import Any

from rea.catalog.contract import ToolContract
from rea.views.records.requests import AnalysisViewArgs
from rea.views.records.results import AnalysisViewResult
from rea.wire.schema import Role, schema_of
from rea.wire.tool import evidence_tool

_REF = {"kind": "retained-evidence", "evidence_id": "ev_" + "a" * 64}

VIEW_RESULT_SCHEMA: dict[str, Any] = schema_of(AnalysisViewResult, Role.OUTPUT)
"""normalized_result of a view; producers answering detail "summary" advertise it too."""


INSPECT_ANALYSIS_VIEW: ToolContract = evidence_tool(
    "inspect_analysis_view",
    "Inspect Analysis View",
    (
        "Read one view of Evidence already made (retained or inline) without rerunning analysis: a "
        "summary, facet, item or page; the view's kind names the Evidence it reads. Use it to page a detail "
        "summary reply or an oversized reply's continuation. Pages start at offset 0, limit 64 (text in "
        "UTF-16 code units); record, managed and comparison pages end early within 32 KB: follow "
        "normalized_result.coverage.next_offset until null."
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
