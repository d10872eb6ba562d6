"""Wire records of the artifact family: REA 6.x argument and result shapes.

Names, types and enums follow the reference (artifactToolContracts, artifactGraph,
artifactInspection, artifactComparison, artifactIntegrityPolicy; 3.1 for inventory_artifact).
Our extras are optional arguments or additional result fields, never a different shape
for a shared name. Paging extras default to the reference's complete answer.
"""

from __future__ import annotations

from typing import Any, Literal

import attrs

from rea.artifacts.model import LIMIT_BOUNDS
from rea.evidence import SUBJECT_FORMATS
from rea.wire.schema import Open, field

_SHA = "^[a-f0-9]{64}$"
_MAX = 2**53 - 1


def _pattern(prefix: str) -> str:
    return f"^{prefix}_[a-f0-9]{{64}}$"


def _limit(name: str, description: str) -> Any:
    lo, hi, default = LIMIT_BOUNDS[name]
    return field(description, default=default, minimum=lo, maximum=hi)


Policy = Literal["fail", "record-and-continue"]
_POLICY = (
    "fail (default): a mismatch fails the call; record-and-continue: quarantine and record "
    "contradicted bytes, go on with verified siblings"
)


# ------------------------------------------------------------------ arguments


@attrs.frozen(kw_only=True)
class TraversalArgs:
    """The integrity policy and traversal limits every artifact reader takes."""

    integrity_policy: Policy = field(_POLICY, default="fail")
    max_entries: int = _limit("max_entries", "Members recorded before traversal stops (coverage becomes unknown)")
    max_total_bytes: int = _limit("max_total_bytes", "Decompressed bytes read across the traversal")
    max_entry_bytes: int = _limit("max_entry_bytes", "Decompressed bytes read from one member")
    max_compression_ratio: float = _limit(
        "max_compression_ratio", "Stop decompressing a member past this expansion ratio (bomb guard)"
    )
    max_depth: int = _limit("max_depth", "Nested container levels expanded (0: the root's members only)")
    max_path_bytes: int = _limit("max_path_bytes", "Longest accepted member path in UTF-8 bytes")
    max_integrity_mismatches: int | None = field(
        "With record-and-continue, fail with truncated past this many contradictions (default: no cap)",
        omit_none=True,
        minimum=1,
        maximum=100,
    )


def _cap(description: str, maximum: int) -> Any:
    return field(f"Most {description} kept (default: all)", omit_none=True, minimum=1, maximum=maximum)


@attrs.frozen(kw_only=True)
class InspectArgs(TraversalArgs):
    detail: Literal["complete", "summary"] = field(
        "complete: the inspection Evidence; summary: retain it and return its summary view", default="complete"
    )
    max_observations: int | None = _cap("observations", 500)
    max_hypotheses: int | None = _cap("hypotheses", 100)
    max_unexplored_branches: int | None = _cap("unexplored branches", 100)
    max_next_probes: int | None = _cap("next probes", 50)


def _offset(what: str) -> Any:
    return field(f"First {what} to return", default=0, minimum=0, maximum=_MAX)


def _page(what: str) -> Any:
    return field(f"{what} per page", default=100, minimum=1, maximum=500)


@attrs.frozen(kw_only=True)
class InventoryArgs(TraversalArgs):
    node_offset: int = _offset("node")
    node_limit: int = _page("Nodes")
    occurrence_offset: int = _offset("occurrence")
    occurrence_limit: int = _page("Occurrences")
    edge_offset: int = _offset("edge")
    edge_limit: int = _page("Edges")
    contradiction_offset: int = _offset("integrity contradiction (our extra)")
    contradiction_limit: int | None = field(
        "Integrity contradictions to return (default: all of them)", omit_none=True, minimum=1, maximum=500
    )


@attrs.frozen(kw_only=True)
class ExtractArgs(TraversalArgs):
    occurrence_ids: tuple[str, ...] | None = field(
        "Only these regular-file occurrences (default: every regular file)",
        omit_none=True,
        schema={
            "type": "array",
            "items": {"type": "string", "pattern": _pattern("occ")},
            "minItems": 1,
            "maxItems": 500,
            "uniqueItems": True,
        },
    )


_SIDE_SCHEMA = {
    "anyOf": [
        {"type": "object", "description": "inspect_artifact or inventory_artifact Evidence, or a retained reference"},
        {
            "type": "array",
            "items": {"type": "object", "description": "one page of an inventory (inline or retained)"},
            "minItems": 1,
            "maxItems": 100,
        },
    ]
}


