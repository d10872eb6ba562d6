"""Mach-O layout facts with lief: one thin image, or one slice of a universal (fat) file.

The fat header is checked here before lief sees the file (slices inside the file,
not overlapping, a bounded count), so a lying header is a canonical error rather
than whatever a lenient reader makes of it. File offsets in the rows are offsets
in the whole file (slice offset added), so every range can be checked against it.
"""

from __future__ import annotations

import base64
import struct
from typing import Any

import lief

from effects.layout.failure import LayoutFailure
from rea.artifacts.model import JAVA_FIRST_MAJOR
from rea.layout.macho_names import arch_name, cpu_type_name, file_type_name, header_flag_names

MAX_SLICES = 64
JAVA_LAST_MAJOR = 255  # class-file majors are far below this (69 is Java 25); a larger word is a lying fat count
FAT_MAGIC, FAT_MAGIC_64 = 0xCAFEBABE, 0xCAFEBABF
LC_SEGMENT, LC_SEGMENT_64, LC_SYMTAB, LC_UNIXTHREAD, LC_MAIN, LC_CODE_SIGNATURE = 0x1, 0x19, 0x2, 0x5, 0x80000028, 0x1D


def _name(value: str | bytes) -> str:
    """lief hands back bytes for a name that is not UTF-8 (hostile or damaged tables): keep it, readably."""
    return value.decode("utf-8", "backslashreplace") if isinstance(value, bytes) else value


def enum_name(value: Any) -> str:
    """A lief enum's name; lief hands back a bare int for values its table does not know."""
    name = getattr(value, "name", None)
    return name if isinstance(name, str) else f"0x{int(value):x}"


def fat_slices(data: Any) -> list[dict[str, Any]] | None:
    """The slices a fat header declares (checked), or None for a thin file."""
    size = len(data)
    (magic,) = struct.unpack_from(">I", data, 0)
    if magic not in (FAT_MAGIC, FAT_MAGIC_64):
        return None
    if size < 8:
        raise LayoutFailure("malformed", "the universal header is truncated")
    (count,) = struct.unpack_from(">I", data, 4)
    if magic == FAT_MAGIC and JAVA_FIRST_MAJOR <= count & 0xFFFF <= JAVA_LAST_MAJOR:
        # cafebabe also opens a Java class file: minor and major version follow (majors 45 and up; no fat
        # header counts that many slices)
        raise LayoutFailure(
            "unsupported",
            f"it is a Java class file (cafebabe, then class-file version {count & 0xFFFF}.{count >> 16} where a "
            "universal header would count its slices), not a Mach-O",
        )
    entry = 32 if magic == FAT_MAGIC_64 else 20
    if count == 0 or count > MAX_SLICES:
        raise LayoutFailure("malformed", f"the universal header declares {count} slices (accepted: 1 to {MAX_SLICES})")
    if 8 + count * entry > size:
        raise LayoutFailure("malformed", "the universal header's slice table runs past the end of the file")
    slices = []
    for i in range(count):
        at = 8 + i * entry
        if magic == FAT_MAGIC_64:
            cpu, sub, offset, length, align = struct.unpack_from(">iiQQI", data, at)
        else:
            cpu, sub, offset, length, align = struct.unpack_from(">iiIII", data, at)
        if offset < 8 + count * entry or offset + length > size or length < 28:
            raise LayoutFailure(
                "malformed",
                f"slice {i} ({arch_name(cpu, sub)}) claims bytes {offset}..{offset + length} outside the file's "
                f"{size} bytes or over the header",
            )
        slices.append(
            {
                "index": i,
                "cputype": cpu,
                "cpusubtype": sub,
                "offset": offset,
                "size": length,
                "align": align,
                "architecture": arch_name(cpu, sub),
                "header_location": (at, entry),
            }
        )
    ordered = sorted(slices, key=lambda s: s["offset"])
    for left, right in zip(ordered, ordered[1:]):
        if left["offset"] + left["size"] > right["offset"]:
            raise LayoutFailure(
                "malformed",
                f"slices {left['index']} and {right['index']} overlap ({left['architecture']}, "
                f"{right['architecture']})",
            )
    return slices


def _parse_slice(path: str, offset: int) -> Any:
    """lief's image starting at `offset` (0: a thin file), from one parse of the file."""
    parsed = lief.MachO.parse(path)
    images = [] if parsed is None else [parsed.at(i) for i in range(parsed.size)]
    for image in images:
        if image is not None and image.fat_offset == offset:
            return image
    raise LayoutFailure("malformed", f"lief could not read the Mach-O image at offset {offset}")


