"""Wire records of trace_native_values and of the per-procedure value flow it composes. Shapes: REA 6.x
domain/native/nativeValueTrace (nativeValueTraceInputSchema, nativeValueTraceSchema) and
nativeValueFlow; `budgets` and `page` are ours (extra fields), the rest is the reference's."""

from __future__ import annotations

from typing import Literal

import attrs

from rea.native.records.arguments import Detail, address_alias, detail_choice, procedure_choice
from rea.wire.schema import SAFE_INT_MAX, field

Edge = Literal["def-use", "call", "parameter-use", "argument-binding", "return-binding"]


@attrs.frozen(kw_only=True)
class TraceValuesArgs:
    procedure: str | None = procedure_choice()
    address: str | None = address_alias()
    max_depth: int = field("Most call levels followed below the seed", default=3, minimum=0, maximum=16)
    max_functions: int = field("Most procedures analysed (the seed included)", default=16, minimum=1, maximum=64)
    max_call_sites: int = field("Most call instructions resolved", default=256, minimum=1, maximum=4096)
    max_nodes: int = field("Most graph nodes kept", default=5_000, minimum=1, maximum=20_000)
    max_edges: int = field("Most graph edges kept", default=10_000, minimum=1, maximum=40_000)
    offset: int = field("First node returned", default=0, minimum=0, maximum=SAFE_INT_MAX)
    limit: int = field("Nodes returned", default=1_000, minimum=1, maximum=5_000)
    detail: Detail = detail_choice()


@attrs.frozen(kw_only=True)
class Varnode:
    kind: Literal["constant", "address", "register", "unique", "other"] = field(
        "register; address (absolute memory or a call target); other (an entry-relative stack slot "
        "stack:-0x1c, or the return address)"
    )
    size_bytes: int = field("Width in bytes (0 when unknown)", minimum=0)
    location: str | None = field("Register name, stack:<offset from the entry stack pointer>, or address")
    constant_hex: str | None = field("A constant's value in lowercase hex (no 0x)", pattern="^[0-9a-f]+$")


@attrs.frozen(kw_only=True)
class Operation:
    id: str = field("Operation id within its procedure (the instruction address)", minLength=1)
    address: str = field("Instruction address", minLength=1)
    sequence: int = field("Position of the instruction in the procedure, in address order", minimum=0)
    opcode: str = field("CALL, CALLIND, RETURN, or the instruction's mnemonic in capitals", minLength=1)
    is_dead: bool = field("Always false: every instruction of a recovered block is kept")
    block_membership: Literal["member", "detached", "unavailable"] = field("In a recovered basic block")
    inputs: tuple[Varnode, ...] = field(
        "Locations whose reaching definitions it reads; a call's target first, then its arguments in "
        "calling-convention order; a return's address first, then the value it returns"
    )
    output: Varnode | None = field("The location it defines (a call: the return register, when it is used)")


@attrs.frozen(kw_only=True)
class DefUse:
    definition: str = field("Defining operation id", minLength=1)
    use: str = field("Using operation id", minLength=1)
    input_index: int = field("Which input of the use", minimum=0)


@attrs.frozen(kw_only=True)
class FlowEffect:
    operation: str = field("Operation id", minLength=1)
    kind: Literal[
        "memory_read", "memory_write", "conditional_branch", "indirect_branch", "direct_call", "indirect_call"
    ] = field("What the operation does")
    operand_input: int | None = field("The input naming the target", minimum=0)
    value_input: int | None = field("The input carrying the value", minimum=0)


@attrs.frozen(kw_only=True)
class Parameter:
    ordinal: int = field("Position", minimum=0)
    name: str = field("Name (arg_<n> when angr gives none)")
    data_type: str = field("Type angr's calling-convention analysis inferred")
    storage: str | None = field("Register or entry-relative stack slot it arrives in (extra)")


@attrs.frozen(kw_only=True)
class ParameterUse:
    ordinal: int = field("Parameter position", minimum=0)
    use: str = field("Operation reading the incoming value", minLength=1)
    input_index: int = field("Which input of that operation", minimum=0)


@attrs.frozen(kw_only=True)
class ValueFlow:
    """One procedure's def-use facts: the Evidence each trace node cites."""

    available: Literal[True] = field("The procedure was analysed")
    provenance: Literal["angr-reaching-definitions"] = field("angr's ReachingDefinitionsAnalysis")
    operations: tuple[Operation, ...] = field("Its instructions")
    def_use: tuple[DefUse, ...] = field("Definition -> use, within the procedure")
    effects: tuple[FlowEffect, ...] = field("Its calls")
    parameters: tuple[Parameter, ...] = field("Its parameters")
    parameter_uses: tuple[ParameterUse, ...] = field("Operations reading an incoming parameter")
    truncated: Literal[False] = field("Never truncated: a function over the bound is not analysed at all")
    omitted_operations_lower_bound: int = field("Always 0", minimum=0)
    known_omitted_inputs: int = field("Always 0", minimum=0)
    known_omitted_edges: int = field("Always 0", minimum=0)
    limitations: tuple[str, ...] = field("What the facts leave out")


