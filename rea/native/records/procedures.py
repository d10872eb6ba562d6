"""The native family's procedure results: procedure info, references, instructions, decompilation, call graphs
and paths, the dossier and the navigation context."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

import attrs

from rea.native.records.arguments import Coverage, GoalStatus
from rea.native.records.listings import Body, Classification, ProcedureIdentity, ProcedureRef
from rea.wire.schema import Open, field


@attrs.frozen(kw_only=True)
class ProcedureInfo:
    name: str = field("Name")
    entrypoint: str = field("Entry address")
    basicblock_count: int = field("Basic blocks", minimum=0)
    length: int = field("Bytes covered by its blocks", minimum=0)
    signature: str | None = field("Prototype (angr does not recover one: null)")
    locals: tuple[LocalVariable, ...] = field("Local variables (angr does not report them: empty)")
    classification: Classification | None = field("Kind")
    body: Body = field("Body ranges")
    callers: int = field("Calling procedures (extra)", minimum=0)
    callees: int = field("Called procedures (extra)", minimum=0)


@attrs.frozen(kw_only=True)
class ReferenceKind:
    """The reference's classified reference kind; angr knows calls from its CFG and data references from its
    xref database (read, write or offset)."""

    available: Literal[True] = field("The reference is classified")
    provenance: str = field("Who classified it", minLength=1)
    type: str = field("call, or angr's data-reference type: read, write, offset")
    flow: bool = field("A control-flow reference")
    call: bool = field("A call")
    jump: bool = field("A jump")
    data: bool = field("A data reference")
    read: bool = field("Reads the target")
    write: bool = field("Writes the target")
    indirect: bool = field("Through a register or memory (angr lists only resolved targets: false)")
    computed: bool = field("Computed target")
    conditional: bool = field("Taken conditionally")
    terminal: bool = field("Ends the block without falling through")
    primary: bool = field("The instruction's primary reference")
    operand_index: int = field("Operand holding the target (-1: not recorded)")
    external: bool = field("The target is an import")


@attrs.frozen(kw_only=True)
class ReferenceEdge:
    source_address: str = field("Referencing instruction")
    target_address: str = field("Referenced address")
    source_procedure: ProcedureRef | None = field("Procedure of the source")
    target_procedure: ProcedureRef | None = field("Procedure starting at the target")
    kind: ReferenceKind = field("Reference kind")


@attrs.frozen(kw_only=True)
class UnresolvedCall:
    address: str = field("Call site")
    reason: str = field("Why its target is unknown")


@attrs.frozen(kw_only=True)
class ProcedureReferences:
    procedure: ProcedureIdentity = field("The procedure")
    direction: Literal["incoming", "outgoing"] = field("The direction asked for")
    reference_kinds_available: bool = field("Whether kinds are classified")
    unresolved_calls: tuple[UnresolvedCall, ...] = field("Call sites with unknown targets (outgoing)")
    references: tuple[ReferenceEdge, ...] = field("Every reference")
    instruction_scan_truncated: bool = field("3.1: the scan stopped early (never, for angr)")
    instructions_scanned: int = field("3.1: instructions scanned (0: angr reads its xref database)", minimum=0)


@attrs.frozen(kw_only=True)
class InstructionWindow:
    procedure: ProcedureIdentity = field("The procedure")
    instructions: tuple[str, ...] = field("`address: mnemonic operands` lines of the window")
    limitations: tuple[str, ...] = field("What the window leaves out")
    offset: int = field("First instruction of the window (extra)", minimum=0)
    total: int = field("Instructions in the procedure (extra)", minimum=0)
    next_offset: int | None = field("Where the next window starts, or null (extra)")
    bytes: tuple[str, ...] | None = field(
        "Each instruction's hex bytes, in the order of `instructions` (extra; include_bytes: true)", omit_none=True
    )


@attrs.frozen(kw_only=True)
class ErrorRemediation:
    action: str = field("What to do")


@attrs.frozen(kw_only=True)
class ErrorRecord:
    code: str = field("Canonical error code")
    category: str = field("Error category")
    message: str = field("What happened")
    retryable: bool = field("Whether retrying can help")
    remediation: ErrorRemediation = field("What to do next")
    details: Mapping[str, Open] | None = field("Code-specific facts", omit_none=True)


@attrs.frozen(kw_only=True)
class ResolvedRef:
    status: Literal["resolved", "unknown"] = field("Whether the request named a procedure")
    address: str | None = field("Entry address")
    name: str | None = field("Name")


@attrs.frozen(kw_only=True)
class Decompiled:
    address: str = field("The address or name asked for")
    status: Literal["ok"] = field("Decompiled")
    pseudocode: str = field("Pseudocode", minLength=1)
    procedure: ResolvedRef = field("The procedure it named")


@attrs.frozen(kw_only=True)
class NotDecompiled:
    address: str = field("The address or name asked for")
    status: Literal["error"] = field("Failed")
    error: ErrorRecord = field("Why")
    procedure: ResolvedRef = field("The procedure it named")


@attrs.frozen(kw_only=True)
class Batch:
    items: tuple[Decompiled | NotDecompiled, ...] = field("One row per address, in request order")
    total: int = field("Rows", minimum=0)
    succeeded: int = field("ok rows", minimum=0)
    failed: int = field("error rows", minimum=0)


@attrs.frozen(kw_only=True)
class XrefsResolved:
    status: Literal["resolved"] = field("The name denotes an address")
    name: str = field("The name")
    address: str = field("The address it denotes")
    xrefs: tuple[str, ...] = field("Referencing instruction addresses")
    addresses: tuple[str, ...] = field("Every address with this name (extra; usually one)")


@attrs.frozen(kw_only=True)
class XrefsUnresolved:
    status: Literal["unresolved"] = field("No such name")
    name: str = field("The name")
    reason: Literal["name_not_found"] = field("Why")


@attrs.frozen(kw_only=True)
class GraphNodeOk:
    address: str = field("Procedure address")
    status: Literal["ok"] = field("Its relationships were read")
    calls: tuple[str, ...] = field("Observed callees (forward) or callers (backward)")
    name: str | None = field("Name (extra)")
    coverage: Coverage = field("How complete `calls` is")
    limitations: tuple[str, ...] = field("Caveats of this read")


@attrs.frozen(kw_only=True)
class GraphNodeError:
    address: str = field("Address that could not be read")
    status: Literal["error"] = field("Its relationships were not read")
    error: ErrorRecord = field("Why")


@attrs.frozen(kw_only=True)
class CallGraph:
    """Keyed by traversal depth ("0", "1", ...) plus a top-level `limitations` array (the spec)."""

    levels: Mapping[str, tuple[GraphNodeOk | GraphNodeError, ...]]
    limitations: tuple[str, ...]

    @staticmethod
    def __wire_schema__(role: object) -> dict[str, object]:
        from rea.wire.schema import schema_of

        node = schema_of(GraphNodeOk | GraphNodeError)
        return {
            "type": "object",
            "description": "Nodes keyed by traversal depth, and the deduplicated caveats of every read",
            "properties": {"limitations": {"type": "array", "items": {"type": "string"}}},
            "patternProperties": {"^(0|[1-9][0-9]*)$": {"type": "array", "items": node}},
            "required": ["0", "limitations"],
            "additionalProperties": False,
        }

    def __wire__(self) -> dict[str, object]:
        from rea.wire.convert import to_wire

        return {**{k: to_wire(v) for k, v in self.levels.items()}, "limitations": list(self.limitations)}


@attrs.frozen(kw_only=True)
class PathNode:
    address: str = field("Procedure address")
    depth: int = field("Discovery depth", minimum=0)
    name: str | None = field("Its name (extra; null when none is known)")


@attrs.frozen(kw_only=True)
class PathEdge:
    source_address: str = field("The caller (edges follow the call, whichever way the trace walks)")
    target_address: str = field("The callee")
    discovery_depth: int = field("Depth of the end the expansion discovered", minimum=1)


@attrs.frozen(kw_only=True)
class Failure:
    address: str = field("Address whose relationships could not be read")
    error: ErrorRecord = field("Why")


@attrs.frozen(kw_only=True)
class Traversal:
    nodes_visited: int = field("Procedures visited", minimum=1)


@attrs.frozen(kw_only=True)
class PathLimits:
    max_depth: int = field("", minimum=1)
    max_nodes: int = field("", minimum=1)
    max_operations: int = field("", minimum=1)


@attrs.frozen(kw_only=True)
class CallPath:
    start: str = field("Start procedure address")
    goal: str | None = field("Goal procedure address")
    direction: Literal["forward", "backward"] = field("Traversal direction")
    goal_status: GoalStatus = field("unknown: not reached while some expansion was unresolved")
    nodes: tuple[PathNode, ...] = field("Visited procedures")
    edges: tuple[PathEdge, ...] = field("Traversed call edges")
    traversal_path: tuple[str, ...] = field("start ... goal, when reached")
    failures: tuple[Failure, ...] = field("Reads that failed")
    traversal: Traversal = field("Traversal counts")
    frontier: tuple[str, ...] = field("Procedures left unexpanded")
    truncated: bool = field("Some expansion was limited or unresolved (each is in residual_unknowns)")
    residual_unknowns: tuple[str, ...] = field("Each limited or unresolved expansion, in words")
    limitations: tuple[str, ...] = field("Caveats")
    limits: PathLimits = field("The limits applied")


@attrs.frozen(kw_only=True)
class LocalVariable:
    description: str = field("The variable")
    provenance: str = field("Who reported it")


@attrs.frozen(kw_only=True)
class DossierProcedure:
    address: str = field("Entry address")
    name: str = field("Name")
    signature: str | None = field("Prototype (angr recovers none: null)")
    locals: tuple[LocalVariable, ...] = field(
        "Stack locals of angr's pseudocode, each with the assembly's operand for its bytes"
    )
    classification: Classification = field("Kind")
    body: Body = field("Body ranges")
    kind: Literal["function", "thunk", "external"] = field("Kind (extra)")
    size: int = field("Bytes (extra)", minimum=0)
    returning: bool | None = field("Returns (extra)")


@attrs.frozen(kw_only=True)
class Comment:
    address: str = field("Address")
    kind: Literal["comment", "inline"] = field("Comment kind")
    text: str = field("Text")


@attrs.frozen(kw_only=True)
class Referenced:
    address: str = field("Address of the string or name")
    value: str = field("Its text")
    source_address: str = field("The procedure's instruction referencing it (or the procedure entry)")


@attrs.frozen(kw_only=True)
class Block:
    start: str = field("First address")
    end: str = field("Address after the last byte")
    successors: tuple[str, ...] = field("Blocks control can flow to")


@attrs.frozen(kw_only=True)
class Availability:
    available: bool = field("Observed")
    reason: str | None = field("Why not", omit_none=True)


@attrs.frozen(kw_only=True)
class FacetAvailability:
    pseudocode: Availability = field("")
    assembly: Availability = field("")
    comments: Availability = field("")
    callers: Availability = field("")
    callees: Availability = field("")
    references: Availability = field("")
    strings_names: Availability = field("")
    cfg: Availability = field("")


@attrs.frozen(kw_only=True)
class ValueFlow:
    available: bool = field("Whether value flow was computed")
    reason: str | None = field("Why not", omit_none=True)


@attrs.frozen(kw_only=True)
class Dossier:
    procedure: DossierProcedure = field("Identity and body")
    pseudocode: str | None = field("Decompiled pseudocode (null: unavailable, see facet_availability)")
    assembly: tuple[str, ...] = field("`address: mnemonic operands` lines")
    comments: tuple[Comment, ...] = field("Analyst comments (angr keeps none)")
    callers: tuple[ProcedureRef, ...] = field("Calling procedures")
    callees: tuple[ProcedureRef, ...] = field("Called procedures")
    incoming_references: tuple[ReferenceEdge, ...] = field("References to the entry")
    outgoing_references: tuple[ReferenceEdge, ...] = field("References out of the body")
    referenced_strings: tuple[Referenced, ...] = field("Strings the body references")
    referenced_names: tuple[Referenced, ...] = field("Named addresses the body references")
    basic_blocks: tuple[Block, ...] = field("Control-flow graph")
    unresolved_calls: tuple[UnresolvedCall, ...] = field("Calls whose target angr did not resolve")
    native_api: None = field("Imported APIs by family (not classified by this provider: null)")
    native_value_flow: ValueFlow = field("Value flow")
    limitations: tuple[str, ...] = field("What the dossier leaves out")
    facet_availability: FacetAvailability = field("Which facets were observed")
    pseudocode_length: int = field("Characters of the complete pseudocode (extra)", minimum=0)
    pseudocode_truncated: bool = field("Bounded by max_pseudocode_chars (extra)")
    assembly_total: int = field("Instructions in the procedure (extra)", minimum=0)


@attrs.frozen(kw_only=True)
class Available:
    state: Literal["available"] = field("The facet was read")
    value: Open = field("The facet's value: a name string, a procedure identity, or a list of bookmarks")


@attrs.frozen(kw_only=True)
class Unavailable:
    state: Literal["unavailable"] = field("The facet cannot be read here")
    reason: str = field("Why")
    remediation: str = field("What to do instead")


@attrs.frozen(kw_only=True)
class AddressContext:
    address: str = field("The address")
    document: str | None = field("The document")
    name: Available | Unavailable = field("Name at the address")
    procedure: Available | Unavailable = field("Containing procedure")
    comment: Available | Unavailable = field("Comment")
    inline_comment: Available | Unavailable = field("Inline comment")
    bookmarks: Available | Unavailable = field("Bookmarks")


@attrs.frozen(kw_only=True)
class NavigationContext:
    document: str = field("Current document")
    address: str = field("Cursor address")
    procedure: str | None = field("Procedure at the cursor")
