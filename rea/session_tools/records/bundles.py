"""Wire records of an Evidence bundle and its summary (REA 6.x evidenceBundle, evidenceRecordSummary):
what get_evidence_bundle answers and export_evidence_bundle writes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

import attrs

from rea.evidence import SubjectFormat
from rea.session_tools.records.results import (
    ResidualUnknown,
)
from rea.session_tools.records.status import (
    AnalysisProfile,
    ProviderIdentity,
)
from rea.session_tools.records.vocabulary import (
    EVIDENCE_ID,
    SAFE_MAX,
    SHA256,
    Architecture,
    Authority,
    Confidence,
    Isolation,
)
from rea.wire.schema import Open, field

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
