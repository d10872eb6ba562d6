"""Wire records of inspect_analysis_view's results: every view result repeats its view, names its parent and the
digest of what it projects, and pages by `coverage.next_offset` (the summaries they carry: rea.views.records.summaries).
"""

from __future__ import annotations

from typing import Literal

import attrs

from rea.layout.records import (
    Linkage,
    Mitigations,
    PeDirectories,
    PeExport,
    PeImportDll,
    Section,
    Symbol,
)
from rea.views.records.requests import (
    EVIDENCE_ID_PATTERN,
    SHA256_PATTERN,
    AndroidView,
    ApiSurfaceView,
    ComparisonView,
    FacetView,
    InventoryView,
    ItemView,
    MachoView,
    ManagedView,
    NativeView,
    PageView,
    ParentOperation,
    SummaryView,
    WasmView,
)
from rea.views.records.summaries import (
    ApplicationSummary,
    ArtifactSummary,
    ComparisonSummary,
    InventoryCoverage,
    LayoutSummary,
    MachoSummary,
    ManagedSummary,
    NativeSummary,
    WasmSummary,
)
from rea.web_network.records import CaptureRecord, CaptureSummary
from rea.wire.schema import Open, field

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
