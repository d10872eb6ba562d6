"""Wire records of inspect_analysis_view: REA 6.x view requests and view results.

The request is `{source, view}`: `source` is a retained reference or inline
Evidence, `view` one of the records below, told apart by `kind` (cattrs
structures the union on that literal). The result repeats the view and names its
parent, a digest of the projected facts, and `coverage` whose `next_offset` is
the only paging continuation. Names and enums follow the reference
(analysisView, nativeFunctionView); inventory, wasm and macho views follow the
spec.
"""

from __future__ import annotations

from typing import Any, Literal, get_args
from collections.abc import Mapping

import attrs

from rea.wire.convert import to_wire
from rea.wasm.records import ModuleCounts, ProducerField, TargetFeature, ToolProfile, WasmFile
from rea.layout.records import (
    Architecture,
    EntryPoint,
    LayoutCoverage,
    Linkage,
    Mitigations,
    PeDirectories,
    PeExport,
    PeImportDll,
    Section,
    Symbol,
)
from rea.web_network.records import CaptureRecord, CaptureSummary
from rea.wire.schema import SAFE_INT_MAX, Open, field

EVIDENCE_ID_PATTERN = "^ev_[a-f0-9]{64}$"
SHA256_PATTERN = "^[a-f0-9]{64}$"
DEFAULT_LIMIT = 64

NativeFacet = Literal[
    "procedure",
    "pseudocode",
    "assembly",
    "basic_blocks",
    "comments",
    "callers",
    "callees",
    "incoming_references",
    "outgoing_references",
    "unresolved_calls",
    "referenced_strings",
    "referenced_names",
    "native_api",
    "value_flow_summary",
    "value_flow_operations",
    "value_flow_def_use",
    "value_flow_effects",
    "value_flow_parameters",
    "value_flow_parameter_uses",
    # the row collections of the other native answers (the NativeParent answers; rea.native.views.collections)
    "rows",
    "references",
    "nodes",
    "edges",
    "frontier",
    "lines",
    "instructions",
    "items",
]
InventoryFacet = Literal["nodes", "occurrences", "edges", "integrity_contradictions"]
WasmFacet = Literal[
    "sections",
    "imports",
    "exports",
    "import_records",
    "export_records",
    "functions",
    "candidates",
    "glue",
    "wat",
    "headers",
    "details",
    "tool_profile",
    "custom_sections",
]
MachoFacet = Literal[
    "entrypoints",
    "architectures",
    "build_metadata",
    "load_commands",
    "dependencies",
    "imports",
    "exports",
    "segments",
    "provenance",
]
Collection = Literal["sections", "symbols", "exports", "imports", "modules", "records"]
# the native answers a detail: summary call retains and summarizes (rea.native.views projects them)
NativeParent = Literal[
    "procedure_callers",
    "procedure_callees",
    "list_procedures",
    "list_strings",
    "list_names",
    "search_procedures",
    "search_strings",
    "procedure_references",
    "procedure_assembly",
    "procedure_pseudo_code",
    "read_function_instructions",
    "batch_decompile",
    "get_call_graph",
    "trace_call_path",
    "trace_native_values",
]
NATIVE_SUMMARIZED: tuple[str, ...] = get_args(NativeParent)
ParentOperation = Literal[
    "analyze_function",
    "analyze_javascript_application",
    "inspect_artifact",
    "inventory_artifact",
    "search_android_classes",
    "inspect_android_class",
    "inspect_binary_layout",
    "inspect_wasm_artifact",
    "inspect_macho",
    "inspect_web_network_capture",
    "inspect_managed_artifact",
    "inspect_managed_members",
    "compare_application_versions",
    NativeParent,
]
AndroidFacet = Literal["classes", "methods", "fields"]
ManagedFacet = Literal[
    "references",
    "resources",
    "attributes",
    "pdb_documents",
    "types",
    "methods",
    "fields",
    "member_refs",
    "call_edges",
    "field_accesses",
]
ComparisonFacet = Literal["items", "graph_nodes", "graph_edges"]
PAGE_BYTES = 28_000
"""The most canonical JSON bytes of rows one managed or comparison page carries (the page ends early to fit),
leaving room for the view record around them so a page reply stays within 32 KB."""


