"""Contracts of the session tools: target binding, the Evidence ledger, unknowns."""

from __future__ import annotations

from rea.catalog.contract import ToolContract
from rea.catalog.schemas import (
    EVIDENCE_ID_PATTERN,
    SHA256_PATTERN,
    UNKNOWN_ID_PATTERN,
    array,
    input_schema,
    integer,
    nullable,
    obj,
    session_output,
    string,
)
from rea.evidence import AUTHORITY, CONFIDENCE, ISOLATION
from rea.unknowns import SEVERITIES, STATUSES

_ANY_OBJECT = {"type": "object"}
_EVIDENCE_IDS = array(string("Evidence v2 id", pattern=EVIDENCE_ID_PATTERN), maxItems=100, uniqueItems=True)
_PROBE = obj(
    {
        "operation": string("Tool to run", minLength=1, maxLength=200),
        "rationale": string("Why it would settle the question", minLength=1, maxLength=1000),
    },
    ("operation", "rationale"),
)
_RELATIONSHIP = obj(
    {
        "type": {"type": "string", "enum": ["depends-on", "related-to", "contradicts"]},
        "unknown_id": string("Related unknown", pattern=UNKNOWN_ID_PATTERN),
    },
    ("type", "unknown_id"),
)
_ENVIRONMENT = nullable(
    obj(
        {
            "id": nullable(string("Environment id", minLength=1, maxLength=200)),
            "platform": nullable(string("Platform", minLength=1, maxLength=100)),
            "architecture": nullable(string("Architecture", minLength=1, maxLength=100)),
            "isolation": nullable({"type": "string", "enum": list(ISOLATION)}),
        },
        ("id", "platform", "architecture", "isolation"),
    )
)
_RESOLUTION = nullable(
    obj(
        {
            "disposition": {"type": "string", "enum": ["verified", "withdrawn", "out-of-scope"]},
            "rationale": string("Why the question is settled", minLength=1, maxLength=1000),
            "evidence_ids": _EVIDENCE_IDS,
        },
        ("disposition", "rationale", "evidence_ids"),
    )
)
_UNKNOWN_FIELDS = {
    "severity": {"type": "string", "enum": list(SEVERITIES), "description": "How much the answer matters"},
    "supporting_evidence_ids": _EVIDENCE_IDS,
    "contradicting_evidence_ids": _EVIDENCE_IDS,
    "required_authority": nullable({"type": "string", "enum": list(AUTHORITY)}),
    "required_confidence": {"type": "string", "enum": list(CONFIDENCE)},
    "required_environment": _ENVIRONMENT,
    "recommended_probes": array(_PROBE, maxItems=20),
    "relationships": array(_RELATIONSHIP, maxItems=100),
}
UNKNOWN_RECORD = obj(
    {
        "registry_version": {"const": 1},
        "unknown_id": string("Stable id from question, domain and scope", pattern=UNKNOWN_ID_PATTERN),
        "revision": integer("Revision number", 1),
        "previous_revision_digest": nullable(string("Digest of the previous revision", pattern=SHA256_PATTERN)),
        "revision_digest": string("Digest of this revision", pattern=SHA256_PATTERN),
        "scope_digest": nullable(string("Target sha256 the question is about", pattern=SHA256_PATTERN)),
        "question": string("The open question", minLength=1, maxLength=1000),
        "status": {"type": "string", "enum": list(STATUSES)},
        "domain": string("Area of the question", minLength=1, maxLength=100),
        **_UNKNOWN_FIELDS,
        "resolution": _RESOLUTION,
        "mutation_evidence_ids": array(string("Mutation Evidence id", pattern=EVIDENCE_ID_PATTERN), minItems=1),
    },
    (
        "registry_version",
        "unknown_id",
        "revision",
        "previous_revision_digest",
        "revision_digest",
        "scope_digest",
        "question",
        "status",
        "domain",
        *_UNKNOWN_FIELDS,
        "resolution",
        "mutation_evidence_ids",
    ),
)

_TARGET = nullable(
    obj(
        {
            "path": string("Path as given"),
            "name": string("File name"),
            "sha256": string("Content digest", pattern=SHA256_PATTERN),
            "size": integer("Bytes"),
            "format": string("Detected format"),
            "kind": {"type": "string", "enum": ["file", "directory"]},
        },
        ("path", "name", "sha256", "size", "format", "kind"),
    )
)
_PROVIDER = obj(
    {"id": string("Provider id"), "name": string("Provider name"), "version": nullable(string("Version"))},
    ("id", "name", "version"),
)

