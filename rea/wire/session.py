"""Wire records of the session family: REA 6.x argument and result shapes.

Field names, types and enums follow the reference (sessionLifecycleInputs,
sessionStatusContract, sessionToolSchemas, toolOutputSchemaGroups' sessionOutputSchemas,
toolOutputSchemaPrimitives, evidenceBundle, evidenceRecordSummary, residualUnknown,
providerSelection). Where the contract (spec/mcp-contracts.md) differs, the contract
wins: tool availability and provider capabilities are grouped, list_unknowns pages.
Our extras are optional arguments or additional result fields, never a different
shape for a name the reference uses.

Closed vocabularies are written out here (a `Literal` must be literal for mypy); the
tests hold them equal to the constants the code uses (rea.evidence, rea.unknowns,
rea.catalog.contract, rea.native.providers).
"""

from __future__ import annotations

from typing import Any, Literal
from collections.abc import Mapping

import attrs

from rea.catalog.contract import ClientFeature, Surface, ToolAnnotation, ToolEffect
from rea.evidence import SubjectFormat
from rea.native.providers import RejectionCode
from rea.native.selector import SELECTOR_PATTERN
from rea.wire.schema import Open, field, local_path

SHA256 = "^[a-f0-9]{64}$"
EVIDENCE_ID = "^ev_[a-f0-9]{64}$"
UNKNOWN_ID = "^unk_[a-f0-9]{64}$"
SAFE_MAX = 2**53 - 1
_ANY_JSON = {"description": "Any JSON value"}
_DIAGNOSTICS = {
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

_PATH = "Local filesystem path"
_IDS = {"type": "array", "items": {"type": "string", "pattern": EVIDENCE_ID}, "maxItems": 100, "uniqueItems": True}


# ================================================================== arguments


@attrs.frozen(kw_only=True)
class BinarySessionArgs:
    expected_package_version: str | None = field("Package version the caller expects", omit_none=True, minLength=1)
    expected_catalog_digest: str | None = field(
        "Expected server_identity.catalog.digests.combined_sha256",
        omit_none=True,
        pattern=SHA256,
    )
    expected_server_path: str | None = field(
        "Server command the caller registered (resolved by PATH, then symlinks)",
        omit_none=True,
        minLength=1,
    )


@attrs.frozen(kw_only=True)
class ExistingProject:
    project_name: str = field("Name of an existing analysis project", minLength=1)
    program: str = field("Program inside that project", minLength=1)


@attrs.frozen(kw_only=True)
class OpenBinaryArgs:
    path: str = local_path("Local filesystem path of the target (a file or a directory)")
    format: Literal["dos-com"] | None = field(
        "Read as a headerless DOS COM program (omitted: detect from the header)", omit_none=True
    )
    provider_id: str | None = field(
        "Deep-analysis provider (angr, ghidra, hopper, ida), or auto (the default)",
        omit_none=True,
        pattern=SELECTOR_PATTERN,
    )
    existing_project: ExistingProject | None = field(
        "Program of an existing project (refused: Ghidra imports into a fresh project)",
        omit_none=True,
    )
    snapshot_path: str | None = local_path(
        "Analysis snapshot to restore (refused: REA keeps none; angr caches by digest)",
        omit_none=True,
    )
    architecture: str | None = field(
        "Universal Mach-O slice, as lipo names it (x86_64, arm64, ...); omitted: x86_64, then arm64, then the first",
        omit_none=True,
        minLength=1,
        maxLength=64,
        pattern=r"^[A-Za-z0-9_-]+$",
    )


@attrs.frozen(kw_only=True)
class CloseBinaryArgs:
    snapshot_path: str | None = local_path(
        "Analysis snapshot to write (refused: REA keeps none; use export_evidence_bundle)",
        omit_none=True,
    )
    overwrite: bool = field("Replace an existing snapshot file", default=False)


@attrs.frozen(kw_only=True)
class EvidenceFilters:
    """Exact retained-record selectors; selection never starts a provider."""

    evidence_id: str | None = field("Exact Evidence id", omit_none=True, pattern=EVIDENCE_ID)
    operation: str | None = field("Exact operation name", omit_none=True, minLength=1)
    target_sha256: str | None = field("Exact subject sha256", omit_none=True, pattern=SHA256)
    analysis_profile_digest: str | None = field("Exact analysis-profile digest", omit_none=True, pattern=SHA256)
    procedure_address: str | None = field(
        "Exact procedure address of an analyze_function record, e.g. 0x401000", omit_none=True, minLength=1
    )


@attrs.frozen(kw_only=True)
class GetEvidenceBundleArgs:
    detail: Literal["complete", "summary"] = field(
        "complete: the bundle itself; summary: one metadata row per record", default="complete"
    )
    filters: EvidenceFilters | None = field("Exact-match filters (summary only)", omit_none=True)


@attrs.frozen(kw_only=True)
class ExportEvidenceBundleArgs:
    path: str = local_path(_PATH + " of the bundle file to write")
    overwrite: bool = field("Replace an existing file", default=False)


@attrs.frozen(kw_only=True)
class ImportEvidenceBundleArgs:
    path: str = local_path(_PATH + " of the bundle file to import")


@attrs.frozen(kw_only=True)
class Probe:
    operation: str = field("Tool to run", minLength=1, maxLength=200)
    rationale: str = field("Why it would settle the question", minLength=1, maxLength=1000)


@attrs.frozen(kw_only=True)
class Relationship:
    type: Literal["depends-on", "related-to", "contradicts"] = field("How the unknowns relate")
    unknown_id: str = field("Related unknown", pattern=UNKNOWN_ID)


@attrs.frozen(kw_only=True)
class RequiredEnvironment:
    id: str | None = field("Environment id", minLength=1, maxLength=200)
    platform: str | None = field("Platform", minLength=1, maxLength=100)
    architecture: str | None = field("Architecture", minLength=1, maxLength=100)
    isolation: Isolation | None = field("Isolation the answer needs")


@attrs.frozen(kw_only=True)
class Resolution:
    disposition: Literal["verified", "withdrawn", "out-of-scope"] = field("How the question was settled")
    rationale: str = field("Why the question is settled", minLength=1, maxLength=1000)
    evidence_ids: tuple[str, ...] = field("Evidence that settles it", schema=_IDS)


@attrs.frozen(kw_only=True)
class RecordUnknownArgs:
    question: str = field("The concrete unresolved question", minLength=1, maxLength=1000)
    severity: Severity = field("How much the answer matters")
    domain: str = field("Area of the question, e.g. protocol, storage", minLength=1, maxLength=100)
    supporting_evidence_ids: tuple[str, ...] = field("Retained Evidence that supports it", factory=tuple, schema=_IDS)
    contradicting_evidence_ids: tuple[str, ...] = field(
        "Retained Evidence that contradicts it (status becomes contradicted)", factory=tuple, schema=_IDS
    )
    required_authority: Authority | None = field("Authority an answer needs", default=None)
    required_confidence: Confidence = field("Confidence an answer needs", default="observed")
    required_environment: RequiredEnvironment | None = field("Environment an answer needs", default=None)
    recommended_probes: tuple[Probe, ...] = field("Operations that could settle it", factory=tuple, maxItems=20)
    relationships: tuple[Relationship, ...] = field("Links to other unknowns", factory=tuple, maxItems=100)


@attrs.frozen(kw_only=True)
class UpdateUnknownArgs:
    """The reference sends the complete replacement state; an omitted field keeps its value."""

    unknown_id: str = field("Unknown to update", pattern=UNKNOWN_ID)
    expected_revision: int = field("The revision you last read", minimum=1, maximum=SAFE_MAX)
    status: UnknownStatus = field("New status (omitted: unchanged)", absent=True)
    severity: Severity = field("New severity (omitted: unchanged)", absent=True)
    supporting_evidence_ids: tuple[str, ...] = field(
        "Replacement supporting Evidence ids (omitted: unchanged)", absent=True, schema=_IDS
    )
    contradicting_evidence_ids: tuple[str, ...] = field(
        "Replacement contradicting Evidence ids (omitted: unchanged)", absent=True, schema=_IDS
    )
    required_authority: Authority | None = field("Authority an answer needs; null for none", absent=True)
    required_confidence: Confidence = field("Confidence an answer needs (omitted: unchanged)", absent=True)
    required_environment: RequiredEnvironment | None = field("Environment an answer needs; null for none", absent=True)
    recommended_probes: tuple[Probe, ...] = field("Replacement probes (omitted: unchanged)", absent=True, maxItems=20)
    relationships: tuple[Relationship, ...] = field(
        "Replacement relationships (omitted: unchanged)", absent=True, maxItems=100
    )
    resolution: Resolution | None = field("How it was settled (required for resolved); null for none", absent=True)


@attrs.frozen(kw_only=True)
class ListUnknownsArgs:
    offset: int = field("First item to return (our paging, per the contract)", default=0, minimum=0, maximum=SAFE_MAX)
    limit: int | None = field("Items per page (default: every matching head)", omit_none=True, minimum=1, maximum=500)
    status: UnknownStatus | None = field("Exact status", omit_none=True)
    severity: Severity | None = field("Exact severity", omit_none=True)
    domain: str | None = field("Exact domain", omit_none=True, minLength=1, maxLength=100)


# ================================================================= identities


@attrs.frozen(kw_only=True)
class ProviderIdentity:
    id: str = field("Provider id")
    name: str = field("Provider name")
    version: str | None = field("Concrete version, null when unknown")


@attrs.frozen(kw_only=True)
class AnalysisProfile:
    schema_version: Literal[1] = field("Profile schema version")
    provider: ProviderIdentity = field("The provider the profile commits")
    provider_profile_schema_version: int = field("Provider profile schema version", minimum=1, maximum=SAFE_MAX)
    parameters: Open = field("Provider settings that shape the analysis (engine, loader, CFG, decompiler)")
    digest: str = field("sha256 of the canonical profile without its digest", pattern=SHA256)


@attrs.frozen(kw_only=True)
class ProviderBinding:
    provider: ProviderIdentity = field("The bound deep-analysis provider")
    selection_source: SelectionSource = field("Where the choice came from")
    analysis_profile: AnalysisProfile = field("The complete committed analysis profile")
    selection_detail: Literal["embedded-default", "single-candidate"] | None = field(
        "Our extra: which auto rule chose the provider (null when requested or from the environment)"
    )


# ---------------------------------------------------------------- lineage


@attrs.frozen(kw_only=True)
class Descendant:
    pid: int = field("Process id", minimum=1, maximum=SAFE_MAX)
    parent_pid: int = field("Parent process id", minimum=0, maximum=SAFE_MAX)
    process_group_id: int = field("Process group id", minimum=0, maximum=SAFE_MAX)


@attrs.frozen(kw_only=True)
class VerifiedObservation:
    status: Literal["verified"] = field("Ownership revalidated at observed_at")
    observed_at: str = field("ISO 8601 time of the bounded check")
    schema_version: int = field("Observation schema version (extra)", minimum=1, maximum=SAFE_MAX)
    launcher_pid: int = field("The provider launcher's pid", minimum=1, maximum=SAFE_MAX)
    launcher_parent_pid: int = field("Its parent's pid", minimum=0, maximum=SAFE_MAX)
    process_group_id: int = field("Its process group", minimum=1, maximum=SAFE_MAX)
    descendants: tuple[Descendant, ...] = field("Descendants seen at that check")


@attrs.frozen(kw_only=True)
class UnavailableObservation:
    status: Literal["unavailable"] = field("Ownership could not be revalidated")
    observed_at: str = field("ISO 8601 time of the attempt")
    launcher_pid: int | None = field("The launcher's pid, when one started", omit_none=True, minimum=1)
    process_group_id: int | None = field("Its process group, when one started", omit_none=True, minimum=1)
    reason: str = field("Why not", minLength=1)


@attrs.frozen(kw_only=True)
class LineageSnapshot:
    provider: ProviderIdentity = field("The started provider")
    observation: VerifiedObservation | UnavailableObservation = field("Its latest ownership observation")


@attrs.frozen(kw_only=True)
class LineageNotObserved:
    status: Literal["not_observed"] = field("No provider process has started in this run")


@attrs.frozen(kw_only=True)
class LineageSnapshots:
    status: Literal["snapshots"] = field("Historical snapshots, not a live process inventory")
    snapshots: tuple[LineageSnapshot, ...] = field("One per started provider, by provider id")


@attrs.frozen(kw_only=True)
class AnalysisRun:
    run_id: str = field("Analysis run id (a UUID), allocated before any provider starts")
    process_lineage: LineageNotObserved | LineageSnapshots = field("Provider process ownership observations")


@attrs.frozen(kw_only=True)
class ActiveRequest:
    request_id: int = field("Provider request sequence number", minimum=1, maximum=SAFE_MAX)
    operation: str = field("Engine operation in flight", minLength=1)
    elapsed_ms: int = field("Milliseconds since it started", minimum=0, maximum=SAFE_MAX)
    caller_state: Literal["waiting", "cancelled"] = field("Whether its caller still waits")


@attrs.frozen(kw_only=True)
class ProviderActivity:
    provider: ProviderIdentity = field("A started provider")
    active: ActiveRequest | None = field("The request it is answering, null when idle")
    queued_requests: int = field("Requests waiting behind it", minimum=0, maximum=SAFE_MAX)


@attrs.frozen(kw_only=True)
class AnalysisActivity:
    status: Literal["not_observed", "idle", "busy"] = field("not_observed until a provider process starts")
    providers: tuple[ProviderActivity, ...] = field("Started providers, by id")


# ------------------------------------------------------------- capabilities


@attrs.frozen(kw_only=True)
class CapabilityGroup:
    operations: tuple[str, ...] = field("Operations sharing these facts, sorted")
    available: bool = field("Whether the provider can answer them now")
    reason: str | None = field("Why not, null when available")
    availability_code: RejectionCode | None = field("Rejection code, null when available")
    effects: tuple[ProviderEffect, ...] = field("True members of the provider effect vocabulary (omitted: false)")
    limitations: tuple[str, ...] = field("Ordered limitations after the set's shared_limitations")


@attrs.frozen(kw_only=True)
class CapabilitySet:
    """One provider's capabilities, grouped (spec: Identity and discovery)."""

    provider: ProviderIdentity = field("The provider these capabilities belong to")
    shared_limitations: tuple[str, ...] = field("Ordered common prefix of every operation's limitations")
    groups: tuple[CapabilityGroup, ...] = field("Operations grouped by identical facts")


@attrs.frozen(kw_only=True)
class ProviderAvailability:
    status: Literal["available", "unavailable"] = field("Host availability")
    code: RejectionCode | None = field("Rejection code, null when available")
    reason: str | None = field("Why unavailable, null when available")
    remediation: str | None = field("What to do about it (extra)")
    diagnostics: Mapping[str, Any] = field("Diagnostic facts", schema=_DIAGNOSTICS)


@attrs.frozen(kw_only=True)
class TargetSupport:
    status: Literal["unknown", "supported", "unsupported"] = field("Support for the open target")
    code: TargetRejectionCode | None = field("Rejection code when unsupported")
    reason: str | None = field("Why unknown or unsupported")
    diagnostics: Mapping[str, Any] = field("Diagnostic facts", schema=_DIAGNOSTICS)
    formats: tuple[str, ...] = field("Target formats the provider analyses (extra)")


@attrs.frozen(kw_only=True)
class ProviderCandidate:
    provider: ProviderIdentity = field("A possible deep-analysis provider")
    availability: ProviderAvailability = field("Whether this host can run it")
    target_support: TargetSupport = field("Whether it analyses the open target")
    selected: bool = field("Whether it is the bound provider")
    capabilities: tuple[CapabilitySet, ...] = field("Its capability sets (they describe, they do not select)")
    embedded: bool = field("Ships with REA (extra)")
    limitations: tuple[str, ...] = field("Provider-wide limitations (extra)")


# ---------------------------------------------------------- tool availability


@attrs.frozen(kw_only=True)
class ClientRequirements:
    required: tuple[ClientFeature, ...] = field("Client features the tools need")
    optional: tuple[ClientFeature, ...] = field("Client features the tools can use")
    missing_required: tuple[ClientFeature, ...] = field("Required features this client lacks")
    missing_optional: tuple[ClientFeature, ...] = field("Optional features this client lacks")


@attrs.frozen(kw_only=True)
class ToolMode:
    name: str = field("Mode name")
    available: bool = field("Whether the mode works now")
    missing_operations: tuple[str, ...] = field("Provider operations it lacks")
    remediation: str | None = field("What to do, null when available")


@attrs.frozen(kw_only=True)
class ToolGroup:
    names: tuple[str, ...] = field("Tools sharing these facts, sorted")
    surface: Surface = field("Catalog surface")
    available: bool = field("Callable now")
    reason: ToolReason = field("available, or why not")
    remediation: str | None = field("What to do, null when available")
    default_mode_available: bool = field("Whether the default mode works")
    modes: tuple[ToolMode, ...] = field("Optional modes")
    effects: tuple[ToolEffect, ...] = field("True members of the effects vocabulary (omitted: false)")
    annotations: tuple[ToolAnnotation, ...] = field("True members of the annotations vocabulary (omitted: false)")
    returns_target_content: bool = field("Results may carry analysis-target text (untrusted)")
    client_requirements: ClientRequirements | None = field(
        "Replaces the baseline for these tools; absent when the baseline applies", omit_none=True
    )


@attrs.frozen(kw_only=True)
class ToolAvailability:
    """Grouped per the contract (the reference's 6.x result is a flat per-tool array)."""

    client_features: tuple[ClientFeature, ...] = field("Negotiated client features REA uses")
    client_requirements: ClientRequirements = field("Baseline requirements of every group")
    total: int = field(
        "Tools across all groups: the whole catalog (equals tools/list under the default toolset all)",
        minimum=0,
        maximum=SAFE_MAX,
    )
    groups: tuple[ToolGroup, ...] = field("Every tool exactly once")


@attrs.frozen(kw_only=True)
class ActiveToolsets:
    """What REA_MCP_TOOLSETS or `rea mcp --toolsets` selected (our extra; see docs/toolsets.md)."""

    selected: tuple[str, ...] = field('The active toolsets; ["all"] is the complete catalog (the default)')
    exposed_tools: int = field("Tools tools/list lists and tools/call answers", minimum=0, maximum=SAFE_MAX)
    excluded_tools: int = field(
        "Catalog tools the toolsets leave out (tool_availability reason toolset_excluded)", minimum=0, maximum=SAFE_MAX
    )
    accepted: tuple[str, ...] = field("Every toolset name REA accepts: the profiles, then the catalog's families")


@attrs.frozen(kw_only=True)
class ClientFeatures:
    elicitation_form: bool = field("Form elicitation negotiated")
    elicitation_url: bool = field("URL elicitation negotiated")
    roots: bool = field("Roots negotiated")
    sampling: bool = field("Sampling negotiated")


# ------------------------------------------------------------ server identity


@attrs.frozen(kw_only=True)
class PackageIdentity:
    name: str = field("Package name")
    version: str = field("Package version")
    root_path: str = field("Directory the running package was loaded from")
    build_commit: str | None = field("Git commit of that checkout, null when unknown")


@attrs.frozen(kw_only=True)
class ServerInfo:
    name: str = field("Server name")
    version: str = field("Server version")
    started_at: str = field("ISO 8601 start time")
    command_path: str = field("Resolved path of the running server command")
    transport: Literal["mcp", "cli"] = field("How it was started (extra)")


@attrs.frozen(kw_only=True)
class SdkVersions:
    server: str = field("MCP server SDK version")
    client_test: str = field("MCP client SDK version the suite tests against")
    core: str = field("MCP protocol core version")
    name: str = field("SDK distribution (extra)")
    version: str = field("SDK version (extra)")


@attrs.frozen(kw_only=True)
class ClientInfo:
    name: str = field("Client name from initialize")
    version: str = field("Client version from initialize")


@attrs.frozen(kw_only=True)
class SkillIdentity:
    name: str = field("Agent skill name")
    expected_version: str = field("Skill version this server expects")


@attrs.frozen(kw_only=True)
class CatalogCounts:
    mcp_tools: int = field("MCP tools", minimum=0, maximum=SAFE_MAX)
    cli_commands: int = field("CLI commands", minimum=0, maximum=SAFE_MAX)


@attrs.frozen(kw_only=True)
class CatalogDigests:
    tools_sha256: str = field("Digest of every tool row", pattern=SHA256)
    input_schemas_sha256: str = field("Digest of the input schemas", pattern=SHA256)
    output_schemas_sha256: str = field("Digest of the output schemas", pattern=SHA256)
    combined_sha256: str = field("Catalog digest (compare with expected_catalog_digest)", pattern=SHA256)


@attrs.frozen(kw_only=True)
class CatalogIdentity:
    counts: CatalogCounts = field("Catalog counts")
    digests: CatalogDigests = field("Catalog digests")
    schema_ids: Mapping[str, str | None] = field("Each tool's output schema $id")


@attrs.frozen(kw_only=True)
class ProtocolFeatures:
    progress: bool = field("Progress notifications for requests with a token")
    cancellation: bool = field("Request cancellation")
    elicitation: bool = field("REA asks the client through elicitation")
    evidence_resources: bool = field("Evidence bundles as MCP resources (extra; 3.1 field)")
    tools_list_changed: bool = field("tools/list_changed notifications (extra)")


@attrs.frozen(kw_only=True)
class Comparison:
    expected: str = field("What the caller expected")
    actual: str = field("What the live server has")
    matches: bool = field("Whether they agree")


@attrs.frozen(kw_only=True)
class Alignment:
    state: Literal["aligned", "mcp_server_restart_required", "unknown"] = field("Live server against expectations")
    reasons: tuple[
        Literal["package_version_mismatch", "catalog_digest_mismatch", "registration_path_mismatch"], ...
    ] = field("Why it is not aligned")
    remediation: str | None = field("What to do, null when aligned")
    compared: Mapping[str, Comparison] = field("Each expectation compared (extra)")


@attrs.frozen(kw_only=True)
class BudgetFacts:
    max_response_bytes: int = field("Response budget, bytes", minimum=0, maximum=SAFE_MAX)
    envelope_reserve_bytes: int = field("Reserved for the JSON-RPC envelope", minimum=0, maximum=SAFE_MAX)


@attrs.frozen(kw_only=True)
class ServerIdentity:
    package: PackageIdentity = field("The running package")
    server: ServerInfo = field("The running server")
    sdk: SdkVersions = field("MCP SDK versions")
    negotiated_protocol_version: str | None = field("Protocol version from initialize")
    client: ClientInfo | None = field("Client identity from initialize")
    skill: SkillIdentity = field("The agent skill this server pairs with")
    catalog: CatalogIdentity = field("Catalog counts and digests (tools/list holds the definitions)")
    protocol_features: ProtocolFeatures = field("Protocol features REA uses")
    alignment: Alignment = field("Live server against the caller's expected_* inputs")
    response_budget: BudgetFacts = field("Response budget (extra)")
    input_schema_profile: Literal["full", "compact"] = field("Advertised input schema profile (extra)")


# ================================================================== results


@attrs.frozen(kw_only=True)
class LegacyTarget:
    """Our earlier nested target record, kept for existing clients (extra)."""

    path: str = field("Path as given")
    name: str = field("File name")
    sha256: str = field("Content digest (a directory: digest of its canonical listing)", pattern=SHA256)
    size: int = field("Bytes", minimum=0, maximum=SAFE_MAX)
    format: TargetFormat = field("Detected format")
    kind: Literal["file", "directory"] = field("Filesystem kind")


@attrs.frozen(kw_only=True)
class LedgerCounts:
    records: int = field("Retained Evidence records", minimum=0, maximum=SAFE_MAX)
    unknowns: int = field("Unknown heads", minimum=0, maximum=SAFE_MAX)


@attrs.frozen(kw_only=True)
class BinarySessionResult:
    """The reference's two variants (open: false, or open: true with the target facts) as one
    record: path, format, kind and sha256 are present exactly when open; architecture is always
    present (null when closed or unknown), one extra null that keeps the schema half the size."""

    open: bool = field("Whether a target is open")
    path: str | None = field("The target's path (present when open)", omit_none=True)
    format: TargetFormat | None = field("Detected (or caller-selected) format (present when open)", omit_none=True)
    kind: TargetKind | None = field("Target kind (present when open)", omit_none=True)
    sha256: str | None = field("Content digest (present when open)", omit_none=True, pattern=SHA256)
    architecture: Architecture | None = field("Header architecture; null when closed, not an executable or unknown")
    provider: ProviderIdentity = field("The current route's provider (the configured default when nothing is bound)")
    providers: tuple[ProviderIdentity, ...] = field("Providers serving the current route")
    capabilities: tuple[CapabilitySet, ...] = field("Capabilities of the current route, grouped")
    analysis_run: AnalysisRun | None = field("The current analysis run, null before the first open")
    analysis_activity: AnalysisActivity = field("Provider request activity")
    analysis_provider_binding: ProviderBinding | None = field("The concrete selected route, null when none")
    analysis_provider_candidates: tuple[ProviderCandidate, ...] = field("Every possible provider, by id")
    tool_availability: ToolAvailability = field("Every tool's current availability, grouped")
    toolsets: ActiveToolsets = field("The toolsets this server exposes (our extra)")
    client_features: ClientFeatures = field("Negotiated client features")
    server_identity: ServerIdentity = field("Package, server, SDK, protocol, catalog and alignment")
    target: LegacyTarget | None = field("Our nested target record (extra)")
    ledger: LedgerCounts = field("Retained record and unknown counts (extra)")


@attrs.frozen(kw_only=True)
class FatSlice:
    index: int = field("Position in the universal header's slice table", minimum=0, maximum=SAFE_MAX)
    architecture: str = field("The slice's name as lipo gives it (x86_64, arm64, ...)")
    cputype: int = field("fat_arch cputype", minimum=-(2**31), maximum=2**32 - 1)
    cpusubtype: int = field("fat_arch cpusubtype", minimum=-(2**31), maximum=2**32 - 1)
    offset: int = field("File offset of the slice's Mach-O image", minimum=0, maximum=SAFE_MAX)
    size: int = field("Bytes of the slice's image", minimum=0, maximum=SAFE_MAX)
    selected: bool = field("This is the slice the native tools analyse")


@attrs.frozen(kw_only=True)
class SelectedSlice(FatSlice):
    selection: Literal["request", "default"] = field(
        "request: open_binary's architecture named it; default: the host-preferred slice (x86_64, arm64, first)"
    )


@attrs.frozen(kw_only=True)
class OpenBinaryResult:
    path: str = field("The target's path, as given")
    format: TargetFormat = field("Detected (or caller-selected) format")
    kind: TargetKind = field("Target kind")
    loaderArgs: tuple[str, ...] = field("Loader arguments (none: REA loads with the profile's fixed options)")
    sha256: str = field("Content digest (a directory: digest of its canonical listing)", pattern=SHA256)
    architecture: Architecture | None = field("Header architecture, null when not an executable or unknown")
    name: str = field("File name (extra)")
    size: int = field("Bytes (extra)", minimum=0, maximum=SAFE_MAX)
    analysis_run: AnalysisRun = field("The new analysis run (extra)")
    analysis_provider_binding: ProviderBinding | None = field("The bound provider, null when none fits (extra)")
    limitations: tuple[str, ...] = field("What this binding cannot do (extra)")
    target: LegacyTarget = field("Our nested target record (extra)")
    slices: tuple[FatSlice, ...] | None = field(
        "Every slice of a universal Mach-O, in header order (extra; absent for other targets)", omit_none=True
    )
    selected_slice: SelectedSlice | None = field(
        "The slice the native tools analyse and how it was chosen (extra; absent for other targets)", omit_none=True
    )


@attrs.frozen(kw_only=True)
class ClearedCounts:
    records: int = field("Evidence records cleared", minimum=0, maximum=SAFE_MAX)
    unknowns: int = field("Unknown revisions cleared", minimum=0, maximum=SAFE_MAX)


@attrs.frozen(kw_only=True)
class CleanupStatus:
    status: Literal["complete"] = field("Every owned provider resource stopped and verified gone")
    owned_resources: tuple[str, ...] = field("Owned resource kinds that remain (none)")


@attrs.frozen(kw_only=True)
class CloseReport:
    target: LegacyTarget | None = field("The target that was open, null when none was")
    cleared: ClearedCounts = field("What the ledger held")
    cleanup: CleanupStatus = field("Provider cleanup")


@attrs.frozen(kw_only=True)
class CloseBinaryBeside:
    """structuredContent beside `result`: the reference's close_binary result is null without a
    snapshot, so our cleanup facts travel next to it rather than changing its type."""

    closed: CloseReport = field("Our cleanup facts (extra, beside the reference's null result)")


@attrs.frozen(kw_only=True)
class ExportResult:
    path: str = field("Published path")
    bytes: int = field("Bytes written", minimum=0, maximum=SAFE_MAX)
    records: int = field("Records", minimum=0, maximum=SAFE_MAX)
    unknowns: int = field("Unknown revisions", minimum=0, maximum=SAFE_MAX)
    sha256: str = field("Digest of the published bytes (extra)", pattern=SHA256)


@attrs.frozen(kw_only=True)
class ImportResult:
    imported: int = field("New records", minimum=0, maximum=SAFE_MAX)
    unknowns_added: int = field("New unknown revisions", minimum=0, maximum=SAFE_MAX)
    total: int = field("Records now retained", minimum=0, maximum=SAFE_MAX)


# ---------------------------------------------------------------- unknowns


@attrs.frozen(kw_only=True)
class ResidualUnknown:
    """One immutable revision of a residual unknown (plus our `registry_version`)."""

    registry_version: Literal[1] = field("Registry version (extra)")
    unknown_id: str = field("Stable id from question, domain and scope", pattern=UNKNOWN_ID)
    revision: int = field("Revision number", minimum=1, maximum=SAFE_MAX)
    previous_revision_digest: str | None = field("Digest of the previous revision", pattern=SHA256)
    revision_digest: str = field("Digest of this revision", pattern=SHA256)
    scope_digest: str | None = field("Target sha256 the question is about", pattern=SHA256)
    question: str = field("The open question", minLength=1, maxLength=1000)
    status: UnknownStatus = field("Status")
    domain: str = field("Area of the question", minLength=1, maxLength=100)
    severity: Severity = field("How much the answer matters")
    supporting_evidence_ids: tuple[str, ...] = field("Supporting Evidence", schema=_IDS)
    contradicting_evidence_ids: tuple[str, ...] = field("Contradicting Evidence", schema=_IDS)
    required_authority: Authority | None = field("Authority an answer needs")
    required_confidence: Confidence = field("Confidence an answer needs")
    required_environment: RequiredEnvironment | None = field("Environment an answer needs")
    recommended_probes: tuple[Probe, ...] = field("Operations that could settle it", maxItems=20)
    relationships: tuple[Relationship, ...] = field("Links to other unknowns", maxItems=100)
    resolution: Resolution | None = field("How it was settled")
    mutation_evidence_ids: tuple[str, ...] = field(
        "Mutation Evidence of every revision so far",
        schema={"type": "array", "items": {"type": "string", "pattern": EVIDENCE_ID}, "minItems": 1},
    )


@attrs.frozen(kw_only=True)
class UnknownPage:
    items: tuple[ResidualUnknown, ...] = field("Current heads, in unknown-id order")
    total: int = field("Matching heads", minimum=0, maximum=SAFE_MAX)
    offset: int = field("Offset of this page (contract paging)", minimum=0, maximum=SAFE_MAX)
    limit: int | None = field("Page size, null for everything", minimum=1, maximum=SAFE_MAX)
    next_offset: int | None = field("Offset of the next page, null at the end", minimum=0, maximum=SAFE_MAX)


# ----------------------------------------------------------------- bundles


@attrs.frozen(kw_only=True)
class Digest:
    sha256: str = field("Content digest", pattern=SHA256)


@attrs.frozen(kw_only=True)
class Subject:
    name: str = field("Name")
    digest: Digest = field("Digest")
    format: SubjectFormat = field("Format")
    architecture: Architecture | None = field("Architecture")
    local_path: str = field("Local path")


@attrs.frozen(kw_only=True)
class EnvironmentRecord:
    id: str | None = field("Environment id")
    platform: str | None = field("Platform")
    architecture: str | None = field("Architecture")
    isolation: Isolation | None = field("Isolation")


@attrs.frozen(kw_only=True)
class AddressLocation:
    kind: Literal["address"] = field("A single address")
    address: str = field("Address")


@attrs.frozen(kw_only=True)
class AddressRangeLocation:
    kind: Literal["address-range"] = field("An address range")
    start: str = field("First address")
    end: str = field("End address")


@attrs.frozen(kw_only=True)
class ArtifactPathLocation:
    kind: Literal["artifact-path"] = field("A path inside an artifact")
    path: str = field("Logical path")


@attrs.frozen(kw_only=True)
class FileOffsetLocation:
    kind: Literal["file-offset"] = field("A file offset")
    offset: int = field("Byte offset", minimum=0, maximum=SAFE_MAX)


@attrs.frozen(kw_only=True)
class FileOffsetRangeLocation:
    kind: Literal["file-offset-range"] = field("A file byte range")
    start: int = field("First byte", minimum=0, maximum=SAFE_MAX)
    end: int = field("End byte", minimum=0, maximum=SAFE_MAX)


Location = AddressLocation | AddressRangeLocation | ArtifactPathLocation | FileOffsetLocation | FileOffsetRangeLocation


@attrs.frozen(kw_only=True)
class EvidenceRecord:
    """A complete canonical Evidence v2 record; its payloads are open JSON by contract."""

    schema_version: Literal[2] = field("Evidence schema version")
    evidence_id: str = field("Content-addressed id", pattern=EVIDENCE_ID)
    subject: Subject | None = field("What was analysed")
    provider: ProviderIdentity = field("Who produced it")
    analysis_profile: AnalysisProfile | None = field("The committed analysis profile, or null")
    predicate_type: str = field("Predicate type")
    operation: str = field("Producing operation")
    parameters: Open = field("The request's parameters (open JSON)")
    raw_result: Open = field("Distinct provider representation, or null (open JSON)")
    normalized_result: Open = field("The operation's result (open JSON; its tool's schema types it)")
    confidence: Confidence = field("Confidence")
    authority: Authority = field("Authority")
    environment: EnvironmentRecord | None = field("Execution environment, or null")
    limitations: tuple[str, ...] = field("What the record does not establish")
    locations: tuple[Location, ...] = field("Where the facts are")
    evidence_links: tuple[str, ...] = field(
        "Linked Evidence", schema={"type": "array", "items": {"type": "string", "pattern": EVIDENCE_ID}}
    )


@attrs.frozen(kw_only=True)
class ArtifactManifest:
    digest: Digest = field("Subject digest")
    format: SubjectFormat = field("Subject format")
    architecture: Architecture | None = field("Subject architecture")


@attrs.frozen(kw_only=True)
class ScenarioManifest:
    evidence_id: str = field("Controlled-replay record", pattern=EVIDENCE_ID)
    operation: str = field("Its operation")
    authority: Authority = field("Its authority")


@attrs.frozen(kw_only=True)
class CaptureManifest:
    evidence_id: str = field("Process-capture record", pattern=EVIDENCE_ID)
    predicate_type: str = field("Its predicate type")


@attrs.frozen(kw_only=True)
class EvidenceBundle:
    """The canonical bundle: exactly what export_evidence_bundle writes."""

    artifacts: tuple[ArtifactManifest, ...] = field("Distinct subjects, sorted")
    bundle_version: Literal[2] = field("Bundle version")
    captures: tuple[CaptureManifest, ...] = field("Process-capture records")
    environments: tuple[EnvironmentRecord, ...] = field("Distinct environments, sorted")
    providers: tuple[ProviderIdentity, ...] = field("Distinct providers, sorted")
    records: tuple[EvidenceRecord, ...] = field("Every retained record, by evidence_id")
    scenarios: tuple[ScenarioManifest, ...] = field("Controlled-replay records")
    unknowns: tuple[ResidualUnknown, ...] = field("Every unknown revision, by id and revision")


@attrs.frozen(kw_only=True)
class ValueFlowObserved:
    status: Literal["observed"] = field("Value-flow metadata was recorded")
    truncated: bool = field("Whether it was truncated")
    omitted_operations_lower_bound: int | None = field("Omitted operations, at least (null: not counted)")
    known_omitted_inputs: int | None = field("Omitted inputs (null: not counted)")
    known_omitted_edges: int | None = field("Omitted edges (null: not counted)")


@attrs.frozen(kw_only=True)
class ValueFlowUnavailable:
    status: Literal["unavailable"] = field("The provider could not record value flow")
    reason: str = field("Why")


@attrs.frozen(kw_only=True)
class ValueFlowNotRecorded:
    status: Literal["not-recorded"] = field("The dossier carries no value-flow metadata")


@attrs.frozen(kw_only=True)
class ValueFlowUnknown:
    status: Literal["unknown"] = field("The metadata has an incompatible representation")
    reason: str = field("Why")


@attrs.frozen(kw_only=True)
class NativeDossier:
    available: Literal[True] = field("An analyze_function record with procedure metadata")
    procedure_address: str = field("Procedure entry address")
    procedure_name: str | None = field("Procedure name, null when unknown")
    value_flow: ValueFlowObserved | ValueFlowUnavailable | ValueFlowNotRecorded | ValueFlowUnknown = field(
        "Value-flow metadata, independent of retention"
    )


@attrs.frozen(kw_only=True)
class NoNativeDossier:
    available: Literal[False] = field("No native dossier metadata")
    reason: Literal["different-operation", "not-recorded-or-incompatible"] = field("Why")


@attrs.frozen(kw_only=True)
class SummaryRecord:
    evidence_id: str = field("Evidence id", pattern=EVIDENCE_ID)
    subject: Subject | None = field("What was analysed")
    provider: ProviderIdentity = field("Who produced it")
    operation: str = field("Producing operation")
    confidence: Confidence = field("Confidence")
    authority: Authority = field("Authority")
    analysis_profile_digest: str | None = field("Analysis profile digest", pattern=SHA256)
    retention: Literal["complete-record"] = field("The complete record is retained")
    limitation_count: int = field("Limitations on the record", minimum=0, maximum=SAFE_MAX)
    native_dossier: NativeDossier | NoNativeDossier = field("analyze_function procedure metadata")
    predicate_type: str = field("Predicate type (extra)")
    evidence_links: tuple[str, ...] = field(
        "Linked Evidence (extra)", schema={"type": "array", "items": {"type": "string", "pattern": EVIDENCE_ID}}
    )


@attrs.frozen(kw_only=True)
class BundleSummary:
    kind: Literal["evidence-bundle-summary"] = field("Summary discriminator")
    filters: Mapping[str, str] = field("The filters applied")
    total_retained_records: int = field("Records retained", minimum=0, maximum=SAFE_MAX)
    matching_records: int = field("Records matching the filters", minimum=0, maximum=SAFE_MAX)
    unknown_revisions: int = field("Unknown revisions retained", minimum=0, maximum=SAFE_MAX)
    records: tuple[SummaryRecord, ...] = field("Every matching record, by ledger order")


GetEvidenceBundleResult = EvidenceBundle | BundleSummary
