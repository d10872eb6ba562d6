"""Contracts of the native family (the embedded angr provider answers them)."""

from __future__ import annotations

from typing import Any

from rea.catalog.contract import ToolContract
from rea.catalog.schemas import array, evidence_output, input_schema, integer, string
from rea.wire import native as w
from rea.wire.tool import evidence_tool

_DOCUMENT = string("The open target's name or path (headless providers have one document)", minLength=1)
_PROCEDURE = string("Procedure start address (0x...) or exact name", minLength=1)
_ADDRESS = string("Link-time virtual address, 0x hex (other spaces as space:0x...)", minLength=1)
_OFFSET = integer("First item to return", 0)
_NATIVE_EFFECTS = {"mutatesSession", "launchesProcess", "idempotent"}


def _limit(default: int, maximum: int) -> dict[str, Any]:
    return integer(f"Items per page (default {default})", 1, maximum)


def _tool(
    name: str,
    title: str,
    description: str,
    properties: dict[str, Any],
    required: tuple[str, ...] = (),
    *,
    surface: str = "official-proxy",
    example: dict[str, Any] | None = None,
) -> ToolContract:
    return ToolContract(
        name=name,
        title=title,
        description=description,
        surface=surface,
        input_schema=input_schema(properties, required, examples=[example] if example is not None else [{}]),
        output_schema=evidence_output(),
        annotations={"idempotent"},
        effects=_NATIVE_EFFECTS,
        requires_target=True,
        result_kind="evidence",
    )


def _typed(
    name: str,
    title: str,
    description: str,
    args: type,
    result: Any,
    *,
    surface: str = "official-proxy",
    example: dict[str, Any] | None = None,
) -> ToolContract:
    """A native tool declared by its argument and result records (rea.wire.native)."""
    return evidence_tool(
        name,
        title,
        description,
        args=args,
        result=result,
        surface=surface,
        examples=[example if example is not None else {}],
        annotations={"idempotent"},
        effects=_NATIVE_EFFECTS,
        requires_target=True,
    )


_PROC_ARGS = {"procedure": _PROCEDURE, "document": _DOCUMENT}
_PROC_EXAMPLE = {"procedure": "main"}
_SEARCH = {
    "pattern": string("Text or regular expression to find", minLength=1),
    "mode": {"type": "string", "enum": ["literal", "regex"], "default": "literal"},
    "case_sensitive": {"type": "boolean", "default": False},
    "offset": _OFFSET,
    "limit": _limit(100, 100),
    "document": _DOCUMENT,
}

