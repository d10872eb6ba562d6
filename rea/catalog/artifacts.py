"""Contracts of the artifact graph family: inspect, inventory, extract, compare, and views."""

from __future__ import annotations

from typing import Any
from collections.abc import Mapping

from rea.artifacts.model import (
    CLASSIFICATIONS,
    COVERAGE_SCOPES,
    COVERAGE_STATUSES,
    DIMENSIONS,
    ENTRY_KINDS,
    HASH_STATUSES,
    INTEGRITY_POLICIES,
    LEGACY_STATUSES,
    LIMIT_BOUNDS,
    STATUSES,
)
from rea.catalog.contract import ToolContract
from rea.catalog.views import VIEW_RESULT_SCHEMA
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
LIMITS = obj(
    {
        name: (
            {"type": "number", "minimum": lo, "maximum": hi}
            if name == "max_compression_ratio"
            else integer(name, lo, hi)
        )
        for name, (lo, hi, _) in LIMIT_BOUNDS.items()
    },
    tuple(LIMIT_BOUNDS),
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
MANIFEST = obj(
    {
        "schema_version": {"const": 1},
        "manifest_id": _id("agm"),
        "root_artifact_id": _id("art"),
        "root_sha256": string("Root digest", pattern=SHA256_PATTERN),
        "root_format": string("Root format"),
        "graph_sha256": string("Digest of all graph records", pattern=SHA256_PATTERN),
        "node_count": integer("Nodes", 1),
        "occurrence_count": integer("Occurrences", 1),
        "edge_count": integer("Edges"),
        "integrity_contradiction_count": integer("Contradictions"),
        "limits": LIMITS,
        "coverage": COVERAGE,
    },
    (
        "schema_version",
        "manifest_id",
        "root_artifact_id",
        "root_sha256",
        "root_format",
        "graph_sha256",
        "node_count",
        "occurrence_count",
        "edge_count",
        "integrity_contradiction_count",
        "limits",
        "coverage",
    ),
)
INVENTORY = obj(
    {
        "manifest": MANIFEST,
        "nodes": page(NODE),
        "occurrences": page(OCCURRENCE),
        "edges": page(EDGE),
        "integrity_contradictions": page(CONTRADICTION),
        "limits": LIMITS,
        "coverage": COVERAGE,
        "coverage_status": {"type": "string", "enum": list(LEGACY_STATUSES)},
        "limit_hits": array(
            obj(
                {
                    "limit": string("Limit"),
                    "value": {"type": "number"},
                    "logical_path": nullable(string("Where")),
                    "message": string("What happened"),
                },
                ("limit", "value", "logical_path", "message"),
            )
        ),
        "omitted_entries": array(
            obj(
                {"logical_path": string("Path"), "entry_type": string("Type"), "reason": string("Why")},
                ("logical_path", "entry_type", "reason"),
            )
        ),
        "limitations": _STRINGS,
    },
    (
        "manifest",
        "nodes",
        "occurrences",
        "edges",
        "integrity_contradictions",
        "limits",
        "coverage",
        "coverage_status",
        "limit_hits",
        "omitted_entries",
        "limitations",
    ),
)


INSPECTION = obj(
    {
        "schema_version": {"const": 1},
        "subject": obj(
            {
                "manifest_id": _id("agm"),
                "root_artifact_id": _id("art"),
                "root_format": string("Root format"),
                "root_sha256": string("Root digest", pattern=SHA256_PATTERN),
            },
            ("manifest_id", "root_artifact_id", "root_format", "root_sha256"),
        ),
        "inventory": INVENTORY,
        "inventory_evidence_ids": array(string("Inventory Evidence", pattern=EVIDENCE_ID_PATTERN), minItems=1),
        "observations": obj(
            {
                "entry_kinds": {"type": "object", "additionalProperties": integer("Count")},
                "artifact_kinds": {"type": "object", "additionalProperties": integer("Count")},
                "executables": integer("Executable occurrences"),
                "nested_containers": integer("Nested container nodes"),
            },
            ("entry_kinds", "artifact_kinds", "executables", "nested_containers"),
        ),
        "contradictions": array(CONTRADICTION),
        "next_probes": array(
            obj({"operation": string("Tool"), "rationale": string("Why")}, ("operation", "rationale"))
        ),
        "coverage": COVERAGE,
        "coverage_status": {"type": "string", "enum": list(LEGACY_STATUSES)},
        "limitations": _STRINGS,
    },
    (
        "schema_version",
        "subject",
        "inventory",
        "inventory_evidence_ids",
        "observations",
        "contradictions",
        "next_probes",
        "coverage",
        "coverage_status",
        "limitations",
    ),
)


_LIMIT_INPUTS = {
    name: (
        {
            "type": "number",
            "minimum": lo,
            "maximum": hi,
            "default": default,
            "description": "Stop decompressing a member past this expansion ratio (bomb guard)",
        }
        if name == "max_compression_ratio"
        else integer(
            {
                "max_entries": "Members recorded before traversal stops (coverage becomes unknown)",
                "max_total_bytes": "Decompressed bytes read across the traversal",
                "max_entry_bytes": "Decompressed bytes read from one member",
                "max_depth": "Nested container levels expanded (0: the root's members only)",
                "max_path_bytes": "Longest accepted member path in UTF-8 bytes",
            }[name],
            lo,
            hi,
            default=default,
        )
    )
    for name, (lo, hi, default) in LIMIT_BOUNDS.items()
}
_POLICY = {
    "type": "string",
    "enum": list(INTEGRITY_POLICIES),
    "default": "fail",
    "description": "fail (default): an integrity mismatch fails the call; record-and-continue: quarantine the "
    "contradicted bytes, record the contradiction and continue with verified siblings",
}
_EVIDENCE_INPUT = {
    "type": "object",
    "description": 'Complete inline Evidence, or {"kind": "retained-evidence", '
    '"evidence_id": "ev_..."} for a record retained here',
}
_REF = {"kind": "retained-evidence", "evidence_id": "ev_" + "0" * 64}


def _window(name: str, default: int) -> dict[str, Any]:
    return {
        f"{name}_offset": integer(f"First {name} to return", 0, default=0),
        f"{name}_limit": integer(f"{name.capitalize()}s per page", 1, 500, default=default),
    }


INSPECT_ARTIFACT = ToolContract(
    name="inspect_artifact",
    title="Inspect Artifact",
    description=(
        "After open_binary on a local archive, package or directory (zip/jar/apk/aab/ipa/aar/whl/appx/msix/crx, "
        "ASAR, tar[.gz|.bz2|.xz|.zst], ar/.deb), inventory it completely and return inspection Evidence with the "
        "content-addressed graph, coverage, contradictions and next probes. detail: summary retains the complete "
        "Evidence and returns its summary view (parent_evidence_id) instead."
    ),
    surface="artifact-provider",
    input_schema=input_schema(
        {
            "detail": {
                "type": "string",
                "enum": ["complete", "summary"],
                "default": "complete",
                "description": "complete: the inspection Evidence; summary: retain it and return its summary view",
            },
            "integrity_policy": _POLICY,
            **_LIMIT_INPUTS,
        },
        examples=[{}, {"detail": "summary"}, {"integrity_policy": "record-and-continue", "max_depth": 2}],
    ),
    output_schema=evidence_output({"anyOf": [INSPECTION, VIEW_RESULT_SCHEMA]}),
    annotations={"idempotent"},
    effects={"mutatesSession", "idempotent"},
    requires_target=True,
    result_kind="evidence",
)

INVENTORY_ARTIFACT = ToolContract(
    name="inventory_artifact",
    title="Inventory Artifact",
    description=(
        "After open_binary, inventory the active archive, package or directory as a deterministic content-addressed "
        "graph (art_/occ_/edge_/ic_ ids, agm_ manifest, scoped coverage) and return one page of each section as "
        "Evidence. Pages of one inventory share the manifest and coverage; pass every page to compare_artifacts."
    ),
    surface="artifact-provider",
    input_schema=input_schema(
        {
            **_window("node", 100),
            **_window("occurrence", 100),
            **_window("edge", 100),
            **_window("contradiction", 100),
            "integrity_policy": _POLICY,
            **_LIMIT_INPUTS,
        },
        examples=[{}, {"occurrence_offset": 100, "occurrence_limit": 100}],
    ),
    output_schema=evidence_output(INVENTORY, "inventory_artifact"),
    annotations={"idempotent"},
    effects={"mutatesSession", "idempotent"},
    requires_target=True,
    result_kind="evidence",
)

EXTRACTED = obj(
    {
        "occurrence_id": _id("occ"),
        "artifact_id": _id("art"),
        "logical_path": string("Container chain"),
        "relative_path": string("Path below output_root"),
        "sha256": string("Digest", pattern=SHA256_PATTERN),
        "bytes_written": integer("Bytes"),
    },
    ("occurrence_id", "artifact_id", "logical_path", "relative_path", "sha256", "bytes_written"),
)
EXTRACT_ARTIFACT = ToolContract(
    name="extract_artifact",
    title="Extract Artifact",
    description=(
        "Materialize the selected regular-file occurrences (occ_ ids from inventory_artifact or inspect_artifact "
        "on the active target) into a fresh REA-chosen temporary directory and report its path. Never writes "
        "outside it; size and ratio limits are enforced while streaming. With integrity_policy "
        "record-and-continue, observed bytes are written and contradictions returned."
    ),
    surface="artifact-provider",
    input_schema=input_schema(
        {
            "occurrence_ids": array(
                _id("occ"), minItems=1, maxItems=500, uniqueItems=True, description="Occurrences to materialize"
            ),
            "integrity_policy": _POLICY,
            **_LIMIT_INPUTS,
        },
        ("occurrence_ids",),
        examples=[{"occurrence_ids": ["occ_" + "0" * 64]}],
    ),
    output_schema=evidence_output(
        obj(
            {
                "manifest_id": _id("agm"),
                "output_root": string("Fresh temporary directory holding the files"),
                "files": array(EXTRACTED),
                "containment_verified": {"type": "boolean"},
                "integrity_contradictions": array(CONTRADICTION),
                "limits": LIMITS,
                "limitations": _STRINGS,
            },
            (
                "manifest_id",
                "output_root",
                "files",
                "containment_verified",
                "integrity_contradictions",
                "limits",
                "limitations",
            ),
        ),
        "extract_artifact",
    ),
    annotations=set(),
    effects={"mutatesSession", "writesFilesystem"},
    requires_target=True,
    result_kind="evidence",
)

_SIDE = {
    "anyOf": [_EVIDENCE_INPUT, array(_EVIDENCE_INPUT, minItems=1, maxItems=100)],
    "description": "inspect_artifact or inventory_artifact Evidence (inline or retained reference), or every "
    "page of one inventory as an array",
}
CHANGE = obj(
    {
        "logical_path": string("Container chain ('a.whl!/x.py'); empty for the root"),
        "classification": {"type": "string", "enum": list(CLASSIFICATIONS)},
        "dimensions": array({"type": "string", "enum": list(DIMENSIONS)}),
        "left_occurrence_id": nullable(_id("occ")),
        "right_occurrence_id": nullable(_id("occ")),
        "left_artifact_id": nullable(_id("art")),
        "right_artifact_id": nullable(_id("art")),
    },
    (
        "logical_path",
        "classification",
        "dimensions",
        "left_occurrence_id",
        "right_occurrence_id",
        "left_artifact_id",
        "right_artifact_id",
    ),
)
COMPARE_ARTIFACTS = ToolContract(
    name="compare_artifacts",
    title="Compare Artifacts",
    description=(
        "Compare two artifact inventories (inspect_artifact or inventory_artifact Evidence, inline or retained). "
        "Equality needs matching scopes, complete members and complete traversal; missing members give truncated, "
        "unknown coverage or hashes give unknown, integrity mismatches stay contradictions. Added, removed and "
        "changed paths are paged."
    ),
    surface="artifact-provider",
    input_schema=input_schema(
        {
            "left": _SIDE,
            "right": _SIDE,
            "offset": integer("First change to return", 0, default=0),
            "limit": integer("Changes per page", 1, 500, default=100),
        },
        ("left", "right"),
        examples=[{"left": _REF, "right": {"kind": "retained-evidence", "evidence_id": "ev_" + "1" * 64}}],
    ),
    output_schema=evidence_output(
        obj(
            {
                "status": {"type": "string", "enum": list(STATUSES)},
                "left_manifest_id": nullable(string("Left manifest")),
                "right_manifest_id": nullable(string("Right manifest")),
                "left_coverage": COVERAGE,
                "right_coverage": COVERAGE,
                "summary": obj(
                    {k: integer(k) for k in (*CLASSIFICATIONS, "unchanged")}, (*CLASSIFICATIONS, "unchanged")
                ),
                "changes": page(CHANGE),
                "uncertainty": _STRINGS,
                "limitations": _STRINGS,
                "source_complete": obj({"left": {"type": "boolean"}, "right": {"type": "boolean"}}, ("left", "right")),
            },
            (
                "status",
                "left_manifest_id",
                "right_manifest_id",
                "left_coverage",
                "right_coverage",
                "summary",
                "changes",
                "uncertainty",
                "limitations",
                "source_complete",
            ),
        ),
        "compare_artifacts",
    ),
    annotations={"idempotent"},
    effects={"mutatesSession", "idempotent"},
    result_kind="evidence",
)

CLI_COMMANDS = ("compare-artifacts", "extract-artifact", "inspect-artifact", "inventory-artifact")

TOOLS = (INSPECT_ARTIFACT, INVENTORY_ARTIFACT, EXTRACT_ARTIFACT, COMPARE_ARTIFACTS)