@attrs.frozen(kw_only=True)
class NoValueFlow:
    available: Literal[False] = field("Nothing was analysed")
    reason: str = field("Why", minLength=1)
    limitations: tuple[str, ...] = field("What stays unknown")


@attrs.frozen(kw_only=True)
class TraceNode:
    id: str = field("<procedure>/<operation id> or <procedure>/parameter:<ordinal>", minLength=1)
    procedure: str = field("Procedure address", minLength=1)
    evidence_id: str = field("The procedure's native_value_flow Evidence", pattern="^ev_[a-f0-9]{64}$")
    kind: Literal["operation", "parameter"] = field("An instruction or an incoming parameter")
    operation: Operation | None = field("The instruction (null for a parameter)")
    parameter: Parameter | None = field("The parameter (null for an operation)")


@attrs.frozen(kw_only=True)
class TraceEdge:
    source: str = field("Source node id", minLength=1)
    target: str = field("Target node id (a call edge: the callee's address)", minLength=1)
    input_index: int | None = field("Input of the target the value reaches (null for call edges)", minimum=0)
    kind: Edge = field(
        "def-use and parameter-use inside a procedure; call from a call to its callee; argument-binding from "
        "a call to the callee's parameter; return-binding from the callee's return to the call"
    )
    status: Literal["derived", "direct", "resolved-indirect", "candidate"] = field(
        "derived for dependencies, direct for a call target the CFG resolved"
    )
    evidence_id: str = field("Evidence of the procedure the edge rests on", pattern="^ev_[a-f0-9]{64}$")


@attrs.frozen(kw_only=True)
class TracedProcedure:
    address: str = field("Procedure address", minLength=1)
    depth: int = field("Call levels below the seed", minimum=0)
    evidence_id: str = field("Its native_value_flow Evidence", pattern="^ev_[a-f0-9]{64}$")
    provider: str = field("Provider id")
    analysis_profile_digest: str | None = field("Analysis profile digest")


@attrs.frozen(kw_only=True)
class TraceUnknown:
    procedure: str = field("Procedure it concerns")
    address: str | None = field("Instruction it concerns")
    reason: str = field("What was not followed, and why", minLength=1)


@attrs.frozen(kw_only=True)
class Budget:
    limit: int = field("The caller's bound", minimum=0)
    used: int = field("How much was used", minimum=0)
    exhausted: bool = field("The bound stopped the trace somewhere")


@attrs.frozen(kw_only=True)
class Budgets:
    depth: Budget = field("max_depth: deepest level analysed")
    functions: Budget = field("max_functions: procedures analysed")
    call_sites: Budget = field("max_call_sites: call instructions resolved")
    nodes: Budget = field("max_nodes: nodes kept")
    edges: Budget = field("max_edges: edges kept")


@attrs.frozen(kw_only=True)
class TracePage:
    offset: int = field("First node in this page", minimum=0)
    limit: int = field("Page size", minimum=1)
    returned: int = field("Nodes in this page", minimum=0)
    total: int = field("Nodes in the whole graph", minimum=0)
    next_offset: int | None = field("Offset of the next page, null at the end")


@attrs.frozen(kw_only=True)
class ValueTrace:
    seed: str = field("The procedure argument as given")
    target_sha256: str = field("The binary's SHA-256", pattern="^[a-f0-9]{64}$")
    nodes: tuple[TraceNode, ...] = field("This page of nodes: procedures in trace order, operations then parameters")
    edges: tuple[TraceEdge, ...] = field("Edges whose source is on this page")
    procedures: tuple[TracedProcedure, ...] = field("Procedures analysed, in trace order")
    unknowns: tuple[TraceUnknown, ...] = field("What the trace did not follow")
    total_nodes: int = field("Nodes in the whole graph", minimum=0)
    total_edges: int = field("Edges in the whole graph", minimum=0)
    decompilations: int = field("Procedures analysed (angr runs RDA, not the decompiler)", minimum=0)
    next_offset: int | None = field("Offset of the next page, null at the end")
    truncated: bool = field("A budget stopped the trace, or this page is not the whole graph")
    limitations: tuple[str, ...] = field("What the graph means and what it leaves out")
    budgets: Budgets = field("Each budget's limit, use and whether it stopped the trace (extra)")
    page: TracePage = field("This page (extra)")
