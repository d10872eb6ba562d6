"""The fast index program: one owned process that reads a binary with lief, sweeps its code with capstone
and prints the index snapshot as one JSON document on stdout.

It imports no engine (angr's import alone takes longer than objdump takes to disassemble busybox), so a
first answer about strings, references, callers and instructions arrives in seconds. It runs as its own
process so a cancelled or runaway index is stopped by killing its group, like the angr worker.

    python -m effects.native.indexer PATH [SLICE_OFFSET SLICE_SIZE]
"""

from __future__ import annotations

import bisect
import gc
import io
import marshal
import os
import struct
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import orjson

from effects.native import metadata, origin_facts
from rea.native import gostrings, origin
from rea.native import index as pure_index
from rea.native.eh_frame import fde_ranges
from rea.native.addresses import hexa
from rea.native import stackstrings
from rea.native import strings as native_strings
from rea.native.sweep import Region, Sweep, joined, plan_cut, sweep, sweep_head, sweep_tail

MAX_SCANNED_STRINGS = 200_000
ELF_ARCH = {"EM_X86_64": "x86_64", "EM_386": "x86", "EM_AARCH64": "arm64", "EM_ARM": "arm"}
PE_ARCH = {"AMD64": "x86_64", "I386": "x86", "ARM64": "arm64", "ARMNT": "arm", "ARM": "arm"}
MACHO_ARCH = {"X86_64": "x86_64", "X86": "x86", "ARM64": "arm64", "ARM": "arm"}


class Unreadable(Exception):
    """lief could not read the file as an executable image."""


def load(source: str | bytes) -> tuple[dict[str, Any], list[Region], dict[int, str]]:
    """Loader facts (the angr worker's shape), the mapped regions with their bytes, and import slots."""
    head = source[:4] if isinstance(source, bytes) else _head(source)
    if head == b"\x7fELF":
        return _elf(source)
    import lief  # noqa: PLC0415 - a second to import: only for PE and Mach-O

    lief.logging.disable()
    binary = lief.parse(source if isinstance(source, str) else list(source))
    if binary is None:
        raise Unreadable("lief cannot parse this file as ELF, PE or Mach-O")
    if isinstance(binary, lief.MachO.FatBinary):
        binary = binary.at(0)
    if isinstance(binary, lief.PE.Binary):
        return _pe(lief, binary, source)
    if isinstance(binary, lief.MachO.Binary):
        return _macho(lief, binary, source)
    raise Unreadable(f"lief read a {type(binary).__name__}, which the index does not read")


def _head(path: str) -> bytes:
    with open(path, "rb") as handle:
        return handle.read(4)


def _section_row(name: str, start: int, size: int, writable: bool, executable: bool) -> dict[str, Any]:
    return {
        "name": name,
        "start": hexa(start),
        "end": hexa(start + size),
        "size": size,
        "readable": True,
        "writable": writable,
        "executable": executable,
        "kind": "section",
    }


def _segment_row(index: int, start: int, size: int, flags: tuple[bool, bool, bool]) -> dict[str, Any]:
    readable, writable, executable = flags
    return {
        "name": f"segment_{index}",
        "start": hexa(start),
        "end": hexa(start + size),
        "size": size,
        "readable": readable,
        "writable": writable,
        "executable": executable,
        "kind": "segment",
    }


def _symbol(name: str, address: int | None, kind: str, size: int, exported: bool) -> dict[str, Any]:
    return {
        "name": name,
        "address": None if address is None else hexa(address),
        "kind": kind,
        "source": "external" if address is None else "primary",
        "size": size,
        "exported": exported,
    }


def _facts(fmt: str, arch: str, bits: int, entry: int, pic: bool, base: int, **rest: Any) -> dict[str, Any]:
    symbols = rest.pop("symbols")
    return {
        "format": fmt,
        "architecture": arch,
        "arch_name": arch,
        "bits": bits,
        "endianness": "little",
        "entry": hexa(entry),
        "pic": pic,
        "linked_base": hexa(base),
        "stripped": not any(s["kind"] == "function" and s["source"] == "primary" for s in symbols),
        "symbols": symbols,
        "macho_filetype": None,
        "engine": {"name": pure_index.ENGINE, "version": _capstone_version()},
        **rest,
    }


