"""The session family's wire vocabulary: the patterns and closed vocabularies its records share.

The records are split by what they hold: arguments, status (binary_session), results, bundles
(rea.session_tools.records).

Field names, types and enums follow the reference (sessionLifecycleInputs,
sessionStatusContract, sessionToolSchemas, toolOutputSchemaGroups' sessionOutputSchemas,
toolOutputSchemaPrimitives, evidenceBundle, evidenceRecordSummary, residualUnknown,
providerSelection). Where the contract (spec/mcp-contracts.md) differs, the contract
wins: tool availability and provider capabilities are grouped, list_unknowns pages.
Our extras are optional arguments or additional result fields, never a different
shape for a name the reference uses.

The closed vocabularies are written out here (a `Literal` must be literal for mypy); the
tests hold them equal to the constants the code uses (rea.evidence, rea.unknowns,
rea.catalog.contract, rea.native.providers).
"""

from __future__ import annotations

from typing import Literal

SHA256 = "^[a-f0-9]{64}$"
EVIDENCE_ID = "^ev_[a-f0-9]{64}$"
UNKNOWN_ID = "^unk_[a-f0-9]{64}$"
SAFE_MAX = 2**53 - 1
_ANY_JSON = {"description": "Any JSON value"}
DIAGNOSTICS = {
    "type": "object",
    "additionalProperties": _ANY_JSON,
    "description": "Provider-specific diagnostic facts, keyed by name",
}

Architecture = Literal["x86", "x86_64", "arm", "arm64"]
Confidence = Literal["observed", "derived", "inferred"]
Authority = Literal[
    "shipped-artifact", "controlled-replay", "historical-reference", "external-service", "analyst-inference"
]
Isolation = Literal["none", "process", "container", "virtual-machine"]
Severity = Literal["low", "medium", "high", "critical"]
UnknownStatus = Literal["open", "investigating", "blocked", "contradicted", "resolved"]
# the reference's targetFormatSchema, then our further detected formats (a reference client
# switching on format meets them only for targets the reference would not open at all)
TargetFormat = Literal[
    "hopper",
    "analysis-database",
    "mach-o",
    "elf",
    "pe",
    "dos-mz",
    "dos-com",
    "zip",
    "ipa",
    "apk",
    "msix",
    "appx",
    "asar",
    "dmg",
    "pkg",
    "plist",
    "javascript",
    "source-map",
    "mach-o-universal",
    "jar",
    "aab",
    "aar",
    "whl",
    "crx",
    "tar",
    "ar",
    "wasm",
    "directory",
    "file",
]
TargetKind = Literal["executable", "database", "archive", "artifact"]
TargetRejectionCode = Literal[
    "target_kind_unsupported",
    "target_format_unsupported",
    "architecture_unsupported",
    "target_role_unsupported",
    "managed_target_unsupported",
]
SelectionSource = Literal["request", "environment", "auto-single-candidate"]
ToolReason = Literal[
    "available",
    "client_capability_missing",
    "target_required",
    "provider_missing",
    "provider_unavailable",
    "target_unsupported",
    "unsupported_host",
    "toolset_excluded",
]
ProviderEffect = Literal[
    "mutates_artifact",
    "launches_process",
    "may_show_ui",
    "may_access_network",
    "may_write_filesystem",
    "changes_permissions",
    "requires_root",
]

LOCAL_PATH = "Local filesystem path"
EVIDENCE_IDS = {
    "type": "array",
    "items": {"type": "string", "pattern": EVIDENCE_ID},
    "maxItems": 100,
    "uniqueItems": True,
}
