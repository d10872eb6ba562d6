"""Contracts of the native family (the embedded angr provider answers them)."""

from __future__ import annotations

from typing import Any

import attrs

from rea.catalog.cli import Command, Opens, Positional, declared
from rea.catalog.contract import ToolContract
from rea.catalog.schemas import evidence_output
from rea.native import text
from rea.native.records import arguments as wa
from rea.native.records import compare as wc
from rea.native.records import listings as wl
from rea.native.records import procedures as wp
from rea.views.records.results import NativeSummaryResult
from rea.wire.schema import schema_of
from rea.wire.tool import evidence_tool, session_tool

_NATIVE_EFFECTS = {"mutatesSession", "launchesProcess", "idempotent"}


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
    """A native tool declared by its argument and result records (rea.native.records). A tool whose arguments
    take `detail` (complete | summary) answers its summary view when asked, so its output is either."""
    contract = evidence_tool(
        name,
        title,
        description,
        args=args,
        result=result,
        surface=surface,
        examples=[example if example is not None else {}],
        effects=_NATIVE_EFFECTS,
        needs="provider",
    )
    return summarized(contract, args, result)


def summarized(contract: ToolContract, args: type, result: Any) -> ToolContract:
    """`contract` as a tool that may answer its summary view: when its arguments take `detail`, its description
    says so and its output is either its result or the native summary view."""
    if not _summarized(args):
        return contract
    either = {"anyOf": [schema_of(result), schema_of(NativeSummaryResult)]}
    return attrs.evolve(
        contract, description=contract.description + SUMMARY_NOTE, output_schema=evidence_output(either)
    )


SUMMARY_NOTE = " Complete by default; detail: summary returns counts and first rows to page from."


def _summarized(args: type) -> bool:
    detail = attrs.fields_dict(args).get("detail")
    return detail is not None and detail.default == "complete"


_PROC = {"procedure": "main"}
_AT = {"address": "0x1000"}


def _lifecycle(
    name: str, title: str, description: str, args: type, result: Any, example: dict[str, Any]
) -> ToolContract:
    """Navigation answers are lifecycle results in the reference: `{result: ...}`, no Evidence
    recorded, but the answer comes from the engine, which the first query starts."""
    return session_tool(
        name,
        title,
        description,
        args=args,
        result=result,
        surface="session",
        examples=[example],
        effects={"launchesProcess", "idempotent"},
        needs="provider",
    )


