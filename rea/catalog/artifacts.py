"""Contracts of the artifact graph family: inspect, inventory, extract, compare, and views."""

from __future__ import annotations

from typing import Any
from collections.abc import Mapping

import attrs

from rea.artifacts.model import (
    COVERAGE_SCOPES,
    COVERAGE_STATUSES,
    ENTRY_KINDS,
    HASH_STATUSES,
    LEGACY_STATUSES,
    SECTIONS,
)
from rea.catalog.contract import ToolContract
from rea.native.views import FACETS as NATIVE_FACETS
from rea.catalog.schemas import (
    EVIDENCE_ID_PATTERN,
    SHA256_PATTERN,
    array,
    evidence_output,
    input_schema,
    integer,
    nullable,
    obj,
    string,
)
from rea.wire.artifacts import (
    CompareArgs,
    ComparisonResult,
    ExtractArgs,
    ExtractionResult,
    InspectArgs,
    InspectionResult,
    InventoryArgs,
    InventoryResult,
)
from rea.wire.schema import schema_of
from rea.wire.tool import evidence_tool

_ANY_OBJECT = {"type": "object"}
_STRINGS = array({"type": "string"})


def _id(prefix: str) -> dict[str, Any]:
    return string(f"{prefix} id", pattern=f"^{prefix}_[a-f0-9]{{64}}$")


def page(item: Mapping[str, Any]) -> dict[str, Any]:
    return obj(
        {
            "items": array(item),
            "offset": integer("First item"),
            "limit": nullable(integer("Page size", 1)),
            "total": integer("Items in the complete listing"),
            "next_offset": nullable(integer("Next offset")),
        },
        ("items", "offset", "limit", "total", "next_offset"),
    )


COVERAGE = obj(
    {
        "scope": {"type": "string", "enum": list(COVERAGE_SCOPES)},
        "status": {"type": "string", "enum": list(COVERAGE_STATUSES)},
    },
    ("scope", "status"),
)
NODE = obj(
    {
        "artifact_id": _id("art"),
        "kind": string("Artifact category"),
        "format": string("Storage format"),
        "sha256": string("Content digest", pattern=SHA256_PATTERN),
        "size": integer("Bytes"),
        "media_type": nullable(string("Media type")),
        "architecture": nullable(string("Architecture")),
        "executable": {"type": "boolean"},
        "content_state": {"type": "string", "enum": ["materialized", "embedded", "virtual"]},
        "limitations": _STRINGS,
    },
    (
        "artifact_id",
        "kind",
        "format",
        "sha256",
        "size",
        "media_type",
        "architecture",
        "executable",
        "content_state",
        "limitations",
    ),
)
OCCURRENCE = obj(
    {
        "occurrence_id": _id("occ"),
        "artifact_id": nullable(_id("art")),
        "parent_occurrence_id": nullable(_id("occ")),
        "logical_path": string("Normalized relative path inside the parent container", minLength=1),
        "entry_kind": {"type": "string", "enum": list(ENTRY_KINDS)},
        "declared_size": nullable(integer("Declared bytes")),
        "compressed_size": nullable(integer("Compressed bytes")),
        "executable": {"type": "boolean"},
        "encrypted": {"type": "boolean"},
        "hash_status": {"type": "string", "enum": list(HASH_STATUSES)},
        "source_location": nullable(
            obj({"offset": integer("Offset"), "length": integer("Length")}, ("offset", "length"))
        ),
        "unpacked": {"type": "boolean"},
        "limitations": _STRINGS,
    },
    (
        "occurrence_id",
        "artifact_id",
        "parent_occurrence_id",
        "logical_path",
        "entry_kind",
        "declared_size",
        "compressed_size",
        "executable",
        "encrypted",
        "hash_status",
        "source_location",
        "unpacked",
        "limitations",
    ),
)
EDGE = obj(
    {
        "edge_id": _id("edge"),
        "parent_artifact_id": _id("art"),
        "child_artifact_id": _id("art"),
        "relation": {
            "type": "string",
            "enum": ["contains", "extracts", "slice-of", "embeds", "loads", "maps-source", "derived-from"],
        },
        "occurrence_id": _id("occ"),
        "logical_path": nullable(string("Path")),
        "producer": nullable(_ANY_OBJECT),
        "ordinal": integer("Position in manifest order"),
    },
    (
        "edge_id",
        "parent_artifact_id",
        "child_artifact_id",
        "relation",
        "occurrence_id",
        "logical_path",
        "producer",
        "ordinal",
    ),
)
CONTRADICTION = obj(
    {
        "contradiction_id": _id("ic"),
        "occurrence_id": _id("occ"),
        "parent_artifact_id": _id("art"),
        "logical_path": string("Path"),
        "declared_sha256": string("Declared", pattern=SHA256_PATTERN),
        "observed_sha256": string("Observed", pattern=SHA256_PATTERN),
        "entry_kind": {"type": "string", "enum": ["file", "slice"]},
        "unpacked": {"type": "boolean"},
        "trust": {"const": "observed-untrusted"},
        "provenance": {"const": "container-integrity-metadata-versus-observed-bytes"},
        "limitations": array({"type": "string"}, minItems=1),
    },
    (
        "contradiction_id",
        "occurrence_id",
        "parent_artifact_id",
        "logical_path",
        "declared_sha256",
        "observed_sha256",
        "entry_kind",
        "unpacked",
        "trust",
        "provenance",
        "limitations",
    ),
)

