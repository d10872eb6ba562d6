"""The angr worker's per-function work (effects.native.worker): one function found, decompiled,
disassembled, its call targets and its API boundary, from the whole-program CFG or a graph of its own
extent. A mixin of the worker's Analysis, which holds the loaded project and CFG."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, overload

from effects.native import valueflow


class WorkerError(Exception):
    def __init__(self, code: str, message: str, **details: Any) -> None:
        super().__init__(message)
        self.code, self.message, self.details = code, message, details


def _empty_reason(decompiler: Any, function: Any) -> str:
    """Why angr's Decompiler returned no text: the errors it caught and logged (it then retries with
    its basic preset), else the stage that left nothing (no AIL graph, or no structured code)."""
    errors = list(getattr(decompiler, "errors", None) or ())
    if errors:
        last = errors[-1]
        kind = getattr(getattr(last, "exc_type", None), "__name__", None) or type(last).__name__
        said = getattr(last, "exc_value", None) or getattr(last, "message", None) or last
        return f"{len(errors)} error(s) caught inside angr, the last {kind}: {str(said)[:300]}"
    blocks = sum(1 for _ in function.blocks)
    clinic = getattr(decompiler, "clinic", None)
    if clinic is None or getattr(clinic, "graph", None) is None:
        return f"no AIL graph was built from its {blocks} blocks"
    return f"its {blocks} blocks were lifted, but structuring and code generation produced no statements"


class AnalysisState:
    """What the worker's mixins (FunctionWork, effects.native.cfg_analysis.CfgAnalysis) read of the one loaded
    target: effects.native.worker.Analysis sets the state and defines the address conversions. Declared here
    for the type checker only (angr's objects are untyped, so they are Any)."""

    project: Any
    cfg: Any
    cfg_error: WorkerError | None  # every profile failed: asking again fails the same way
    main: Any
    block_starts: list[int]
    block_owner: list[tuple[int, int, int]]  # (start, end, function addr), sorted

    if TYPE_CHECKING:  # defined by effects.native.worker.Analysis

        @property
        def source(self) -> str | bytes: ...

        @overload
        def out(self, addr: int) -> str: ...

        @overload
        def out(self, addr: int | None) -> str | None: ...

        def out(self, addr: int | None) -> str | None: ...

        def into(self, text: str) -> int: ...


class FunctionWork(AnalysisState):
    """The per-function operations of one loaded target (effects.native.worker.Analysis holds its state)."""

    def function(self, address: str) -> Any:
        if self.cfg is None:
            raise WorkerError("execution_failure", "the CFG is not built yet", reason="not-analysed")
        addr = self.into(address)
        function = self.cfg.kb.functions.function(addr=addr)
        if function is None:
            raise WorkerError("invalid_request", f"no procedure starts at {address}", reason="no-procedure")
        return function

    def local(self, params: dict[str, Any], emit: Callable[[str], None]) -> tuple[Any, Any]:
        """The function at params["address"] from a CFG of its own extent only (the fast index gave the
        extent): what decompiling one function needs, in a fraction of a second where the whole-program
        CFG takes minutes. The graph is built again for every question: angr keeps one knowledge base per
        project, and a later function's graph changes what an earlier Function object refers to (a kept
        one then decompiles to nothing), while a second knowledge base is not honoured by the decompiler's
        own sub-analyses."""
        start, size = self.into(params["address"]), int(params.get("size") or 0)
        if size <= 0:
            raise WorkerError(
                "capability_unavailable", f"no extent is known for {params['address']}", reason="no-extent"
            )
        emit(f"recovering the graph of {params['address']} ({size} bytes)")
        cfg = self.project.analyses.CFGFast(
            regions=[(start, start + size)],
            function_starts=[start],
            start_at_entry=False,
            force_complete_scan=False,
            function_prologues=False,
            symbols=False,
            normalize=True,
            data_references=True,
            resolve_indirect_jumps=True,
            show_progressbar=False,
        )
        function = cfg.kb.functions.function(addr=start)
        if function is None:
            raise WorkerError(
                "execution_failure", f"angr found no function at {params['address']}", reason="no-function"
            )
        for address, name in (params.get("names") or {}).items():  # the index's names of its callees
            callee = cfg.kb.functions.function(addr=self.into(address))
            if callee is not None and callee.addr != start:
                callee.name = name
        if params.get("name"):  # the index's name of the function itself (a stripped Go main.main, an export)
            function.name = params["name"]
        return function, cfg.model

    def linear(self, params: dict[str, Any]) -> dict[str, Any]:
        """Without a CFG: a linear sweep over the extent the metadata gives (`size` bytes)."""
        start, size = self.into(params["address"]), int(params.get("size") or 0)
        if size <= 0:
            raise WorkerError(
                "capability_unavailable",
                f"CFG recovery failed and the metadata gives no extent for {params['address']}",
                reason="cfg-failed",
            )
        block = self.project.factory.block(start, size=min(size, 1 << 20))
        instructions = [
            {
                "address": self.out(insn.address),
                "bytes": insn.bytes.hex(),
                "mnemonic": insn.mnemonic,
                "operands": insn.op_str,
                "block": self.out(start),
            }
            for insn in block.capstone.insns
        ]
        return {"address": params["address"], "instructions": instructions, "linear": True}

    def disassemble(self, params: dict[str, Any], emit: Callable[[str], None]) -> dict[str, Any]:
        if self.cfg is None and self.cfg_error is not None:
            return self.linear(params)
        function = self.function(params["address"])
        instructions = []
        for block in sorted(function.blocks, key=lambda b: b.addr):
            if not block.size:
                continue
            for insn in self.project.factory.block(block.addr, size=block.size).capstone.insns:
                instructions.append(
                    {
                        "address": self.out(insn.address),
                        "bytes": insn.bytes.hex(),
                        "mnemonic": insn.mnemonic,
                        "operands": insn.op_str,
                        "block": self.out(block.addr),
                    }
                )
        return {"address": params["address"], "instructions": instructions}

    def decompile(self, params: dict[str, Any], emit: Callable[[str], None]) -> dict[str, Any]:
        return self._decompiled(params, emit)[0]

    def _decompiled(self, params: dict[str, Any], emit: Callable[[str], None]) -> tuple[dict[str, Any], Any, Any]:
        """The pseudocode, and the function and graph it came from (whose prototype the decompiler set)."""
        if self.cfg is None and self.cfg_error is not None and not params.get("local"):
            raise WorkerError(
                "capability_unavailable",
                f"no pseudocode: {self.cfg_error.message}",
                reason="cfg-failed",
            )
        started = time.monotonic()
        function, model = self.local(params, emit) if params.get("local") else (self.function(params["address"]), None)
        if function.is_simprocedure or function.is_plt:
            raise WorkerError(
                "capability_unavailable",
                f"{function.name} is an import stub; there is no body to decompile",
                reason="no-body",
            )
        emit(f"decompiling {function.name}")
        decompiler = self.project.analyses.Decompiler(function, cfg=model if model is not None else self.cfg.model)
        if decompiler.codegen is None or not decompiler.codegen.text:
            raise WorkerError(
                "execution_failure",
                f"angr's decompiler produced no code for {function.name}: {_empty_reason(decompiler, function)}",
                reason="decompiler-empty",
            )
        answer = {
            "address": params["address"],
            "name": function.name,
            "pseudocode": decompiler.codegen.text,
            "elapsed_ms": int((time.monotonic() - started) * 1000),
        }
        return answer, function, model if model is not None else self.cfg.model

    def call_targets(self, params: dict[str, Any], emit: Callable[[str], None]) -> dict[str, Any]:
        """The targets the graph of the containing procedure resolves for the call instruction at
        params["site"] (CFGFast resolves constant and table-driven indirect calls); angr's placeholders are
        not targets."""
        function, model = self.local(params, emit)
        target = valueflow.resolved_calls(function, model).get(self.into(params["site"]))
        return {"targets": [] if target is None else [self.out(target)]}

    def boundary(self, params: dict[str, Any], emit: Callable[[str], None]) -> dict[str, Any]:
        """The calling boundary angr's decompiler recovered (prototype, calling convention, storage) and the
        jump tables CFGFast resolved inside the function; plain facts, the core decides their shape."""
        _, function, model = self._decompiled(params, emit)  # its variable recovery sets the prototype reported
        cc, proto = function.calling_convention, function.prototype
        if cc is None or proto is None:
            raise WorkerError(
                "capability_unavailable", f"angr recovered no prototype for {function.name}", reason="no-prototype"
            )
        names = list(getattr(proto, "arg_names", None) or ())
        locations = cc.arg_locs(proto)
        returned = None if proto.returnty is None else cc.return_val(proto.returnty)
        tables = [
            {
                "dispatch": self.out(j.ins_addr if j.ins_addr is not None else j.addr),
                "table": self.out(j.jumptable_addr) if j.jumptable_addr is not None else None,
                "entry_size": j.jumptable_entry_size,
                "entries": [self.out(e) for e in (j.jumptable_entries or [])],
            }
            for j in model.jump_tables.values()
            if j.func_addr == function.addr
        ]
        return {
            "name": function.name,
            "calling_convention": type(cc).__name__,
            "parameters": [
                {
                    "name": names[i] if i < len(names) else None,
                    "type": arg.c_repr(),
                    "size": None if arg.size is None else arg.size // 8,
                    "storage": str(locations[i]).strip("<>") if i < len(locations) else None,
                }
                for i, arg in enumerate(proto.args)
            ],
            "return": None
            if proto.returnty is None
            else {
                "type": proto.returnty.c_repr(),
                "size": None if proto.returnty.size is None else proto.returnty.size // 8,
                "storage": None if returned is None else str(returned).strip("<>"),
            },
            "jump_tables": sorted(tables, key=lambda t: str(t["dispatch"])),
        }
