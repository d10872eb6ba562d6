"""Wire records of the artifact family's reports: inspect_artifact, extract_artifact and compare_artifacts.

The arguments and the inventory graph they share are in rea.artifacts.records; names, types and enums
follow the reference (artifactInspection, artifactComparison) as those do.
"""

from __future__ import annotations

from typing import Literal

import attrs

from rea.artifacts.records import (
    SHA256,
    Command,
    Contradiction,
    Coverage,
    InventoryResult,
    Limits,
    Manifest,
    id_pattern,
)
from rea.evidence import SUBJECT_FORMATS
from rea.wire.schema import Open, field

# ------------------------------------------------------------------ inspect_artifact


@attrs.frozen(kw_only=True)
class Digest:
    sha256: str = field("Content digest", pattern=SHA256)


@attrs.frozen(kw_only=True)
class EvidenceSubject:
    name: str = field("Target name")
    digest: Digest = field("Target digest")
    format: str = field("Target format", schema={"type": "string", "enum": list(SUBJECT_FORMATS)})
    architecture: str | None = field("Architecture")
    local_path: str = field("Path the target was read from")


@attrs.frozen(kw_only=True)
class EvidenceProvider:
    id: str = field("Provider id")
    name: str = field("Provider name")
    version: str | None = field("Provider version")


@attrs.frozen(kw_only=True)
class InventoryEvidence:
    """The complete inventory_artifact Evidence v2 record, as inspect_artifact carries it inline."""

    schema_version: Literal[2] = field("Evidence schema")
    evidence_id: str = field("Evidence id", pattern=id_pattern("ev"))
    subject: EvidenceSubject | None = field("The inventoried target")
    provider: EvidenceProvider = field("Who observed it")
    analysis_profile: Open = field("The analysis profile (limits and integrity policy) object, or null")
    predicate_type: str = field("Predicate")
    operation: Literal["inventory_artifact"] = field("Operation")
    parameters: Open = field("The substep's arguments, defaults filled")
    raw_result: Open = field("The provider's own representation (null: none distinct)")
    normalized_result: InventoryResult = field("The complete inventory")
    confidence: Literal["observed", "derived", "inferred"] = field("Confidence")
    authority: Literal[
        "shipped-artifact", "controlled-replay", "historical-reference", "external-service", "analyst-inference"
    ] = field("Authority")
    environment: Open = field("Execution environment object, or null")
    limitations: tuple[str, ...] = field("What the inventory does not establish")
    locations: tuple[Open, ...] = field(
        "Locations", schema={"type": "array", "items": {"type": "object", "description": "A location record"}}
    )
    evidence_links: tuple[str, ...] = field("Linked Evidence")


@attrs.frozen(kw_only=True)
class InspectionSubject:
    manifest_id: str = field("Inventory manifest", pattern=id_pattern("agm"))
    root_artifact_id: str = field("Root artifact", pattern=id_pattern("art"))
    root_sha256: str = field("Root digest", pattern=SHA256)
    root_format: str = field("Root format", minLength=1)


@attrs.frozen(kw_only=True)
class Substep:
    substep_id: str = field("Substep id", pattern=id_pattern("ais"))
    operation: Literal["inventory_artifact"] = field("The substep's operation")
    status: Literal["completed"] = field("Any failed substep fails the whole call")
    evidence_id: str = field("The substep's Evidence", pattern=id_pattern("ev"))
    evidence: InventoryEvidence = field(
        "The complete inventory_artifact Evidence record (hand it to compare_artifacts)"
    )


@attrs.frozen(kw_only=True)
class Observation:
    observation_id: str = field("Observation id", pattern=id_pattern("aio"))
    kind: Literal["root-manifest", "integrity"] = field("What was observed")
    subject: str = field("The manifest's root artifact or the contradiction id", minLength=1)
    value: Manifest | Contradiction = field("The observed record")
    evidence_id: str = field("Evidence it rests on", pattern=id_pattern("ev"))


@attrs.frozen(kw_only=True)
class Hypothesis:
    hypothesis_id: str = field("Hypothesis id", pattern=id_pattern("aih"))
    statement: str = field("What may hold", minLength=1)
    confidence: Literal["medium", "low"] = field("How strongly")
    basis_evidence_ids: tuple[str, ...] = field("Evidence it rests on", minItems=1)
    limitation: str = field("Why it is not proof", minLength=1)