def _offset() -> Any:
    return field("First row (UTF-16 code unit for text)", default=0, minimum=0)


def _limit() -> Any:
    return field("Page size", default=DEFAULT_LIMIT, minimum=1, maximum=SAFE_INT_MAX)


# ------------------------------------------------------------------- sources


@attrs.frozen(kw_only=True)
class RetainedSource:
    kind: Literal["retained-evidence"] = field("An Evidence record retained by this connection")
    evidence_id: str = field("Its evidence_id", pattern=EVIDENCE_ID_PATTERN)


@attrs.frozen(kw_only=True)
class InlineSource:
    kind: Literal["inline"] = field("Portable Evidence carried in the call")
    evidence: Open = field("One complete Evidence record (schema_version 2), checked and re-identified on arrival")


# --------------------------------------------------------------------- views


@attrs.frozen(kw_only=True)
class SummaryView:
    kind: Literal["summary"] = field("Counts, identity and coverage of the parent")


@attrs.frozen(kw_only=True)
class FacetView:
    kind: Literal["facet"] = field("One binary-layout facet (inspect_binary_layout Evidence)")
    facet: Literal["mitigations", "linkage", "pe_directories"] = field(
        "Layout facet (pe_directories: a PE's export and import directories)"
    )


@attrs.frozen(kw_only=True)
class IndexSelector:
    index: int = field("Position in the collection (sections, symbols)", minimum=0)


@attrs.frozen(kw_only=True)
class NameSelector:
    name: str = field("Exact name (sections, symbols)")


@attrs.frozen(kw_only=True)
class PathSelector:
    path: str = field("Exact observed module path (modules); an empty path is valid")


@attrs.frozen(kw_only=True)
class NodeSelector:
    node_id: str = field("Exact application graph node id (modules)", minLength=1)


@attrs.frozen(kw_only=True)
class ItemView:
    kind: Literal["item"] = field("One member of a collection")
    collection: Collection = field(
        "sections, symbols and (PE) exports, imports: layout Evidence; modules: application Evidence"
    )
    selector: IndexSelector | NameSelector | PathSelector | NodeSelector = field(
        "Modules by path or node_id; sections and symbols by index or name"
    )


@attrs.frozen(kw_only=True)
class PageView:
    kind: Literal["page"] = field("A stable page of a collection")
    collection: Collection = field(
        "sections, symbols, exports, imports: layout Evidence; modules: application Evidence; "
        "records: network-capture Evidence (a page ends after 32 KB)"
    )
    offset: int = _offset()
    limit: int = _limit()


@attrs.frozen(kw_only=True)
class NativeView:
    kind: Literal["native"] = field(
        "One facet of analyze_function Evidence or a collection of another native answer (its summary names them)"
    )
    facet: NativeFacet = field(
        "Dossier facet; procedure, native_api and value_flow_summary are singletons (offset 0). Other native "
        "answers: rows (list_*, search_*), references, nodes, edges, frontier, lines (procedure_assembly), "
        "pseudocode, instructions, items (batch_decompile)"
    )
    offset: int = _offset()
    limit: int = _limit()


@attrs.frozen(kw_only=True)
class InventoryView:
    kind: Literal["inventory"] = field("A page of inspect_artifact or inventory_artifact records")
    facet: InventoryFacet = field("Inventory section")
    offset: int = _offset()
    limit: int = _limit()
    logical_paths: tuple[str, ...] | None = field(
        "occurrences only: exact recorded logical paths to keep (omitted: all; []: none)", omit_none=True, maxItems=500
    )


@attrs.frozen(kw_only=True)
class WasmView:
    kind: Literal["wasm"] = field("One facet of inspect_wasm_artifact Evidence")
    facet: WasmFacet = field("WABT facet or record list; tool_profile and custom_sections are singletons")
    offset: int = _offset()
    limit: int = _limit()


@attrs.frozen(kw_only=True)
class MachoView:
    kind: Literal["macho"] = field("One facet of inspect_macho Evidence")
    facet: MachoFacet = field("Mach-O facet")
    offset: int = _offset()
    limit: int = _limit()


