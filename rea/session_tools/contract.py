"""Contracts of the session tools: target binding, the Evidence ledger, unknowns.

Each tool is declared from its typed argument and result records (rea.session_tools.records);
the advertised schemas, the defaults and the fill-in all come from those records.
"""

from __future__ import annotations

from typing import Any

from rea.session_tools.records.arguments import (
    BinarySessionArgs,
    CloseBinaryArgs,
    ExportEvidenceBundleArgs,
    GetEvidenceBundleArgs,
    ImportEvidenceBundleArgs,
    ListUnknownsArgs,
    OpenBinaryArgs,
    RecordUnknownArgs,
    UpdateUnknownArgs,
)
from rea.session_tools.records.bundles import GetEvidenceBundleResult
from rea.session_tools.records.results import (
    BinarySessionResult,
    CloseBinaryBeside,
    ExportResult,
    ImportResult,
    OpenBinaryResult,
    ResidualUnknown,
    UnknownPage,
)
from rea.wire.schema import Role, schema_of
from rea.wire.tool import session_tool

# The stored shape of one unknown revision; bundle import checks every revision against it.
UNKNOWN_RECORD: dict[str, Any] = schema_of(ResidualUnknown, Role.OUTPUT)

BINARY_SESSION = session_tool(
    "binary_session",
    "Binary Session",
    (
        "Report server identity, catalog digests, the active target and provider route (provider, providers, "
        "grouped capabilities, binding, candidates), the analysis run and activity, negotiated client features "
        "and grouped tool availability, without starting any provider. Optional expected_* inputs are compared "
        "with the live server in server_identity.alignment."
    ),
    args=BinarySessionArgs,
    result=BinarySessionResult,
    examples=[{}],
    surface="session",
    effects={"idempotent"},
)

OPEN_BINARY = session_tool(
    "open_binary",
    "Open Binary",
    (
        "Select a local file or directory as the active target: hash it, read its architecture, start a "
        "new analysis run and bind a deep-analysis provider (provider_id, or auto). The result carries "
        "path, format, kind, sha256 and architecture. Retained Evidence stays available."
    ),
    args=OpenBinaryArgs,
    result=OpenBinaryResult,
    examples=[{"path": "/usr/bin/true"}, {"path": "/usr/bin/true", "provider_id": "auto"}],
    surface="session",
    effects={"mutatesSession", "idempotent"},
)

CLOSE_BINARY = session_tool(
    "close_binary",
    "Close Binary",
    (
        "Close the active target, stop its provider resources and clear the retained Evidence and "
        "unknowns (works with no target open). result is null; the cleanup facts are in `closed`. Export "
        "a bundle first to keep the records."
    ),
    args=CloseBinaryArgs,
    result=type(None),
    beside=CloseBinaryBeside,
    examples=[{}, {"overwrite": False}],
    surface="session",
    effects={"mutatesSession", "mayDiscardData"},
)

GET_EVIDENCE_BUNDLE = session_tool(
    "get_evidence_bundle",
    "Get Evidence Bundle",
    (
        "Return the session's Evidence bundle inline (detail: complete, the default; what "
        "export_evidence_bundle writes), or a summary of the retained records without payloads (detail: "
        "summary), which alone takes the exact-match filters."
    ),
    args=GetEvidenceBundleArgs,
    result=GetEvidenceBundleResult,
    examples=[{}, {"detail": "summary", "filters": {"operation": "analyze_function"}}],
    surface="session",
    effects={"idempotent"},
)

EXPORT_EVIDENCE_BUNDLE = session_tool(
    "export_evidence_bundle",
    "Export Evidence Bundle",
    (
        "Stream the session's canonical Evidence bundle into a staging file beside path (absolute) and publish "
        "it atomically. An existing file is replaced only with overwrite: true. Cancelling leaves the destination "
        "untouched."
    ),
    args=ExportEvidenceBundleArgs,
    result=ExportResult,
    examples=[{"path": "/tmp/evidence.json"}, {"path": "/tmp/evidence.json", "overwrite": True}],
    surface="session",
    effects={"writesFilesystem", "mayDiscardData", "idempotent"},
    returns_target_content=False,
)

IMPORT_EVIDENCE_BUNDLE = session_tool(
    "import_evidence_bundle",
    "Import Evidence Bundle",
    (
        "Read a local Evidence bundle (absolute path), reject unsupported fields, verify every Evidence id, "
        "unknown revision and manifest, then merge it into the session atomically. A failed import changes nothing."
    ),
    args=ImportEvidenceBundleArgs,
    result=ImportResult,
    examples=[{"path": "/tmp/evidence.json"}],
    surface="session",
    effects={"mutatesSession", "idempotent"},
)

RECORD_UNKNOWN = session_tool(
    "record_unknown",
    "Record Unknown",
    (
        "Record one residual unknown (a question the evidence does not settle). Its id derives from question, "
        "domain and the active target, so recording the same question twice is a revision_conflict."
    ),
    args=RecordUnknownArgs,
    result=ResidualUnknown,
    examples=[{"question": "Does this branch need a network service?", "domain": "protocol", "severity": "medium"}],
    surface="session",
    effects={"mutatesSession"},
    returns_target_content=False,
)

UPDATE_UNKNOWN = session_tool(
    "update_unknown",
    "Update Unknown",
    (
        "Append a revision to an unknown. expected_revision must equal its current revision, otherwise "
        "revision_conflict. Send the complete replacement state, or only what changes: an omitted field keeps "
        "its value, and null (where allowed) sets null."
    ),
    args=UpdateUnknownArgs,
    result=ResidualUnknown,
    examples=[{"unknown_id": "unk_" + "0" * 64, "expected_revision": 1, "status": "investigating"}],
    surface="session",
    effects={"mutatesSession"},
)

LIST_UNKNOWNS = session_tool(
    "list_unknowns",
    "List Unknowns",
    (
        "List the current head of every unknown in unknown-id order. All by default; with offset/limit, follow "
        "next_offset until it is null. Filters apply before paging."
    ),
    args=ListUnknownsArgs,
    result=UnknownPage,
    examples=[{}, {"offset": 0, "limit": 100}],
    surface="session",
    effects={"idempotent"},
)

CLI_COMMANDS = ("capabilities", "doctor", "inspect-evidence-bundle", "mcp", "providers")

TOOLS = (
    BINARY_SESSION,
    OPEN_BINARY,
    CLOSE_BINARY,
    GET_EVIDENCE_BUNDLE,
    EXPORT_EVIDENCE_BUNDLE,
    IMPORT_EVIDENCE_BUNDLE,
    RECORD_UNKNOWN,
    UPDATE_UNKNOWN,
    LIST_UNKNOWNS,
)
