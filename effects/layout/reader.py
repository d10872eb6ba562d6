"""Read a binary's layout facts with lief (ELF, PE/PE32+, Mach-O thin or one universal slice).

Returns plain data: integers, names with their bytes and locations, and the raw
mitigation indicators. Meanings (entry, symbol values, file backing, permissions,
RELRO, NX) are decided by the pure core in rea.layout.build.
"""

from __future__ import annotations

import base64
import mmap
import struct
from typing import Any

import lief

from effects.layout import elf as elf_tables
from effects.layout.failure import LayoutFailure
from effects.layout.macho import enum_name, macho_facts, select_slice

lief.logging.disable()

_ELF_MACHINES = {
    3: "EM_386",
    62: "EM_X86_64",
    40: "EM_ARM",
    183: "EM_AARCH64",
    8: "EM_MIPS",
    20: "EM_PPC",
    21: "EM_PPC64",
    22: "EM_S390",
    243: "EM_RISCV",
    2: "EM_SPARC",
    43: "EM_SPARCV9",
    258: "EM_LOONGARCH",
}
_ELF_TYPES = {0: "ET_NONE", 1: "ET_REL", 2: "ET_EXEC", 3: "ET_DYN", 4: "ET_CORE"}
_DT = {"NEEDED": 1, "RPATH": 15, "RUNPATH": 29, "FLAGS": 30, "FLAGS_1": 0x6FFFFFFB, "BIND_NOW": 24}


def _name(raw: bytes, location: tuple[int, int] | None) -> dict[str, Any]:
    return {
        "display": raw.decode("utf-8", "replace"),
        "bytes": base64.b64encode(raw).decode(),
        "location": location,
        "unknown_reason": None,
    }


def _elf_header(data: Any) -> tuple[int, bool]:
    if len(data) < 0x34 or data[4] not in (1, 2) or data[5] not in (1, 2):
        raise LayoutFailure("malformed", "the ELF identification bytes name no known class or byte order")
    return (64 if data[4] == 2 else 32), data[5] == 1


def elf_facts(path: str, data: Any, caps: dict[str, int]) -> dict[str, Any]:
    bits, little = _elf_header(data)
    img = elf_tables.Image(data, bits, little)
    if bits == 64:
        etype, machine, _ver, entry, phoff, shoff, _flags, _eh, phentsize, phnum, shentsize, shnum, shstrndx = (
            img.unpack("HHIQQQIHHHHHH", 16)
        )
    else:
        etype, machine, _ver, entry, phoff, shoff, _flags, _eh, phentsize, phnum, shentsize, shnum, shstrndx = (
            img.unpack("HHIIIIIHHHHHH", 16)
        )
    sections, table_state = elf_tables.section_headers(img, shoff, shnum, shentsize, shstrndx)
    segments = elf_tables.program_headers(img, phoff, phnum, phentsize)
    symbols, symbol_total = elf_tables.symbols(img, sections, caps["max_symbols"])
    relocations, relocation_total = elf_tables.relocations(img, sections, caps["max_relocations"])
    relr = elf_tables.relr_tables(img, sections, caps["max_relocations"])
    binary = lief.ELF.parse(path)
    dynamic = _elf_dynamic(binary)
    interpreters = []
    for seg in segments:
        if seg["type"] == 3 and img.fits(seg["offset"], seg["file_size"]):
            raw = bytes(data[seg["offset"] : seg["offset"] + seg["file_size"]]).split(b"\0", 1)[0]
            interpreters.append(_name(raw, (seg["offset"], len(raw))))
    limitations = []
    if binary is None:
        limitations.append("lief could not read this ELF's dynamic section; libraries and flags are not reported")
    return {
        "format": "elf",
        "machine": _ELF_MACHINES.get(machine, machine),
        "machine_number": machine,
        "bits": bits,
        "byte_order": "little" if little else "big",
        "image_type": _ELF_TYPES.get(etype, f"0x{etype:x}"),
        "entry": entry,
        "entry_kind": "elf",
        "sections": sections,
        "segments": segments,
        "symbols": symbols,
        "symbol_total": symbol_total,
        "relocations": relocations,
        "relocation_total": relocation_total,
        "relr": relr,
        "image_relocations": [],
        "needed": dynamic["needed"],
        "interpreters": interpreters,
        "search_paths": dynamic["search_paths"],
        "import_slots": [],
        "dynamic_flags": dynamic["flags"],
        "gnu_properties": elf_tables.gnu_properties(img, segments),
        "section_table": table_state,
        "pe": None,
        "macho": None,
        "slice": None,
        "limitations": limitations,
    }