TOOLS: tuple[ToolContract, ...] = (
    _tool(
        "binary_overview",
        "Binary Overview",
        "Architecture, format, entry point, counts and the largest procedures of the open binary, with the "
        "provider's limitations. The first call builds the analysis (seconds); later calls reuse it.",
        {"detail": {"type": "string", "enum": ["concise", "detailed"], "default": "concise"}, "limit": _limit(10, 50)},
        surface="enhanced",
    ),
    _tool("list_documents", "List Documents", "The documents of the session: the open target.", {}),
    _typed(
        "list_procedures",
        "List Procedures",
        "Every procedure (functions, thunks, imports): address, name as value, kind and size. Complete unless "
        "offset/limit ask for a page.",
        w.ListingArgs,
        tuple[w.ProcedureRow, ...],
    ),
    _tool(
        "list_strings",
        "List Strings",
        "Strings the analysis found, with the procedures referencing them; offset-paged.",
        {"address": _ADDRESS, "offset": _OFFSET, "limit": _limit(100, 500), "document": _DOCUMENT},
    ),
    _tool(
        "list_names",
        "List Names",
        "Names: symbol-table (primary), imported (external) and analysis-assigned (dynamic); offset-paged.",
        {"address": _ADDRESS, "offset": _OFFSET, "limit": _limit(100, 500), "document": _DOCUMENT},
    ),
    _tool(
        "list_segments",
        "List Segments",
        "Sections and loadable segments with bounds and permissions.",
        {"document": _DOCUMENT},
    ),
    _tool(
        "address_name",
        "Address Name",
        "The name at an address (procedure, symbol or string), or null.",
        {"address": _ADDRESS, "document": _DOCUMENT},
        ("address",),
        example={"address": "0x1000"},
    ),
    _tool(
        "procedure_address",
        "Procedure Address",
        "The start address of a procedure given by name.",
        _PROC_ARGS,
        ("procedure",),
        example=_PROC_EXAMPLE,
    ),
    _tool(
        "resolve_containing_procedure",
        "Resolve Containing Procedure",
        "The procedure whose basic blocks contain an address, or null.",
        {"address": _ADDRESS, "document": _DOCUMENT},
        ("address",),
        example={"address": "0x1000"},
    ),
    _tool(
        "search_procedures",
        "Search Procedures",
        "Procedures whose name matches a literal or regex; offset-paged.",
        _SEARCH,
        ("pattern",),
        example={"pattern": "main"},
    ),
    _tool(
        "search_strings",
        "Search Strings",
        "Strings whose value matches a literal or regex; offset-paged.",
        _SEARCH,
        ("pattern",),
        example={"pattern": "error"},
    ),
    _tool(
        "procedure_info",
        "Procedure Info",
        "One procedure: bounds, kind, blocks, call counts, strings.",
        _PROC_ARGS,
        ("procedure",),
        example=_PROC_EXAMPLE,
    ),
    _tool(
        "procedure_callers",
        "Procedure Callers",
        "Procedures that call this one.",
        _PROC_ARGS,
        ("procedure",),
        example=_PROC_EXAMPLE,
    ),
    _tool(
        "procedure_callees",
        "Procedure Callees",
        "Procedures this one calls.",
        _PROC_ARGS,
        ("procedure",),
        example=_PROC_EXAMPLE,
    ),
    _tool(
        "procedure_references",
        "Procedure References",
        "References into (incoming) or out of (outgoing) a procedure: calls and data references; offset-paged.",
        {
            **_PROC_ARGS,
            "direction": {"type": "string", "enum": ["incoming", "outgoing"], "default": "outgoing"},
            "offset": _OFFSET,
            "limit": _limit(100, 500),
        },
        ("procedure",),
        example=_PROC_EXAMPLE,
    ),
    _tool(
        "xrefs",
        "Cross References",
        "Every recorded reference to an address.",
        {"address": _ADDRESS, "document": _DOCUMENT},
        ("address",),
        example={"address": "0x1000"},
    ),
    _tool(
        "find_xrefs_to_name",
        "Find Cross References To Name",
        "References to the address a name denotes.",
        {"name": string("Exact name", minLength=1)},
        ("name",),
        surface="enhanced",
        example={"name": "main"},
    ),
    _tool(
        "procedure_assembly",
        "Procedure Assembly",
        "The procedure's instructions as text, block by block.",
        _PROC_ARGS,
        ("procedure",),
        example=_PROC_EXAMPLE,
    ),
    _tool(
        "read_function_instructions",
        "Read Function Instructions",
        "The procedure's instructions with bytes, offset-paged; never starts the decompiler.",
        {**_PROC_ARGS, "offset": integer("First instruction", 0, 100_000), "limit": _limit(64, 500)},
        ("procedure",),
        example=_PROC_EXAMPLE,
    ),
    _typed(
        "procedure_pseudo_code",
        "Procedure Pseudocode",
        "angr's decompiled C-like pseudocode of a procedure, as one string (null when there is no body).",
        w.ProcedureArgs,
        str | None,
        example=_PROC_EXAMPLE,
    ),
    _tool(
        "batch_decompile",
        "Batch Decompile",
        "Pseudocode for several procedures; one that fails is reported in its row and the rest continue.",
        {"addresses": array(_PROCEDURE, minItems=1, maxItems=50)},
        ("addresses",),
        surface="enhanced",
        example={"addresses": ["main"]},
    ),
    _tool(
        "analyze_function",
        "Analyze Function",
        "A function dossier: procedure, pseudocode, assembly, basic blocks, callers, callees, references, "
        "strings and names, with facet_availability saying which facets were observed.",
        {
            "procedure": _PROCEDURE,
            "include_assembly": {"type": "boolean", "default": False},
            "max_pseudocode_chars": integer("Pseudocode characters to include", 0, 1_000_000),
            "max_instructions": integer("Instructions to include", 1, 20_000),
            "limit": _limit(100, 1000),
        },
        ("procedure",),
        surface="enhanced",
        example=_PROC_EXAMPLE,
    ),
    _tool(
        "get_call_graph",
        "Get Call Graph",
        "The call graph around an address keyed by traversal depth, each node with its relationship coverage.",
        {
            "address": _PROCEDURE,
            "depth": integer("Traversal depth", 0, 5),
            "direction": {"type": "string", "enum": ["forward", "backward"], "default": "forward"},
        },
        ("address",),
        surface="enhanced",
        example={"address": "main", "depth": 2},
    ),
    _tool(
        "trace_call_path",
        "Trace Call Path",
        "A call path from start toward goal: goal_status reached, not_reached or unknown, with residual unknowns.",
        {
            "start": _PROCEDURE,
            "goal": _PROCEDURE,
            "direction": {"type": "string", "enum": ["forward", "backward"], "default": "forward"},
            "max_depth": integer("Deepest level", 1, 10),
            "max_nodes": integer("Most procedures visited", 1, 500),
        },
        ("start",),
        surface="enhanced",
        example={"start": "main", "goal": "printf"},
    ),
    _tool("current_document", "Current Document", "The open document (headless: the target).", {}),
    _tool(
        "current_address",
        "Current Address",
        "The cursor address; a headless provider has none and says so.",
        {"document": _DOCUMENT},
    ),
    _tool(
        "current_procedure",
        "Current Procedure",
        "The procedure at the cursor; a headless provider has no cursor and says so.",
        {"document": _DOCUMENT},
    ),
    _tool(
        "get_navigation_context",
        "Get Navigation Context",
        "Document, cursor and procedure together, with the modes this provider supports.",
        {"document": _DOCUMENT},
        surface="session",
    ),
    _tool(
        "inspect_address_context",
        "Inspect Address Context",
        "Name, procedure, comment, inline-comment and bookmark facets of an explicit address.",
        {"address": _ADDRESS, "document": _DOCUMENT},
        ("address",),
        surface="session",
        example={"address": "0x1000"},
    ),
)

