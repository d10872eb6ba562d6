"""The Ghidra worker: one owned process per target, the angr worker's JSON-lines protocol.

pyghidra starts Ghidra's JVM inside this process, imports the target into the temporary project
the server made (under the analysis cache), runs the default auto-analysis, and this module walks
Ghidra's API into plain data (rea.native.ghidra names the fields). The pure translation turns that
into the same answers the angr worker gives, so every native tool reads them unchanged.

UNVERIFIED: no Ghidra can be installed where this was written; the API calls below follow Ghidra's
and pyghidra's documentation and have not run against a live Ghidra. The translation they feed is
tested on hand-made answers (tests/fixtures/ghidra).

Requests:  {"id": n, "op": "...", "params": {...}}
Replies:   {"id": n, "ok": true, "result": ...} | {"id": n, "ok": false, "error": {...}}
Events:    {"id": n, "event": "progress", "message": "..."}
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import orjson
from returns.result import Result

from rea.errors import ReaError
from rea.native import ghidra as translate
from rea.native import ghidra_queries as per_procedure
from rea.native.ghidra_cfg import cfg_snapshot
from rea.native.ghidra_install import PYGHIDRA_REMEDIATION

DECOMPILE_TIMEOUT_S = 60
Emit = Callable[[str], None]


class WorkerError(Exception):
    def __init__(self, code: str, message: str, **details: Any) -> None:
        super().__init__(message)
        self.code, self.message, self.details = code, message, details


T = TypeVar("T")


def _unwrap(result: Result[T, ReaError]) -> T:
    """The core's answer, or its error raised as the worker's (the worker answers it on its pipe)."""
    return result.alt(_raised).unwrap()


def _raised(error: ReaError) -> NoReturn:
    raise WorkerError(error.code, error.message, **(error.details or {}))


def _each(java_iterator: Any) -> Iterator[Any]:
    """A Java Iterator (hasNext/next) as a Python iterator; Python iterables pass through."""
    if hasattr(java_iterator, "hasNext"):
        while java_iterator.hasNext():
            yield java_iterator.next()
    else:
        yield from java_iterator


def file_facts(path: str) -> dict[str, Any]:
    """The linked base, entry and position independence from REA's own reading of the file (lief),
    so Ghidra's image base can be mapped back to link-time addresses."""
    import lief

    binary = lief.parse(path)
    if binary is None:
        return {}
    if isinstance(binary, lief.PE.Binary):
        base = binary.optional_header.imagebase
        return {
            "linked_base": base,
            "entry": binary.entrypoint,
            "pic": bool(binary.optional_header.dll_characteristics & 0x40),
        }
    # Any: lief types a COFF object too, which has neither field (it fails here, as Ghidra's import would)
    image: Any = binary
    return {"linked_base": image.imagebase, "entry": image.entrypoint, "pic": bool(getattr(image, "is_pie", False))}


