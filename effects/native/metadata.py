"""Function starts, exports and Go tables read from the file itself (lief and bytes), beside angr's loader.

They let the overview answer before CFG recovery and stand in for it when it fails. The
pure parsers (rea.native.gopclntab) get the bytes; this module only reads them.
"""

from __future__ import annotations

import io
from typing import Any

import attrs

from rea.native import gopclntab
from rea.native.eh_frame import fde_ranges

MAX_GO_SCAN = 512 << 20
MAX_FRAMES = 1_000_000
MAX_EXPORTS = 1_000_000
MAX_EXPORT_NAME = 4096


def function_starts(path: str | bytes, fmt: str) -> list[dict[str, Any]]:
    """Exception-frame (ELF .eh_frame, PE .pdata) and LC_FUNCTION_STARTS function starts, link-time VAs."""
    import lief  # noqa: PLC0415 - only the worker reads metadata

    lief.logging.disable()
    try:
        if fmt == "pe":
            config = lief.PE.ParserConfig()
            config.parse_exceptions = True
            binary: Any = lief.PE.parse(path, config)
            base, source = (binary.optional_header.imagebase if binary else 0), "pdata"
        elif fmt == "mach-o":
            fat = lief.MachO.parse(path)
            binary, base, source = (fat.at(0) if fat else None), 0, "function_starts"
        elif isinstance(path, str):
            return _eh_frame_starts(path)
        else:
            return []
        if binary is None:
            return []
        rows = {}
        for f in binary.functions:
            address = int(f.address) + base
            if address:
                rows[address] = {"address": f"0x{address:x}", "size": int(f.size or 0), "source": source}
        return [rows[a] for a in sorted(rows)]
    except Exception:  # lief raises on malformed tables; metadata is an addition, never required
        return []


def exports(path: str | bytes, fmt: str) -> list[dict[str, Any]]:
    """What the file exports, at link-time addresses: ELF dynamic symbols it defines, the PE export directory,
    the Mach-O export trie (LC_DYLD_INFO or LC_DYLD_EXPORTS_TRIE). Each row is {address, name, kind}, kind
    "function" when the address is code; forwarders, re-exports and absolute values name nothing here."""
    import lief  # noqa: PLC0415 - only the worker reads metadata

    lief.logging.disable()
    try:
        if fmt == "elf":
            rows = _elf_exports(lief, lief.ELF.parse(path))
        elif fmt == "pe":
            rows = _pe_exports(lief, lief.PE.parse(path))
        elif fmt == "mach-o":
            fat = lief.MachO.parse(path)
            rows = _macho_exports(lief, fat.at(0) if fat else None)
        else:
            rows = []
    except Exception:  # lief raises on malformed tables; metadata is an addition, never required
        return []
    unique = {(r["address"], r["name"]): r for r in rows[:MAX_EXPORTS] if r["name"]}
    return sorted(unique.values(), key=lambda r: (int(r["address"], 16), r["name"]))


def _row(address: int, name: str, function: bool) -> dict[str, Any]:
    return {"address": f"0x{address:x}", "name": name[:MAX_EXPORT_NAME], "kind": "function" if function else "object"}


def _elf_exports(lief: Any, binary: Any) -> list[dict[str, Any]]:
    """Defined global, weak or unique dynamic symbols of default or protected visibility (what `nm -D
    --defined-only` lists, less local and hidden ones)."""
    if binary is None:
        return []
    sym = lief.ELF.Symbol
    bindings = {sym.BINDING.GLOBAL, sym.BINDING.WEAK, sym.BINDING.GNU_UNIQUE}
    visible = {sym.VISIBILITY.DEFAULT, sym.VISIBILITY.PROTECTED}
    code = {sym.TYPE.FUNC, sym.TYPE.GNU_IFUNC}
    return [
        _row(int(s.value), s.name, s.type in code)
        for s in binary.dynamic_symbols
        if s.shndx != 0 and s.value and s.binding in bindings and s.visibility in visible
    ]


def _pe_exports(lief: Any, binary: Any) -> list[dict[str, Any]]:
    """The export directory's named entries that are in this image (not forwarded), at image base + RVA."""
    if binary is None or not binary.has_exports:
        return []
    base, rows = binary.optional_header.imagebase, []
    for entry in binary.get_export().entries:
        if entry.is_forwarded or not entry.address:
            continue
        section = binary.section_from_rva(entry.address)
        code = section is not None and section.has_characteristic(lief.PE.Section.CHARACTERISTICS.MEM_EXECUTE)
        rows.append(_row(base + int(entry.address), entry.name, code))
    return rows


