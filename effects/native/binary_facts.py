"""The fast index's reading of a binary (effects.native.indexer): its loader facts, code regions and import
slots from its ELF, PE or Mach-O headers (pyelftools and LIEF), before any instruction is decoded."""

from __future__ import annotations

import io
import struct
from typing import Any

from effects.native import metadata
from rea.native import index as pure_index
from rea.native.addresses import hexa
from rea.native.eh_frame import fde_ranges
from rea.native.sweep import Region

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