_VIEW_BASE = {
    "view": string("View"),
    "parent_evidence_id": string("Source Evidence", pattern=EVIDENCE_ID_PATTERN),
    "source_operation": {"type": "string", "enum": ["inspect_artifact", "inventory_artifact"]},
    "manifest_id": nullable(string("Manifest of the source inventory")),
    "coverage": COVERAGE,
    "coverage_status": {"type": "string", "enum": list(LEGACY_STATUSES)},
    "source_complete": {"type": "boolean"},
    "selected_facts_sha256": string("Digest of the selected facts", pattern=SHA256_PATTERN),
    "limitations": _STRINGS,
}
_COUNTS = obj({s: nullable(integer(s)) for s in SECTIONS}, SECTIONS)
SUMMARY_VIEW = obj(
    {
        **_VIEW_BASE,
        "view": {"const": "summary"},
        "expected_counts": _COUNTS,
        "available_counts": obj({s: integer(s) for s in SECTIONS}, SECTIONS),
        "entry_kinds": {"type": "object", "additionalProperties": integer("Occurrences of this kind")},
        "node_formats": {"type": "object", "additionalProperties": integer("Nodes of this format")},
        "inventory_evidence_ids": array(string("Inventory Evidence", pattern=EVIDENCE_ID_PATTERN)),
        "root": obj(
            {
                "artifact_id": nullable(string("Root artifact")),
                "sha256": nullable(string("Root digest")),
                "format": nullable(string("Root format")),
            },
            ("artifact_id", "sha256", "format"),
        ),
    },
    (
        *_VIEW_BASE,
        "expected_counts",
        "available_counts",
        "entry_kinds",
        "node_formats",
        "inventory_evidence_ids",
        "root",
    ),
)
INVENTORY_VIEW = obj(
    {
        **_VIEW_BASE,
        "view": {"const": "inventory"},
        "section": {"type": "string", "enum": list(SECTIONS)},
        "logical_paths": nullable(_STRINGS),
        "items": array({"anyOf": [NODE, OCCURRENCE, EDGE, CONTRADICTION]}),
        "offset": integer("First item"),
        "limit": nullable(integer("Page size", 1)),
        "total": integer("Selected items"),
        "next_offset": nullable(integer("Next offset")),
    },
    (*_VIEW_BASE, "section", "logical_paths", "items", "offset", "limit", "total", "next_offset"),
)
NATIVE_VIEW = obj(
    {
        "view": {"const": "native"},
        "facet": {"type": "string", "enum": list(NATIVE_FACETS)},
        "parent_evidence_id": string("Source Evidence", pattern=EVIDENCE_ID_PATTERN),
        "source_operation": {"const": "analyze_function"},
        "source_complete": {"type": "boolean"},
        "selected_facts_sha256": string("Digest of the selected facts", pattern=SHA256_PATTERN),
        "limitations": _STRINGS,
    },
    (
        "view",
        "facet",
        "parent_evidence_id",
        "source_operation",
        "source_complete",
        "selected_facts_sha256",
        "limitations",
    ),
    closed=False,
)
APPLICATION_VIEW = obj(
    {
        "view": {"type": "string", "enum": ["summary", "module", "modules"]},
        "parent_evidence_id": string("Source Evidence", pattern=EVIDENCE_ID_PATTERN),
        "source_operation": {"const": "analyze_javascript_application"},
        "digest": string("Digest of the selected facts", pattern=SHA256_PATTERN),
        "limitations": _STRINGS,
    },
    ("view", "parent_evidence_id", "source_operation", "digest", "limitations"),
    closed=False,
)
# inspect_analysis_view is shared: every family's view shapes are alternatives here
VIEW_RESULTS: tuple[dict[str, Any], ...] = (SUMMARY_VIEW, INVENTORY_VIEW, NATIVE_VIEW, APPLICATION_VIEW)

