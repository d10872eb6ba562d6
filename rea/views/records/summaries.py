"""Wire records of the summaries a summary view carries, one per parent family (the parent's counts and the
first rows of each listing, with the call that reads on)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

import attrs

from rea.layout.records import (
    Architecture,
    EntryPoint,
    LayoutCoverage,
    Mitigations,
)
from rea.views.records.requests import (
    SHA256_PATTERN,
)
from rea.wasm.records import ModuleCounts, ProducerField, TargetFeature, ToolProfile, WasmFile
from rea.wire.schema import Open, field


@attrs.frozen(kw_only=True)
class InventoryCoverage:
    scope: str = field("root or container-entries")
    status: str = field("complete or unknown")


@attrs.frozen(kw_only=True)
class ArtifactRoot:
    artifact_id: str | None = field("Root artifact id")
    sha256: str | None = field("Root digest")
    format: str | None = field("Root format")


@attrs.frozen(kw_only=True)
class ArtifactSummary:
    """inspect_artifact / inventory_artifact: expected counts (manifest) beside available records."""

    manifest_id: str | None = field("Manifest of the inventory")
    expected_counts: Mapping[str, int | None] = field("Per section: the count the manifest declares")
    available_counts: Mapping[str, int] = field("Per section: records the parent carries")
    entry_kinds: Mapping[str, int] = field("Occurrences per entry kind")
    node_formats: Mapping[str, int] = field("Nodes per format")
    inventory_evidence_ids: tuple[str, ...] = field("The atomic inventory Evidence")
    root: ArtifactRoot = field("The root artifact")
    inventory_coverage: InventoryCoverage = field("The inventory's declared coverage")
    coverage_status: str = field("complete or partial (retained for older clients)")
    source_complete: bool = field("The available inventory passes the complete graph checks")


@attrs.frozen(kw_only=True)
class ApplicationSummary:
    """analyze_javascript_application: the reference's summary, plus our highlights."""

    input_path: str = field("The analyzed directory or .asar")
    format: str = field("asar or directory")
    root_artifact_sha256: str = field("Identity of the analyzed tree", pattern=SHA256_PATTERN)
    statistics: Open = field("The parent's statistics object")
    electron: Open = field("Electron facts of the parent (null members when not an Electron app)")
    coverage: Open = field("{application: graph coverage, analysis: our analysis coverage, application_unknowns}")
    limitation_count: int = field("Limitations of the parent", minimum=0)
    highlights: Open = field(
        "Our extra: application facts, entry points, roles, IPC channels, browser windows, bundles, findings, unknowns and parse "
        "failures (first 20 of each, with totals) and the first module page request"
    )


@attrs.frozen(kw_only=True)
class LayoutCounts:
    sections: int = field("Sections", minimum=0)
    segments: int = field("Segments", minimum=0)
    symbols: int = field("Symbols", minimum=0)
    relocations: int = field("ELF REL/RELA entries", minimum=0)
    exports: int | None = field("PE export entries (null: not PE)", minimum=0, omit_none=True)
    imports: int | None = field("PE imported entries across all DLLs (null: not PE)", minimum=0, omit_none=True)
    import_libraries: int | None = field("PE import descriptors (null: not PE)", minimum=0, omit_none=True)


@attrs.frozen(kw_only=True)
class LayoutSummary:
    """inspect_binary_layout: the reference's counts and identity, plus our slice, coverage and mitigations."""

    bytes: int = field("File size", minimum=0)
    format: Literal["elf", "pe", "macho"] = field("Format")
    architecture: Architecture = field("Machine, word size, byte order")
    image_type: str = field("Image type")
    entry: EntryPoint = field("Entry point and its meaning")
    counts: LayoutCounts = field("Rows per collection")
    limitation_count: int = field("Limitations of the parent", minimum=0)
    slice: str | None = field("Universal-binary slice read (null: thin)")
    coverage: LayoutCoverage = field("Returned, recorded and exhaustive per collection")
    mitigations: Mitigations = field("The mitigations facet (small; repeated here)")


@attrs.frozen(kw_only=True)
class WasmCounts:
    sections: int = field("Sections", minimum=0)
    imports: int = field("Imports", minimum=0)
    exports: int = field("Exports", minimum=0)
    candidates: int = field("Candidates (the module first)", minimum=0)
    glue: int = field("Glue files", minimum=0)


@attrs.frozen(kw_only=True)
class WatIdentity:
    sha256: str = field("Digest of the whole decoded WAT", pattern=SHA256_PATTERN)
    utf16_length: int = field("Its UTF-16 code units", minimum=0)
    complete: bool = field("The parent carries the whole WAT")


@attrs.frozen(kw_only=True)
class WasmSummary:
    """inspect_wasm_artifact: identity, validation, available counts, WAT digest/length and the tool profile."""

    artifact: WasmFile = field("The module")
    validation: Literal["valid"] = field("wasm-validate accepted it")
    counts: WasmCounts = field("Available rows per facet")
    module_counts: ModuleCounts | None = field(
        "Function (imported, defined), import and section counts as numbers (absent: older Evidence)", omit_none=True
    )
    custom_section_names: tuple[str, ...] = field("Custom sections, in order")
    producers: tuple[ProducerField, ...] = field("The decoded 'producers' section as name/values records")
    target_features: tuple[TargetFeature, ...] = field("The decoded 'target_features' section as records")
    wat: WatIdentity = field("Decoded WAT identity")
    tool_profile: ToolProfile = field("The exact WABT commands run")
    runtime_execution: Literal["not-performed"] = field("Never run")
    network_fetch: Literal["not-performed"] = field("Nothing fetched")