def _elf_dynamic(binary: Any) -> dict[str, Any]:
    needed: list[dict[str, Any]] = []
    paths: list[str] = []
    flags = {"FLAGS": 0, "FLAGS_1": 0, "BIND_NOW": False}
    if binary is None:
        return {"needed": needed, "search_paths": paths, "flags": flags}
    for entry in binary.dynamic_entries:
        tag = int(entry.tag)
        if tag == _DT["NEEDED"]:
            needed.append(_name(entry.name.encode("utf-8", "surrogateescape"), None))
        elif tag in (_DT["RPATH"], _DT["RUNPATH"]):
            paths.extend(p for p in entry.paths if p)
        elif tag == _DT["FLAGS"]:
            flags["FLAGS"] = int(entry.value)
        elif tag == _DT["FLAGS_1"]:
            flags["FLAGS_1"] = int(entry.value)
        elif tag == _DT["BIND_NOW"]:
            flags["BIND_NOW"] = True
    return {"needed": needed, "search_paths": paths, "flags": flags}


# ------------------------------------------------------------------------- PE

_PE_MACHINES = {
    0x14C: "IMAGE_FILE_MACHINE_I386",
    0x8664: "IMAGE_FILE_MACHINE_AMD64",
    0xAA64: "IMAGE_FILE_MACHINE_ARM64",
    0x1C0: "IMAGE_FILE_MACHINE_ARM",
    0x1C4: "IMAGE_FILE_MACHINE_ARMNT",
    0x200: "IMAGE_FILE_MACHINE_IA64",
}


def _pe_symbols(binary: Any, data: Any, cap: int) -> tuple[list[dict[str, Any]], int]:
    header = binary.header
    table, count = header.pointerto_symbol_table, header.numberof_symbols
    if table == 0 or count == 0 or table + 18 * count > len(data):
        return [], 0
    strings = table + 18 * count
    rows: list[dict[str, Any]] = []
    index = primary = 0
    for sym in binary.symbols:
        if index >= count:
            break
        primary += 1
        at = table + 18 * index
        if len(rows) < cap:
            (zeros, offset) = struct.unpack_from("<II", data, at)
            if zeros == 0:
                raw = bytes(data[strings + offset : strings + offset + elf_tables.NAME_MAX]).split(b"\0", 1)[0]
                name, name_offset = _name(raw, (strings + offset, len(raw))), offset
            else:
                raw = bytes(data[at : at + 8]).split(b"\0", 1)[0]
                name, name_offset = _name(raw, (at, len(raw))), 0
            storage = sym.storage_class
            rows.append(
                {
                    "table_index": 0,
                    "entry_index": index,
                    "name": name,
                    "name_offset": name_offset,
                    "location": (at, 18),
                    "value": int(sym.value) & 0xFFFFFFFF,
                    "size": 0,
                    "binding": "IMAGE_SYM_CLASS_" + storage.name if hasattr(storage, "name") else int(storage),
                    "type": int(sym.type),
                    "visibility": "default",
                    "section_index": int(sym.section_idx),
                    "pe_section_number": int(sym.section_idx),
                }
            )
        index += 1 + len(list(sym.auxiliary_symbols))
    return rows, primary  # auxiliary records belong to their primary symbol's row


def _rva_u32(binary: Any, data: Any, rva: int) -> int | None:
    """The 32-bit little-endian word at an RVA (None: not backed by the file)."""
    if rva < 0:
        return None
    offset = binary.rva_to_offset(rva)
    if not isinstance(offset, int) or offset <= 0 or offset + 4 > len(data):
        return None  # lief answers an error object for an RVA no section maps
    return int(struct.unpack_from("<I", data, offset)[0])