def select_slice(path: str, data: Any, architecture: str | None) -> tuple[Any, dict[str, Any] | None]:
    """The lief image to read and its slice (None for a thin file)."""
    slices = fat_slices(data)
    if slices is None:
        if architecture is not None:
            thin = _parse_slice(path, 0)
            name = arch_name(int(thin.header.cpu_type), int(thin.header.cpu_subtype))
            if name != architecture:
                raise LayoutFailure("no-slice", f"the thin Mach-O is {name}, not {architecture}", available=[name])
            return thin, None
        return _parse_slice(path, 0), None
    names = [s["architecture"] for s in slices]
    if architecture is None:
        if len(slices) > 1:
            raise LayoutFailure(
                "needs-slice",
                f"the universal binary has {len(slices)} slices; select one with architecture",
                available=names,
            )
        chosen = slices[0]
    else:
        matches = [s for s in slices if s["architecture"] == architecture]
        if not matches:
            raise LayoutFailure("no-slice", f"no slice named {architecture}", available=names)
        chosen = matches[0]
    return _parse_slice(path, chosen["offset"]), chosen


def _fixed_name(data: Any, at: int, width: int = 16) -> dict[str, Any]:
    raw = bytes(data[at : at + width]).split(b"\0", 1)[0]
    return {
        "display": raw.decode("utf-8", "replace"),
        "bytes": base64.b64encode(raw).decode(),
        "location": (at, len(raw)),
        "unknown_reason": None,
    }