def _capstone_version() -> str:
    from importlib.metadata import version  # noqa: PLC0415

    return version("capstone")


def _elf(source: str | bytes) -> tuple[dict[str, Any], list[Region], dict[int, str]]:
    """An ELF file through pyelftools (lief's import alone costs a second, more than the whole sweep of a
    small binary)."""
    from elftools.elf.elffile import ELFFile  # noqa: PLC0415

    with open(source, "rb") if isinstance(source, str) else io.BytesIO(source) as handle:
        elf = ELFFile(handle)
        regions, sections = _elf_sections(elf)
        loads = [s for s in elf.iter_segments() if s["p_type"] == "PT_LOAD"]
        segments = [
            _segment_row(
                i, p["p_vaddr"], p["p_memsz"], (bool(p["p_flags"] & 4), bool(p["p_flags"] & 2), bool(p["p_flags"] & 1))
            )
            for i, p in enumerate(loads)
        ]
        symbols = _elf_symbols(elf)
        slots = _elf_slots(elf)
        machine = elf["e_machine"]
        bits = elf.elfclass
        facts = _facts(
            "elf",
            ELF_ARCH.get(machine, machine.removeprefix("EM_").lower()),
            bits,
            elf["e_entry"],
            elf["e_type"] == "ET_DYN",
            min((p["p_vaddr"] for p in loads), default=0) & ~0xFFF,
            sections=sections,
            segments=segments,
            symbols=symbols,
            function_starts=_eh_frame(regions, bits // 8),
            exports=[{"address": s["address"], "name": s["name"], "kind": s["kind"]} for s in symbols if s["exported"]],
        )
    return facts, regions, slots


def _elf_sections(elf: Any) -> tuple[list[Region], list[dict[str, Any]]]:
    regions, sections = [], []
    for s in elf.iter_sections():
        flags = s["sh_flags"]
        if not s.name or not s["sh_addr"] or not s["sh_size"] or not flags & 2:  # SHF_ALLOC
            continue
        executable = bool(flags & 4)
        sections.append(_section_row(s.name, s["sh_addr"], s["sh_size"], bool(flags & 1), executable))
        if s["sh_type"] != "SHT_NOBITS":
            regions.append(Region(name=s.name, start=s["sh_addr"], data=s.data(), executable=executable))
    return regions, sections


_STT = {0: "other", 1: "object", 2: "function", 10: "function"}  # NOTYPE, OBJECT, FUNC, GNU_IFUNC
_SKIPPED_TYPES = (3, 4, 6)  # SECTION, FILE, TLS


def _elf_symbols(elf: Any) -> list[dict[str, Any]]:
    """Defined and undefined symbols of .symtab and .dynsym, unpacked in bulk (pyelftools builds a parser
    object per symbol, half a millisecond each: seconds on an unstripped binary)."""
    rows, seen = [], set()
    wide = elf.elfclass == 64
    layout, size = ("<IBBHQQ", 24) if wide else ("<IIIBBH", 16)
    for table in (elf.get_section_by_name(".symtab"), elf.get_section_by_name(".dynsym")):
        if table is None or table["sh_link"] >= elf.num_sections():
            continue
        names = elf.get_section(table["sh_link"]).data()
        data = table.data()
        dynamic = table.name == ".dynsym"
        for entry in struct.iter_unpack(layout, data[: len(data) // size * size]):
            if wide:
                name_at, info, _, shndx, address, length = entry
            else:
                name_at, address, length, info, _, shndx = entry
            kind_code, bind = info & 0xF, info >> 4
            end = names.find(b"\0", name_at)
            name = names[name_at:end].decode("utf-8", "replace") if name_at and end > name_at else ""
            if not name or kind_code in _SKIPPED_TYPES or (name, address) in seen:
                continue
            seen.add((name, address))
            kind = _STT.get(kind_code, "other")
            if shndx == 0:
                rows.append(_symbol(name, None, kind, 0, False))
            elif address:
                rows.append(_symbol(name, address, kind, length, dynamic and bind in (1, 2)))
    return rows


def _elf_slots(elf: Any) -> dict[int, str]:
    """GOT slots the dynamic linker fills with an imported symbol (JUMP_SLOT, GLOB_DAT: any relocation
    that names an undefined symbol); a static binary has none."""
    from elftools.elf.relocation import RelocationSection  # noqa: PLC0415

    slots = {}
    for section in elf.iter_sections():
        if not isinstance(section, RelocationSection) or section["sh_link"] == 0:
            continue
        table = elf.get_section(section["sh_link"])
        for reloc in section.iter_relocations():
            index = reloc["r_info_sym"]
            if not index or not reloc["r_offset"]:
                continue
            symbol = table.get_symbol(index)
            if symbol.name and symbol["st_shndx"] == "SHN_UNDEF":
                slots[reloc["r_offset"]] = symbol.name
    return slots


def _eh_frame(regions: list[Region], pointer_size: int) -> list[dict[str, Any]]:
    """FDE pc ranges of `.eh_frame` (rea.native.eh_frame reads only the two pointers of each entry)."""
    section = next((r for r in regions if r.name == ".eh_frame"), None)
    if section is None:
        return []
    rows = {start: size for start, size in fde_ranges(section.data, section.start, pointer_size)}
    return [{"address": hexa(a), "size": rows[a], "source": "exception-frames"} for a in sorted(rows)]


def _pe(lief: Any, binary: Any, source: str | bytes) -> tuple[dict[str, Any], list[Region], dict[int, str]]:
    base = binary.optional_header.imagebase
    machine = binary.header.machine.name
    chars = lief.PE.Section.CHARACTERISTICS
    regions, sections = [], []
    for s in binary.sections:
        start, size = base + s.virtual_address, max(s.virtual_size, s.size)
        executable = s.has_characteristic(chars.MEM_EXECUTE) or s.has_characteristic(chars.CNT_CODE)
        sections.append(_section_row(s.name, start, size, s.has_characteristic(chars.MEM_WRITE), executable))
        regions.append(Region(name=s.name, start=start, data=bytes(s.content), executable=executable))
    symbols, slots = [], {}
    for imported in binary.imports:
        for entry in imported.entries:
            name = entry.name or f"{imported.name}#{entry.ordinal if entry.is_ordinal else '?'}"
            symbols.append(_symbol(name, None, "function", 0, False))
            if entry.iat_address:
                slots[base + entry.iat_address] = name
    if binary.has_exports:
        for e in binary.get_export().entries:
            if e.name and e.address and not e.is_extern:
                symbols.append(_symbol(e.name, base + e.address, "function", 0, True))
    facts = _facts(
        "pe",
        PE_ARCH.get(machine, machine.lower()),
        64 if binary.optional_header.magic.name == "PE32_PLUS" else 32,
        binary.entrypoint,
        binary.is_pie,
        base,
        sections=sections,
        segments=[],
        symbols=symbols,
        function_starts=metadata.function_starts(source, "pe"),
        exports=metadata.exports(source, "pe"),
    )
    return facts, regions, slots


def _macho(lief: Any, binary: Any, source: str | bytes) -> tuple[dict[str, Any], list[Region], dict[int, str]]:
    cpu = binary.header.cpu_type.name
    regions, sections = [], []
    for s in binary.sections:
        if not s.virtual_address or not s.size:
            continue
        segment = s.segment
        executable = bool(segment.init_protection & 4) and s.name in (
            "__text",
            "__stubs",
            "__stub_helper",
            "__auth_stubs",
        )
        writable = bool(segment.init_protection & 2)
        sections.append(_section_row(s.name, s.virtual_address, s.size, writable, executable))
        if s.type.name != "ZEROFILL":
            regions.append(Region(name=s.name, start=s.virtual_address, data=bytes(s.content), executable=executable))
    code = [(r.start, r.start + len(r.data)) for r in regions if r.executable]
    symbols, seen = [], set()
    for sym in binary.symbols:
        if not sym.name or sym.name in seen:
            continue
        seen.add(sym.name)
        if sym.value:  # nlist has no function type: a symbol in code names a function
            kind = "function" if any(lo <= sym.value < hi for lo, hi in code) else "object"
            symbols.append(_symbol(sym.name, sym.value, kind, 0, False))
    exported = {e.name for e in getattr(binary, "exported_symbols", ())}
    symbols = [{**s, "exported": s["name"] in exported} for s in symbols]
    slots = {}
    for b in binary.bindings:
        symbol = b.symbol
        if symbol is not None and symbol.name and b.address:
            slots[b.address] = symbol.name
    for name in sorted(set(slots.values()) - {s["name"] for s in symbols}):
        symbols.append(_symbol(name, None, "function", 0, False))
    facts = _facts(
        "mach-o",
        MACHO_ARCH.get(cpu, cpu.lower()),
        64,
        binary.entrypoint if binary.has_entrypoint else 0,
        bool(binary.is_pie),
        binary.imagebase,
        sections=sections,
        segments=[],
        symbols=symbols,
        function_starts=metadata.function_starts(source, "mach-o"),
        exports=metadata.exports(source, "mach-o"),
    )
    return facts, regions, slots


def strings(regions: list[Region]) -> Iterator[dict[str, Any]]:
    """Terminated text runs in every mapped data section (the same scan the angr worker makes)."""
    count = 0
    for region in regions:
        if region.executable or len(region.data) > 64 << 20:
            continue
        for run in native_strings.runs(region.data):
            yield native_strings.row(hexa(region.start + run.offset), run, section=region.name)
            count += 1
            if count >= MAX_SCANNED_STRINGS:
                return


def _go_strings(facts: dict[str, Any], regions: list[Region], swept: Any) -> None:
    """A Go binary's strings are the ones its code names with a length (rea.native.gostrings); the scanned
    runs they lie in are Go's unterminated string blob, not strings, and give way to them."""
    targets = [r.target for r in swept.references if r.kind in ("read", "offset")]
    rows, headers = gostrings.recover(regions, swept.sized, targets)
    if not rows:
        return
    rows = gostrings.without_overlaps(rows)
    spans = sorted((int(r["address"], 16), int(r["address"], 16) + r["length"]) for r in rows)
    starts = [s for s, _ in spans]

    def overlaps(row: dict[str, Any]) -> bool:
        start = int(row["address"], 16)
        index = bisect.bisect_left(starts, start + row["length"]) - 1
        return index >= 0 and spans[index][1] > start

    kept = [s for s in facts["scanned_strings"] if not overlaps(s)]
    facts["scanned_strings"] = sorted([*kept, *rows], key=lambda r: int(r["address"], 16))
    facts["go_string_headers"] = {f"0x{h:x}": f"0x{p:x}" for h, p in sorted(headers.items())}


def build(path: str, fat_slice: tuple[int, int] | None) -> dict[str, Any]:
    started = time.monotonic()
    if fat_slice is None:
        source: str | bytes = path
    else:
        with open(path, "rb") as handle:
            handle.seek(fat_slice[0])
            source = handle.read(fat_slice[1])
    facts, regions, slots = load(source)
    swept_all = _sweep(facts["architecture"], regions, facts["pic"])  # a second half may start sweeping now
    text = next((r for r in regions if r.executable and r.name in (".text", "__text")), None)
    facts["go"] = metadata.go_tables(source, text.start if text is not None else 0)
    facts["scanned_strings"] = list(strings(regions))
    swept = swept_all()
    if facts["go"] is not None and swept is not None:
        _go_strings(facts, regions, swept)
    executable = [(r.name, r.start, r.start + len(r.data)) for r in regions if r.executable]
    placed = pure_index.layout(facts, swept, slots, executable)
    # the stack-string pass needs only the procedures' extents: it runs while the snapshot is composed
    found = _stack_strings(placed.spans, facts["architecture"], swept, regions) if swept is not None else None
    snapshot = pure_index.snapshot(facts, swept, slots, executable, placed)
    _classify(snapshot, source)
    if found is not None:
        snapshot.update(found())
        snapshot["index"]["stack_strings_ms"] = snapshot.pop("stack_strings_ms")
    snapshot["index"]["elapsed_ms"] = int((time.monotonic() - started) * 1000)
    return snapshot


def _stack_strings(
    extents: list[tuple[int, int]], architecture: str, swept: Any, regions: list[Region]
) -> Callable[[], dict[str, Any]]:
    """Stack strings and decoder candidates (rea.native.stackstrings) from the sweep's kept instructions and
    the procedures' extents, started now and read by calling what this returns; the pass's wall time rides
    along (`stack_strings_ms`).

    Why a forked process: the pass needs nothing of the snapshot but the extents, and the snapshot, the origin
    classification and the pass each take about half a second on a Go executable, while the index otherwise
    keeps one of the machine's cores idle. Where forking is not possible, safe or worth it (`_forks`) it runs
    here. A pass that fails says so in `stack_scan` rather than reporting no stack strings as if none
    were there."""
    spans = sorted((r.start, r.start + len(r.data)) for r in regions if not r.executable)
    starts = [s for s, _ in spans]

    def data(address: int) -> bool:
        index = bisect.bisect_right(starts, address) - 1
        return index >= 0 and address < spans[index][1]

    procedures = [{"address": hexa(start), "size": end - start, "kind": "function"} for start, end in extents]
    jumps = [(r.site, r.target) for r in swept.references if r.kind == "jump"]

    def run() -> dict[str, Any]:
        started = time.monotonic()
        try:
            found = stackstrings.recover(procedures, swept.kept, jumps, architecture, data)
        except Exception:  # noqa: BLE001 - the rest of the index still answers; the coverage says what did not run
            found = stackstrings.not_scanned(architecture, FAILED_PASS)
        return {**found, "stack_strings_ms": int((time.monotonic() - started) * 1000)}

    if not _forks():
        done = run()
        return lambda: done
    return _forked(run, architecture)


def _forks() -> bool:
    """Is a part of the index worth running in a forked child? Only where forking is possible and safe (no
    threads running) and a core is spare.

    Why a spare core: a child pays for itself only by running beside this process. On a machine whose cores
    are all busy it runs in turn with everything else, and as this process's session shares one slice of the
    processor with everything it starts (Linux's autogroup scheduling), the child adds no share: it only adds
    work, the halves' lists copied between the processes and the pages the fork makes both copy (0.45 s of
    CPU on a Go executable's 3.5 s index, measured on a loaded 2-core machine, where the forked index took as
    long as the one-process index)."""
    return hasattr(os, "fork") and threading.active_count() == 1 and _spare_core()


def _spare_core() -> bool:
    """Does the last minute's load leave at least one of this process's cores idle?"""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on every platform
        cores = os.cpu_count() or 1
    try:
        return cores > 1 and os.getloadavg()[0] <= cores - 1
    except OSError:
        return cores > 1


FAILED_PASS = "the stack-string pass failed"


def _forked(run: Callable[[], dict[str, Any]], architecture: str) -> Callable[[], dict[str, Any]]:
    """`run()` in a child process; calling what this returns waits for its JSON (a pass that failed there
    reads as not scanned)."""
    waiting = _in_child(lambda: orjson.dumps(run()))
    if waiting is None:
        done = run()
        return lambda: done

    def finish() -> dict[str, Any]:
        try:
            return orjson.loads(waiting())
        except orjson.JSONDecodeError:
            return {**stackstrings.not_scanned(architecture, FAILED_PASS), "stack_strings_ms": 0}

    return finish


def _in_child(produce: Callable[[], bytes]) -> Callable[[], bytes] | None:
    """`produce()` in a child process (in this process's group, so a cancelled index stops it too); calling
    what this returns waits for its bytes (empty when it failed). None when no child could be started. The
    child never returns into the caller's code: it writes and leaves with os._exit, so nothing buffered or
    registered in this process runs twice."""
    readable, writable = os.pipe()
    try:
        child = os.fork()
    except OSError:
        os.close(readable)
        os.close(writable)
        return None
    if child == 0:  # pragma: no cover - the child's coverage is not collected
        try:
            os.close(readable)
            try:
                payload = produce()
            except BaseException:  # noqa: BLE001 - any failure is the parent's to handle
                payload = b""
            with os.fdopen(writable, "wb") as out:
                out.write(payload)
        finally:
            os._exit(0)  # also when the parent is gone and the write fails: never back into its code
    os.close(writable)

    def finish() -> bytes:
        with os.fdopen(readable, "rb") as handle:
            payload = handle.read()
        os.waitpid(child, 0)
        return payload

    return finish


def _sweep(architecture: str, regions: list[Region], pic: bool) -> Callable[[], Sweep | None]:
    """The sweep of every executable region, made by calling what this returns. A large x86 code section is
    swept in two halves at once, by this process and a child forked now (rea.native.sweep.plan_cut): the
    sweep is most of the index's time, and one process leaves a core idle. The halves meet where their
    instruction streams join, so the answer is the one sweep's; where no child runs (`_forks`) or its half is
    lost, this process sweeps it all."""
    mapped = [(r.start, r.start + len(r.data)) for r in regions]
    cut = plan_cut(architecture, regions)
    waiting = None
    if cut is not None and _forks():
        waiting = _in_child(lambda: marshal.dumps(sweep_tail(architecture, regions, mapped, pic=pic, cut=cut)))
    if cut is None or waiting is None:
        return lambda: sweep(architecture, regions, mapped, pic=pic)

    def finish() -> Sweep | None:
        head = sweep_head(architecture, regions, mapped, pic=pic, cut=cut)
        payload = waiting()
        try:
            tail = marshal.loads(payload) if payload else None
        except (EOFError, ValueError, TypeError):
            tail = None
        whole = joined(head, tail)
        return whole if whole is not None else sweep(architecture, regions, mapped, pic=pic)

    return finish


def _classify(snapshot: dict[str, Any], source: str | bytes) -> None:
    """Each procedure's origin (rea.native.origin), from the file's FILE entries, DWARF units and byte matches
    of the index's own procedures against the installed static libraries."""
    functions = [
        {"address": p["address"], "size": p["size"], "name": p["name"]}
        for p in snapshot["procedures"]
        if p["kind"] == "function" and ":" not in p["address"]
    ]
    snapshot["origin_facts"] = origin_facts.origin_facts(source, origin.worth_comparing(functions, snapshot))
    classified = pure_index.inherit_fragment_origins(origin.annotate(snapshot["procedures"], snapshot))
    snapshot["procedures"] = pure_index.library_names(classified, snapshot["origin_facts"])


def main(argv: list[str]) -> int:
    # The build allocates millions of objects that all live until the snapshot is printed (references,
    # procedure rows, the kept columns) and makes no garbage cycles worth collecting; the cyclic collector's
    # full passes over them were a fifth of the CPU of a Go executable's index (4.8 s -> 3.8 s) for 505
    # objects collected. The process ends when the snapshot is written, which frees everything.
    gc.disable()
    if "index" in os.environ.get("REA_NATIVE_FAULT", "").split(","):  # a forced index fault, for tests
        sys.stdout.buffer.write(
            orjson.dumps({"ok": False, "reason": "index-failed", "message": "forced (REA_NATIVE_FAULT)"})
        )
        return 0
    try:
        fat = (int(argv[2]), int(argv[3])) if len(argv) >= 4 else None
        snapshot = build(argv[1], fat)
    except Unreadable as exc:
        sys.stdout.buffer.write(orjson.dumps({"ok": False, "reason": "unsupported-format", "message": str(exc)}))
        return 0
    except Exception as exc:  # noqa: BLE001 - a parser's failure on hostile input is an answer, not a crash
        message = f"{type(exc).__name__}: {exc}"[:500]
        sys.stdout.buffer.write(orjson.dumps({"ok": False, "reason": "index-failed", "message": message}))
        return 0
    sys.stdout.buffer.write(orjson.dumps({"ok": True, "snapshot": snapshot}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
