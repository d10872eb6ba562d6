"""Terminated text runs in a data section, in every encoding binaries store: ASCII/UTF-8, UTF-16LE/BE
and UTF-32LE/BE, each with its encoding and the bytes it occupies (terminator included).

A wide string read as ASCII is one character long (`"&"` of `"&\\0l\\0t\\0;\\0"`), so reading only
ASCII loses it and a search for its text finds nothing. Wide runs are taken at their natural
alignment, so one run is never also reported shifted by a byte in the other byte order.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

MIN_CHARS = 4
PRINTABLE = rb"[\x20-\x7e\t\n\r]"
# (encoding, pattern of the run and its terminator, bytes per character)
ENCODINGS: tuple[tuple[str, re.Pattern[bytes], int], ...] = (
    ("utf-8", re.compile(rb"((?:" + PRINTABLE + rb"|[\xc2-\xf4][\x80-\xbf]{1,3}){%d,})\x00" % MIN_CHARS), 1),
    ("utf-16le", re.compile(rb"((?:" + PRINTABLE + rb"\x00){%d,})\x00\x00" % MIN_CHARS), 2),
    ("utf-16be", re.compile(rb"((?:\x00" + PRINTABLE + rb"){%d,})\x00\x00" % MIN_CHARS), 2),
    ("utf-32le", re.compile(rb"((?:" + PRINTABLE + rb"\x00\x00\x00){%d,})\x00\x00\x00\x00" % MIN_CHARS), 4),
    ("utf-32be", re.compile(rb"((?:\x00\x00\x00" + PRINTABLE + rb"){%d,})\x00\x00\x00\x00" % MIN_CHARS), 4),
)
CODECS = {"utf-8": "utf-8", "utf-16le": "utf-16-le", "utf-16be": "utf-16-be", "utf-32le": "utf-32-le"}


def _decode(raw: bytes, encoding: str) -> str:
    return raw.decode(CODECS.get(encoding, "utf-32-be"), "replace")


def runs(data: bytes) -> Iterator[tuple[int, str, str, int]]:
    """(offset, text, encoding, byte length with terminator), ordered by offset; a byte belongs to one run."""
    found: list[tuple[int, str, str, int]] = []
    taken = bytearray(len(data))
    for encoding, pattern, width in ENCODINGS[::-1]:  # widest first: a UTF-32 run is not also UTF-16
        for match in _aligned(pattern, data, width):
            start, end = match.start(1), match.end()
            if taken.find(1, start, end) >= 0:
                continue
            taken[start:end] = b"\x01" * (end - start)
            found.append((start, _decode(match.group(1), encoding), encoding, end - start))
    yield from sorted(found)


def _aligned(pattern: re.Pattern[bytes], data: bytes, width: int) -> Iterator[re.Match[bytes]]:
    """Matches starting at a multiple of `width` (a misaligned wide run is noise, or another run's tail)."""
    at = 0
    while (match := pattern.search(data, at)) is not None:
        start = match.start(1)
        if start % width:
            at = start + (width - start % width)  # retry from the next aligned offset
            continue
        yield match
        at = match.end()


def with_scanned(recovered: Iterable[Mapping[str, Any]], scanned: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The CFG's strings completed by the section scan: a longer scanned decoding at the same address
    wins (angr reads a UTF-16 string's first character as a one-byte string) and keeps the references;
    scanned strings the CFG did not list join with no known references."""
    rows = {s["address"]: dict(s) for s in recovered}
    for s in scanned:
        held = rows.get(s["address"])
        if held is None:
            rows[s["address"]] = {k: v for k, v in s.items() if k != "section"} | {"referenced_by": []}
        elif s["length"] > held["length"]:
            held.update({k: s[k] for k in ("value", "truncated", "encoding", "length")})
    return sorted(rows.values(), key=lambda r: (":" in r["address"], int(r["address"].rpartition(":")[2], 16)))