def _segments(binary: Any, data: Any, base: int, bits: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    segments: list[dict[str, Any]] = []
    sections: list[dict[str, Any]] = []
    header = 72 if bits == 64 else 56
    row = 80 if bits == 64 else 68
    for cmd in binary.commands:
        if int(cmd.command) not in (LC_SEGMENT, LC_SEGMENT_64):
            continue
        at = base + cmd.command_offset
        segments.append(
            {
                "index": len(segments),
                "type": "LC_SEGMENT_64" if bits == 64 else "LC_SEGMENT",
                "name": _name(cmd.name),
                "header_location": (at, cmd.size),
                "offset": base + cmd.file_offset if cmd.file_size else cmd.file_offset,
                "file_size": cmd.file_size,
                "memory_size": cmd.virtual_size,
                "virtual_address": cmd.virtual_address,
                "physical_address": cmd.virtual_address,
                "alignment": 0,
                "flags": cmd.init_protection,
            }
        )
        for i, sec in enumerate(cmd.sections):
            where = at + header + i * row
            kind = int(sec.type)
            zerofill = kind in (0x1, 0xC, 0x12)  # S_ZEROFILL, S_GB_ZEROFILL, S_THREAD_LOCAL_ZEROFILL
            sections.append(
                {
                    "index": len(sections),
                    "name": _fixed_name(data, where),
                    "name_offset": None,
                    "type": "S_" + enum_name(sec.type),
                    "header_location": (where, row),
                    "address": sec.virtual_address,
                    "offset": base + sec.offset if sec.offset and not zerofill else sec.offset,
                    "size": sec.size,
                    "alignment": 1 << sec.alignment if sec.alignment < 64 else 0,
                    "flags": int(sec.flags) | kind,
                    "link": None,
                    "info": None,
                    "entry_size": None,
                    "nobits": zerofill or sec.offset == 0,
                    "segment": _name(cmd.name),
                    "raw_size": None,
                }
            )
    return segments, sections


def _symbols(binary: Any, data: Any, base: int, bits: int, cap: int) -> tuple[list[dict[str, Any]], int]:
    command = binary.symbol_command if binary.has_symbol_command else None
    if command is None:
        return [], 0
    entry = 16 if bits == 64 else 12
    symoff, nsyms = base + command.symbol_offset, command.numberof_symbols
    stroff, strsize = base + command.strings_offset, command.strings_size
    end = "<" if bytes(data[base : base + 4]) in (b"\xce\xfa\xed\xfe", b"\xcf\xfa\xed\xfe") else ">"
    if symoff + nsyms * entry > len(data) or stroff + strsize > len(data):
        return [], nsyms
    rows = []
    for i in range(min(nsyms, cap)):
        at = symoff + i * entry
        fmt = end + ("IBBHQ" if bits == 64 else "IBBHI")
        strx, ntype, nsect, desc, value = struct.unpack_from(fmt, data, at)
        if strx < strsize:
            raw = bytes(data[stroff + strx : min(stroff + strsize, stroff + strx + 4096)]).split(b"\0", 1)[0]
            name = {
                "display": raw.decode("utf-8", "replace"),
                "bytes": base64.b64encode(raw).decode(),
                "location": (stroff + strx, len(raw)),
                "unknown_reason": None,
            }
        else:
            name = {"display": "", "bytes": None, "location": None, "unknown_reason": "n_strx outside the string table"}
        rows.append(
            {
                "table_index": 0,
                "entry_index": i,
                "name": name,
                "name_offset": strx,
                "location": (at, entry),
                "value": value,
                "size": 0,
                "binding": "external" if ntype & 0x01 else "local",
                "type": ntype,
                "visibility": "private-external" if ntype & 0x10 else "default",
                "section_index": nsect,
                "macho_desc": desc,
            }
        )
    return rows, nsyms


def _lc_str(data: Any, base: int, cmd: Any, little: bool) -> dict[str, Any]:
    """The lc_str name of a dylib or dylinker command: its offset is the command's third word."""
    at = base + cmd.command_offset
    (offset,) = struct.unpack_from("<I" if little else ">I", data, at + 8)
    if not 12 <= offset < cmd.size:
        return {"display": "", "bytes": None, "location": None, "unknown_reason": "lc_str offset outside the command"}
    return _fixed_name(data, at + offset, cmd.size - offset)


def _code_signature_flags(binary: Any, data: Any, base: int) -> int | None:
    """CodeDirectory flags of the embedded signature (None: unsigned or unreadable)."""
    if not binary.has_code_signature:
        return None
    sig = binary.code_signature
    start, size = base + sig.data_offset, sig.data_size
    if start + size > len(data) or size < 12:
        return None
    magic, _length, count = struct.unpack_from(">III", data, start)
    if magic != 0xFADE0CC0 or 12 + 8 * count > size:
        return None
    for i in range(count):
        slot, offset = struct.unpack_from(">II", data, start + 12 + 8 * i)
        if slot == 0 and offset + 16 <= size:
            cd_magic, _cd_len, _version, flags = struct.unpack_from(">IIII", data, start + offset)
            return flags if cd_magic == 0xFADE0C02 else None
    return None


def _entry(binary: Any) -> tuple[int, str]:
    if binary.has_main_command:
        return int(binary.main_command.entrypoint), "macho-main"
    if binary.has_thread_command:
        return int(binary.thread_command.pc), "macho-thread"
    return 0, "none"


def _fixups(binary: Any, cap: int) -> tuple[list[dict[str, Any]], int]:
    rows: list[dict[str, Any]] = []
    total = 0
    kinds = {
        "RelocationObject": "macho-relocation",
        "RelocationFixup": "macho-chained-fixup",
        "RelocationDyld": "macho-relocation",
    }
    for reloc in binary.relocations:
        total += 1
        if len(rows) < cap:
            symbol = _name(reloc.symbol.name) if reloc.has_symbol else None
            rows.append(
                {
                    "kind": kinds.get(type(reloc).__name__, "macho-relocation"),
                    "address": int(reloc.address),
                    "type": f"{type(reloc).__name__}:{int(reloc.type)}",
                    "symbol_name": symbol,
                    "library": None,
                }
            )
    for bind in binary.bindings:
        total += 1
        if len(rows) < cap:
            rows.append(
                {
                    "kind": "macho-bind",
                    "address": int(bind.address),
                    "type": type(bind).__name__,
                    "symbol_name": _name(bind.symbol.name) if bind.has_symbol else None,
                    "library": _name(bind.library.name) if bind.has_library else None,
                }
            )
    return rows, total


def macho_facts(binary: Any, chosen: dict[str, Any] | None, data: Any, caps: dict[str, int]) -> dict[str, Any]:
    base = chosen["offset"] if chosen is not None else 0
    header = binary.header
    bits = 64 if header.is_64bit else 32
    cpu, sub = int(header.cpu_type), int(header.cpu_subtype)
    segments, sections = _segments(binary, data, base, bits)
    symbols, symbol_total = _symbols(binary, data, base, bits, caps["max_symbols"])
    fixups, fixup_total = _fixups(binary, caps["max_relocations"])
    little = bytes(data[base : base + 4]) in (b"\xce\xfa\xed\xfe", b"\xcf\xfa\xed\xfe")
    needed = [_lc_str(data, base, cmd, little) for cmd in binary.libraries if enum_name(cmd.command) != "ID_DYLIB"]
    interpreters = [_lc_str(data, base, binary.dylinker, little)] if binary.has_dylinker else []
    entry, kind = _entry(binary)
    flags = int(header.flags)
    imported = sorted({_name(s.name) for s in binary.imported_symbols})
    return {
        "format": "macho",
        "machine": cpu_type_name(cpu),
        "machine_number": cpu,
        "bits": bits,
        "byte_order": "little" if little else "big",
        "image_type": file_type_name(int(header.file_type)),
        "entry": entry,
        "entry_kind": kind,
        "sections": sections,
        "segments": segments,
        "symbols": symbols,
        "symbol_total": symbol_total,
        "relocations": [],
        "relocation_total": 0,
        "relr": [],
        "image_relocations": fixups,
        "image_relocation_total": fixup_total,
        "needed": needed,
        "interpreters": interpreters,
        "search_paths": [r.path for r in binary.rpaths],
        "import_slots": [],
        "dynamic_flags": None,
        "gnu_properties": {},
        "section_table": "present",
        "pe": None,
        "macho": {
            "flags": flags,
            "flag_names": header_flag_names(flags),
            "code_signature": bool(binary.has_code_signature),
            "cs_flags": _code_signature_flags(binary, data, base),
            "imported_names": imported,
        },
        "slice": None if chosen is None else arch_name(cpu, sub),
        "limitations": [],
    }
