"""The angr worker: one owned process per analysed target, JSON lines on stdin/stdout.

It keeps angr's project and CFG in its own memory so the server stays small and a
cancelled query can be stopped by killing this process group. Every address it
reports is the binary's own link-time virtual address (what nm and objdump
print), lowercase 0x hex; addresses outside the main object use the
`extern:` space.

Requests:  {"id": n, "op": "...", "params": {...}}
Replies:   {"id": n, "ok": true, "result": ...} | {"id": n, "ok": false, "error": {...}}
Events:    {"id": n, "event": "progress", "message": "..."}
"""

from __future__ import annotations

import io
import logging
import os
import signal
import sys
import tempfile
import traceback
from collections.abc import Callable
from typing import Any, overload

import orjson

from effects.native import decoder, direct, emulator, metadata, origin_facts, valueflow
from effects.native.cfg_analysis import CfgAnalysis
from effects.native.function_work import FunctionWork, WorkerError
from rea.native import emulation, headers
from rea.native import metadata as known
from rea.native import strings as native_strings

ARCHITECTURES = {
    "AMD64": "x86_64",
    "X86": "x86",
    "ARMEL": "arm",
    "ARMHF": "arm",
    "ARMCortexM": "arm",
    "AARCH64": "arm64",
}
FORMATS = {"ELF": "elf", "PE": "pe", "MachO": "mach-o", "ELFCore": "elf"}
MAX_SCANNED_STRINGS = 50_000


def fat_slice_bytes(path: str, fat_slice: dict[str, Any] | None) -> bytes | None:
    """The image of the universal binary's chosen slice (open_binary checked its header), else None."""
    if fat_slice is None:
        return None
    with open(path, "rb") as handle:
        handle.seek(fat_slice["offset"])
        image = handle.read(fat_slice["size"])
    if len(image) != fat_slice["size"]:
        raise WorkerError(
            "target_unavailable",
            f"the {fat_slice['architecture']} slice ends past the end of the file (it changed since open_binary)",
            reason="truncated-slice",
            architecture=fat_slice["architecture"],
        )
    return image