_EVIDENCE_INPUT = {
    "type": "object",
    "description": 'Complete inline Evidence, or {"kind": "retained-evidence", '
    '"evidence_id": "ev_..."} for a record retained here',
}
_REF = {"kind": "retained-evidence", "evidence_id": "ev_" + "0" * 64}


_INSPECTION_EXAMPLES: list[dict[str, Any]] = [
    {},
    {"detail": "summary"},
    {"integrity_policy": "record-and-continue", "max_depth": 2},
]

INSPECT_ARTIFACT = evidence_tool(
    "inspect_artifact",
    "Inspect Artifact",
    (
        "After open_binary on a local archive, package or directory (zip/jar/apk/aab/ipa/aar/whl/appx/msix/crx, "
        "ASAR, tar[.gz|.bz2|.xz|.zst], ar/.deb), inventory it completely in one substep and return inspection "
        "Evidence: the complete inventory Evidence inline in substeps[0].evidence (hand the inspection to "
        "compare_artifacts), observations, hypotheses, contradictions, unexplored branches and next probes. "
        "detail: summary retains the complete Evidence and returns its summary view (parent_evidence_id) instead."
    ),
    args=InspectArgs,
    result=InspectionResult,
    examples=_INSPECTION_EXAMPLES,
    surface="artifact-provider",
    annotations={"idempotent"},
    effects={"mutatesSession", "idempotent"},
    requires_target=True,
)
# detail: summary answers with the summary view Evidence of inspect_analysis_view instead
INSPECT_ARTIFACT = attrs.evolve(
    INSPECT_ARTIFACT,
    output_schema=evidence_output({"anyOf": [schema_of(InspectionResult), SUMMARY_VIEW]}),
)

INVENTORY_ARTIFACT = evidence_tool(
    "inventory_artifact",
    "Inventory Artifact",
    (
        "After open_binary, inventory the active archive, package or directory as a deterministic content-addressed "
        "graph (art_/occ_/edge_/ic_ ids, agm_ manifest, scoped coverage) and return one page of nodes, occurrences "
        "and edges (100 each by default) with every integrity contradiction. Pages of one inventory share the "
        "manifest and coverage; pass every page to compare_artifacts."
    ),
    args=InventoryArgs,
    result=InventoryResult,
    examples=[{}, {"occurrence_offset": 100, "occurrence_limit": 100}],
    surface="artifact-provider",
    annotations={"idempotent"},
    effects={"mutatesSession", "idempotent"},
    requires_target=True,
)

