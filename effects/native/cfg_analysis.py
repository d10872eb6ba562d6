"""The angr worker's analysis of a whole target (effects.native.worker): CFG recovery by profile, and the
snapshot of its procedures, blocks, references and strings. A mixin of the worker's Analysis, which holds
the loaded project."""

from __future__ import annotations

import bisect
import os
import time
from collections.abc import Callable
from typing import Any

from effects.native import origin_facts
from effects.native.function_work import AnalysisState, WorkerError
from rea.native import strings as native_strings

CALL_MNEMONICS = ("call", "bl")  # x86 call/callq; ARM and AArch64 bl, blx, blr (b/br are jumps)
PLACEHOLDERS = ("UnresolvableCallTarget", "UnresolvableJumpTarget")  # angr's stand-ins for unknown targets


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


class CfgAnalysis(AnalysisState):
    """CFG recovery and the snapshot of one loaded target (effects.native.worker.Analysis holds its state)."""

    def analyze(self, params: dict[str, Any], emit: Callable[[str], None]) -> dict[str, Any]:
        if self.cfg is None:
            if self.cfg_error is not None:
                raise self.cfg_error
            attempts: list[dict[str, str]] = []
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
            xrefs = kb.xrefs.get_xrefs_by_dst(item.address)
            owners = {self.containing(ref.ins_addr) for ref in xrefs if ref.ins_addr is not None}
            refs = sorted(r for r in owners if r is not None)
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
        return bool(self.main.min_addr <= addr <= self.main.max_addr)

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
            at_target: int | None = getattr(target, "addr", None)
            made = engine.get(at_target) if at_target is not None else None
            if made == "placeholder" and data.get("type") != "call":
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