class Analysis(CfgAnalysis, FunctionWork):
    """State of one loaded target."""

    def __init__(self) -> None:
        self.project: Any = None
        self.cfg: Any = None
        self.rebase = 0
        self.main: Any = None
        self.block_starts: list[int] = []
        self.block_owner: list[tuple[int, int, int]] = []  # (start, end, function addr), sorted
        self.path = ""
        self.bundle = False  # a MH_BUNDLE loaded as the dylib it is laid out like
        self.image: bytes | None = None  # the analysed slice of a universal Mach-O (None: the whole file)
        self.cfg_error: WorkerError | None = None  # every profile failed: asking again fails the same way
        self.deferred: dict[str, Any] | None = None  # a lazy load's parameters: angr loads when first needed
        self.direct: direct.Layout | None | bool = False  # the direct engine's layout (None: not eligible)

    @property
    def source(self) -> str | bytes:
        """What the metadata readers read: the slice's bytes, else the file."""
        return self.path if self.image is None else self.image

    # ---------------------------------------------------------------- addresses

    @overload
    def out(self, addr: int) -> str: ...

    @overload
    def out(self, addr: int | None) -> str | None: ...

    def out(self, addr: int | None) -> str | None:
        if addr is None:
            return None
        if self.main is not None and self.main.min_addr <= addr <= self.main.max_addr:
            return f"0x{addr - self.rebase:x}"
        return f"extern:0x{addr:x}"

    def into(self, text: str) -> int:
        space, _, value = text.rpartition(":")
        number = int(value, 16) if value.lower().startswith("0x") else int(value, 16 if space else 0)
        return number if space == "extern" else number + self.rebase

    # -------------------------------------------------------------------- load

    def load(self, params: dict[str, Any], emit: Callable[[str], None]) -> dict[str, Any]:
        """Import angr and load the target. A lazy load (params["lazy"], sent ahead of an emulation) of a file
        the direct engine can run (effects.native.direct) only records the parameters: angr loads when
        something first needs it (ensure_project), so an emulation that never does skips it."""
        if self.project is not None:
            return {"deferred": True} if params.get("facts") is False else self.loader_facts()
        if params.get("lazy") and params.get("facts") is False and params.get("fat_slice") is None:
            self.path = params["path"]
            if self.direct_layout() is not None:
                self.deferred = {**params, "lazy": False}
                return {"deferred": True, "lazy": True}
        emit("importing angr")
        import angr  # noqa: PLC0415 - the import is the worker's startup cost

        own_runtime_db()

        emit("loading binary")
        self.path = params["path"]
        self.image = fat_slice_bytes(params["path"], params.get("fat_slice"))
        loadable = self.loadable(params["path"])
        try:
            found = self.direct_layout() if isinstance(loadable, str) else None
            self.project = project(angr, loadable, found)
        except Exception as exc:  # cle raises many types for unsupported input
            raise WorkerError(
                "target_unavailable",
                f"angr cannot load this file: {type(exc).__name__}: {exc}",
                reason="unsupported-format",
            ) from exc
        self.main = self.project.loader.main_object
        self.rebase = self.main.mapped_base - self.main.linked_base
        arch = self.project.arch.name
        if arch not in ARCHITECTURES:
            raise WorkerError(
                "target_unavailable",
                f"architecture {arch} is not supported by this provider",
                reason="unsupported-architecture",
                architecture=arch,
            )
        if params.get("facts") is False:  # a question that needs the project only: facts when asked ("facts")
            return {"deferred": True}
        return self.loader_facts()

    def ensure_project(self, emit: Callable[[str], None]) -> None:
        """Load angr's project now if a lazy load deferred it."""
        if self.project is None and self.deferred is not None:
            params, self.deferred = self.deferred, None
            self.load(params, emit)

    def direct_layout(self) -> direct.Layout | None:
        """The direct engine's layout of the target (read once), or None when angr must run it."""
        if self.direct is False:
            if self.image is not None or not self.path:
                self.direct = None
            else:
                with open(self.path, "rb") as handle:  # the header first: most files are not laid out
                    head = handle.read(64)
                    self.direct = direct.layout(head + handle.read()) if direct.candidate(head) else None
        return self.direct if isinstance(self.direct, direct.Layout) else None

    def emulate(self, params: dict[str, Any], emit: Callable[[str], None]) -> dict[str, Any]:
        """The `emulate` operation: the direct engine when it can answer as angr would (no stop_at, a static
        x86-64 image, unicorn installed), else angr's engine (emulator.emulate_op). The choice depends on the
        run only, never on whether angr is loaded, so the same inputs give the same answer."""
        emit(f"emulating {params['address']}")
        found = self.direct_layout() if params.get("stop_at") is None and emulator.UNICORN else None
        if found is not None and _unicorn_installed():
            into, out = direct.addresses(found)
            limits = emulation.Budget(**params["budget"])
            try:
                return direct.run(
                    found, into(params["address"]), params["arguments"], limits, into=into, out=out, emit=emit
                )
            except direct.Declined as why:
                emit(f"angr's engine runs this one: {why}")
        self.ensure_project(emit)
        return emulator.emulate_op(self, params, emit)

    def loadable(self, path: str) -> str | io.BytesIO:
        """The file angr should load: a universal binary's slice from its bytes in memory; a Mach-O bundle as
        the dylib it is laid out like (a patched copy beside the worker, or in memory for a slice); an
        ARM64-family PE is refused before the loader fails obscurely."""
        if self.image is not None:
            head = self.image[:4096]
        else:
            with open(path, "rb") as handle:
                head = handle.read(4096)
        found = headers.probe(head)
        if found.pe_machine is not None:
            raise WorkerError(
                "target_unavailable",
                f"{found.pe_machine} PE images are not supported: angr's PE loader has no {found.pe_machine} "
                "architecture. inspect_binary_layout reads its headers, sections and imports; for code analysis "
                "use an x86-64 build of the same program.",
                reason="unsupported-architecture",
                architecture=found.pe_machine,
                format="pe",
            )
        if found.bundle_filetype_at is None:
            return path if self.image is None else io.BytesIO(self.image)
        if self.image is None:  # a thin bundle: its patched image is kept in memory, no copy is written anywhere
            with open(path, "rb") as handle:
                self.image = handle.read()
        self.image, self.bundle = headers.as_dylib(self.image, found), True
        return io.BytesIO(self.image)

    def loader_facts(self) -> dict[str, Any]:
        main = self.main
        sections = [
            {
                "name": s.name,
                "start": self.out(s.vaddr),
                "end": self.out(s.vaddr + s.memsize),
                "size": s.memsize,
                "readable": bool(s.is_readable),
                "writable": bool(s.is_writable),
                "executable": bool(s.is_executable),
                "kind": "section",
            }
            for s in getattr(main, "sections", [])
            if s.name and s.memsize and s.vaddr
        ]
        segments = [
            {
                "name": f"segment_{i}",
                "start": self.out(s.vaddr),
                "end": self.out(s.vaddr + s.memsize),
                "size": s.memsize,
                "readable": bool(s.is_readable),
                "writable": bool(s.is_writable),
                "executable": bool(s.is_executable),
                "kind": "segment",
            }
            for i, s in enumerate(getattr(main, "segments", []))
        ]
        symbols = []
        seen: set[tuple[str, int]] = set()
        for sym in main.symbols:
            if not sym.name or (sym.name, sym.relative_addr) in seen:
                continue
            seen.add((sym.name, sym.relative_addr))
            kind = "function" if sym.is_function else "object" if str(sym.type).endswith("OBJECT") else "other"
            if sym.is_import:
                source, address = "external", None
            else:
                if sym.relative_addr == 0:
                    continue
                source, address = "primary", self.out(sym.rebased_addr)
            symbols.append(
                {
                    "name": sym.name,
                    "address": address,
                    "kind": kind,
                    "source": source,
                    "size": int(sym.size or 0),
                    "exported": bool(sym.is_export),
                }
            )
        fmt = FORMATS.get(type(main).__name__, "unknown")
        text = next((s for s in getattr(main, "sections", []) if s.name in (".text", "__text") and s.vaddr), None)
        facts = {
            "format": fmt,
            "architecture": ARCHITECTURES[self.project.arch.name],
            "arch_name": self.project.arch.name,
            "bits": self.project.arch.bits,
            "endianness": "little" if self.project.arch.memory_endness.endswith("LE") else "big",
            "entry": self.out(self.project.entry),
            "pic": bool(main.pic),
            "linked_base": f"0x{main.linked_base:x}",
            "mapped_base": f"0x{main.mapped_base:x}",  # angr's pseudocode prints addresses at this base
            "stripped": not any(s["kind"] == "function" and s["source"] == "primary" for s in symbols),
            "sections": sections,
            "segments": segments,
            "symbols": symbols,
            "engine": {"name": "angr", "version": _angr_version()},
            "scanned_strings": self.scan_strings(),
            "function_starts": metadata.function_starts(self.source, fmt),
            "exports": metadata.exports(self.source, fmt),
            "macho_filetype": "bundle" if self.bundle else None,
            "go": metadata.go_tables(self.source, text.vaddr - self.rebase if text is not None else 0),
        }
        # where each function came from: FILE entries, DWARF units, static-library matches (rea.native.origin)
        facts["origin_facts"] = origin_facts.origin_facts(self.source, known.starts(facts))
        return facts

    def scan_strings(self) -> list[dict[str, Any]]:
        """Text runs (>= 4 characters; UTF-8, UTF-16 and UTF-32: rea.native.strings) in non-executable data
        sections, found without CFG recovery; which procedures reference them is only known after it."""
        found: list[dict[str, Any]] = []
        memory = self.project.loader.memory
        for section in getattr(self.main, "sections", []):
            if (
                not section.name
                or section.is_executable
                or not section.memsize
                or not section.vaddr
                or section.name in (".bss", ".tbss")
                or section.memsize > 64 << 20
            ):
                continue
            try:
                data = memory.load(section.vaddr, section.memsize)
            except Exception:  # unmapped or partially mapped: nothing to scan
                continue
            for run in native_strings.runs(data):
                found.append(native_strings.row(self.out(section.vaddr + run.offset), run, section=section.name))
                if len(found) >= MAX_SCANNED_STRINGS:
                    return found
        return found