_SUMMARY_ROW = obj(
    {
        "evidence_id": string("Evidence id", pattern=EVIDENCE_ID_PATTERN),
        "operation": string("Producing operation"),
        "predicate_type": string("Predicate type"),
        "artifact": nullable(
            obj(
                {
                    "name": string("Name"),
                    "sha256": string("Digest", pattern=SHA256_PATTERN),
                    "format": string("Format"),
                    "architecture": nullable(string("Architecture")),
                },
                ("name", "sha256", "format", "architecture"),
            )
        ),
        "provider": _PROVIDER,
        "analysis_profile_digest": nullable(string("Analysis profile digest", pattern=SHA256_PATTERN)),
        "procedure": nullable(
            obj(
                {"address": string("Procedure address"), "name": nullable(string("Procedure name"))},
                ("address", "name"),
            )
        ),
        "confidence": {"type": "string", "enum": list(CONFIDENCE)},
        "authority": {"type": "string", "enum": list(AUTHORITY)},
        "evidence_links": array(string("Linked Evidence id", pattern=EVIDENCE_ID_PATTERN)),
        "retention": {"const": "complete-record"},
    },
    (
        "evidence_id",
        "operation",
        "predicate_type",
        "artifact",
        "provider",
        "analysis_profile_digest",
        "procedure",
        "confidence",
        "authority",
        "evidence_links",
        "retention",
    ),
)

BUNDLE = obj(
    {
        "bundle_version": {"const": 2},
        "artifacts": array(_ANY_OBJECT),
        "providers": array(_PROVIDER),
        "environments": array(_ANY_OBJECT),
        "scenarios": array(_ANY_OBJECT),
        "captures": array(_ANY_OBJECT),
        "records": array({"type": "object", "required": ["evidence_id", "schema_version"]}),
        "unknowns": array(UNKNOWN_RECORD),
    },
    ("artifacts", "bundle_version", "captures", "environments", "providers", "records", "scenarios", "unknowns"),
)

_FILTERS = obj(
    {
        "evidence_id": string("Exact Evidence id", pattern=EVIDENCE_ID_PATTERN),
        "operation": string("Exact operation name", minLength=1),
        "target_sha256": string("Exact artifact sha256", pattern=SHA256_PATTERN),
        "analysis_profile_digest": string("Exact analysis-profile digest", pattern=SHA256_PATTERN),
        "procedure_address": string("Exact procedure address, e.g. 0x401000", minLength=1),
    }
)

BINARY_SESSION = ToolContract(
    name="binary_session",
    title="Binary Session",
    description=(
        "Report server identity, catalog digests, the active target and provider binding, the analysis run and "
        "grouped tool availability, without starting any provider. Optional expected_* inputs are compared with "
        "the live server and reported in server_identity.alignment."
    ),
    surface="session",
    input_schema=input_schema(
        {
            "expected_package_version": string("Package version the caller expects", minLength=1),
            "expected_catalog_digest": string(
                "Catalog digest (combined_sha256) the caller expects", pattern=SHA256_PATTERN
            ),
            "expected_server_path": string("Server command path the caller registered", minLength=1),
        },
        examples=[{}],
    ),
    output_schema=session_output(
        obj(
            {
                "open": {"type": "boolean"},
                "target": _TARGET,
                "server_identity": _ANY_OBJECT,
                "tool_availability": _ANY_OBJECT,
                "analysis_provider_candidates": array(_ANY_OBJECT),
                "analysis_provider_binding": nullable(_ANY_OBJECT),
                "analysis_run": nullable(
                    obj({"run_id": string("Run id"), "process_lineage": _ANY_OBJECT}, ("run_id", "process_lineage"))
                ),
                "ledger": obj(
                    {"records": integer("Retained Evidence records"), "unknowns": integer("Unknown heads")},
                    ("records", "unknowns"),
                ),
            },
            (
                "open",
                "target",
                "server_identity",
                "tool_availability",
                "analysis_provider_candidates",
                "analysis_provider_binding",
                "analysis_run",
                "ledger",
            ),
        )
    ),
    annotations={"read_only", "idempotent"},
    effects={"idempotent"},
)

