"""ReadAppleMetadata: one Mach-O slice as plain facts (bytes, segments, sections, binds, symbols).

lief parses the load commands and the dyld bind information (classic opcodes and
chained fixups); the Objective-C and Swift structures themselves are decoded by
rea.apple_metadata from the bytes handed over here. The slice is bounded in size.
"""

from __future__ import annotations

from typing import Any

import anyio.to_thread
from returns.result import Result

from effects.layout.failure import LayoutFailure
from effects.layout.macho import select_slice
from effects.layout.runtime import MACHO_ACCEPTED, _mapped_macho, guarded
from effects.progress import Progress
from rea.apple_metadata.effects import ReadAppleMetadata
from rea.errors import ReaError
from rea.layout.macho_names import arch_name

MAX_SLICE = 256 << 20


def _chained_format(binary: Any) -> int | None:
    if not getattr(binary, "has_dyld_chained_fixups", False):
        return None
    for start in binary.dyld_chained_fixups.chained_starts_in_segments:
        fmt = int(start.pointer_format)
        if fmt:
            return fmt
    return None


def _binds(binary: Any) -> dict[int, str]:
    binds: dict[int, str] = {}
    for binding in binary.bindings:
        if binding.has_symbol:
            binds[int(binding.address)] = str(binding.symbol.name)
    return binds


def _symbols(binary: Any) -> dict[int, str]:
    found: dict[int, str] = {}
    for symbol in binary.symbols:
        value = int(symbol.value)
        if value and symbol.name and value not in found:
            found[value] = str(symbol.name)
    return found


def slice_facts(path: str, data: Any, architecture: str | None) -> dict[str, Any]:
    binary, chosen = select_slice(path, data, architecture)
    start = chosen["offset"] if chosen is not None else 0
    size = chosen["size"] if chosen is not None else len(data)
    if size > MAX_SLICE:
        raise LayoutFailure("unsupported", f"the Mach-O image is {size} bytes, over the {MAX_SLICE}-byte bound")
    header = binary.header
    return {
        "data": bytes(data[start : start + size]),
        "slice": chosen["architecture"] if chosen is not None else None,
        "architecture": arch_name(int(header.cpu_type), int(header.cpu_subtype)),
        "cputype": int(header.cpu_type),
        "is64": int(header.magic) in (0xFEEDFACF, 0xCFFAEDFE),
        "little_endian": True,
        "segments": [
            {
                "name": s.name,
                "vmaddr": int(s.virtual_address),
                "vmsize": int(s.virtual_size),
                "fileoff": int(s.file_offset),
                "filesize": int(s.file_size),
            }
            for s in binary.segments
        ],
        "sections": [
            {"segment": s.segment_name, "name": s.name, "addr": int(s.virtual_address), "size": int(s.size)}
            for s in binary.sections
        ],
        "binds": _binds(binary),
        "symbols": _symbols(binary),
        "chained_format": _chained_format(binary),
        "base": int(binary.imagebase),
    }


def _read(effect: ReadAppleMetadata) -> Any:
    def read(path: str, artifact: dict[str, Any]) -> dict[str, Any]:
        handle, mapped, data = _mapped_macho(path, artifact, 28)
        with handle, mapped, data:
            return {"facts": slice_facts(path, data, effect.architecture)}

    return read


async def read_apple_metadata(effect: ReadAppleMetadata, progress: Progress) -> Result[Any, ReaError]:
    """The slice's facts, read off the event loop; every failure is the layout family's canonical error."""
    result: Result[Any, ReaError] = await anyio.to_thread.run_sync(guarded, effect.path, _read(effect), MACHO_ACCEPTED)
    return result


HANDLERS = {ReadAppleMetadata: read_apple_metadata}
