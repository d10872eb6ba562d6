"""inspect_macho facts with lief: header, load commands, build metadata, dependencies, symbols, segments.

Rows are plain data in the reference's field names; offsets are offsets in the
whole file (a universal slice's offset added). Collections are capped by the
caller's limit and report their recorded totals, so the pure core can say what
was not returned.
"""

from __future__ import annotations

from typing import Any

from effects.layout.macho import enum_name, fat_slices
from rea.layout.macho_names import file_type_name, header_flag_names

DEPENDENCY_KINDS = {
    "LOAD_DYLIB": "load",
    "LOAD_WEAK_DYLIB": "weak",
    "REEXPORT_DYLIB": "reexport",
    "LAZY_LOAD_DYLIB": "lazy",
    "LOAD_UPWARD_DYLIB": "upward",
}
N_WEAK_REF, N_WEAK_DEF = 0x40, 0x80
EXPORT_WEAK, EXPORT_REEXPORT = 0x4, 0x8
VERSION_MIN_PLATFORMS = {
    "VERSION_MIN_MACOSX": "macos",
    "VERSION_MIN_IPHONEOS": "ios",
    "VERSION_MIN_TVOS": "tvos",
    "VERSION_MIN_WATCHOS": "watchos",
}


def _version(parts: Any) -> str | None:
    values = list(parts) if parts is not None else []
    return ".".join(str(v) for v in values) if values else None


def _perms(prot: int) -> dict[str, Any]:
    raw = ("r" if prot & 1 else "-") + ("w" if prot & 2 else "-") + ("x" if prot & 4 else "-")
    return {"read": bool(prot & 1), "write": bool(prot & 2), "execute": bool(prot & 4), "raw": raw}


def _load_command(index: int, cmd: Any, base: int) -> dict[str, Any]:
    fields: dict[str, Any] = {"cmdsize": int(cmd.size)}
    for attr in ("name", "path"):
        value = getattr(cmd, attr, None)
        if isinstance(value, str):
            fields[attr] = value
    kind = enum_name(cmd.command)
    if kind == "UUID":
        fields["uuid"] = _uuid(cmd.uuid)
    if kind in ("SEGMENT", "SEGMENT_64"):
        fields.update(
            vmaddr=hex(cmd.virtual_address),
            vmsize=int(cmd.virtual_size),
            fileoff=int(cmd.file_offset),
            filesize=int(cmd.file_size),
            nsects=int(cmd.numberof_sections),
        )
    return {"index": index, "kind": "LC_" + kind, "file_offset": base + int(cmd.command_offset), "fields": fields}


def _uuid(raw: Any) -> str:
    b = bytes(raw)
    h = b.hex().upper()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}" if len(b) == 16 else h


def _build_metadata(binary: Any) -> list[dict[str, Any]]:
    rows = []
    for cmd in binary.commands:
        kind = enum_name(cmd.command)
        if kind == "BUILD_VERSION":
            rows.append(
                {
                    "platform": enum_name(cmd.platform).lower(),
                    "minimum_os": _version(cmd.minos),
                    "sdk": _version(cmd.sdk),
                    "tools": [
                        {"name": enum_name(t.tool).lower(), "version": _version(t.version) or ""} for t in cmd.tools
                    ],
                }
            )
        elif kind in VERSION_MIN_PLATFORMS:
            rows.append(
                {
                    "platform": VERSION_MIN_PLATFORMS[kind],
                    "minimum_os": _version(cmd.version),
                    "sdk": _version(cmd.sdk),
                    "tools": [],
                }
            )
    return rows