TOOLS: tuple[ToolContract, ...] = (
    _typed(
        "binary_overview",
        "Binary Overview",
        (
            "Document, segments and counts, with format, architecture, entry, the program's own functions "
            "first (program_procedures, counts per origin), the largest procedures and imports. The first "
            "call builds the analysis (seconds); later calls reuse it."
        ),
        wa.OverviewArgs,
        wl.Overview,
        surface="enhanced",
    ),
    _typed(
        "list_documents",
        "List Documents",
        "The documents of the session: the open target's name.",
        wa.DocumentArgs,
        tuple[str, ...],
    ),
    _typed(
        "list_procedures",
        "List Procedures",
        (
            "Every procedure (functions, thunks, imports): address, name as value, kind, size and origin "
            '(program, library, runtime or unknown, with what said so); origin: "program" lists the binary\'s '
            "own code alone. offset/limit ask for a page."
        ),
        wa.ProcedureListingArgs,
        tuple[wl.ProcedureRow, ...],
    ),
    _typed(
        "list_strings",
        "List Strings",
        (
            "Every string the analysis found: address, value and encoding, with the procedures referencing it "
            "once the CFG is recovered; besides strings stored in the clear (origin stored), strings built on "
            "a procedure's stack by immediate stores (origin stack, with frame_offset). offset/limit ask for "
            "a page."
        ),
        wa.StringListingArgs,
        tuple[wl.StringRow, ...],
    ),
    _typed(
        "list_names",
        "List Names",
        "Every name: symbol-table, imported and analysis-assigned, as {address, value, symbol}. Complete unless "
        "offset/limit ask for a page.",
        wa.FilteredListingArgs,
        tuple[wl.NameRow, ...],
    ),
    _typed(
        "list_segments",
        "List Segments",
        "Loadable segments with their sections nested, bounds and permissions.",
        wa.DocumentArgs,
        tuple[wl.Segment, ...],
    ),
    _typed(
        "address_name",
        "Address Name",
        "The name at an address (procedure or symbol), or null.",
        wa.OptionalAddressArgs,
        str | None,
        example=_AT,
    ),
    _typed(
        "procedure_address",
        "Procedure Address",
        "The entry address of a procedure given by name or address.",
        wa.ProcedureArgs,
        str,
        example=_PROC,
    ),
    _typed(
        "resolve_containing_procedure",
        "Resolve Containing Procedure",
        "The procedure whose basic blocks contain an address: found true with it, or found false with the reason.",
        wa.AddressArgs,
        wl.Contained | wl.NotContained,
        example=_AT,
    ),
    _typed(
        "search_procedures",
        "Search Procedures",
        "Every procedure whose name matches a literal or regular expression, as {address, value}; origin keeps "
        "to the program's own code (or library, runtime, unknown).",
        wa.ProcedureSearchArgs,
        tuple[wl.SearchRow, ...],
        example={"pattern": "main"},
    ),
    _typed(
        "search_strings",
        "Search Strings",
        "Every string whose value matches a literal or regular expression, as {address, value, string}, "
        "stack-built strings included (origin stack; origin keeps to one origin).",
        wa.StringSearchArgs,
        tuple[wl.StringRow, ...],
        example={"pattern": "error"},
    ),
    _typed(
        "procedure_info",
        "Procedure Info",
        "One procedure: name, entrypoint, basic-block count, length, signature, locals, classification, body.",
        wa.ProcedureArgs,
        wp.ProcedureInfo,
        example=_PROC,
    ),
    _typed(
        "procedure_callers",
        "Procedure Callers",
        "Addresses of the procedures that call this one (raw_result.names maps each to its name).",
        wa.ProcedureTextArgs,
        tuple[str, ...],
        example=_PROC,
    ),
    _typed(
        "procedure_callees",
        "Procedure Callees",
        "Addresses of the procedures this one calls (raw_result.names maps each to its name).",
        wa.ProcedureTextArgs,
        tuple[str, ...],
        example=_PROC,
    ),
    _typed(
        "procedure_references",
        "Procedure References",
        "Every reference into (incoming) or out of (outgoing) a procedure, calls and data, with unresolved calls.",
        wa.ReferencesArgs,
        wp.ProcedureReferences,
        example=_PROC,
    ),
    _typed(
        "xrefs",
        "Cross References",
        "Addresses of the instructions that reference an address.",
        wa.OptionalAddressArgs,
        tuple[str, ...],
        example=_AT,
    ),
    _typed(
        "find_xrefs_to_name",
        "Find Cross References To Name",
        "References to the address a name denotes: resolved with xrefs, or unresolved (name_not_found).",
        wa.NameArgs,
        wp.XrefsResolved | wp.XrefsUnresolved,
        surface="enhanced",
        example={"name": "main"},
    ),
    _typed(
        "procedure_assembly",
        "Procedure Assembly",
        "The procedure's instructions as one text, block by block.",
        wa.ProcedureTextArgs,
        str,
        example=_PROC,
    ),
    _typed(
        "read_function_instructions",
        "Read Function Instructions",
        "A window of the procedure's instructions, each listed once as an `address: mnemonic operands` line "
        "(include_bytes adds their bytes); never starts the decompiler.",
        wa.InstructionArgs,
        wp.InstructionWindow,
        example=_PROC,
    ),
    _typed(
        "procedure_pseudo_code",
        "Procedure Pseudocode",
        "angr's decompiled C-like pseudocode of a procedure, as one string (null when there is no body).",
        wa.ProcedureTextArgs,
        str | None,
        example=_PROC,
    ),
    _typed(
        "batch_decompile",
        "Batch Decompile",
        "Pseudocode for several procedures; one that fails is reported in its row and the rest continue.",
        wa.BatchArgs,
        wp.Batch,
        surface="enhanced",
        example={"addresses": ["main"]},
    ),
    _typed(
        "analyze_function",
        "Analyze Function",
        (
            "The function dossier: procedure, pseudocode, assembly, comments, callers, callees, incoming and "
            "outgoing references, referenced strings and names, basic blocks, unresolved calls and "
            "facet_availability. procedure or address names it (a name, an address or a sub_<hex> name)."
        ),
        wa.DossierArgs,
        wp.Dossier,
        surface="enhanced",
        example=_PROC,
    ),
    _typed(
        "get_call_graph",
        "Get Call Graph",
        (
            "The call graph reachable from one root, keyed by traversal depth: each node with its name and "
            "calls, coverage and caveats, and limitations. depth bounds it; address or procedure names the "
            "root (a name, an address or a sub_<hex> name)."
        ),
        wa.CallGraphArgs,
        wp.CallGraph,
        surface="enhanced",
        example={"address": "main", "direction": "forward"},
    ),
    _typed(
        "trace_call_path",
        "Trace Call Path",
        "A call path from start toward goal: goal_status, traversal_path, nodes, edges, failures and residual "
        "unknowns.",
        wa.CallPathArgs,
        wp.CallPath,
        surface="enhanced",
        example={"start": "main", "goal": "printf"},
    ),
    _typed("current_document", "Current Document", "The open document's name.", wa.DocumentArgs, str),
    _typed(
        "current_address",
        "Current Address",
        "The cursor address; REA's providers (angr, Ghidra) run headless and have none, so this is capability_unavailable.",
        wa.DocumentArgs,
        str,
    ),
    _typed(
        "current_procedure",
        "Current Procedure",
        "The procedure at the cursor; REA's providers (angr, Ghidra) run headless and have none, so this is capability_unavailable.",
        wa.DocumentArgs,
        str,
    ),
    _lifecycle(
        "get_navigation_context",
        "Get Navigation Context",
        "Document, cursor address and procedure; a headless provider has no cursor and says so "
        "(capability_unavailable, with the modes that are available).",
        wa.DocumentArgs,
        wp.NavigationContext,
        {},
    ),
    _lifecycle(
        "inspect_address_context",
        "Inspect Address Context",
        "Name, procedure, comment, inline-comment and bookmarks facets of an explicit address, each "
        "{state: available, value} or {state: unavailable, reason, remediation}.",
        wa.AddressArgs,
        wp.AddressContext,
        _AT,
    ),
    evidence_tool(
        "compare_functions",
        "Compare Functions",
        (
            "Compare two analyze_function dossiers across eight dimensions (identity, pseudocode, "
            "assembly, comments, calls, references, strings_names, cfg): status, function_match, digests, "
            "text deltas and changes. Pass left and right, or left_evidence_ids and right_evidence_ids. A "
            "facet either side lacks stays unknown."
        ),
        args=wc.CompareArgs,
        result=wc.FunctionComparison,
        surface="session",
        examples=[
            {
                "left": {"kind": "retained-evidence", "evidence_id": "ev_" + "1" * 64},
                "right": {"kind": "retained-evidence", "evidence_id": "ev_" + "2" * 64},
            }
        ],
        effects={"mutatesSession", "idempotent"},
    ),
)