@attrs.frozen(kw_only=True)
class AndroidView:
    kind: Literal["android"] = field(
        "A page of search_android_classes matches or inspect_android_class methods or fields"
    )
    facet: AndroidFacet = field("classes: search Evidence; methods, fields: class Evidence")
    offset: int = _offset()
    limit: int = _limit()


@attrs.frozen(kw_only=True)
class ApiSurfaceView:
    kind: Literal["api-surface"] = field("Network-capture request lines grouped by method, origin and path template")
    offset: int = _offset()
    limit: int = _limit()


@attrs.frozen(kw_only=True)
class ManagedView:
    kind: Literal["managed"] = field(
        "A page of one listing of inspect_managed_artifact or inspect_managed_members Evidence"
    )
    facet: ManagedFacet = field("The listing")
    offset: int = _offset()
    limit: int = _limit()


@attrs.frozen(kw_only=True)
class ComparisonView:
    kind: Literal["comparison"] = field(
        "A page of compare_application_versions items, or its change graph's nodes or edges"
    )
    facet: ComparisonFacet = field("items (default), graph_nodes or graph_edges", default="items")
    offset: int = _offset()
    limit: int = _limit()


View = (
    SummaryView
    | FacetView
    | ItemView
    | PageView
    | NativeView
    | InventoryView
    | WasmView
    | MachoView
    | AndroidView
    | ApiSurfaceView
    | ManagedView
    | ComparisonView
)


@attrs.frozen(kw_only=True)
class AnalysisViewArgs:
    source: RetainedSource | InlineSource = field(
        'The parent: {"kind": "retained-evidence", "evidence_id"} or {"kind": "inline", "evidence"}'
    )
    view: View = field("The selected view, told apart by kind", default=SummaryView(kind="summary"))


# ------------------------------------------------------------------- results


@attrs.frozen(kw_only=True)
class ViewArtifact:
    path: str = field("The parent's recorded artifact path (may be empty)")
    sha256: str = field("The parent artifact's SHA-256", pattern=SHA256_PATTERN)


@attrs.frozen(kw_only=True)
class ViewCoverage:
    status: Literal["complete-within-view", "page", "empty"] = field("What this view covers of its selection")
    examined: int = field("Rows (or code units) in this view", minimum=0)
    total: int = field("Rows (or code units) in the complete selection", minimum=0)
    next_offset: int | None = field("The offset of the next page; null when exhausted", minimum=0)
    exhausted: bool = field("Nothing of the selection follows this view")


@attrs.frozen(kw_only=True)
class _ViewBase:
    parent_evidence_id: str = field("The viewed Evidence", pattern=EVIDENCE_ID_PATTERN)
    parent_operation: ParentOperation = field("The operation that produced the parent")
    parent_digest: str = field("The parent's identity digest (its evidence_id without ev_)", pattern=SHA256_PATTERN)
    view_digest: str = field("SHA-256 of the canonical view without this field", pattern=SHA256_PATTERN)
    artifact: ViewArtifact = field("The artifact the parent describes")
    coverage: ViewCoverage = field("Paging: follow coverage.next_offset until it is null")
    limitations: tuple[str, ...] = field("What the parent and this view did not observe")
    unknowns: tuple[str, ...] = field("Facts the parent left unknown that bear on this view")


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


@attrs.frozen(kw_only=True)
class SummaryResult(_ViewBase):
    kind: Literal["summary"] = field("A summary view")
    view: SummaryView = field("The request's view")
    summary: (
        ArtifactSummary
        | ApplicationSummary
        | LayoutSummary
        | WasmSummary
        | MachoSummary
        | ManagedSummary
        | ComparisonSummary
        | CaptureSummary
        | NativeSummary
    ) = field("The parent's summary")


@attrs.frozen(kw_only=True)
class NativeSummaryResult(_ViewBase):
    """What a native tool called with detail: summary answers (SummaryResult narrowed to the native summary,
    so the tool's advertised output stays small)."""

    kind: Literal["summary"] = field("A summary view")
    view: SummaryView = field("The request's view")
    summary: NativeSummary = field("Per collection: its total, first rows and the call that reads on")