def _symbols(binary: Any, cap: int) -> dict[str, Any]:
    imports, exports = [], []
    imported = list(binary.imported_symbols)
    exported = list(binary.exported_symbols)
    for sym in imported[:cap]:
        library = None
        if sym.has_binding_info and sym.binding_info.has_library:
            library = sym.binding_info.library.name
        imports.append(
            {
                "name": sym.name,
                "address": None,
                "weak": bool(sym.description & N_WEAK_REF),
                "reexport": None,
                "source": library,
            }
        )
    for sym in exported[:cap]:
        info = sym.export_info if sym.has_export_info else None
        flags = int(info.flags) if info is not None else 0
        reexport = bool(flags & EXPORT_REEXPORT) if info is not None else None
        address = None if reexport else hex(int(info.address if info is not None else sym.value))
        source = info.alias_library.name if reexport and info is not None and info.alias_library else None
        weak = bool(flags & EXPORT_WEAK) if info is not None else bool(sym.description & N_WEAK_DEF)
        exports.append({"name": sym.name, "address": address, "weak": weak, "reexport": reexport, "source": source})
    return {"imports": imports, "imports_total": len(imported), "exports": exports, "exports_total": len(exported)}


def _segments(binary: Any, base: int) -> list[dict[str, Any]]:
    rows = []
    for seg in binary.segments:
        sections = [
            {
                "segment": sec.segment_name,
                "name": sec.name,
                "address": hex(sec.virtual_address),
                "size": int(sec.size),
                "file_offset": base + int(sec.offset) if sec.offset else None,
                "alignment": 1 << int(sec.alignment) if sec.alignment < 64 else None,
                "flags": [enum_name(f) for f in sec.flags_list] + ["S_" + enum_name(sec.type)],
            }
            for sec in seg.sections
        ]
        rows.append(
            {
                "name": seg.name,
                "vm_address": hex(seg.virtual_address),
                "vm_size": int(seg.virtual_size),
                "file_offset": base + int(seg.file_offset) if seg.file_size else int(seg.file_offset),
                "file_size": int(seg.file_size),
                "maximum_permissions": _perms(int(seg.max_protection)),
                "initial_permissions": _perms(int(seg.init_protection)),
                "sections": {"items": sections, "total": len(sections), "exhaustive": True, "limitations": []},
            }
        )
    return rows


def macho_inspection(binary: Any, chosen: dict[str, Any] | None, data: Any, cap: int) -> dict[str, Any]:
    base = chosen["offset"] if chosen is not None else 0
    header = binary.header
    little = bytes(data[base : base + 4]) in (b"\xce\xfa\xed\xfe", b"\xcf\xfa\xed\xfe")
    entry = [{"file_offset": base + int(binary.main_command.entrypoint)}] if binary.has_main_command else []
    slices = fat_slices(data)
    dependencies = [
        {
            "path": lib.name,
            "kind": DEPENDENCY_KINDS.get(enum_name(lib.command), enum_name(lib.command).lower()),
            "current_version": _version(lib.current_version),
            "compatibility_version": _version(lib.compatibility_version),
        }
        for lib in binary.libraries
        if enum_name(lib.command) != "ID_DYLIB"
    ]
    install = [lib.name for lib in binary.libraries if enum_name(lib.command) == "ID_DYLIB"]
    return {
        "endian": "little" if little else "big",
        "word_size": 64 if header.is_64bit else 32,
        "file_type": file_type_name(int(header.file_type)),
        "flags": header_flag_names(int(header.flags)),
        "uuid": _uuid(binary.uuid.uuid) if binary.has_uuid else None,
        "entrypoints": entry,
        "slices": slices,
        "thin": {
            "cputype": int(header.cpu_type),
            "cpusubtype": int(header.cpu_subtype),
            "offset": 0,
            "size": len(data),
            "align": None,
            "universal": False,
        },
        "build_metadata": _build_metadata(binary),
        "load_commands": [_load_command(i, cmd, base) for i, cmd in enumerate(binary.commands)],
        "dependencies": dependencies,
        "install_name": install[0] if install else None,
        **_symbols(binary, cap),
        "segments": _segments(binary, base),
        "slice": None if chosen is None else chosen["architecture"],
    }