# `rea analyze` chooses its tool by the path, so it is written by hand (effects.native.cli)
CLI_COMMANDS = ("analyze",)

# The native commands open the binary first (open_binary with --provider and --architecture), then ask.
BINARY = Opens(
    metavar="binary",
    help="path of the executable or library",
    provider=True,
    architecture=True,
    architecture_help="slice of a universal Mach-O to analyse, as lipo names it (default: x86_64, then arm64, then the first)",
)
_FUNCTION = Positional(argument="procedure", metavar="function", help="procedure start address (0x...) or exact name")
COMMANDS = {
    "analyze_function": Command(
        name="function",
        help="function dossier: pseudocode, callers, callees, strings",
        opens=BINARY,
        positionals=(_FUNCTION,),
        render=text.function,
    ),
    "procedure_pseudo_code": Command(
        name="decompile",
        help="pseudocode of one function",
        opens=BINARY,
        positionals=(_FUNCTION,),
        render=text.pseudocode,
    ),
    "xrefs": Command(
        name="xrefs",
        help="references to an address",
        opens=BINARY,
        positionals=(Positional(argument="address", help="address (0x...) whose references to list"),),
        render=text.xrefs,
    ),
    "read_function_instructions": Command(
        name="instructions",
        help="a function's instructions, offset-paged",
        opens=BINARY,
        positionals=(_FUNCTION,),
        defaults={"offset": 0, "limit": 64},
        sends={"include_bytes": True},
        render=text.instructions,
    ),
}
TOOLS = declared(TOOLS, COMMANDS)