def _pe_exports(binary: Any, data: Any) -> dict[str, Any] | None:
    """The export directory: each Export Address Table entry with its ordinal, name and the RVA the table holds.

    lief reports a forwarder's address as 0; the table's own word (the forwarder
    string's RVA) is read from the file, as objdump -p prints it.
    """
    if not binary.has_exports:
        return None
    export = binary.get_export()
    directory = binary.data_directory(lief.PE.DataDirectory.TYPES.EXPORT_TABLE)
    entries = []
    for entry in export.entries:
        raw = _rva_u32(binary, data, export.export_addr_table_rva + 4 * (entry.ordinal - export.ordinal_base))
        forwarded = bool(entry.is_forwarded)
        info = entry.forward_information if forwarded else None
        entries.append(
            {
                "ordinal": int(entry.ordinal),
                "name": entry.name or None,
                "rva": int(raw if raw is not None else entry.address),
                "forwarder": f"{info.library}.{info.function}" if info is not None else None,
            }
        )
    return {
        "dll_name": export.name or None,
        "ordinal_base": int(export.ordinal_base),
        "timestamp": int(export.timestamp),
        "directory_rva": int(directory.rva),
        "directory_size": int(directory.size),
        "address_table_rva": int(export.export_addr_table_rva),
        "address_table_entries": int(export.export_addr_table_cnt),
        "name_table_rva": int(export.names_addr_table_rva),
        "name_table_entries": int(export.names_addr_table_cnt),
        "ordinal_table_rva": int(export.ord_addr_table_rva),
        "entries": sorted(entries, key=lambda e: e["ordinal"]),
    }


def _pe_imports(binary: Any) -> list[dict[str, Any]]:
    """The import directory: one descriptor per DLL with its tables and each entry's IAT slot RVA."""
    rows = []
    for imp in binary.imports:
        rows.append(
            {
                "library": imp.name,
                "lookup_table_rva": int(imp.import_lookup_table_rva),
                "address_table_rva": int(imp.import_address_table_rva),
                "entries": [
                    {
                        "name": None if entry.is_ordinal else entry.name,
                        "ordinal": int(entry.ordinal) if entry.is_ordinal else None,
                        "hint": None if entry.is_ordinal else int(entry.hint),
                        "iat_rva": int(entry.iat_address),
                    }
                    for entry in imp.entries
                ],
            }
        )
    return rows


def pe_facts(path: str, data: Any, caps: dict[str, int]) -> dict[str, Any]:
    binary = lief.PE.parse(path)
    if binary is None:
        raise LayoutFailure("malformed", "lief could not read a PE image behind the MZ header")
    header, optional = binary.header, binary.optional_header
    pe32plus = enum_name(optional.magic) == "PE32_PLUS"
    sections = _pe_sections(binary, data)
    symbols, symbol_total = _pe_symbols(binary, data, caps["max_symbols"])
    relocations, total_relocs = _pe_relocations(binary, caps["max_relocations"])
    needed, slots = _pe_import_slots(binary)
    config = binary.load_configuration
    guard = getattr(config, "guard_flags", None) if config is not None else None
    seh = None
    if config is not None and not pe32plus:
        seh = bool(getattr(config, "se_handler_table", 0) or 0)
    imported = {s["name"] for s in slots if s["name"]}
    return {
        "format": "pe",
        "machine": _PE_MACHINES.get(int(header.machine), f"0x{int(header.machine):x}"),
        "machine_number": int(header.machine),
        "bits": 64 if pe32plus else 32,
        "byte_order": "little",
        "image_type": "IMAGE_FILE_DLL" if header.characteristics & 0x2000 else "IMAGE_FILE_EXECUTABLE_IMAGE",
        "entry": optional.addressof_entrypoint,
        "entry_kind": "pe",
        "sections": sections,
        "segments": [],
        "symbols": symbols,
        "symbol_total": symbol_total,
        "relocations": [],
        "relocation_total": 0,
        "relr": [],
        "image_relocations": relocations,
        "image_relocation_total": total_relocs,
        "needed": needed,
        "interpreters": [],
        "search_paths": [],
        "import_slots": slots,
        "dynamic_flags": None,
        "gnu_properties": {},
        "section_table": "present",
        "pe": {
            "dll_characteristics": int(optional.dll_characteristics),
            "guard_flags": None if guard is None else int(guard),
            "safe_seh": seh,
            "has_relocations": bool(binary.has_relocations),
            "imported_names": sorted(imported),
            "exports": _pe_exports(binary, data),
            "imports": _pe_imports(binary),
        },
        "macho": None,
        "slice": None,
        "limitations": [],
    }


