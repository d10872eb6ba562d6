"""Wire records of binary_session's status: server and provider identity, lineage, capabilities, tool
availability and the catalog's identity (REA 6.x sessionStatusContract, providerSelection)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import attrs

from rea.catalog.contract import ClientFeature, Surface, ToolAnnotation, ToolEffect
from rea.native.providers import RejectionCode
from rea.session_tools.records.vocabulary import (
    DIAGNOSTICS,
    SAFE_MAX,
    SHA256,
    ProviderEffect,
    SelectionSource,
    TargetRejectionCode,
    ToolReason,
)
from rea.wire.schema import Open, field

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
    diagnostics: Mapping[str, Any] = field("Diagnostic facts", schema=DIAGNOSTICS)


@attrs.frozen(kw_only=True)
class TargetSupport:
    status: Literal["unknown", "supported", "unsupported"] = field("Support for the open target")
    code: TargetRejectionCode | None = field("Rejection code when unsupported")
    reason: str | None = field("Why unknown or unsupported")
    diagnostics: Mapping[str, Any] = field("Diagnostic facts", schema=DIAGNOSTICS)
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