class Program:
    """One imported, analysed program and the facts walked out of it."""

    def __init__(self) -> None:
        self.stack = contextlib.ExitStack()
        self.flat: Any = None
        self.program: Any = None
        self.raw: dict[str, Any] = {}
        self.space: translate.Space | None = None
        self.snapshot: dict[str, Any] = {}

    # ---------------------------------------------------------------- startup

    def load(self, params: dict[str, Any], emit: Emit) -> dict[str, Any]:
        if params.get("fat_slice") is not None:
            raise WorkerError(
                "capability_unavailable",
                "the Ghidra adapter imports whole files; a universal Mach-O slice is analysed by angr",
                reason="fat-slice-unsupported",
            )
        emit("importing pyghidra")
        try:
            import pyghidra  # noqa: PLC0415 - the bridge is optional and heavy
        except ImportError as exc:
            raise WorkerError(
                "provider_unavailable",
                f"pyghidra cannot be imported: {exc}",
                reason="bridge-missing",
                remediation=PYGHIDRA_REMEDIATION,
            ) from exc
        emit("starting Ghidra's JVM")
        if not pyghidra.started():
            pyghidra.start(install_dir=Path(os.environ["GHIDRA_INSTALL_DIR"]))
        emit("importing the target and running auto-analysis")
        opened = pyghidra.open_program(
            params["path"], project_location=params["project_root"], project_name="rea", analyze=True
        )
        self.flat = self.stack.enter_context(opened)
        self.program = self.flat.getCurrentProgram()
        emit("reading the analysed program")
        self.raw = {**collect(self.program), "file": file_facts(params["path"])}
        self.space = _unwrap(translate.space_of(self.raw))
        self.snapshot = _unwrap(cfg_snapshot(self.raw))
        return _unwrap(translate.loader_facts(self.raw))

    def analyze(self, params: dict[str, Any], emit: Emit) -> dict[str, Any]:
        """Auto-analysis ran at load: the snapshot is already made."""
        return self.snapshot

    # ---------------------------------------------------------- per procedure

    def _procedure(self, address: str) -> tuple[dict[str, Any], Any]:
        found = next((p for p in self.snapshot.get("procedures", ()) if p["address"] == address), None)
        if found is None or self.space is None:
            raise WorkerError("invalid_request", f"no procedure starts at {address}", reason="no-procedure")
        if found["kind"] == "external":
            return found, None
        function = self.program.getFunctionManager().getFunctionAt(self.flat.toAddr(self.space.ghidra(address)))
        if function is None:
            raise WorkerError("invalid_request", f"Ghidra has no function at {address}", reason="no-procedure")
        return found, function

    def disassemble(self, params: dict[str, Any], emit: Emit) -> dict[str, Any]:
        procedure, function = self._procedure(params["address"])
        rows = []
        if function is not None:
            for insn in _each(self.program.getListing().getInstructions(function.getBody(), True)):
                rows.append(
                    {
                        "address": str(insn.getAddress()),
                        "bytes": bytes(b & 0xFF for b in insn.getBytes()).hex(),
                        "mnemonic": str(insn.getMnemonicString()),
                        "operands": [
                            str(insn.getDefaultOperandRepresentation(i)) for i in range(insn.getNumOperands())
                        ],
                    }
                )
        assert self.space is not None
        return _unwrap(per_procedure.disassembly({"instructions": rows}, self.space, procedure))

    def decompile(self, params: dict[str, Any], emit: Emit) -> dict[str, Any]:
        procedure, function = self._procedure(params["address"])
        if function is None:
            return _unwrap(per_procedure.pseudocode({}, procedure))
        from ghidra.app.decompiler import DecompInterface
        from ghidra.util.task import ConsoleTaskMonitor

        emit(f"decompiling {procedure['name']}")
        started = time.monotonic()
        decompiler = DecompInterface()
        try:
            decompiler.openProgram(self.program)
            results = decompiler.decompileFunction(function, DECOMPILE_TIMEOUT_S, ConsoleTaskMonitor())
            decompiled = results.getDecompiledFunction()
            raw = {
                "completed": bool(results.decompileCompleted()),
                "timed_out": bool(results.isTimedOut()),
                "error_message": str(results.getErrorMessage() or ""),
                "c": None if decompiled is None else str(decompiled.getC()),
                "elapsed_ms": int((time.monotonic() - started) * 1000),
            }
        finally:
            decompiler.dispose()
        return _unwrap(per_procedure.pseudocode(raw, procedure))

    def boundary(self, params: dict[str, Any], emit: Emit) -> dict[str, Any]:
        procedure, function = self._procedure(params["address"])
        if function is None:
            return _unwrap(per_procedure.boundary({}, procedure))
        returned = function.getReturn()
        raw = {
            "calling_convention": str(function.getCallingConventionName()),
            "parameters": [_variable(p) for p in function.getParameters()],
            "return": None if returned is None else _variable(returned),
        }
        return _unwrap(per_procedure.boundary(raw, procedure))

    def close(self) -> None:
        self.stack.close()


def _variable(variable: Any) -> dict[str, Any]:
    return {
        "name": str(variable.getName()),
        "data_type": str(variable.getDataType().getDisplayName()),
        "length": int(variable.getLength()),
        "storage": str(variable.getVariableStorage()),
    }


# ------------------------------------------------------------- the API walk


def collect(program: Any) -> dict[str, Any]:
    """Ghidra's program as plain data: memory blocks, symbols, externals, functions, references, strings."""
    from ghidra.framework import Application
    from ghidra.program.model.block import BasicBlockModel
    from ghidra.program.model.symbol import SourceType, SymbolType
    from ghidra.util.task import ConsoleTaskMonitor

    monitor = ConsoleTaskMonitor()
    language = program.getLanguage()
    table = program.getSymbolTable()
    model = BasicBlockModel(program)
    manager = program.getFunctionManager()
    functions = [*_each(manager.getFunctions(True)), *_each(manager.getExternalFunctions())]
    return {
        "application": {"name": "Ghidra", "version": str(Application.getApplicationVersion())},
        "program": {
            "name": str(program.getName()),
            "language_id": str(program.getLanguageID()),
            "processor": str(language.getProcessor()),
            "big_endian": bool(language.isBigEndian()),
            "pointer_size": int(program.getDefaultPointerSize()),
            "executable_format": str(program.getExecutableFormat()),
            "compiler_spec_id": str(program.getCompilerSpec().getCompilerSpecID()),
            "image_base": str(program.getImageBase()),
        },
        "memory_blocks": [_block(b) for b in program.getMemory().getBlocks()],
        "symbols": [
            {
                "name": str(s.getName()),
                "address": str(s.getAddress()),
                "symbol_type": "Function" if s.getSymbolType() == SymbolType.FUNCTION else str(s.getSymbolType()),
                "source": str(s.getSource()),
                "external": bool(s.isExternal()),
                "external_entry_point": bool(s.isExternalEntryPoint()),
            }
            for s in _each(table.getAllSymbols(True))
            if s.getSource() == SourceType.IMPORTED
        ],
        "externals": [
            {
                "name": str(s.getName()),
                "library": str(s.getParentNamespace().getName()),
                "address": str(s.getAddress()),
                "function": s.getSymbolType() == SymbolType.FUNCTION,
            }
            for s in _each(table.getExternalSymbols())
        ],
        "functions": [_function(f, model, monitor) for f in functions],
        "references": _references(program),
        "strings": [
            {
                "address": str(d.getAddress()),
                "value": str(d.getValue()),
                "data_type": str(d.getDataType().getName()),
                "length": int(d.getLength()),
            }
            for d in _each(program.getListing().getDefinedData(True))
            if d.hasStringValue()
        ],
    }


