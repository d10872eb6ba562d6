"""Function starts and sizes from an ELF `.eh_frame` section: each FDE's pc range, nothing else.

pyelftools decodes every call-frame instruction of every entry, which takes a second on busybox; the
fast index needs only where each FDE's code begins and how long it is, so this walks the records and
reads the two pointers (in the CIE's `R` encoding) and skips the rest. Hostile input ends the walk at the
first record that does not fit: what was read before it is kept, nothing is read past the section.
"""

from __future__ import annotations

import struct

MAX_FDES = 1_000_000
# pointer formats (low nibble of a DW_EH_PE encoding): struct code and size; 0 is the target's pointer size
_FIXED = {0x02: ("<H", 2), 0x03: ("<I", 4), 0x04: ("<Q", 8), 0x0A: ("<h", 2), 0x0B: ("<i", 4), 0x0C: ("<q", 8)}


class _Stop(Exception):
    """A record runs past the section or uses an encoding this reader does not know."""


def _uleb(data: bytes, at: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if at >= len(data) or shift > 63:
            raise _Stop
        byte = data[at]
        at += 1
        result |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return result, at


def _sleb(data: bytes, at: int) -> tuple[int, int]:
    start = at
    result, at = _uleb(data, at)
    bits = 7 * (at - start)
    if data[at - 1] & 0x40:
        result -= 1 << bits
    return result, at


def _pointer(data: bytes, at: int, encoding: int, pointer_size: int, section_address: int) -> tuple[int, int]:
    """One encoded pointer at `at`; pc-relative values are made absolute, others kept as stored."""
    fmt = encoding & 0x0F
    if fmt == 0x00:
        code, size = ("<Q", 8) if pointer_size == 8 else ("<I", 4)
    elif fmt == 0x01:
        raw, end = _uleb(data, at)
        return raw, end
    elif fmt == 0x09:
        raw, end = _sleb(data, at)
        return raw, end
    elif fmt in _FIXED:
        code, size = _FIXED[fmt]
    else:
        raise _Stop
    if at + size > len(data):
        raise _Stop
    raw = struct.unpack_from(code, data, at)[0]
    if encoding & 0x70 == 0x10:  # pcrel: relative to the field's own address
        raw += section_address + at
    return raw & ((1 << (8 * pointer_size)) - 1), at + size


def _cie_encoding(data: bytes, at: int, end: int, pointer_size: int, section_address: int) -> int:
    """The FDE pointer encoding a CIE declares (its augmentation's `R`), absptr when it declares none."""
    version = data[at]
    at += 1
    nul = data.find(b"\x00", at, end)
    if nul < 0:
        raise _Stop
    augmentation = data[at:nul].decode("latin-1")
    at = nul + 1
    if "eh" in augmentation:
        at += pointer_size
    _, at = _uleb(data, at)  # code alignment
    _, at = _sleb(data, at)  # data alignment
    if version == 1:
        at += 1
    else:
        _, at = _uleb(data, at)
    if not augmentation.startswith("z"):
        return 0x00
    _, at = _uleb(data, at)
    for letter in augmentation[1:]:
        if letter == "R":
            return data[at]
        if letter == "P":
            _, at = _pointer(data, at + 1, data[at], pointer_size, section_address)
        elif letter == "L":
            at += 1
        elif letter not in "SBG":
            raise _Stop
    return 0x00


def fde_ranges(data: bytes, section_address: int, pointer_size: int) -> list[tuple[int, int]]:
    """(start, size) of every FDE whose start is not zero, in section order."""
    found: list[tuple[int, int]] = []
    encodings: dict[int, int] = {}
    at = 0
    try:
        while at + 4 <= len(data) and len(found) < MAX_FDES:
            length = struct.unpack_from("<I", data, at)[0]
            if length == 0:
                break
            header = 4
            if length == 0xFFFFFFFF:
                if at + 12 > len(data):
                    break
                length, header = struct.unpack_from("<Q", data, at + 4)[0], 12
            body, end = at + header, at + header + length
            if end > len(data) or length < 4:
                break
            pointer = struct.unpack_from("<I", data, body)[0]
            if pointer == 0:
                encodings[at] = _cie_encoding(data, body + 4, end, pointer_size, section_address)
            else:
                encoding = encodings.get(body - pointer)
                if encoding is not None and encoding != 0xFF:
                    start, after = _pointer(data, body + 4, encoding, pointer_size, section_address)
                    size, _ = _pointer(data, after, encoding & 0x0F, pointer_size, section_address)
                    if start:
                        found.append((start, size))
            at = end
    except (_Stop, IndexError, struct.error):
        pass
    return found