@attrs.frozen(kw_only=True)
class CompareArgs:
    left: Open = field(
        'Complete inline Evidence, {"kind": "retained-evidence", "evidence_id": "ev_..."}, or every page of one '
        "inventory as an array",
        schema=_SIDE_SCHEMA,
    )
    right: Open = field("The other side, in the same forms as left", schema=_SIDE_SCHEMA)
    offset: int = field("First change to return", default=0, minimum=0, maximum=_MAX)
    limit: int | None = field("Changes to return (default: all of them)", omit_none=True, minimum=1, maximum=_MAX)


# ------------------------------------------------------------------ graph records


@attrs.frozen(kw_only=True)
class Limits:
    max_entries: int = field("Members recorded")
    max_total_bytes: int = field("Bytes read across the traversal")
    max_entry_bytes: int = field("Bytes read from one member")
    max_compression_ratio: float = field("Expansion ratio guard")
    max_depth: int = field("Nested levels expanded")
    max_path_bytes: int = field("Longest member path")


@attrs.frozen(kw_only=True)
class Coverage:
    scope: Literal["root", "container-entries"] = field("What the traversal enumerated")
    status: Literal["complete", "unknown"] = field("Whether every member was observed")


@attrs.frozen(kw_only=True)
class Command:
    """An external command that produced an artifact (none today: every reader is in-process)."""

    tool: str = field("Program name", minLength=1)
    arguments: tuple[str, ...] = field("Its arguments")
    tool_version: str | None = field("Its version")
    executable_sha256: str | None = field("Digest of its executable")
    exit_code: int | None = field("Exit status")
    effects: tuple[Literal["read", "write", "mount"], ...] = field("Observable side effects")


@attrs.frozen(kw_only=True)
class ManagedRole:
    role: Literal["assembly", "portable-pdb"] = field("A PE with a CLI header, or a portable PDB (BSJB metadata)")
    next_tool: Literal["inspect_managed_artifact"] = field("The managed tool that reads it")
    detail: str = field("What that tool answers", minLength=1)


@attrs.frozen(kw_only=True)
class Node:
    artifact_id: str = field("Content address of the bytes", pattern=_pattern("art"))
    kind: str = field("Artifact category")
    format: str = field("Storage format")
    sha256: str = field("Content digest", pattern=_SHA)
    size: int = field("Bytes", minimum=0)
    media_type: str | None = field("Media type")
    architecture: str | None = field("Architecture")
    executable: bool = field("Executable permission or format")
    content_state: Literal["materialized", "embedded", "virtual"] = field("Where the bytes live")
    limitations: tuple[str, ...] = field("What is not known about it")
    managed: ManagedRole | None = field(
        "Our extra: a .NET assembly or portable PDB, and the tool for it", omit_none=True
    )


@attrs.frozen(kw_only=True)
class SourceLocation:
    offset: int = field("Offset in the container", minimum=0)
    length: int = field("Length", minimum=0)


@attrs.frozen(kw_only=True)
class Occurrence:
    occurrence_id: str = field("Where the artifact occurs", pattern=_pattern("occ"))
    artifact_id: str | None = field("Its artifact (null for directories and symlinks)")
    parent_occurrence_id: str | None = field("The containing occurrence (null: the root)")
    logical_path: str = field("Normalized relative path inside the parent container", minLength=1)
    entry_kind: Literal["file", "directory", "symlink", "slice"] = field("Member kind")
    declared_size: int | None = field("Declared bytes")
    compressed_size: int | None = field("Compressed bytes")
    executable: bool = field("Executable")
    encrypted: bool = field("Encrypted")
    hash_status: Literal["verified", "mismatched", "not-hashed-limit", "unavailable"] = field("Hash outcome")
    source_location: SourceLocation | None = field("Byte range in the container")
    unpacked: bool = field("An ASAR .asar.unpacked companion (our extra)")
    limitations: tuple[str, ...] = field("What is not known about it")


@attrs.frozen(kw_only=True)
class Edge:
    edge_id: str = field("Edge id", pattern=_pattern("edge"))
    parent_artifact_id: str = field("Container artifact", pattern=_pattern("art"))
    child_artifact_id: str = field("Contained artifact", pattern=_pattern("art"))
    relation: Literal["contains", "extracts", "slice-of", "embeds", "loads", "maps-source", "derived-from"] = field(
        "Relation"
    )
    occurrence_id: str = field("The occurrence that names the child", pattern=_pattern("occ"))
    logical_path: str | None = field("Its path")
    producer: Command | None = field("Command that produced the child (null: read in-process)")
    ordinal: int = field("Position in manifest order", minimum=0)