@attrs.frozen(kw_only=True)
class FacetResult(_ViewBase):
    kind: Literal["facet"] = field("One binary-layout facet")
    view: FacetView = field("The request's view")
    facet: Mitigations | Linkage | PeDirectories | None = field(
        "The selected facet, as the layout records it (pe_directories: null when the image is not PE)"
    )


@attrs.frozen(kw_only=True)
class ItemResult(_ViewBase):
    kind: Literal["item"] = field("One collection member")
    view: ItemView = field("The request's view")
    item: Open = field(
        "Modules: node_id, kind, path and the recorded node with incoming/outgoing edges; sections and symbols: "
        "the layout row"
    )


@attrs.frozen(kw_only=True)
class ModuleRow:
    node_id: str = field("Application graph node id (select it with an item view)")
    kind: str = field("Node kind")
    path: str | None = field("Observed module path, when the node has one")


@attrs.frozen(kw_only=True)
class PageResult(_ViewBase):
    kind: Literal["page"] = field("A collection page")
    view: PageView = field("The request's view")
    items: tuple[ModuleRow | Section | Symbol | PeExport | PeImportDll | CaptureRecord, ...] = field(
        "Members of the page (module rows; layout rows: sections, symbols, PE exports, PE import descriptors; or "
        "capture records exactly as the parent holds them)"
    )


@attrs.frozen(kw_only=True)
class NativeResult(_ViewBase):
    kind: Literal["native"] = field("One analyze_function facet, or one collection of another native answer")
    view: NativeView = field("The request's view")
    procedure_address: str | None = field("The dossier's procedure (other answers: their procedure, or null)")
    item: Open = field(
        "Row facets: the page's rows; pseudocode: {text, unit: utf16-code-units}; singletons: the value; "
        "unobserved facets: {available: false, reason}"
    )


@attrs.frozen(kw_only=True)
class InventoryResult(_ViewBase):
    kind: Literal["inventory"] = field("A page of inventory records")
    view: InventoryView = field("The request's view")
    items: tuple[Open, ...] = field(
        "Records of the facet",
        schema={"type": "array", "items": {"description": "One record exactly as inventory_artifact returns it"}},
    )
    manifest_id: str | None = field("Manifest of the inventory")
    inventory_coverage: InventoryCoverage = field("The inventory's declared coverage")
    coverage_status: str = field("complete or partial (retained for older clients)")
    source_complete: bool = field("The available inventory passes the complete graph checks")


@attrs.frozen(kw_only=True)
class AndroidViewResult(_ViewBase):
    kind: Literal["android"] = field("A page of Android classes, methods or fields")
    view: AndroidView = field("The request's view")
    class_name: str | None = field("The class whose methods or fields are paged (null for classes)")
    items: tuple[Open, ...] = field(
        "Class names, or method / field rows exactly as the parent returns them",
        schema={"type": "array", "items": {"description": "A class name or one method or field row of the parent"}},
    )


@attrs.frozen(kw_only=True)
class WasmResult(_ViewBase):
    kind: Literal["wasm"] = field("One inspect_wasm_artifact facet")
    view: WasmView = field("The request's view")
    item: Open = field(
        "Row facets: the page's rows as the parent records them; wat, headers, details: {text, unit: "
        "utf16-code-units}; tool_profile: the profile; custom_sections: the decoded producers, target_features, "
        "name, dylink.0 and sourceMappingURL sections"
    )


@attrs.frozen(kw_only=True)
class MachoResult(_ViewBase):
    kind: Literal["macho"] = field("One page of an inspect_macho facet")
    view: MachoView = field("The request's view")
    item: tuple[Open, ...] = field(
        "The page's original rows",
        schema={"type": "array", "items": {"description": "One row exactly as inspect_macho returns it"}},
    )
    source_total: int | None = field("The collection's reported total (repeated on every page)", minimum=0)
    source_exhaustive: bool = field(
        "The parent returned every recorded row; when false, exhausting the pages does not prove absence"
    )


@attrs.frozen(kw_only=True)
class PathSegment:
    text: str = field("The observed segment, or the placeholder of the rule that templated it")
    basis: Literal["observed", "inferred"] = field("inferred: templated by a format rule")
    rule: Literal["uuid", "integer", "hex", "token"] | None = field("The format rule (null: observed)")