EXTRACT_ARTIFACT = evidence_tool(
    "extract_artifact",
    "Extract Artifact",
    (
        "Materialize every regular file of the active archive or package (or only the occ_ ids given in "
        "occurrence_ids) into a fresh REA-chosen temporary directory and report its path. Never writes outside "
        "it or overwrites; traversal limits apply while streaming and a limit hit fails with truncated, nothing "
        "published. With integrity_policy record-and-continue, observed bytes are written and contradictions "
        "returned."
    ),
    args=ExtractArgs,
    result=ExtractionResult,
    examples=[{}, {"occurrence_ids": ["occ_" + "0" * 64]}],
    surface="artifact-provider",
    annotations=set(),
    effects={"mutatesSession", "writesFilesystem"},
    requires_target=True,
)

COMPARE_ARTIFACTS = evidence_tool(
    "compare_artifacts",
    "Compare Artifacts",
    (
        "Compare two artifact inventories (inspect_artifact or inventory_artifact Evidence, inline or retained, or "
        "every page of one inventory as an array). Equality needs matching scopes, complete members and complete "
        "traversal; missing members give truncated, unknown coverage or hashes give unknown, integrity mismatches "
        "stay contradictions. Every change is returned; offset/limit optionally select a slice."
    ),
    args=CompareArgs,
    result=ComparisonResult,
    examples=[{"left": _REF, "right": {"kind": "retained-evidence", "evidence_id": "ev_" + "1" * 64}}],
    surface="artifact-provider",
    annotations={"idempotent"},
    effects={"mutatesSession", "idempotent"},
)


INSPECT_ANALYSIS_VIEW = ToolContract(
    name="inspect_analysis_view",
    title="Inspect Analysis View",
    description=(
        "Project a view of completed Evidence without rerunning analysis. For inspect_artifact and "
        "inventory_artifact Evidence: view summary (expected vs available counts, entry kinds, inventory Evidence "
        "ids, coverage) or view inventory with section nodes|occurrences|edges|integrity_contradictions, offset/limit "
        "(default 0/64) and for occurrences an exact logical_paths filter (omitted: all; []: none). For "
        "analyze_function Evidence: view native with facet summary|procedure|pseudocode|assembly|basic_blocks|"
        "callers|callees|references|strings|names, offset/limit default 0/64, no provider is started. For "
        "analyze_javascript_application Evidence: view summary, module (node_id or path) or modules (paged)."
    ),
    surface="application",
    input_schema=input_schema(
        {
            "source": _EVIDENCE_INPUT,
            "view": {
                "type": "string",
                "enum": ["summary", "inventory", "native", "module", "modules"],
                "default": "summary",
                "description": (
                    "summary or inventory (artifact Evidence); native (analyze_function Evidence); "
                    "summary, module or modules (analyze_javascript_application Evidence)"
                ),
            },
            "node_id": string("Exact application graph node id (view module)", minLength=1),
            "path": string("Module path (view module; ambiguous paths need node_id)", minLength=1),
            "facet": {
                "type": "string",
                "enum": list(NATIVE_FACETS),
                "default": "summary",
                "description": "analyze_function facet (view native); pseudocode pages count UTF-16 code units",
            },
            "section": {"type": "string", "enum": list(SECTIONS), "description": "Inventory section (view inventory)"},
            "offset": integer("First item", 0, default=0),
            "limit": integer("Items per page", 1, 500, default=64),
            "logical_paths": array(
                string("Exact recorded logical path"),
                maxItems=500,
                description="Occurrences whose logical_path is one of these; [] selects none",
            ),
        },
        ("source",),
        examples=[{"source": _REF}, {"source": _REF, "view": "inventory", "section": "occurrences"}],
    ),
    output_schema=evidence_output({"anyOf": list(VIEW_RESULTS)}, "inspect_analysis_view"),
    annotations={"idempotent"},
    effects={"mutatesSession", "idempotent"},
    result_kind="evidence",
)

CLI_COMMANDS = ("compare-artifacts", "extract-artifact", "inspect-artifact", "inventory-artifact")

TOOLS = (INSPECT_ARTIFACT, INVENTORY_ARTIFACT, EXTRACT_ARTIFACT, COMPARE_ARTIFACTS, INSPECT_ANALYSIS_VIEW)