@attrs.frozen(kw_only=True)
class Contradiction:
    contradiction_id: str = field("Contradiction id", pattern=_pattern("ic"))
    occurrence_id: str = field("Contradicted occurrence", pattern=_pattern("occ"))
    parent_artifact_id: str = field("Its container", pattern=_pattern("art"))
    logical_path: str = field("Its path", minLength=1)
    declared_sha256: str = field("Digest the container declares", pattern=_SHA)
    observed_sha256: str = field("Digest of the bytes read", pattern=_SHA)
    entry_kind: Literal["file", "slice"] = field("Member kind")
    unpacked: bool = field("An ASAR unpacked companion")
    trust: Literal["observed-untrusted"] = field("The bytes are observed, not trusted")
    provenance: Literal["container-integrity-metadata-versus-observed-bytes"] = field("What was compared")
    limitations: tuple[str, ...] = field("Why, and what it means", minItems=1)


@attrs.frozen(kw_only=True)
class Manifest:
    schema_version: Literal[1] = field("Graph schema")
    manifest_id: str = field("Commitment to the whole graph", pattern=_pattern("agm"))
    root_artifact_id: str = field("Root artifact", pattern=_pattern("art"))
    root_sha256: str = field("Root digest", pattern=_SHA)
    root_format: str = field("Root format")
    graph_sha256: str = field("Digest of all graph records", pattern=_SHA)
    node_count: int = field("Nodes", minimum=1)
    occurrence_count: int = field("Occurrences", minimum=1)
    edge_count: int = field("Edges", minimum=0)
    integrity_contradiction_count: int = field("Contradictions (our extra)", minimum=0)
    limits: Limits = field("Limits the traversal ran under (our extra)")
    coverage: Coverage = field("Scoped coverage (our extra)")


@attrs.frozen(kw_only=True)
class NodePage:
    items: tuple[Node, ...] = field("Nodes of this page")
    offset: int = field("First item", minimum=0)
    limit: int | None = field("Page size")
    total: int = field("Items in the complete listing", minimum=0)
    next_offset: int | None = field("Next offset (null: nothing follows)")


@attrs.frozen(kw_only=True)
class OccurrencePage:
    items: tuple[Occurrence, ...] = field("Occurrences of this page")
    offset: int = field("First item", minimum=0)
    limit: int | None = field("Page size")
    total: int = field("Items in the complete listing", minimum=0)
    next_offset: int | None = field("Next offset (null: nothing follows)")


@attrs.frozen(kw_only=True)
class EdgePage:
    items: tuple[Edge, ...] = field("Edges of this page")
    offset: int = field("First item", minimum=0)
    limit: int | None = field("Page size")
    total: int = field("Items in the complete listing", minimum=0)
    next_offset: int | None = field("Next offset (null: nothing follows)")


@attrs.frozen(kw_only=True)
class LimitHit:
    limit: str = field("Limit name")
    value: float = field("Its value")
    logical_path: str | None = field("Where it was reached")
    message: str = field("What happened")


@attrs.frozen(kw_only=True)
class OmittedEntry:
    logical_path: str = field("Path")
    entry_type: str = field("Type (FIFO, socket, device, unsafe name, ...)")
    reason: str = field("Why it was not opened")


@attrs.frozen(kw_only=True)
class InventoryResult:
    """inventory_artifact (3.1 shape): node/occurrence/edge pages, contradictions as an array."""

    manifest: Manifest = field("The graph's manifest")
    nodes: NodePage = field("A page of nodes")
    occurrences: OccurrencePage = field("A page of occurrences")
    edges: EdgePage = field("A page of edges")
    integrity_contradictions: tuple[Contradiction, ...] = field("Integrity contradictions")
    provenance: tuple[Command, ...] = field("External commands run (none: every reader is in-process)")
    limits: Limits = field("Limits the traversal ran under")
    coverage: Coverage = field("Scoped coverage")
    coverage_status: Literal["complete", "partial"] = field("Legacy coverage, derived from coverage.status")
    limit_hits: tuple[LimitHit, ...] = field("Limits reached")
    omitted_entries: tuple[OmittedEntry, ...] = field("Entries deliberately not opened")
    limitations: tuple[str, ...] = field("What the inventory does not establish")


# ------------------------------------------------------------------ inspect_artifact


@attrs.frozen(kw_only=True)
class Digest:
    sha256: str = field("Content digest", pattern=_SHA)


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
    evidence_id: str = field("Evidence id", pattern=_pattern("ev"))
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
    manifest_id: str = field("Inventory manifest", pattern=_pattern("agm"))
    root_artifact_id: str = field("Root artifact", pattern=_pattern("art"))
    root_sha256: str = field("Root digest", pattern=_SHA)
    root_format: str = field("Root format", minLength=1)