@attrs.frozen(kw_only=True)
class InspectionContradiction:
    contradiction_id: str = field("Contradiction id", pattern=id_pattern("aic"))
    statement: str = field("What contradicts what", minLength=1)
    occurrence_id: str = field("Contradicted occurrence", pattern=id_pattern("occ"))
    declared_sha256: str = field("Declared digest", pattern=SHA256)
    observed_sha256: str = field("Observed digest", pattern=SHA256)
    evidence_id: str = field("Inventory Evidence recording it", pattern=id_pattern("ev"))
    logical_path: str = field("Contradicted path (our extra)", minLength=1)


Authority = Literal["artifact-bytes", "managed-static-analysis", "native-analysis-provider", "ast-static-analysis"]


@attrs.frozen(kw_only=True)
class NextProbe:
    operation: str = field("Tool to call next", minLength=1)
    rationale: str = field("Why", minLength=1)
    authority: Authority = field("Kind of evidence it would add")


@attrs.frozen(kw_only=True)
class UnexploredBranch:
    branch_id: str = field("Branch id", pattern=id_pattern("aib"))
    reason: Literal["format-specific-analysis-required", "unknown-format"] = field("Why it was not explored")
    detail: str = field("What remains", minLength=1)
    next_probe: NextProbe | None = field("How to explore it")
    evidence_id: str = field("Evidence it rests on", pattern=id_pattern("ev"))


@attrs.frozen(kw_only=True)
class InspectionCoverage:
    status: Literal["complete-within-substeps", "partial", "truncated"] = field(
        "truncated: a max_* cap omitted records; partial: the inventory's traversal coverage is unknown"
    )
    substeps_completed: Literal[1] = field("Substeps run")
    observations_retained: int = field("Observations returned", minimum=0)
    observations_omitted: int = field("Observations left out by max_observations", minimum=0)
    hypotheses_retained: int = field("Hypotheses returned", minimum=0)
    hypotheses_omitted: int = field("Hypotheses left out", minimum=0)
    unexplored_branches_retained: int = field("Branches returned", minimum=0)
    unexplored_branches_omitted: int = field("Branches left out", minimum=0)
    next_probes_retained: int = field("Probes returned", minimum=0)
    next_probes_omitted: int = field("Probes left out", minimum=0)


@attrs.frozen(kw_only=True)
class InspectionResult:
    schema_version: Literal[1] = field("Inspection schema (our extra)")
    inspection_id: str = field("Commitment to the inspection", pattern=id_pattern("ai"))
    subject: InspectionSubject = field("The inventoried root")
    substeps: tuple[Substep, ...] = field("The one inventory substep, its Evidence inline", minItems=1)
    observations: tuple[Observation, ...] = field("Root manifest and integrity observations")
    hypotheses: tuple[Hypothesis, ...] = field("Bounded static hypotheses")
    contradictions: tuple[InspectionContradiction, ...] = field("Integrity contradictions")
    unexplored_branches: tuple[UnexploredBranch, ...] = field("Analyses this inspection did not run")
    next_probes: tuple[NextProbe, ...] = field("Format-specific follow-ups")
    coverage: InspectionCoverage = field("What the inspection retained")
    evidence_links: tuple[str, ...] = field("The substep Evidence", minItems=1)
    limitations: tuple[str, ...] = field("What the inspection does not establish")
    inventory_evidence_ids: tuple[str, ...] = field("The substep Evidence ids (our extra)", minItems=1)
    inventory_coverage: Coverage = field("The inventory's scoped traversal coverage (our extra)")
    coverage_status: Literal["complete", "partial"] = field("Legacy traversal coverage (our extra)")


# ------------------------------------------------------------------ extract_artifact


@attrs.frozen(kw_only=True)
class ExtractionManifest:
    schema_version: Literal[1] = field("Extraction schema")
    extraction_id: str = field("Path-independent commitment to this extraction", pattern=id_pattern("aex"))
    source_manifest_id: str = field("Inventory manifest the files come from", pattern=id_pattern("agm"))
    selected_occurrence_ids: tuple[str, ...] = field("Occurrences materialized", minItems=1)
    files_sha256: str = field("Digest of the extracted file records", pattern=SHA256)
    output_root_alias: Literal["$OUTPUT_ROOT"] = field("How the records name output_root")