def own_runtime_db() -> None:
    """Make angr's runtime database (the LMDB its knowledge bases spill functions and CFG nodes to) live
    only in the worker's scratch directory. angr tries RTDB_BASE, then the directory beside the target, then
    the system temporary directory; this keeps the first and refuses the rest, so nothing is ever written
    beside a target even when the scratch directory cannot be used."""
    from angr.errors import AngrRuntimeDbError  # noqa: PLC0415
    from angr.knowledge_plugins.plugin import default_plugins  # noqa: PLC0415
    from angr.knowledge_plugins.rtdb.rtdb import RuntimeDb  # noqa: PLC0415

    base = os.environ.get("REA_ENGINE_SCRATCH") or tempfile.gettempdir()

    class ScratchRuntimeDb(RuntimeDb):
        def _init_lmdb_attempt_multipele_locations(self) -> tuple[str, Any]:  # angr's spelling
            path = os.path.join(base, self._get_unique_db_filename(base, "kb"))
            env = self._attempt_creating_lmdb(path)
            if env is None:
                raise AngrRuntimeDbError(f"cannot create angr's runtime database in {base}")
            return path, env

    default_plugins["rtdb"] = ScratchRuntimeDb


def project(angr: Any, loadable: str | io.BytesIO, found: direct.Layout | None) -> Any:
    """angr's project of the target. For a file the direct engine lays out (a static x86-64 executable), its
    IRELATIVE resolvers run in unicorn (direct.resolver: most of angr's load otherwise), each one that cannot
    be answered there by angr's own resolver, so every slot holds what angr alone would put there."""
    if found is None:
        return angr.Project(loadable, auto_load_libs=False, load_debug_info=False)
    import cle  # noqa: PLC0415 - imported with angr

    # Any: this one loader's IRELATIVE method is replaced below, which cle's own types do not allow
    loader: Any = cle.Loader(loadable, auto_load_libs=False, load_debug_info=False)
    perform, fast = loader.perform_irelative_relocs, direct.resolver(found)

    def irelative(angrs: Callable[[int], int | None]) -> None:
        perform(lambda address: _either(fast(address), angrs, address))

    loader.perform_irelative_relocs = irelative
    return angr.Project(loader)