@attrs.frozen(kw_only=True)
class CollectionCount:
    returned: int = field("Rows the parent returned", minimum=0)
    total: int | None = field("Rows the image records", minimum=0)
    exhaustive: bool = field("The parent returned every recorded row")


@attrs.frozen(kw_only=True)
class MachoCollections:
    entrypoints: CollectionCount = field("Entry points")
    architectures: CollectionCount = field("Slices")
    build_metadata: CollectionCount = field("Build metadata")
    load_commands: CollectionCount = field("Load commands")
    dependencies: CollectionCount = field("Dependencies")
    imports: CollectionCount = field("Imports")
    exports: CollectionCount = field("Exports")
    segments: CollectionCount = field("Segments")


@attrs.frozen(kw_only=True)
class NativeCollection:
    facet: str = field("The collection, as a native view's facet names it")
    unit: Literal["rows", "utf16-code-units"] = field("What total counts")
    total: int = field("Rows (or UTF-16 code units of text) in the complete answer", minimum=0)
    first: tuple[Open, ...] = field(
        "The first rows (text: its first characters, as one string); a dossier shows rows of callers, callees, "
        "strings and names only, its other facets are counts to page with next_view"
    )
    next_view: Open | None = field("The inspect_analysis_view call reading on from `first`; null: nothing follows")


@attrs.frozen(kw_only=True)
class NativeSummary:
    """A native answer too large to send whole: per collection its total and first rows, and the call that
    pages on (detail: summary on list_*, search_*, analyze_function, get_call_graph, ...)."""

    operation: str = field("The native tool that produced the parent")
    procedure: Open | None = field(
        "The procedure the answer is about, its locals and body ranges as counts (local_count, range_count); "
        "null: a whole-binary listing"
    )
    collections: tuple[NativeCollection, ...] = field("Each collection of the answer")
    facts: Mapping[str, Open] = field(
        "The answer's scalar fields (direction, goal_status, totals, a value trace's budgets and page, ...)"
    )


@attrs.frozen(kw_only=True)
class MachoSummary:
    """inspect_macho: the selected slice, header fields and UUID; each collection replaced by its counts."""

    slice: str | None = field("Universal slice read (null: thin)")
    format: Literal["mach-o"] = field("Mach-O")
    endian: Literal["little", "big"] | None = field("Byte order")
    word_size: Literal[32, 64] | None = field("Word size")
    file_type: str | None = field("MH_*")
    flags: tuple[str, ...] = field("MH_* flags")
    uuid: str | None = field("LC_UUID")
    install_name: str | None = field("LC_ID_DYLIB")
    collections: MachoCollections = field("Returned count, reported total and exhaustive flag per collection")


@attrs.frozen(kw_only=True)
class ListingSummary:
    total: int = field("Rows the parent carries", minimum=0)
    source_exhaustive: bool = field("The parent carries the whole listing (its producer was not asked for a page)")
    first: tuple[Open, ...] = field(
        "The first rows as the parent records them (at most 3, and fewer when they are large)",
        schema={"type": "array", "items": {"description": "One row exactly as the parent records it"}},
    )


@attrs.frozen(kw_only=True)
class ManagedSummary:
    """inspect_managed_artifact / inspect_managed_members: identity and coverage; each listing as counts and first rows."""

    operation: Literal["inspect_managed_artifact", "inspect_managed_members"] = field("The parent's producer")
    artifact: Open = field("The file read: path, sha256, byte length")
    assembly: Open = field("Assembly name and version (null: a netmodule, or not read)")
    module: Open = field("Module name and MVID (null: none)")
    classification: Open = field(
        "inspect_managed_artifact: status, runtime family, implementation, managed architecture"
    )
    target_frameworks: tuple[str, ...] = field("TargetFrameworkAttribute values (artifact Evidence)")
    metadata_status: str = field("absent, complete, partial or malformed")
    table_row_counts: Mapping[str, int] = field("Rows per metadata table")
    portable_pdb: Open = field("The PDB beside the assembly without its documents (null: none; artifact Evidence)")
    coverage: Open = field("{state, issue_count, issues: the first 10}")
    listings: Mapping[str, ListingSummary] = field("Per facet of the managed view: total, exhaustive, first rows")


@attrs.frozen(kw_only=True)
class ComparisonSummary:
    """compare_application_versions: the parent's counts and coverage; its items and graph as counts and first rows."""

    comparison_id: str = field("The comparison's id")
    left: Open = field("Left application: evidence_id, graph_id, root_artifact_sha256")
    right: Open = field("Right application: evidence_id, graph_id, root_artifact_sha256")
    summary: Open = field("The parent's summary counts")
    matching: Open = field("The parent's matching counts")
    categories: Open = field("The parent's per-category counts")
    coverage: Open = field("The parent's coverage")
    content_only_changes: Open = field("The parent's content-only change count, samples and note")
    listings: Mapping[str, ListingSummary] = field("items, graph_nodes, graph_edges: total and first rows")
