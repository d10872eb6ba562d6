"""DOS MZ and COM: telling them apart from PE and from plain files, and reading the MZ header.

Pure functions of bytes a caller already holds. The header is read tolerantly (every field is
just a number); rea.native.load_image decides what a lying field means for the loaded image."""

from __future__ import annotations

import attrs

MZ_FIXED_HEADER = 28  # e_magic .. e_ovno
COM_MAX_BYTES = 0xFF00  # one 64 KiB segment minus the 256-byte PSP
PAGE = 512
PARAGRAPH = 16

# field -> file offset (the coordinates a check names)
OFFSETS = {
    "e_magic": 0x00,
    "e_cblp": 0x02,
    "e_cp": 0x04,
    "e_crlc": 0x06,
    "e_cparhdr": 0x08,
    "e_minalloc": 0x0A,
    "e_maxalloc": 0x0C,
    "e_ss": 0x0E,
    "e_sp": 0x10,
    "e_csum": 0x12,
    "e_ip": 0x14,
    "e_cs": 0x16,
    "e_lfarlc": 0x18,
    "e_ovno": 0x1A,
}


def _u16(data: bytes, offset: int) -> int:
    return int.from_bytes(data[offset : offset + 2], "little")


def windows_header_offset(head: bytes) -> int | None:
    """e_lfanew when the MZ header can hold one and declares it, else None.

    A short DOS header's bytes at 0x3c belong to its relocation table or load module, so they
    are not read as e_lfanew: the header must be 64 bytes or more (or 0, a bare stub) and the
    relocation records must not reach 0x3c."""
    if len(head) < 64:
        return None
    header = _u16(head, 8) * PARAGRAPH
    if header != 0 and header < 64:
        return None
    count, table = _u16(head, 6), _u16(head, 0x18)
    if header != 0 and count > 0 and table < 64 and table + count * 4 > 0x3C:
        return None
    offset = int.from_bytes(head[0x3C:0x40], "little")
    return offset or None


def is_dos_mz(head: bytes) -> bool:
    """An MZ image with no Windows (PE, NE, LE) header behind it: a DOS program."""
    return head[:2] == b"MZ" and windows_header_offset(head) is None


def com_by_name(name: str, size: int, detected: str) -> str:
    """dos-com for a file nothing else recognised whose name ends in .com and that fits one segment.

    COM has no magic, so the name and size are all there is; open_binary's format: dos-com asks
    for the interpretation explicitly whatever the name."""
    if detected == "file" and name.lower().endswith(".com") and 1 <= size <= COM_MAX_BYTES:
        return "dos-com"
    return detected


@attrs.frozen(kw_only=True)
class MzHeader:
    """The fixed header's fields, as numbers (nothing checked)."""

    e_cblp: int
    e_cp: int
    e_crlc: int
    e_cparhdr: int
    e_minalloc: int
    e_maxalloc: int
    e_ss: int
    e_sp: int
    e_ip: int
    e_cs: int
    e_lfarlc: int

    @property
    def header_bytes(self) -> int:
        return self.e_cparhdr * PARAGRAPH

    @property
    def image_end(self) -> int:
        """Where the declared image ends: e_cp pages, the last one e_cblp bytes long (0: full)."""
        return max(0, self.e_cp * PAGE - (PAGE - self.e_cblp if self.e_cblp else 0))


def read_mz_header(data: bytes) -> MzHeader | None:
    """The fixed header, or None when the file ends inside it."""
    if len(data) < MZ_FIXED_HEADER:
        return None
    names = [n for n in attrs.fields_dict(MzHeader)]
    return MzHeader(**{n: _u16(data, OFFSETS[n]) for n in names})