def _pe_sections(binary: Any, data: Any) -> list[dict[str, Any]]:
    """The section table's rows, long "/N" names read from the COFF string table."""
    header, optional = binary.header, binary.optional_header
    table = binary.dos_header.addressof_new_exeheader + 24 + header.sizeof_optional_header
    sections = []
    strings = header.pointerto_symbol_table + 18 * header.numberof_symbols
    for i, sec in enumerate(binary.sections):
        raw = bytes(data[table + 40 * i : table + 40 * i + 8]).split(b"\0", 1)[0]
        label, name_offset = _name(raw, (table + 40 * i, len(raw))), None
        if raw[:1] == b"/" and raw[1:].isdigit() and header.pointerto_symbol_table:
            # a long name: "/N" is an offset into the COFF string table
            name_offset = int(raw[1:])
            at = strings + name_offset
            long = bytes(data[at : at + elf_tables.NAME_MAX]).split(b"\0", 1)[0]
            label = _name(long, (at, len(long)))
        sections.append(
            {
                "index": i,
                "name": label,
                "name_offset": name_offset,
                "type": "IMAGE_SCN",
                "header_location": (table + 40 * i, 40),
                "address": sec.virtual_address,
                "offset": sec.pointerto_raw_data,
                "size": sec.virtual_size,
                "alignment": optional.section_alignment,
                "flags": sec.characteristics,
                "link": None,
                "info": None,
                "entry_size": None,
                "nobits": sec.sizeof_raw_data == 0,
                "segment": None,
                "raw_size": sec.sizeof_raw_data,
            }
        )
    return sections


def _pe_relocations(binary: Any, most: int) -> tuple[list[dict[str, Any]], int]:
    """The base relocations (ABS padding left out), the first `most` of them, and their total."""
    relocations: list[dict[str, Any]] = []
    total_relocs = 0
    for block in binary.relocations:
        for entry in block.entries:
            if enum_name(entry.type) == "ABS":
                continue  # block padding, not a relocation
            total_relocs += 1
            if len(relocations) >= most:
                continue
            relocations.append(
                {
                    "kind": "pe-base-relocation",
                    "address": block.virtual_address + entry.position,
                    "type": "IMAGE_REL_BASED_" + enum_name(entry.type),
                    "symbol_name": None,
                    "library": None,
                }
            )
    return relocations, total_relocs


def _pe_import_slots(binary: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The imported libraries' names and one slot per imported entry (by name or ordinal)."""
    needed, slots = [], []
    for imp in binary.imports:
        needed.append(_name(imp.name.encode("utf-8", "surrogateescape"), None))
        for entry in imp.entries:
            slots.append(
                {
                    "library": imp.name,
                    "name": None if entry.is_ordinal else entry.name,
                    "ordinal": entry.ordinal if entry.is_ordinal else None,
                    "address": entry.iat_address,
                }
            )
    return needed, slots


def read_layout(path: str, architecture: str | None, caps: dict[str, int]) -> dict[str, Any]:
    """Facts of the file at `path`; raises LayoutFailure for what is not a readable ELF, PE or Mach-O."""
    with open(path, "rb") as handle:
        size = handle.seek(0, 2)
        if size < 4:
            raise LayoutFailure("unsupported", f"the file has {size} bytes, too few for any executable header")
        with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as mapped, memoryview(mapped) as data:
            head = bytes(data[:4])
            if head == b"\x7fELF":
                if architecture is not None:
                    raise LayoutFailure("no-slice", "architecture selects a universal Mach-O slice; this is ELF")
                return elf_facts(path, data, caps)
            if head[:2] == b"MZ":
                if architecture is not None:
                    raise LayoutFailure("no-slice", "architecture selects a universal Mach-O slice; this is PE")
                return pe_facts(path, data, caps)
            if head in (b"\xca\xfe\xba\xbe", b"\xca\xfe\xba\xbf") or head[:4] in (
                b"\xfe\xed\xfa\xce",
                b"\xfe\xed\xfa\xcf",
                b"\xce\xfa\xed\xfe",
                b"\xcf\xfa\xed\xfe",
            ):
                chosen, slice_name = select_slice(path, data, architecture)
                return macho_facts(chosen, slice_name, data, caps)
    raise LayoutFailure(
        "unsupported", "the file is not ELF, PE/PE32+ or Mach-O (its first bytes match none of their magics)"
    )