@attrs.frozen(kw_only=True)
class Substep:
    substep_id: str = field("Substep id", pattern=_pattern("ais"))
    operation: Literal["inventory_artifact"] = field("The substep's operation")
    status: Literal["completed"] = field("Any failed substep fails the whole call")
    evidence_id: str = field("The substep's Evidence", pattern=_pattern("ev"))
    evidence: InventoryEvidence = field(
        "The complete inventory_artifact Evidence record (hand it to compare_artifacts)"
    )


@attrs.frozen(kw_only=True)
class Observation:
    observation_id: str = field("Observation id", pattern=_pattern("aio"))
    kind: Literal["root-manifest", "integrity"] = field("What was observed")
    subject: str = field("The manifest's root artifact or the contradiction id", minLength=1)
    value: Manifest | Contradiction = field("The observed record")
    evidence_id: str = field("Evidence it rests on", pattern=_pattern("ev"))


@attrs.frozen(kw_only=True)
class Hypothesis:
    hypothesis_id: str = field("Hypothesis id", pattern=_pattern("aih"))
    statement: str = field("What may hold", minLength=1)
    confidence: Literal["medium", "low"] = field("How strongly")
    basis_evidence_ids: tuple[str, ...] = field("Evidence it rests on", minItems=1)
    limitation: str = field("Why it is not proof", minLength=1)


@attrs.frozen(kw_only=True)
class InspectionContradiction:
    contradiction_id: str = field("Contradiction id", pattern=_pattern("aic"))
    statement: str = field("What contradicts what", minLength=1)
    occurrence_id: str = field("Contradicted occurrence", pattern=_pattern("occ"))
    declared_sha256: str = field("Declared digest", pattern=_SHA)
    observed_sha256: str = field("Observed digest", pattern=_SHA)
    evidence_id: str = field("Inventory Evidence recording it", pattern=_pattern("ev"))
    logical_path: str = field("Contradicted path (our extra)", minLength=1)


Authority = Literal["artifact-bytes", "managed-static-analysis", "native-analysis-provider", "ast-static-analysis"]


@attrs.frozen(kw_only=True)
class NextProbe:
    operation: str = field("Tool to call next", minLength=1)
    rationale: str = field("Why", minLength=1)
    authority: Authority = field("Kind of evidence it would add")


@attrs.frozen(kw_only=True)
class UnexploredBranch:
    branch_id: str = field("Branch id", pattern=_pattern("aib"))
    reason: Literal["format-specific-analysis-required", "unknown-format"] = field("Why it was not explored")
    detail: str = field("What remains", minLength=1)
    next_probe: NextProbe | None = field("How to explore it")
    evidence_id: str = field("Evidence it rests on", pattern=_pattern("ev"))


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
    inspection_id: str = field("Commitment to the inspection", pattern=_pattern("ai"))
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
    extraction_id: str = field("Path-independent commitment to this extraction", pattern=_pattern("aex"))
    source_manifest_id: str = field("Inventory manifest the files come from", pattern=_pattern("agm"))
    selected_occurrence_ids: tuple[str, ...] = field("Occurrences materialized", minItems=1)
    files_sha256: str = field("Digest of the extracted file records", pattern=_SHA)
    output_root_alias: Literal["$OUTPUT_ROOT"] = field("How the records name output_root")


@attrs.frozen(kw_only=True)
class ExtractedArtifact:
    artifact_id: str = field("Content address of the bytes written", pattern=_pattern("art"))
    relative_path: str = field("Path below output_root", minLength=1)
    sha256: str = field("Digest of the bytes written", pattern=_SHA)
    bytes_written: int = field("Bytes written", minimum=0)
    created: bool = field("Written fresh (REA never overwrites)")
    occurrence_id: str = field("The occurrence materialized (our extra)", pattern=_pattern("occ"))
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
    left_manifest_id: str = field("Left manifest", pattern=_pattern("agm"))
    right_manifest_id: str = field("Right manifest", pattern=_pattern("agm"))
    summary: ComparisonSummary = field("Counts per classification")
    changes: tuple[Change, ...] = field("Every change (offset/limit select a slice when given)")
    limitations: tuple[str, ...] = field("What the comparison does not establish")
    changes_page: ChangesPage = field("Which slice of the changes this is (our extra)")
    left_coverage: Coverage = field("Left traversal coverage (our extra)")
    right_coverage: Coverage = field("Right traversal coverage (our extra)")
    uncertainty: tuple[str, ...] = field("Why equality cannot be concluded (our extra)")
    source_complete: SidesComplete = field("Completeness of each side (our extra)")
