"""Function starts and Go tables read from the file itself (lief and bytes), beside angr's loader.

They let the overview answer before CFG recovery and stand in for it when it fails. The
pure parsers (rea.native.gopclntab) get the bytes; this module only reads them.
"""

from __future__ import annotations

from typing import Any

import attrs

from rea.native import gopclntab

MAX_GO_SCAN = 512 << 20
MAX_FRAMES = 1_000_000


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


def _eh_frame_starts(path: str) -> list[dict[str, Any]]:
    """Every FDE's pc range in `.eh_frame` (pyelftools resolves the pointer encodings)."""
    from elftools.dwarf.callframe import FDE  # noqa: PLC0415
    from elftools.elf.elffile import ELFFile  # noqa: PLC0415

    with open(path, "rb") as handle:
        elf = ELFFile(handle)
        if elf.get_section_by_name(".eh_frame") is None:
            return []
        entries = elf.get_dwarf_info(follow_links=False).EH_CFI_entries()
        rows = {
            e.header["initial_location"]: int(e.header["address_range"])
            for e in entries[:MAX_FRAMES]
            if isinstance(e, FDE) and e.header["initial_location"]
        }
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
            "the file has no Go build info (no .go.buildinfo section or `\xff Go buildinf:` header): the Go "
            "version, main module and dependencies are not recorded in it"
        )
    return result