def _macho_exports(lief: Any, binary: Any) -> list[dict[str, Any]]:
    """The export trie's regular and thread-local entries (offsets from the image's first segment)."""
    if binary is None:
        return []
    if binary.has_dyld_exports_trie:
        entries = binary.dyld_exports_trie.exports
    elif binary.has_dyld_info:
        entries = binary.dyld_info.exports
    else:
        return []
    flags = lief.MachO.ExportInfo.FLAGS
    base, rows = binary.imagebase, []
    for entry in entries:
        if entry.kind == lief.MachO.ExportInfo.KIND.ABSOLUTE_KIND or entry.has(flags.REEXPORT):
            continue
        if not entry.has_symbol:
            continue
        address = base + int(entry.address)
        section = binary.section_from_virtual_address(address)
        code = section is not None and bool(int(section.flags) & 0x80000400)  # S_ATTR_PURE/SOME_INSTRUCTIONS
        rows.append(_row(address, entry.symbol.name, code))
    return rows


def _eh_frame_starts(path: str) -> list[dict[str, Any]]:
    """Every FDE's pc range in `.eh_frame` (rea.native.eh_frame reads the two pointers of each entry; the fast
    index reads the same section with the same walker)."""
    from elftools.elf.elffile import ELFFile  # noqa: PLC0415

    with open(path, "rb") as handle:
        elf = ELFFile(handle)
        section = elf.get_section_by_name(".eh_frame")
        if section is None:
            return []
        ranges = fde_ranges(section.data(), section["sh_addr"], elf.elfclass // 8)
    rows = dict(ranges[:MAX_FRAMES])
    return [{"address": f"0x{a:x}", "size": rows[a], "source": "exception-frames"} for a in sorted(rows)]


def go_tables(path: str | bytes, text_start: int) -> dict[str, Any] | None:
    """Go's pclntab functions and build info (of a file, or a universal binary's slice), or None if not Go."""
    if isinstance(path, bytes):
        data = path[:MAX_GO_SCAN]
    else:
        with open(path, "rb") as handle:
            data = handle.read(MAX_GO_SCAN)
    info = gopclntab.build_info(data)
    table = gopclntab.locate(data, text_start)
    if table is None and info is None:
        return None
    result: dict[str, Any] = {"layout": None, "functions": [], "problems": [], "build_info": None}
    if table is not None:
        result["layout"] = table.layout
        result["problems"] = list(table.problems)
        result["functions"] = [{"address": f"0x{f.entry:x}", "name": f.name, "size": f.size} for f in table.functions]
    else:
        result["problems"] = ["no pclntab was found, although the build info says this is a Go binary"]
    if isinstance(info, gopclntab.BuildInfo):
        result["build_info"] = attrs.asdict(info)
    elif isinstance(info, gopclntab.Problem):
        result["problems"].append(info.reason)
    else:  # say why the version, module and dependencies are null rather than leave them unexplained
        result["problems"].append(
            f"no Go build info: the `\\xff Go buildinf:` header (Go's .go.buildinfo section in ELF, __go_buildinfo "
            f"in Mach-O, .data in PE) was looked for in the file's first {len(data)} bytes"
            + (" (the whole file)" if len(data) < MAX_GO_SCAN else "")
            + " and is absent (stripped, as esbuild's release builds are): the main module and dependencies are "
            "unknown; inferred_version offers the toolchain version from the binary's strings"
        )
        result["inferred_version"] = _inferred_version(path, data)
    return result


def _inferred_version(path: str | bytes, data: bytes) -> dict[str, Any] | None:
    """A `go1.x` string in the binary's data (runtime.buildVersion's bytes) with its file offset and linked
    address, offered as an inference: without build info nothing ties it to the toolchain but its shape."""
    found = gopclntab.version_strings(data)
    chosen = gopclntab.inferred_version(found)
    if chosen is None:
        return None
    best, confidence = chosen
    return {
        "value": best.value,
        "file_offset": f"0x{best.offset:x}",
        "address": _linked_address(path, best.offset),
        "source": "string-scan",
        "evidence_kind": "inferred",
        "confidence": confidence,
        "candidates": [{"value": v.value, "file_offset": f"0x{v.offset:x}"} for v in found],
    }


def _linked_address(path: str | bytes, offset: int) -> str | None:
    """The linked virtual address of a file offset (lief maps it through the segments), or None."""
    import lief  # noqa: PLC0415 - only the worker reads metadata

    lief.logging.disable()
    try:
        # Any: lief types a COFF object too, which has no segments (it raises, and reads as None, as before)
        binary: Any = lief.parse(path if isinstance(path, str) else io.BytesIO(path))
        mapped = binary.offset_to_virtual_address(offset) if binary is not None else None
        return f"0x{int(mapped):x}" if isinstance(mapped, int) and mapped else None
    except Exception:  # lief raises on malformed tables; the address is an addition, the offset stands
        return None