OPEN_BINARY = ToolContract(
    name="open_binary",
    title="Open Binary",
    description=(
        "Select a local file or directory as the active target: hash it, allocate a new analysis run and bind a "
        "deep-analysis provider (provider_id: a concrete id or auto). Retained Evidence stays available."
    ),
    surface="session",
    input_schema=input_schema(
        {
            "path": string("Local filesystem path of the target", minLength=1),
            "provider_id": {
                "description": "Deep-analysis provider id, or auto (default) for deterministic selection",
                "type": "string",
                "pattern": "^(auto|[a-z][a-z0-9-]{0,63})$",
            },
        },
        ("path",),
        examples=[{"path": "/usr/bin/true"}, {"path": "/usr/bin/true", "provider_id": "auto"}],
    ),
    output_schema=session_output(
        obj(
            {
                "target": _TARGET,
                "analysis_run": obj(
                    {"run_id": string("Run id"), "process_lineage": _ANY_OBJECT}, ("run_id", "process_lineage")
                ),
                "analysis_provider_binding": nullable(_ANY_OBJECT),
                "limitations": array(string("Limitation")),
            },
            ("target", "analysis_run", "analysis_provider_binding", "limitations"),
        )
    ),
    annotations={"idempotent", "open_world"},
    effects={"mutatesSession", "idempotent"},
)

CLOSE_BINARY = ToolContract(
    name="close_binary",
    title="Close Binary",
    description=(
        "Close the active target, stop every provider resource started for it and clear the retained Evidence "
        "and unknowns. Works with no target open. Export a bundle first if the records are needed later."
    ),
    surface="session",
    input_schema=input_schema({}, examples=[{}]),
    output_schema=session_output(
        obj(
            {
                "closed_target": _TARGET,
                "cleared": obj(
                    {"records": integer("Records cleared"), "unknowns": integer("Unknown revisions cleared")},
                    ("records", "unknowns"),
                ),
                "cleanup": obj(
                    {"status": {"type": "string", "enum": ["complete"]}, "owned_resources": array(string("Resource"))},
                    ("status", "owned_resources"),
                ),
            },
            ("closed_target", "cleared", "cleanup"),
        )
    ),
    annotations={"destructive"},
    effects={"mutatesSession", "mayDiscardData"},
)

GET_EVIDENCE_BUNDLE = ToolContract(
    name="get_evidence_bundle",
    title="Get Evidence Bundle",
    description=(
        "Return the session's canonical Evidence bundle inline (detail: complete, the default), or discovery "
        "rows without payloads (detail: summary) with optional exact-match filters. Filters require summary."
    ),
    surface="session",
    input_schema=input_schema(
        {
            "detail": {
                "type": "string",
                "enum": ["complete", "summary"],
                "default": "complete",
                "description": "complete: the whole bundle; summary: one metadata row per record",
            },
            "filters": _FILTERS,
        },
        examples=[{}, {"detail": "summary", "filters": {"operation": "analyze_function"}}],
    ),
    output_schema=session_output(
        {
            "anyOf": [
                obj({"detail": {"const": "complete"}, "bundle": BUNDLE}, ("detail", "bundle")),
                obj(
                    {
                        "detail": {"const": "summary"},
                        "filters": _FILTERS,
                        "total": integer("Matching records"),
                        "records": array(_SUMMARY_ROW),
                        "unknowns": integer("Unknown heads"),
                    },
                    ("detail", "filters", "total", "records", "unknowns"),
                ),
            ]
        }
    ),
    annotations={"read_only", "idempotent"},
    effects={"idempotent"},
)

EXPORT_EVIDENCE_BUNDLE = ToolContract(
    name="export_evidence_bundle",
    title="Export Evidence Bundle",
    description=(
        "Stream the session's canonical Evidence bundle into a staging file beside path and publish it "
        "atomically. An existing file is replaced only with overwrite: true. Cancelling leaves the destination "
        "untouched."
    ),
    surface="session",
    input_schema=input_schema(
        {
            "path": string("Destination file path", minLength=1),
            "overwrite": {"type": "boolean", "default": False, "description": "Replace an existing file"},
        },
        ("path",),
        examples=[{"path": "/tmp/evidence.json"}, {"path": "/tmp/evidence.json", "overwrite": True}],
    ),
    output_schema=session_output(
        obj(
            {
                "path": string("Published path"),
                "bytes": integer("Bytes written"),
                "records": integer("Records"),
                "unknowns": integer("Unknown revisions"),
                "sha256": string("Digest of the published bytes", pattern=SHA256_PATTERN),
            },
            ("path", "bytes", "records", "unknowns", "sha256"),
        )
    ),
    annotations={"destructive", "idempotent"},
    effects={"writesFilesystem", "mayDiscardData", "idempotent"},
    returns_target_content=False,
)

