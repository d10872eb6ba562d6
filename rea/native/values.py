"""trace_native_values: a static value-dependency graph seeded at one procedure, composed from each
procedure's def-use facts (angr's ReachingDefinitionsAnalysis, run in the worker) across the calls the
CFG resolved. The order of nodes is the trace's (breadth-first over procedures; in each, instructions
then parameters), so pages are stable; every budget that stopped the trace is named in `unknowns`."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping
from typing import Any, Final, Literal

import cattrs

from rea.native.records import values as w
from rea.wire.convert import CONVERTER

PROVENANCE: Final = "angr-reaching-definitions"
FLOW_LIMITATIONS = (
    "Operations are machine instructions; inputs are the registers, entry-relative stack slots and absolute "
    "memory whose reaching definitions angr's ReachingDefinitionsAnalysis found them to read. The stack and "
    "instruction pointers are not traced; condition flags are one location, flags.",
    "Only the first location an instruction defines is shown as its output; def-use edges cover all of them.",
    "A return reads the return register when a definition made inside the procedure reaches it; a void "
    "procedure that leaves a value there looks like it returns one.",
)
LIMITATIONS = (
    "A static dependency graph from angr's reaching definitions, not a runtime observation: argument "
    "bindings pair a call's inputs in calling-convention order with the parameters angr's calling-convention "
    "analysis recovered for the callee; return bindings join the callee's returned value to the call. "
    "Variadic arguments, values passed through memory and aliasing stay unknown; a call to a callee whose "
    "prototype angr has not recovered reads every argument register of the calling convention.",
    "Memory operands are locations, not objects: fields, globals' meaning and heap identity are not inferred.",
    "Traversal caps depth, procedures analysed, call sites resolved, nodes and edges; edges are listed with "
    "the page holding their source, and endpoints outside the page keep their stable ids.",
)
Find = Callable[[str], Mapping[str, Any] | None]


def flow(facts: Any) -> w.ValueFlow | w.NoValueFlow:
    """The worker's plain facts as the procedure's value-flow record; facts that do not parse (or whose
    edges name operations they do not list) are a reason, never an exception."""
    if not isinstance(facts, Mapping):
        return _none("the engine answered no value-flow facts")
    if facts.get("available") is not True:
        reason = facts.get("reason")
        return _none(reason if isinstance(reason, str) and reason else "the engine reported no value flow")
    try:
        record = _parsed(facts)
    except (TypeError, ValueError, KeyError, AttributeError, cattrs.BaseValidationError) as exc:
        return _none(f"the engine's value-flow facts did not parse: {type(exc).__name__}")
    ids = {op.id for op in record.operations}
    ordinals = {p.ordinal for p in record.parameters}
    if (
        len(ids) != len(record.operations)
        or not (
            {d.definition for d in record.def_use}
            | {d.use for d in record.def_use}
            | {u.use for u in record.parameter_uses}
        )
        <= ids
        or not {u.ordinal for u in record.parameter_uses} <= ordinals
    ):
        return _none("the engine's value-flow facts name operations or parameters they do not list")
    return record


def _none(reason: str) -> w.NoValueFlow:
    return w.NoValueFlow(available=False, reason=reason, limitations=(reason,))


def _parsed(facts: Mapping[str, Any]) -> w.ValueFlow:
    ops = tuple(CONVERTER.structure(op, w.Operation) for op in facts["operations"])
    effects = tuple(
        w.FlowEffect(
            operation=op.id,
            kind="direct_call" if op.opcode == "CALL" else "indirect_call",
            operand_input=0,
            value_input=None,
        )
        for op in ops
        if op.opcode in ("CALL", "CALLIND")
    )
    return w.ValueFlow(
        available=True,
        provenance=PROVENANCE,
        operations=ops,
        def_use=tuple(CONVERTER.structure(d, w.DefUse) for d in facts["def_use"]),
        effects=effects,
        parameters=tuple(CONVERTER.structure(p, w.Parameter) for p in facts["parameters"]),
        parameter_uses=tuple(CONVERTER.structure(u, w.ParameterUse) for u in facts["parameter_uses"]),
        truncated=False,
        omitted_operations_lower_bound=0,
        known_omitted_inputs=0,
        known_omitted_edges=0,
        limitations=FLOW_LIMITATIONS,
    )


class Tracer:
    """The trace's state: the procedures still to analyse, the graph so far and the budgets spent. The
    program asks `next()` for a procedure, runs the worker on it and hands the record to `add()`."""

    def __init__(self, args: Mapping[str, Any], seed: str, find: Find) -> None:
        self.args, self.find = args, find
        self.pending: deque[tuple[str, int]] = deque([(seed, 0)])
        self.visited: set[str] = set()
        self.nodes: list[w.TraceNode] = []
        self.edges: list[w.TraceEdge] = []
        self.procedures: list[w.TracedProcedure] = []
        self.unknowns: list[w.TraceUnknown] = []
        self.bindings: list[tuple[str, str, str, int, bool, str]] = []
        self.calls = self.functions = self.deepest = 0
        self.exhausted: set[str] = set()
        self.bound = False

    # ------------------------------------------------------------ traversal

    def next(self) -> tuple[str, int] | None:
        while self.pending and not self._full():
            address, depth = self.pending.popleft()
            if address in self.visited:
                continue
            if self.functions >= self.args["max_functions"]:
                self._stop("functions", address, None, "Procedure budget (max_functions) reached")
                return None
            self.visited.add(address)
            return address, depth
        return None

    def failed(self, address: str, reason: str) -> None:
        self.functions += 1
        self.unknowns.append(w.TraceUnknown(procedure=address, address=None, reason=reason))

    def add(
        self,
        address: str,
        depth: int,
        evidence_id: str,
        record: w.ValueFlow | w.NoValueFlow,
        provider: str,
        digest: str | None,
    ) -> None:
        self.functions += 1
        self.deepest = max(self.deepest, depth)
        self.procedures.append(
            w.TracedProcedure(
                address=address, depth=depth, evidence_id=evidence_id, provider=provider, analysis_profile_digest=digest
            )
        )
        if isinstance(record, w.NoValueFlow):
            self.unknowns.append(w.TraceUnknown(procedure=address, address=None, reason=record.reason))
            return
        kept = self._nodes(address, evidence_id, record)
        self._local_edges(address, evidence_id, record, kept)
        self._calls(address, depth, evidence_id, record, kept)

    def _nodes(self, address: str, evidence_id: str, record: w.ValueFlow) -> set[str]:
        kept: set[str] = set()
        entries: list[tuple[str, Literal["operation", "parameter"], w.Operation | None, w.Parameter | None]]
        entries = [(op.id, "operation", op, None) for op in record.operations] + [
            (f"parameter:{p.ordinal}", "parameter", None, p) for p in record.parameters
        ]
        for local, kind, op, parameter in entries:
            if not self._room("nodes", address):
                return kept
            kept.add(local)
            self.nodes.append(
                w.TraceNode(
                    id=f"{address}/{local}",
                    procedure=address,
                    evidence_id=evidence_id,
                    kind=kind,
                    operation=op,
                    parameter=parameter,
                )
            )
        return kept

    def _local_edges(self, address: str, evidence_id: str, record: w.ValueFlow, kept: set[str]) -> None:
        pairs: list[tuple[str, str, int, w.Edge]] = [
            (f"parameter:{u.ordinal}", u.use, u.input_index, "parameter-use") for u in record.parameter_uses
        ]
        pairs += [(d.definition, d.use, d.input_index, "def-use") for d in record.def_use]
        for source, target, index, kind in pairs:
            if source not in kept or target not in kept:
                continue
            if not self._edge(f"{address}/{source}", f"{address}/{target}", index, kind, "derived", evidence_id):
                return

    def _calls(self, address: str, depth: int, evidence_id: str, record: w.ValueFlow, kept: set[str]) -> None:
        for op in record.operations:
            if op.opcode not in ("CALL", "CALLIND") or op.id not in kept:
                continue
            if self.calls >= self.args["max_call_sites"]:
                self._stop("call_sites", address, op.address, "Call-site resolution budget (max_call_sites) reached")
                return
            self.calls += 1
            target = op.inputs[0].location if op.inputs and op.opcode == "CALL" else None
            if target is None:
                self._unknown(address, op.address, "Indirect call target angr did not resolve")
                continue
            call = f"{address}/{op.id}"
            if not self._edge(call, target, None, "call", "direct", evidence_id):
                return
            callee = self.find(target)
            if callee is None or callee.get("kind") != "function":
                what = "unknown procedure" if callee is None else f"{callee.get('kind')} {callee.get('name')}"
                self._unknown(address, op.address, f"Call to {target} ({what}): no body to trace")
                continue
            self.bindings.append(
                (address, target, call, max(0, len(op.inputs) - 1), op.output is not None, evidence_id)
            )
            if depth < self.args["max_depth"]:
                self.pending.append((target, depth + 1))
            elif target not in self.visited:
                self._stop("depth", address, op.address, f"Call depth budget (max_depth) reached before {target}")

    # ------------------------------------------------------------ bindings and the answer

    def bind(self) -> None:
        """Argument and return bindings between each call and the callee analysed, once all are known."""
        if self.bound:
            return
        self.bound = True
        for caller, callee, call, arguments, output, evidence_id in self.bindings:
            params = [n for n in self.nodes if n.procedure == callee and n.kind == "parameter"]
            if not params:
                self._unknown(caller, None, f"Parameter bindings for {callee} are unavailable or omitted")
            for node in params:
                assert node.parameter is not None
                ordinal = node.parameter.ordinal
                if ordinal >= arguments:
                    self._unknown(caller, None, f"Argument {ordinal} for {callee} was not recovered")
                    continue
                if not self._edge(call, node.id, ordinal + 1, "argument-binding", "derived", evidence_id):
                    return
            if not output:
                continue
            for node in self.nodes:
                op = node.operation
                if node.procedure == callee and op is not None and op.opcode == "RETURN" and len(op.inputs) > 1:
                    if not self._edge(node.id, call, 1, "return-binding", "derived", node.evidence_id):
                        return

    def answer(self, seed: str, sha256: str) -> w.ValueTrace:
        self.bind()
        offset, limit = self.args["offset"], self.args["limit"]
        page = self.nodes[offset : offset + limit]
        ids = {n.id for n in page}
        end = offset + len(page)
        following = end if end < len(self.nodes) else None
        return w.ValueTrace(
            seed=seed,
            target_sha256=sha256,
            nodes=tuple(page),
            edges=tuple(e for e in self.edges if e.source in ids),
            procedures=tuple(self.procedures),
            unknowns=tuple(self.unknowns),
            total_nodes=len(self.nodes),
            total_edges=len(self.edges),
            decompilations=self.functions,
            next_offset=following,
            truncated=bool(self.exhausted) or len(page) != len(self.nodes),
            limitations=LIMITATIONS,
            budgets=self._budgets(),
            page=w.TracePage(
                offset=offset, limit=limit, returned=len(page), total=len(self.nodes), next_offset=following
            ),
        )

    def _budgets(self) -> w.Budgets:
        def one(name: str, limit: int, used: int) -> w.Budget:
            return w.Budget(limit=limit, used=used, exhausted=name in self.exhausted)

        a = self.args
        return w.Budgets(
            depth=one("depth", a["max_depth"], self.deepest),
            functions=one("functions", a["max_functions"], self.functions),
            call_sites=one("call_sites", a["max_call_sites"], self.calls),
            nodes=one("nodes", a["max_nodes"], len(self.nodes)),
            edges=one("edges", a["max_edges"], len(self.edges)),
        )

    # ------------------------------------------------------------ budgets

    def _full(self) -> bool:
        return {"nodes", "edges"} & self.exhausted != set()

    def _room(self, budget: str, procedure: str) -> bool:
        limit = self.args["max_nodes" if budget == "nodes" else "max_edges"]
        if len(self.nodes if budget == "nodes" else self.edges) < limit:
            return True
        if budget not in self.exhausted:
            self._stop(budget, procedure, None, f"Graph {budget} budget (max_{budget}) reached")
        return False

    def _edge(self, source: str, target: str, index: int | None, kind: w.Edge, status: Any, evidence_id: str) -> bool:
        procedure = source.split("/", 1)[0]
        if not self._room("edges", procedure):
            return False
        self.edges.append(
            w.TraceEdge(
                source=source, target=target, input_index=index, kind=kind, status=status, evidence_id=evidence_id
            )
        )
        return True

    def _stop(self, budget: str, procedure: str, address: str | None, reason: str) -> None:
        self.exhausted.add(budget)
        self._unknown(procedure, address, reason)

    def _unknown(self, procedure: str, address: str | None, reason: str) -> None:
        self.unknowns.append(w.TraceUnknown(procedure=procedure, address=address, reason=reason))