@attrs.frozen(kw_only=True)
class ExtractedArtifact:
    artifact_id: str = field("Content address of the bytes written", pattern=id_pattern("art"))
    relative_path: str = field("Path below output_root", minLength=1)
    sha256: str = field("Digest of the bytes written", pattern=SHA256)
    bytes_written: int = field("Bytes written", minimum=0)
    created: bool = field("Written fresh (REA never overwrites)")
    occurrence_id: str = field("The occurrence materialized (our extra)", pattern=id_pattern("occ"))
    logical_path: str = field("Its container chain, 'a.zip!/b.txt' (our extra)", minLength=1)


@attrs.frozen(kw_only=True)
class Cleanup:
    attempted: bool = field("Whether staging or mounts needed removing")
    verified: bool = field("Nothing REA staged remains")
    residual_paths: tuple[str, ...] = field("Paths left behind")


@attrs.frozen(kw_only=True)
class ExtractionResult:
    manifest: Manifest = field("Manifest of the inventory the files come from")
    extraction_manifest: ExtractionManifest = field("What was extracted")
    output_root: str = field("Fresh REA-chosen temporary directory holding the files", minLength=1)
    artifacts: tuple[ExtractedArtifact, ...] = field("Every file written")
    containment_verified: bool = field("Nothing was written outside output_root, no link escapes it")
    cleanup: Cleanup = field("Cleanup of staging")
    provenance: tuple[Command, ...] = field("External commands run (none)")
    integrity_contradictions: tuple[Contradiction, ...] = field(
        "With record-and-continue: contradictions of the files written (our extra)"
    )
    limits: Limits = field("Limits applied")
    limitations: tuple[str, ...] = field("What the extraction does not establish")


# ------------------------------------------------------------------ compare_artifacts

Classification = Literal["added", "removed", "changed", "unknown", "contradiction"]
Dimension = Literal[
    "content", "kind", "format", "size", "executable", "relations", "metadata", "availability", "integrity"
]


@attrs.frozen(kw_only=True)
class Change:
    classification: Classification = field("What happened at this path")
    logical_path: str = field("Container chain ('a.whl!/x.py'); '.' for the root", minLength=1)
    dimensions: tuple[Dimension, ...] = field("What differs", minItems=1)
    left_occurrence_id: str | None = field("Left occurrence")
    right_occurrence_id: str | None = field("Right occurrence")
    left_artifact_id: str | None = field("Left artifact")
    right_artifact_id: str | None = field("Right artifact")
    evidence_links: tuple[str, ...] = field("Evidence of both sides", minItems=2)


@attrs.frozen(kw_only=True)
class ComparisonSummary:
    unchanged: int = field("Paths equal on both sides", minimum=0)
    added: int = field("Paths only on the right", minimum=0)
    removed: int = field("Paths only on the left", minimum=0)
    changed: int = field("Paths that differ", minimum=0)
    unknown: int = field("Paths that cannot be compared", minimum=0)
    contradiction: int = field("Paths with integrity contradictions", minimum=0)


@attrs.frozen(kw_only=True)
class ChangesPage:
    offset: int = field("First change returned", minimum=0)
    limit: int | None = field("Changes asked for (null: all)")
    total: int = field("Changes in the complete comparison", minimum=0)
    next_offset: int | None = field("Next offset (null: nothing follows)")


@attrs.frozen(kw_only=True)
class SidesComplete:
    left: bool = field("Left inventory available and completely traversed")
    right: bool = field("Right inventory available and completely traversed")


@attrs.frozen(kw_only=True)
class ComparisonResult:
    status: Literal["unchanged", "added", "removed", "changed", "truncated", "unknown", "contradiction"] = field(
        "Overall verdict"
    )
    left_manifest_id: str = field("Left manifest", pattern=id_pattern("agm"))
    right_manifest_id: str = field("Right manifest", pattern=id_pattern("agm"))
    summary: ComparisonSummary = field("Counts per classification")
    changes: tuple[Change, ...] = field("Every change (offset/limit select a slice when given)")
    limitations: tuple[str, ...] = field("What the comparison does not establish")
    changes_page: ChangesPage = field("Which slice of the changes this is (our extra)")
    left_coverage: Coverage = field("Left traversal coverage (our extra)")
    right_coverage: Coverage = field("Right traversal coverage (our extra)")
    uncertainty: tuple[str, ...] = field("Why equality cannot be concluded (our extra)")
    source_complete: SidesComplete = field("Completeness of each side (our extra)")