IMPORT_EVIDENCE_BUNDLE = ToolContract(
    name="import_evidence_bundle",
    title="Import Evidence Bundle",
    description=(
        "Read a local Evidence bundle, reject unsupported fields, verify every Evidence id, unknown revision and "
        "manifest, then merge it into the session atomically. A failed import changes nothing."
    ),
    surface="session",
    input_schema=input_schema(
        {"path": string("Bundle file path", minLength=1)}, ("path",), examples=[{"path": "/tmp/evidence.json"}]
    ),
    output_schema=session_output(
        obj(
            {
                "imported": integer("New records"),
                "unknowns_added": integer("New unknown revisions"),
                "total": integer("Records now retained"),
            },
            ("imported", "unknowns_added", "total"),
        )
    ),
    annotations={"idempotent"},
    effects={"mutatesSession", "idempotent"},
)

RECORD_UNKNOWN = ToolContract(
    name="record_unknown",
    title="Record Unknown",
    description=(
        "Record one residual unknown (a question the evidence does not settle). Its id derives from question, "
        "domain and the active target, so recording the same question twice is a revision_conflict."
    ),
    surface="session",
    input_schema=input_schema(
        {
            "question": string("The concrete unresolved question", minLength=1, maxLength=1000),
            "domain": string("Area of the question, e.g. protocol, storage", minLength=1, maxLength=100),
            **_UNKNOWN_FIELDS,
        },
        ("question", "severity", "domain"),
        examples=[{"question": "Does this branch need a network service?", "domain": "protocol", "severity": "medium"}],
    ),
    output_schema=session_output(UNKNOWN_RECORD),
    annotations=set(),
    effects={"mutatesSession"},
    returns_target_content=False,
)

UPDATE_UNKNOWN = ToolContract(
    name="update_unknown",
    title="Update Unknown",
    description=(
        "Append a revision to an unknown. expected_revision must equal its current revision, otherwise "
        "revision_conflict; omitted fields keep their current values."
    ),
    surface="session",
    input_schema=input_schema(
        {
            "unknown_id": string("Unknown to update", pattern=UNKNOWN_ID_PATTERN),
            "expected_revision": integer("The revision you last read", 1),
            "status": {"type": "string", "enum": list(STATUSES)},
            **_UNKNOWN_FIELDS,
            "resolution": _RESOLUTION,
        },
        ("unknown_id", "expected_revision"),
        examples=[{"unknown_id": "unk_" + "0" * 64, "expected_revision": 1, "status": "investigating"}],
    ),
    output_schema=session_output(UNKNOWN_RECORD),
    annotations=set(),
    effects={"mutatesSession"},
)

LIST_UNKNOWNS = ToolContract(
    name="list_unknowns",
    title="List Unknowns",
    description=(
        "List the current head of every unknown in unknown-id order. All by default; with offset/limit, follow "
        "next_offset until it is null. Filters apply before paging."
    ),
    surface="session",
    input_schema=input_schema(
        {
            "offset": integer("First item to return", 0),
            "limit": integer("Items per page", 1, 500),
            "status": {"type": "string", "enum": list(STATUSES)},
            "severity": {"type": "string", "enum": list(SEVERITIES)},
            "domain": string("Exact domain", minLength=1, maxLength=100),
        },
        examples=[{}, {"offset": 0, "limit": 100}],
    ),
    output_schema=session_output(
        obj(
            {
                "items": array(UNKNOWN_RECORD),
                "offset": integer("Offset"),
                "limit": nullable(integer("Limit", 1)),
                "total": integer("Matching heads"),
                "next_offset": nullable(integer("Next offset")),
            },
            ("items", "offset", "limit", "total", "next_offset"),
        )
    ),
    annotations={"read_only", "idempotent"},
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
