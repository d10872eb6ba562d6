"""Go's strings, with their exact bytes: Go keeps string data back to back with no terminator, so a scan for
terminated runs sees one blob of thousands of strings, and a reader that guesses where one ends runs on into its
neighbours. The code says where each string is and how long: a string argument is an `lea` of its bytes
followed by a `mov` of its length (the register ABI's pointer and length), and a string constant kept in data
is a header of two words, pointer then length, which code references.

A candidate is kept only when its bytes are inside a data section and are printable UTF-8 of at least
MIN_CHARS characters, so a pointer-and-length pair that is not text is not reported as a string.
"""

from __future__ import annotations

import bisect
import struct
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from rea.native.sweep import Region

MIN_CHARS = 2
MAX_LENGTH = 1 << 16


class _Data:
    """The non-executable regions, for reads by address."""

    def __init__(self, regions: Iterable[Region]) -> None:
        self.regions = sorted((r for r in regions if not r.executable), key=lambda r: r.start)
        self.starts = [r.start for r in self.regions]

    def read(self, address: int, length: int) -> tuple[bytes, str] | None:
        index = bisect.bisect_right(self.starts, address) - 1
        if index < 0:
            return None
        region = self.regions[index]
        offset = address - region.start
        if offset + length > len(region.data):
            return None
        return region.data[offset : offset + length], region.name


def _text(raw: bytes) -> str | None:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if len(text) < MIN_CHARS or not all(c.isprintable() or c in "\t\n\r" for c in text):
        return None
    return text


def recover(
    regions: Sequence[Region], sized: Iterable[tuple[int, int]], targets: Iterable[int]
) -> tuple[list[dict[str, Any]], dict[int, int]]:
    """Go strings (rows in the scanned-string shape, unterminated) and, for each string header the code
    references, the string it names: {header address: string address}."""
    data = _Data(regions)
    found: dict[int, tuple[int, str, str]] = {}
    for address, length in sized:
        _keep(data, found, address, length)
    headers: dict[int, int] = {}
    for target in set(targets):
        header = data.read(target, 16)
        if header is None:
            continue
        pointer, length = struct.unpack("<QQ", header[0])
        if 0 < length <= MAX_LENGTH and _keep(data, found, pointer, length):
            headers[target] = pointer
    rows = [
        {
            "address": f"0x{address:x}",
            "value": text,
            "truncated": False,
            "encoding": "utf-8",
            "length": length,
            "terminator": 0,  # Go's strings have none: the code carries the length
            "section": section,
        }
        for address, (length, text, section) in sorted(found.items())
    ]
    return rows, headers


def _keep(data: _Data, found: dict[int, tuple[int, str, str]], address: int, length: int) -> bool:
    held = found.get(address)
    if held is not None and held[0] >= length:
        return True
    read = data.read(address, length)
    if read is None:
        return False
    text = _text(read[0])
    if text is None:
        return False
    found[address] = (length, text, read[1])
    return True


def without_overlaps(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Go strings share bytes (a string and its prefix, `"true"` inside `"true false"`): keep the longest of
    those that start at one address and drop any that start inside a kept one, so no reported string starts
    inside another. A reference to a dropped one still reaches the string that holds its bytes."""
    kept: list[dict[str, Any]] = []
    end = -1
    for row in sorted(rows, key=lambda r: (int(r["address"], 16), -r["length"])):
        start = int(row["address"], 16)
        if start < end:
            continue
        kept.append(dict(row))
        end = start + row["length"]
    return kept
