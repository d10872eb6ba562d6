"""Wire records of inspect_analysis_view's requests: REA 6.x view requests (the results: rea.views.records.results).

The request is `{source, view}`: `source` is a retained reference or inline
Evidence, `view` one of the records below, told apart by `kind` (cattrs
structures the union on that literal). The result repeats the view and names its
parent, a digest of the projected facts, and `coverage` whose `next_offset` is
the only paging continuation. Names and enums follow the reference
(analysisView, nativeFunctionView); inventory, wasm and macho views follow the
spec.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, get_args

import attrs

from rea.wire.convert import to_wire
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
    match: str | None = field("Keep rows whose names contain this, any case", omit_none=True)


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
