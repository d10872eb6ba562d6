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

import bisect
import io
import logging
import os
import signal
import sys
import tempfile
import time
import traceback
from typing import Any
from collections.abc import Callable

import orjson

from effects.native import decoder, direct, emulator, metadata, origin_facts, valueflow
from rea.native import headers
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
CALL_MNEMONICS = ("call", "bl")  # x86 call/callq; ARM and AArch64 bl, blx, blr (b/br are jumps)
PLACEHOLDERS = ("UnresolvableCallTarget", "UnresolvableJumpTarget")  # angr's stand-ins for unknown targets
MAX_SCANNED_STRINGS = 50_000


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


class Analysis:
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
            limits = emulator.plan.Budget(**params["budget"])
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

    # ----------------------------------------------------------------- analyse

    def analyze(self, params: dict[str, Any], emit: Callable[[str], None]) -> dict[str, Any]:
        if self.cfg is None:
            if self.cfg_error is not None:
                raise self.cfg_error
            attempts = []
            for profile, options in _profiles(params.get("cfg", {})):
                try:
                    self.cfg = self._cfg(profile, options, emit)
                    break
                except Exception as exc:  # angr raises anything (AssertionError, KeyError) on odd code
                    attempts.append({"profile": profile, "error": f"{type(exc).__name__}: {exc}"[:500]})
                    emit(f"CFG recovery failed with the {profile} profile: {type(exc).__name__}")
            if self.cfg is None:
                self.cfg_error = WorkerError(
                    "execution_failure",
                    f"angr CFG recovery failed with every profile: {attempts[-1]['error']}",
                    reason="cfg-failed",
                    attempts=attempts,
                )
                raise self.cfg_error
        return self.snapshot()

    def _cfg(self, profile: str, options: dict[str, Any], emit: Callable[[str], None]) -> Any:
        started = time.monotonic()
        last = [0.0]

        def on_progress(percentage: float, **_: Any) -> None:
            now = time.monotonic()
            if now - last[0] >= 0.5:
                last[0] = now
                emit(f"building CFG {percentage:.0f}% ({profile} profile)")

        if profile in os.environ.get("REA_NATIVE_FAULT", "").split(","):  # a forced engine fault, for tests
            raise AssertionError(f"forced engine fault in the {profile} profile (REA_NATIVE_FAULT)")
        cfg = self.project.analyses.CFGFast(show_progressbar=False, progress_callback=on_progress, **options)
        emit(f"CFG complete in {time.monotonic() - started:.1f}s ({profile} profile)")
        return cfg

    def _functions(self) -> list[Any]:
        return [f for f in self.cfg.kb.functions.values() if not getattr(f, "alignment", False)]

    def _blocks(self, f: Any) -> list[dict[str, Any]]:
        """Each block with its intra-procedure successors (the function's transition graph)."""
        graph = f.graph
        nodes = {n.addr: n for n in graph.nodes()}
        rows = []
        for b in sorted(f.blocks, key=lambda b: b.addr):
            node = nodes.get(b.addr)
            following = sorted({s.addr for s in graph.successors(node)}) if node is not None else []
            rows.append({"start": self.out(b.addr), "size": b.size, "successors": [self.out(a) for a in following]})
        return rows

    def snapshot(self) -> dict[str, Any]:
        kb = self.cfg.kb
        functions = self._functions()
        owner: list[tuple[int, int, int]] = []
        for f in functions:
            for block in f.blocks:
                if block.size:
                    owner.append((block.addr, block.addr + block.size, f.addr))
        owner.sort()
        self.block_owner = owner
        self.block_starts = [b[0] for b in owner]
        callgraph = kb.functions.callgraph
        strings = []
        string_refs: dict[int, set[int]] = {}
        for item in self.cfg.memory_data.values():
            if item.sort not in ("string", "unicode") or item.content is None:
                continue
            refs = sorted(
                {
                    self.containing(ref.ins_addr)
                    for ref in kb.xrefs.get_xrefs_by_dst(item.address)
                    if ref.ins_addr is not None
                }
                - {None}
            )
            strings.append(self._cfg_string(item, [self.out(r) for r in refs]))
            for r in refs:
                string_refs.setdefault(r, set()).add(item.address)
        engine = self._engine_made(kb)
        procedures = [
            self._procedure(f, callgraph, engine, string_refs)
            for f in sorted(functions, key=lambda fn: fn.addr)
            if f.addr not in engine
        ]
        data_refs = []
        for dst, refs in kb.xrefs.xrefs_by_dst.items():
            for ref in refs:
                if ref.ins_addr is None:
                    continue
                data_refs.append(
                    {
                        "from": self.out(ref.ins_addr),
                        "from_procedure": self.out(self.containing(ref.ins_addr)),
                        "to": self.out(dst),
                        "kind": ref.type_string,
                    }
                )
        data_refs.sort(key=lambda r: (r["to"], r["from"]))
        # the CFG finds functions the metadata does not list (no symbol, no FDE): compare them with the
        # static libraries too, at the sizes the CFG gives them
        found = [p for p in procedures if p["kind"] == "function" and ":" not in p["address"]]
        return {
            "procedures": procedures,
            "strings": strings,
            "data_references": data_refs,
            "origin_matches": origin_facts.matches_in(self.source, found),
        }

    def _engine_made(self, kb: Any) -> dict[int, str]:
        """Functions angr made up that are not the binary's: its placeholders for targets it could not resolve
        (UnresolvableCallTarget, UnresolvableJumpTarget) and the system calls it models as procedures in its
        kernel object. They are neither imports nor names of the file."""
        made = {}
        for f in kb.functions.values():
            hook = self.project.hooked_by(f.addr) if self.project.is_hooked(f.addr) else None
            if type(hook).__name__ in PLACEHOLDERS or (f.name in PLACEHOLDERS and not self._in_main(f.addr)):
                made[f.addr] = "placeholder"
            elif (
                f.is_syscall or self.project.loader.find_object_containing(f.addr) is self.project.loader.kernel_object
            ):
                made[f.addr] = "syscall"
        return made

    def _in_main(self, addr: int) -> bool:
        return self.main.min_addr <= addr <= self.main.max_addr

    def _procedure(
        self, f: Any, callgraph: Any, engine: dict[int, str], string_refs: dict[int, set[int]]
    ) -> dict[str, Any]:
        """One procedure: call edges only from call instructions to real procedures (a jump back to the
        function's own entry, as Go's morestack prologue ends, is a loop, not recursion), a call angr sent
        to a placeholder counted as unresolved, system calls left out."""
        call_sites, unresolved = [], []
        for site in f.get_call_sites():
            target = f.get_call_target(site)
            kind = engine.get(target) if target is not None else "placeholder"
            if kind == "placeholder":
                unresolved.append({"address": self.out(site), "reason": "indirect call angr did not resolve"})
            elif kind is None:
                call = self._call_instruction(site)
                if target == f.addr and not self._is_call(call):
                    continue  # a jump to its own entry
                call_sites.append({"site": self.out(site), "instruction": self.out(call), "target": self.out(target)})
        unresolved += self._unresolved_jumps(f, engine)
        recursive = any(site["target"] == self.out(f.addr) for site in call_sites)
        external = not self._in_main(f.addr)
        kind = "external" if external else "thunk" if f.is_plt else "function"

        def edges(neighbours: Any, me_called: bool) -> list[str | None]:
            kept = {a for a in neighbours if a not in engine and (a != f.addr or me_called)}
            return sorted({self.out(a) for a in kept})

        return {
            "address": self.out(f.addr),
            "name": f.name,
            "kind": kind,
            "size": int(sum(b.size for b in f.blocks) if not external else 0),
            "returning": f.returning,
            "blocks": self._blocks(f),
            "unresolved_calls": unresolved,
            "callees": edges(callgraph.successors(f.addr), recursive) if f.addr in callgraph else [],
            "callers": edges(callgraph.predecessors(f.addr), recursive) if f.addr in callgraph else [],
            "call_sites": call_sites,
            "strings": [self.out(a) for a in sorted(string_refs.get(f.addr, ()))],
        }

    def _unresolved_jumps(self, f: Any, engine: dict[int, str]) -> list[dict[str, Any]]:
        """Jumps angr sent to its UnresolvableJumpTarget placeholder (calls are counted from call sites)."""
        rows = []
        for source, target, data in f.transition_graph.edges(data=True):
            if engine.get(getattr(target, "addr", None)) == "placeholder" and data.get("type") != "call":
                at = data.get("ins_addr") or source.addr
                rows.append({"address": self.out(at), "reason": "indirect jump angr did not resolve"})
        return sorted(rows, key=lambda r: str(r["address"]))

    def _is_call(self, addr: int) -> bool:
        """Whether the instruction at addr is a call (x86 call, ARM bl/blx/blr), not a jump."""
        try:
            insns = self.project.factory.block(addr, num_inst=1).capstone.insns
        except Exception:  # undecodable: not shown to be a call
            return False
        return bool(insns) and insns[0].mnemonic.startswith(CALL_MNEMONICS)

    def _cfg_string(self, item: Any, refs: list[str]) -> dict[str, Any]:
        """angr's string re-read from its bytes (angr's content may run on past its extent, into the strings
        after it); a string whose bytes are not text in its encoding keeps only its references (value None)."""
        encoding = "utf-16le" if item.sort == "unicode" else "utf-8"
        try:
            raw = self.project.loader.memory.load(item.address, item.size)
        except Exception:  # unmapped: no bytes to read
            raw = b""
        run = native_strings.decoded(raw, encoding)
        address = self.out(item.address)
        if run is None:
            return {
                "address": address,
                "value": None,
                "truncated": False,
                "encoding": encoding,
                "length": item.size,
                "terminator": 0,
                "referenced_by": refs,
            }
        return native_strings.row(address, run, referenced_by=refs)

    def _call_instruction(self, block: int) -> int:
        """The call instruction ending a call-site block (angr names call sites by their block)."""
        node = self.cfg.model.get_any_node(block)
        addrs = getattr(node, "instruction_addrs", None)
        return int(addrs[-1]) if addrs else block

    def containing(self, addr: int) -> int | None:
        index = bisect.bisect_right(self.block_starts, addr) - 1
        if index >= 0:
            start, end, function = self.block_owner[index]
            if start <= addr < end:
                return function
        return None

    # -------------------------------------------------------- per-function work

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


def _profiles(options: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The profile the binding asked for, then a safer one: no indirect-jump resolution, no data
    references and no normalisation (the passes behind most of angr's assertion failures)."""
    default = {
        "normalize": True,
        "data_references": bool(options.get("data_references", True)),
        "cross_references": bool(options.get("cross_references", False)),
        "resolve_indirect_jumps": bool(options.get("resolve_indirect_jumps", True)),
    }
    safe = {"normalize": False, "data_references": False, "cross_references": False, "resolve_indirect_jumps": False}
    return [("default", default), ("safe", safe)]


def project(angr: Any, loadable: str | io.BytesIO, found: direct.Layout | None) -> Any:
    """angr's project of the target. For a file the direct engine lays out (a static x86-64 executable), its
    IRELATIVE resolvers run in unicorn (direct.resolver: most of angr's load otherwise), each one that cannot
    be answered there by angr's own resolver, so every slot holds what angr alone would put there."""
    if found is None:
        return angr.Project(loadable, auto_load_libs=False, load_debug_info=False)
    import cle  # noqa: PLC0415 - imported with angr

    loader = cle.Loader(loadable, auto_load_libs=False, load_debug_info=False)
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
