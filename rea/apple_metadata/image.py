"""A Mach-O image as the metadata readers see it: segments over the slice's bytes, with bounds.

The effect layer hands over plain data (the slice's bytes, its segment table, the
symbol each bound pointer slot names, nlist names by address); every read here is
checked against a file-backed segment, so a pointer outside the image, a string
without its terminator or a list longer than its section ends that record's
decoding (`OutsideImage`) instead of reading past the end.
"""

from __future__ import annotations

import struct
from collections.abc import Mapping
from typing import Any

import attrs

from rea.apple_metadata.records import Location

MAX_STRING = 4096
# LC_DYLD_CHAINED_FIXUPS pointer formats whose rebases this reader decodes
CHAINED_64, CHAINED_64_OFFSET = 2, 6
CHAINED_ARM64E = frozenset({1, 9, 12})


class OutsideImage(Exception):
    """A read that the image's file-backed segments do not cover (said with the address)."""


@attrs.frozen(kw_only=True)
class Segment:
    name: str
    vmaddr: int
    vmsize: int
    fileoff: int
    filesize: int


@attrs.frozen(kw_only=True)
class Section:
    segment: str
    name: str
    addr: int
    size: int


@attrs.frozen(kw_only=True)
class Pointer:
    """A decoded pointer slot: a target address inside the image, or the external symbol it binds."""

    target: int | None
    bound: str | None


@attrs.frozen(kw_only=True)
class MachImage:
    data: bytes
    segments: tuple[Segment, ...]
    sections: tuple[Section, ...]
    binds: Mapping[int, str] = attrs.field(factory=dict)
    symbols: Mapping[int, str] = attrs.field(factory=dict)
    chained_format: int | None = None
    base: int = 0
    is64: bool = True
    little_endian: bool = True

    def file_offset(self, addr: int, size: int = 1) -> int:
        """The file offset of [addr, addr+size) when one file-backed segment holds all of it."""
        for seg in self.segments:
            if seg.vmaddr <= addr and addr + size <= seg.vmaddr + min(seg.vmsize, seg.filesize):
                offset = seg.fileoff + (addr - seg.vmaddr)
                if offset + size <= len(self.data):
                    return offset
        raise OutsideImage(f"0x{addr:x} (+{size}) is outside every file-backed segment")

    def offset_or_none(self, addr: int) -> int | None:
        try:
            return self.file_offset(addr)
        except OutsideImage:
            return None

    def _unpack(self, fmt: str, addr: int) -> Any:
        size = struct.calcsize(fmt)
        return struct.unpack_from(("<" if self.little_endian else ">") + fmt, self.data, self.file_offset(addr, size))[
            0
        ]

    def u32(self, addr: int) -> int:
        return int(self._unpack("I", addr))

    def i32(self, addr: int) -> int:
        return int(self._unpack("i", addr))

    def u64(self, addr: int) -> int:
        return int(self._unpack("Q", addr))

    def cstring(self, addr: int) -> str:
        start = self.file_offset(addr)
        end = self.data.find(b"\0", start, start + MAX_STRING)
        if end < 0:
            raise OutsideImage(f"the string at 0x{addr:x} has no terminator within {MAX_STRING} bytes")
        return self.data[start:end].decode("utf-8", "replace")

    def relative(self, addr: int) -> int | None:
        """A signed 32-bit offset relative to its own field; 0 means null."""
        offset = self.i32(addr)
        return None if offset == 0 else addr + offset

    def pointer(self, addr: int) -> Pointer:
        """The pointer slot at `addr`: a bind names its symbol; a rebase is decoded per the image's format."""
        bound = self.binds.get(addr)
        if bound is not None:
            return Pointer(target=None, bound=bound)
        raw = self.u64(addr)
        fmt = self.chained_format
        if fmt in (CHAINED_64, CHAINED_64_OFFSET):
            if raw >> 63:
                return Pointer(target=None, bound=None)  # a bind lief did not name
            target = (raw & 0xF_FFFF_FFFF) | (((raw >> 36) & 0xFF) << 56)
            return Pointer(target=target + (self.base if fmt == CHAINED_64_OFFSET else 0), bound=None)
        if fmt in CHAINED_ARM64E:
            if raw >> 63:
                return Pointer(target=None, bound=None)
            if (raw >> 62) & 1:  # authenticated rebase: a 32-bit offset from the image base
                return Pointer(target=self.base + (raw & 0xFFFF_FFFF), bound=None)
            return Pointer(target=raw & 0x7FF_FFFF_FFFF, bound=None)
        return Pointer(target=raw or None, bound=None)

    def target(self, addr: int) -> int | None:
        """The in-image address a pointer slot holds (None for null or an external bind)."""
        return self.pointer(addr).target

    def section(self, segment_names: tuple[str, ...], name: str) -> Section | None:
        return next((s for s in self.sections if s.name == name and s.segment in segment_names), None)

    def location(self, addr: int | None) -> Location:
        if addr is None:
            return Location(address=None, file_offset=None)
        return Location(address=f"0x{addr:x}", file_offset=self.offset_or_none(addr))


def image_of(facts: Mapping[str, Any]) -> MachImage:
    """The image from the reader's plain facts."""
    return MachImage(
        data=facts["data"],
        segments=tuple(Segment(**s) for s in facts["segments"]),
        sections=tuple(Section(**s) for s in facts["sections"]),
        binds={int(k): v for k, v in facts["binds"].items()},
        symbols={int(k): v for k, v in facts["symbols"].items()},
        chained_format=facts.get("chained_format"),
        base=facts.get("base", 0),
        is64=facts["is64"],
        little_endian=facts["little_endian"],
    )