@attrs.frozen(kw_only=True)
class ApiSurfaceGroup:
    method: str = field("HTTP method")
    origin: str = field("scheme://host[:port] (default ports omitted)")
    path_template: str = field("The path with templated segments as {rule} placeholders")
    segments: tuple[PathSegment, ...] = field("Each path segment, observed or inferred")
    templated: bool = field("Some segment is inferred")
    request_count: int = field("Records in the group", minimum=1)
    record_ordinals: tuple[int, ...] = field("Their producer ordinals")
    observed_paths: tuple[str, ...] = field("Distinct observed paths (at most 16)")


@attrs.frozen(kw_only=True)
class ApiSurfaceResult(_ViewBase):
    kind: Literal["api-surface"] = field("Grouped request lines of a network capture")
    view: ApiSurfaceView = field("The request's view")
    format: Literal["har", "mitmproxy"] = field("The capture format")
    groups: tuple[ApiSurfaceGroup, ...] = field("This page of the whole grouping")
    total_groups: int = field("Groups in the whole grouping", minimum=0)
    grouped_records: int = field("Records with a request line", minimum=0)
    inferred: bool = field("Any group of the whole grouping is templated: the view Evidence is inferred")


@attrs.frozen(kw_only=True)
class ManagedResult(_ViewBase):
    kind: Literal["managed"] = field("A page of one managed listing")
    view: ManagedView = field("The request's view")
    items: tuple[Open, ...] = field(
        "The page's rows exactly as the parent records them",
        schema={"type": "array", "items": {"description": "One row of the listing, as the parent records it"}},
    )
    page_bytes: int = field(
        "Canonical JSON bytes of items; a page ends before limit rows when the next row would pass 28,000", minimum=0
    )
    source_exhaustive: bool = field(
        "The parent carries the whole listing; when false its producer was asked for a page, and exhausting these "
        "pages does not prove that other rows are absent"
    )


@attrs.frozen(kw_only=True)
class ComparisonResult(_ViewBase):
    kind: Literal["comparison"] = field("A page of a version comparison")
    view: ComparisonView = field("The request's view")
    items: tuple[Open, ...] = field(
        "The page's items, graph nodes or graph edges exactly as the parent records them",
        schema={"type": "array", "items": {"description": "One item, node or edge of the parent"}},
    )
    page_bytes: int = field("Canonical JSON bytes of items (a page ends early to stay within 28,000)", minimum=0)
    comparison_id: str = field("The comparison's id")


AnalysisViewResult = (
    SummaryResult
    | FacetResult
    | ItemResult
    | PageResult
    | NativeResult
    | InventoryResult
    | WasmResult
    | MachoResult
    | AndroidViewResult
    | ApiSurfaceResult
    | ManagedResult
    | ComparisonResult
)


# -------------------------------------------------------------- continuations


def view_call(evidence_id: str, view: View) -> dict[str, Any]:
    """A ready inspect_analysis_view call over a retained record (what resource_constraint hands out)."""
    args = AnalysisViewArgs(source=RetainedSource(kind="retained-evidence", evidence_id=evidence_id), view=view)
    return {"name": "inspect_analysis_view", "arguments": to_wire(args)}


FIRST_VIEW: Mapping[str, View] = {
    "analyze_function": NativeView(kind="native", facet="pseudocode"),
    **{operation: SummaryView(kind="summary") for operation in NATIVE_SUMMARIZED},
    "inspect_artifact": SummaryView(kind="summary"),
    "inventory_artifact": InventoryView(kind="inventory", facet="occurrences"),
    "analyze_javascript_application": SummaryView(kind="summary"),
    "inspect_binary_layout": SummaryView(kind="summary"),
    "inspect_wasm_artifact": SummaryView(kind="summary"),
    "inspect_macho": SummaryView(kind="summary"),
    "inspect_web_network_capture": SummaryView(kind="summary"),
    "inspect_managed_artifact": SummaryView(kind="summary"),
    "inspect_managed_members": SummaryView(kind="summary"),
    "compare_application_versions": SummaryView(kind="summary"),
}
"""The first view worth reading of each oversized parent we can view."""
