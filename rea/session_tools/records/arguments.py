"""Wire records of the session tools' arguments (REA 6.x sessionLifecycleInputs, sessionToolSchemas;
the vocabularies: rea.session_tools.records.vocabulary)."""

from __future__ import annotations

from typing import Literal

import attrs

from rea.native.selector import SELECTOR_PATTERN
from rea.session_tools.records.vocabulary import (
    EVIDENCE_ID,
    EVIDENCE_IDS,
    LOCAL_PATH,
    SAFE_MAX,
    SHA256,
    UNKNOWN_ID,
    Authority,
    Confidence,
    Isolation,
    Severity,
    UnknownStatus,
)
from rea.wire.schema import field, local_path

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
    path: str = local_path(LOCAL_PATH + " of the bundle file to write")
    overwrite: bool = field("Replace an existing file", default=False)


@attrs.frozen(kw_only=True)
class ImportEvidenceBundleArgs:
    path: str = local_path(LOCAL_PATH + " of the bundle file to import")


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
    evidence_ids: tuple[str, ...] = field("Evidence that settles it", schema=EVIDENCE_IDS)


@attrs.frozen(kw_only=True)
class RecordUnknownArgs:
    question: str = field("The concrete unresolved question", minLength=1, maxLength=1000)
    severity: Severity = field("How much the answer matters")
    domain: str = field("Area of the question, e.g. protocol, storage", minLength=1, maxLength=100)
    supporting_evidence_ids: tuple[str, ...] = field(
        "Retained Evidence that supports it", factory=tuple, schema=EVIDENCE_IDS
    )
    contradicting_evidence_ids: tuple[str, ...] = field(
        "Retained Evidence that contradicts it (status becomes contradicted)", factory=tuple, schema=EVIDENCE_IDS
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
        "Replacement supporting Evidence ids (omitted: unchanged)", absent=True, schema=EVIDENCE_IDS
    )
    contradicting_evidence_ids: tuple[str, ...] = field(
        "Replacement contradicting Evidence ids (omitted: unchanged)", absent=True, schema=EVIDENCE_IDS
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