def _block(block: Any) -> dict[str, Any]:
    return {
        "name": str(block.getName()),
        "start": str(block.getStart()),
        "end": str(block.getEnd()),
        "size": int(block.getSize()),
        "read": bool(block.isRead()),
        "write": bool(block.isWrite()),
        "execute": bool(block.isExecute()),
        "initialized": bool(block.isInitialized()),
        "loaded": bool(block.isLoaded()),
        "external": bool(block.isExternalBlock()) if hasattr(block, "isExternalBlock") else None,
    }


def _function(function: Any, model: Any, monitor: Any) -> dict[str, Any]:
    thunked = function.getThunkedFunction(True) if function.isThunk() else None
    blocks = []
    if not function.isExternal():
        for block in _each(model.getCodeBlocksContaining(function.getBody(), monitor)):
            blocks.append(
                {
                    "min": str(block.getMinAddress()),
                    "max": str(block.getMaxAddress()),
                    "destinations": [
                        {"to": str(d.getDestinationAddress()), "flow_type": str(d.getFlowType().getName())}
                        for d in _each(block.getDestinations(monitor))
                    ],
                }
            )
    return {
        "name": str(function.getName()),
        "entry": str(function.getEntryPoint()),
        "body": [
            {"min": str(r.getMinAddress()), "max": str(r.getMaxAddress())}
            for r in _each(function.getBody().getAddressRanges())
        ],
        "thunk": bool(function.isThunk()),
        "external": bool(function.isExternal()),
        "thunked": None if thunked is None else str(thunked.getEntryPoint()),
        "no_return": bool(function.hasNoReturn()),
        "calling_convention": str(function.getCallingConventionName()),
        "blocks": blocks,
    }


def _references(program: Any) -> list[dict[str, Any]]:
    manager = program.getReferenceManager()
    rows = []
    for source in _each(manager.getReferenceSourceIterator(program.getMemory(), True)):
        for ref in manager.getReferencesFrom(source):
            rows.append(
                {
                    "from": str(ref.getFromAddress()),
                    "to": str(ref.getToAddress()),
                    "type": str(ref.getReferenceType().getName()),
                    "operand_index": int(ref.getOperandIndex()),
                    "primary": bool(ref.isPrimary()),
                }
            )
    return rows


# -------------------------------------------------------------------- loop


def main() -> int:
    program = Program()
    ops: dict[str, Callable[[dict[str, Any], Emit], Any]] = {
        "hello": lambda params, emit: {"pid": os.getpid(), "python": sys.version.split()[0]},
        "load": program.load,
        "analyze": program.analyze,
        "disassemble": program.disassemble,
        "decompile": program.decompile,
        "boundary": program.boundary,
    }
    out = _protocol_stream()
    try:
        for line in sys.stdin.buffer:
            request = orjson.loads(line)
            rid = request.get("id")

            def emit(message: str, rid: Any = rid) -> None:
                out.write(orjson.dumps({"id": rid, "event": "progress", "message": message}) + b"\n")
                out.flush()

            out.write(orjson.dumps(_answer(ops, request, emit), default=str) + b"\n")
            out.flush()
    finally:
        with contextlib.suppress(Exception):
            program.close()
    return 0


def _protocol_stream() -> Any:
    """The replies' own copy of stdout; fd 1 then goes where stderr goes, so whatever the JVM, Ghidra's
    log or pyghidra prints can never be read as a reply."""
    stream = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    sys.stdout = sys.stderr
    return stream


def _answer(ops: dict[str, Callable[[dict[str, Any], Emit], Any]], request: dict[str, Any], emit: Emit) -> Any:
    rid = request.get("id")
    try:
        op = ops.get(request.get("op"))  # type: ignore[arg-type]
        if op is None:
            raise WorkerError("invalid_request", f"unknown worker operation {request.get('op')!r}")
        return {"id": rid, "ok": True, "result": op(request.get("params") or {}, emit)}
    except WorkerError as exc:
        return {"id": rid, "ok": False, "error": {"code": exc.code, "message": exc.message, "details": exc.details}}
    except Exception as exc:  # a failure inside Ghidra or the bridge is a provider failure, not a crash
        return {
            "id": rid,
            "ok": False,
            "error": {
                "code": "execution_failure",
                "message": f"Ghidra failed: {type(exc).__name__}: {exc}",
                "details": {"exception": type(exc).__name__, "trace": traceback.format_exc(limit=3)[-1500:]},
            },
        }


if __name__ == "__main__":
    sys.exit(main())