def _either(value: int | None, fallback: Callable[[int], int | None], address: int) -> int | None:
    return value if value is not None else fallback(address)


ANGR_OPTIONAL = frozenset({"hello", "load", "emulate"})  # operations that load angr themselves if they need it


def _unicorn_installed() -> bool:
    try:
        import unicorn  # noqa: F401, PLC0415 - the direct engine's only engine
    except ImportError:
        return False
    return True


def _angr_version() -> str:
    from importlib.metadata import version

    return version("angr")


def main() -> int:
    logging.disable(logging.CRITICAL)  # angr logs to stderr at import; the server owns stderr
    signal.signal(signal.SIGUSR1, emulator.Interrupt.request)  # a cancel: the running emulation stops, not us
    analysis = Analysis()
    ops: dict[str, Callable[[dict[str, Any], Callable[[str], None]], Any]] = {
        "hello": lambda params, emit: {"pid": os.getpid(), "python": sys.version.split()[0]},
        "load": analysis.load,
        "facts": lambda params, emit: analysis.loader_facts(),
        "analyze": analysis.analyze,
        "disassemble": analysis.disassemble,
        "decompile": analysis.decompile,
        "boundary": analysis.boundary,
        "call_targets": analysis.call_targets,
        "value_flow": lambda params, emit: valueflow.value_flow(analysis, params, emit),
        "emulate": analysis.emulate,
        "decode_strings": lambda params, emit: decoder.decode_strings_op(analysis, params, emit),
    }
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        request = orjson.loads(line)
        rid = request.get("id")
        emulator.Interrupt.clear()  # a cancel meant for an earlier request (it had answered) is not this one's

        def emit(message: str, rid: Any = rid) -> None:
            out.write(orjson.dumps({"id": rid, "event": "progress", "message": message}) + b"\n")
            out.flush()

        try:
            op = ops.get(request.get("op"))
            if op is None:
                raise WorkerError("invalid_request", f"unknown worker operation {request.get('op')!r}")
            if request.get("op") not in ANGR_OPTIONAL:
                analysis.ensure_project(emit)
            reply = {"id": rid, "ok": True, "result": op(request.get("params") or {}, emit)}
        except WorkerError as exc:
            reply = {
                "id": rid,
                "ok": False,
                "error": {"code": exc.code, "message": exc.message, "details": exc.details},
            }
        except Exception as exc:  # a failure in angr is a provider failure, not a worker crash
            reply = {
                "id": rid,
                "ok": False,
                "error": {
                    "code": "execution_failure",
                    "message": f"angr failed: {type(exc).__name__}: {exc}",
                    "details": {"exception": type(exc).__name__, "trace": traceback.format_exc(limit=3)[-1500:]},
                },
            }
        out.write(orjson.dumps(reply, default=str) + b"\n")
        out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