_EVIDENCE_INPUT = {
    "description": 'analyze_function Evidence: the complete record, or {"kind": "retained-evidence", "evidence_id": ...}',
    "type": "object",
}
_IDS = array(string("Retained analyze_function Evidence id", pattern="^ev_[a-f0-9]{64}$"), minItems=1, maxItems=100)

COMPARE_FUNCTIONS = ToolContract(
    name="compare_functions",
    title="Compare Functions",
    description=(
        "Compare two analyze_function dossiers across identity, pseudocode, calls, callers, references, strings "
        "and address-normalized CFG. Give left and right (inline Evidence or retained references), or "
        "left_evidence_ids and right_evidence_ids. A facet either side did not observe stays unknown with null "
        "counts."
    ),
    surface="session",
    input_schema=input_schema(
        {
            "left": _EVIDENCE_INPUT,
            "right": _EVIDENCE_INPUT,
            "left_evidence_ids": _IDS,
            "right_evidence_ids": _IDS,
        },
        examples=[
            {
                "left": {"kind": "retained-evidence", "evidence_id": "ev_" + "1" * 64},
                "right": {"kind": "retained-evidence", "evidence_id": "ev_" + "2" * 64},
            }
        ],
    ),
    output_schema=evidence_output(),
    annotations={"idempotent"},
    effects={"mutatesSession", "idempotent"},
    result_kind="evidence",
)

TOOLS = (*TOOLS, COMPARE_FUNCTIONS)

CLI_COMMANDS = ("analyze", "decompile", "function", "instructions", "xrefs")
