"""Contracts of the artifact graph family: inspect, inventory, extract, compare (views: rea.views.contract)."""

from __future__ import annotations

from typing import Any

import attrs

from rea.artifacts import text
from rea.artifacts.records import CompareArgs, ExtractArgs, InspectArgs, InventoryArgs, InventoryResult
from rea.artifacts.report_records import ComparisonResult, ExtractionResult, InspectionResult
from rea.catalog.cli import Command, Opens, Positional
from rea.catalog.schemas import evidence_output
from rea.views.contract import VIEW_RESULT_SCHEMA
from rea.wire.schema import schema_of
from rea.wire.tool import evidence_tool

_REF = {"kind": "retained-evidence", "evidence_id": "ev_" + "0" * 64}
# the commands open the archive, then run the tool (compare-artifacts reads two files: effects.artifacts.commands)
_ARCHIVE = Opens(help="archive, package or directory")


_INSPECTION_EXAMPLES: list[dict[str, Any]] = [
    {},
    {"detail": "summary"},
    {"integrity_policy": "record-and-continue", "max_depth": 2},
]

INSPECT_ARTIFACT = evidence_tool(
    "inspect_artifact",
    "Inspect Artifact",
    (
        "After open_binary on a local archive, package or directory (zip, jar, apk, aab, ipa, whl, msix, "
        "crx, ASAR, tar with any compression, ar/.deb), inventory it completely and return inspection "
        "Evidence: the inventory Evidence inline in substeps[0].evidence (hand it to compare_artifacts), "
        "observations, hypotheses, contradictions, unexplored branches and next probes. detail: summary "
        "returns its summary view (parent_evidence_id) instead."
    ),
    args=InspectArgs,
    result=InspectionResult,
    examples=_INSPECTION_EXAMPLES,
    surface="artifact-provider",
    effects={"mutatesSession", "idempotent"},
    needs="target",
    cli=Command(
        name="inspect-artifact",
        help="inventory an archive, package or directory (inspect_artifact)",
        opens=_ARCHIVE,
        render=text.evidence,
    ),
)
# detail: summary answers with the summary view Evidence of inspect_analysis_view instead
INSPECT_ARTIFACT = attrs.evolve(
    INSPECT_ARTIFACT,
    output_schema=evidence_output({"anyOf": [schema_of(InspectionResult), VIEW_RESULT_SCHEMA]}),
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
    effects={"mutatesSession", "idempotent"},
    needs="target",
    cli=Command(
        name="inventory-artifact",
        help="one page of the artifact graph (inventory_artifact)",
        opens=_ARCHIVE,
        render=text.evidence,
    ),
)

EXTRACT_ARTIFACT = evidence_tool(
    "extract_artifact",
    "Extract Artifact",
    (
        "Write every regular file of the active archive or package (or only the occ_ ids in "
        "occurrence_ids) into a fresh temporary directory REA chooses, and report its path; nothing is "
        "written outside it or overwritten. A traversal limit hit fails with truncated and publishes "
        "nothing. With integrity_policy record-and-continue, observed bytes are written and "
        "contradictions returned."
    ),
    args=ExtractArgs,
    result=ExtractionResult,
    examples=[{}, {"occurrence_ids": ["occ_" + "0" * 64]}],
    surface="artifact-provider",
    effects={"mutatesSession", "writesFilesystem"},
    needs="container",
    cli=Command(
        name="extract-artifact",
        help="materialize every regular file (or the given occurrences) into a fresh temporary directory",
        opens=_ARCHIVE,
        positionals=(
            Positional(
                argument="occurrence_ids",
                metavar="OCC_ID",
                many=True,
                help="occurrence ids from inventory-artifact (default: every regular file)",
            ),
        ),
        render=text.evidence,
    ),
)

COMPARE_ARTIFACTS = evidence_tool(
    "compare_artifacts",
    "Compare Artifacts",
    (
        "Compare two artifact inventories (inspect_artifact or inventory_artifact Evidence, inline or "
        "retained, or every page of one inventory as an array). Equality needs matching scopes and "
        "complete members and traversal: missing members give truncated, unknown coverage or hashes "
        "unknown, integrity mismatches stay contradictions. Every change is returned; offset/limit select "
        "a slice."
    ),
    args=CompareArgs,
    result=ComparisonResult,
    examples=[{"left": _REF, "right": {"kind": "retained-evidence", "evidence_id": "ev_" + "1" * 64}}],
    surface="artifact-provider",
    effects={"mutatesSession", "idempotent"},
)


CLI_COMMANDS = ("compare-artifacts",)

TOOLS = (INSPECT_ARTIFACT, INVENTORY_ARTIFACT, EXTRACT_ARTIFACT, COMPARE_ARTIFACTS)
