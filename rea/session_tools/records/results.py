"""Wire records of the session tools' results: the target opened or closed, a bundle exported or imported,
residual unknowns and their pages (REA 6.x sessionOutputSchemas, residualUnknown)."""

from __future__ import annotations

from typing import Literal

import attrs

from rea.session_tools.records.arguments import (
    Probe,
    Relationship,
    RequiredEnvironment,
    Resolution,
)
from rea.session_tools.records.status import (
    ActiveToolsets,
    AnalysisActivity,
    AnalysisRun,
    CapabilitySet,
    ClientFeatures,
    ProviderBinding,
    ProviderCandidate,
    ProviderIdentity,
    ServerIdentity,
    ToolAvailability,
)
from rea.session_tools.records.vocabulary import (
    EVIDENCE_ID,
    EVIDENCE_IDS,
    SAFE_MAX,
    SHA256,
    UNKNOWN_ID,
    Architecture,
    Authority,
    Confidence,
    Severity,
    TargetFormat,
    TargetKind,
    UnknownStatus,
)
from rea.wire.schema import field

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
    supporting_evidence_ids: tuple[str, ...] = field("Supporting Evidence", schema=EVIDENCE_IDS)
    contradicting_evidence_ids: tuple[str, ...] = field("Contradicting Evidence", schema=EVIDENCE_IDS)
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
