"""Text runs in a data section, in every encoding binaries store: ASCII/UTF-8, UTF-16LE/BE and
UTF-32LE/BE, each with its encoding, the bytes it occupies and its terminator; and how the runs join
the strings angr's CFG found at referenced addresses.

A wide string read as ASCII is one character long (`"&"` of `"&\\0l\\0t\\0;\\0"`), so reading only
ASCII loses it and a search for its text finds nothing. The rules, which the property laws check:

- A run is at least `MIN_CHARS` characters, every character printable (ASCII printable, tab, newline,
  carriage return; in UTF-8 also any well-formed non-control multi-byte sequence, so a run always
  decodes strictly). Its `value` is exactly `bytes[offset : offset + length - terminator]` decoded in
  its encoding; `length` counts the terminator when there is one.
- A UTF-8 run ends at a NUL byte, its terminator: C strings are terminated, and text not followed by
  a NUL is usually the tail of other data.
- A wide run (UTF-16, UTF-32) starts at its natural alignment (2 or 4 bytes: a misaligned wide run is
  noise, or another run's tail in the other byte order) and ends at a NUL code unit (its terminator),
  or else, unterminated, at the first code unit that is not text or at the end of the section.
- A table of wide strings is one run. Compilers store wide escape tables (markupsafe's `_speedups`
  keeps `&#34` `&#39` `&amp` `&lt;` `&gt;` as 8-byte UTF-16 and 16-byte UTF-32 vector constants) packed
  back to back with no terminator between entries, so nothing in the bytes tells where an entry ends:
  an entry is whatever a reference points at, and the run is the maximal stretch of text code units,
  entries shorter than `MIN_CHARS` included. An entry with its own NUL terminator ends the run, so
  NUL-separated entries are runs of their own (and one shorter than `MIN_CHARS` is not reported).
- One byte belongs to one run: wider encodings are read first (a UTF-32 run is not also UTF-16 text
  and a one-character UTF-8 string), and a narrower run meeting a wider one stops before it.

Joining the CFG's strings (`with_scanned`): angr reports referenced addresses with a guessed extent
(bounded by the next referenced address, so inside a UTF-16 table it reads one-character UTF-8 strings
"&"), and its content may run on past that extent. A CFG string is first re-read exactly from its
bytes (`decoded`). Then no reported string starts inside another: a CFG string inside a scanned run is
folded into it and its references are kept on the run. Go stores its strings back to back without
terminators and addresses them by pointer and length, so in a Go binary (`length_addressed`) a CFG
string inside a run in the same encoding instead splits the run at its address: the referenced
string, and the rest of the run before and after it, are strings of their own.
"""

from __future__ import annotations

import bisect
import re
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, Literal

import attrs

MIN_CHARS = 4
# characters a reported value keeps: a longer text is reported truncated (its length stays exact)
MAX_STRING = 512
ASCII = rb"[\x20-\x7e\t\n\r]"
# well-formed UTF-8 multi-byte sequences, C1 controls (U+0080..U+009F) and surrogates left out
UTF8_WIDE = (
    rb"\xc2[\xa0-\xbf]|[\xc3-\xdf][\x80-\xbf]|\xe0[\xa0-\xbf][\x80-\xbf]|[\xe1-\xec\xee\xef][\x80-\xbf]{2}"
    rb"|\xed[\x80-\x9f][\x80-\xbf]|\xf0[\x90-\xbf][\x80-\xbf]{2}|[\xf1-\xf3][\x80-\xbf]{3}|\xf4[\x80-\x8f][\x80-\xbf]{2}"
)
CODECS = {
    "utf-8": "utf-8",
    "utf-16le": "utf-16-le",
    "utf-16be": "utf-16-be",
    "utf-32le": "utf-32-le",
    "utf-32be": "utf-32-be",
}
WIDTHS = {"utf-8": 1, "utf-16le": 2, "utf-16be": 2, "utf-32le": 4, "utf-32be": 4}


# Per byte of a wide code unit: the character's byte is classed text (1), NUL (2) or other (4), and each
# other byte of the unit must be zero (0) or it spoils the unit (4). OR-ing the lanes classes every code
# unit at C speed, and a literal-prefixed regex over the classes finds the runs, aligned by construction.
# (A pattern that demands the terminator, `(?:text){4,}\x00`, backtracks through every suffix of a long
# unterminated run: 31 s on a Go binary's 2 MB .rodata. Maximal runs, the terminator checked after, are linear.)
_CHAR = bytes(1 if re.fullmatch(ASCII, bytes([b])) else 2 if b == 0 else 4 for b in range(256))
_ZERO = bytes(0 if b == 0 else 4 for b in range(256))
_UNITS = re.compile(b"\x01" * MIN_CHARS + b"+")
# UTF-8 candidates: bytes that may be text (ASCII text, any byte of a multi-byte sequence) as `a`, NUL as 0
_MAYBE = bytes(97 if re.fullmatch(ASCII, bytes([b])) or 0x80 <= b <= 0xF4 else 0 if b == 0 else 120 for b in range(256))
_BYTES = re.compile(b"a" * MIN_CHARS + b"+")
_UTF8_TEXT = re.compile(rb"(?:" + ASCII + rb"|" + UTF8_WIDE + rb")+")
# the wide encodings, widest first (a byte belongs to one run), each with the unit's byte holding the character
WIDE: tuple[tuple[str, int, int], ...] = (
    ("utf-32be", 4, 3),
    ("utf-32le", 4, 0),
    ("utf-16be", 2, 1),
    ("utf-16le", 2, 0),
)


@attrs.frozen(kw_only=True)
class Run:
    """Text at `offset`: `length` bytes in `encoding`, the last `terminator` of them its NUL terminator."""

    offset: int
    value: str
    encoding: str
    length: int
    terminator: int


def runs(data: bytes) -> Iterator[Run]:
    """Every run in `data`, ordered by offset; a byte belongs to one run."""
    found: list[Run] = []
    taken = bytearray(len(data))
    for encoding, width, lane in WIDE:
        classes = _unit_classes(data, width, lane)
        for match in _UNITS.finditer(classes):
            run = _unclaimed(data, taken, encoding, width, match.start(), match.end(), classes)
            if run is not None:
                found.append(run)
                taken[run.offset : run.offset + run.length] = b"\x01" * run.length
    for run in _utf8(data):
        if taken.find(1, run.offset, run.offset + run.length) < 0:
            found.append(run)
    found.sort(key=lambda r: r.offset)
    yield from found


def _unit_classes(data: bytes, width: int, lane: int) -> bytes:
    """One class byte per whole code unit of `data` (see `_CHAR`)."""
    count = len(data) // width
    if not count:
        return b""
    end = count * width
    merged = int.from_bytes(data[lane:end:width].translate(_CHAR), "big")
    for other in range(width):
        if other != lane:
            merged |= int.from_bytes(data[other:end:width].translate(_ZERO), "big")
    return merged.to_bytes(count, "big")


def _unclaimed(
    data: bytes, taken: bytearray, encoding: str, width: int, first: int, last: int, classes: bytes
) -> Run | None:
    """Code units [first, last) as a run with the NUL unit after it if any, stopped before the first byte
    a wider run holds (then unterminated)."""
    terminated = last < len(classes) and classes[last] == 2
    start, text_end = first * width, last * width
    end = text_end + width * terminated
    clash = taken.find(1, start, end)
    if clash >= 0:
        text_end = end = clash - (clash - start) % width
        if (end - start) // width < MIN_CHARS:
            return None
    value = data[start:text_end].decode(CODECS[encoding])
    return Run(offset=start, value=value, encoding=encoding, length=end - start, terminator=end - text_end)


def _utf8(data: bytes) -> Iterator[Run]:
    """NUL-terminated UTF-8 runs: byte spans that may be text, checked exactly only when not plain ASCII."""
    for span in _BYTES.finditer(data.translate(_MAYBE)):
        start, end = span.start(), span.end()
        if end >= len(data) or data[end]:
            continue
        if not data.isascii() and not data[start:end].isascii():
            stretches = deque(_UTF8_TEXT.finditer(data, start, end), maxlen=1)
            text = stretches[0] if stretches else None  # the last well-formed stretch must reach the NUL
            if text is None or text.end() != end:
                continue
            start = text.start()
        value = data[start:end].decode()
        if len(value) >= MIN_CHARS:
            yield Run(offset=start, value=value, encoding="utf-8", length=end + 1 - start, terminator=1)


def decoded(raw: bytes, encoding: str) -> Run | None:
    """`raw` (a CFG string's bytes, its terminator included when angr counted one) read exactly: the
    text before the first NUL code unit, that code unit as its terminator, or None when the text is
    not well-formed in `encoding` or is empty."""
    width = WIDTHS.get(encoding)
    if width is None:
        return None
    end = 0
    while end + width <= len(raw) and raw[end : end + width] != b"\0" * width:
        end += width
    try:
        value = raw[:end].decode(CODECS[encoding])
    except UnicodeDecodeError:
        return None
    terminator = width if end + width <= len(raw) else 0
    return (
        Run(offset=0, value=value, encoding=encoding, length=end + terminator, terminator=terminator) if end else None
    )


def row(address: str, run: Run, **extra: Any) -> dict[str, Any]:
    """A snapshot string with its whole value (answers cut it to `MAX_STRING` characters: `shown`)."""
    return {
        "address": address,
        "value": run.value,
        "truncated": False,
        "encoding": run.encoding,
        "length": run.length,
        "terminator": run.terminator,
        **extra,
    }


def termination(s: Mapping[str, Any]) -> Literal["missing", "present_or_not_required"]:
    """The wire's termination: a string without a NUL terminator after it says so."""
    return "missing" if s.get("terminator", 1) == 0 else "present_or_not_required"


def shown(s: Mapping[str, Any]) -> tuple[str, bool]:
    """The value an answer carries (at most `MAX_STRING` characters) and whether it was cut."""
    value = s["value"]
    return value[:MAX_STRING], bool(s.get("truncated")) or len(value) > MAX_STRING


# ------------------------------------------------------------------ joining the CFG's strings


@attrs.frozen(kw_only=True)
class Joining:
    """A string while the CFG's strings are joined to the scan: its start as a number, and whether it was
    read from the bytes (`read`: a scanned run, or a part cut from one; only these may be split). A row
    without a `terminator` (Ghidra's) stays without one unless it is cut (`stated`: the row had one; a cut
    one's is written after its referrers, where the joined rows always had it)."""

    address: str
    start: int
    value: str | None
    truncated: bool
    encoding: str
    length: int
    terminator: int | None
    referenced_by: tuple[str, ...]
    read: bool
    stated: bool

    @classmethod
    def of(cls, s: Mapping[str, Any], read: bool) -> Joining:
        address = s["address"]
        return cls(
            address=address,
            start=-1 if ":" in address else int(address, 16),
            value=s["value"],
            truncated=s["truncated"],
            encoding=s["encoding"],
            length=s["length"],
            terminator=s.get("terminator"),
            referenced_by=tuple(s.get("referenced_by", ())),
            read=read,
            stated="terminator" in s,
        )

    @property
    def end(self) -> int:
        return self.start + int(self.length)

    def to_json(self) -> dict[str, Any]:
        """The snapshot row, its keys in the order the joined rows always had."""
        terminator = {} if self.terminator is None else {"terminator": self.terminator}
        return {
            "address": self.address,
            "value": self.value,
            "truncated": self.truncated,
            "encoding": self.encoding,
            "length": self.length,
            **(terminator if self.stated else {}),
            "referenced_by": list(self.referenced_by),
            **({} if self.stated else terminator),
        }


def with_scanned(
    recovered: Iterable[Mapping[str, Any]], scanned: Iterable[Mapping[str, Any]], *, length_addressed: bool = False
) -> list[dict[str, Any]]:
    """The CFG's strings joined to the section scan (see the module docstring): no string starts inside
    another, each is at least `MIN_CHARS` characters, and references stay on the string that holds them.
    A scanned run wins over a CFG string at its address (its extent is read from the bytes, angr's is
    guessed); a CFG string that is not text of its own (`value` None) only lends its references."""
    opaque: list[Joining] = []
    candidates: list[tuple[int, Joining]] = []
    for rank, source in enumerate((scanned, recovered)):
        for s in source:
            r = Joining.of(s, read=rank == 0)
            if r.start < 0:  # a segment:offset address has no byte order to place it by
                opaque.append(attrs.evolve(r, read=False))
            else:
                candidates.append((rank, r))
    kept: list[Joining] = []
    for _, r in sorted(candidates, key=lambda c: (c[1].start, c[0])):
        _place(kept, r, length_addressed)
    shown = (r for r in kept if r.truncated or len(r.value or "") >= MIN_CHARS)
    return [r.to_json() for r in (*shown, *opaque)]


def _place(kept: list[Joining], r: Joining, length_addressed: bool) -> None:
    """`r` kept, or cutting the CFG string it starts in, or splitting the run it starts in (a
    length-addressed string inside a scanned run), or lending its references to the string it is in."""
    index = _holding(kept, r.start)
    if index is None:
        if r.read or (r.value is not None and len(r.value) >= MIN_CHARS):
            kept.append(r)  # candidates come in address order: nothing kept starts after it
        return
    holder = kept[index]
    at = r.start - holder.start
    if r.read:  # a guessed CFG extent runs into a run read from the bytes: the CFG string stops before it
        head = _head(holder, at)
        kept[index : index + 1] = [head, r] if head is not None else [r]
    elif at and length_addressed and holder.read and _piece_of(r, holder, at):
        kept[index : index + 1] = _split(holder, at, r)
    else:
        kept[index] = _lend(holder, r)


def _holding(kept: list[Joining], start: int) -> int | None:
    """The index of the kept string holding `start`: one of the last few, as candidates come in address
    order and only a split leaves a string after the one a later candidate falls in."""
    for index in range(len(kept) - 1, max(len(kept) - 4, 0) - 1, -1):
        if kept[index].start <= start:
            return index if start < kept[index].end else None
    return None


def _lend(holder: Joining, r: Joining) -> Joining:
    """The holder with `r`'s references kept on it (the string that holds `r`'s address)."""
    return attrs.evolve(holder, referenced_by=tuple(sorted({*holder.referenced_by, *r.referenced_by})))


def _piece_of(r: Joining, holder: Joining, at: int) -> bool:
    """A CFG string that is a string of its own inside a run: long enough to report, in the same encoding,
    on a character boundary (a shorter one would only break the run into pieces too short to report)."""
    return (
        r.value is not None
        and len(r.value) >= MIN_CHARS
        and r.encoding == holder.encoding
        and at % WIDTHS[r.encoding] == 0
    )


def _split(holder: Joining, at: int, r: Joining) -> list[Joining]:
    """The run cut at a length-addressed string inside it: the part before, the string, the part after."""
    piece = r if r.end <= holder.end else _head(r, holder.end - r.start)
    if piece is None or len(piece.value or "") < MIN_CHARS:  # too short once cut at the run's end: not a piece
        return [_lend(holder, r)]
    head = _head(holder, at)
    tail = _tail(holder, piece.end - holder.start) if piece.end < holder.end else None
    return [x for x in (head, piece, tail) if x is not None]


def _bytes(r: Joining) -> bytes:
    return str(r.value).encode(CODECS[r.encoding])


def _head(r: Joining, size: int) -> Joining | None:
    """The first `size` bytes of `r` as a string without terminator (None when no character fits)."""
    raw = _bytes(r)
    if r.truncated and len(raw) <= size:  # the value is already shorter than the head: still a prefix
        return attrs.evolve(r, length=size, terminator=0)
    cut = raw[:size]
    for trim in range(4):  # a multi-byte character cut in two is left out
        try:
            value = cut[: len(cut) - trim].decode(CODECS[r.encoding])
        except UnicodeDecodeError:
            continue
        text = len(cut) - trim
        return attrs.evolve(r, value=value, truncated=False, length=text, terminator=0) if text else None
    return None


def _tail(r: Joining, skip: int) -> Joining | None:
    """`r` after its first `skip` bytes, a string of its own with `r`'s terminator (None when unknown)."""
    raw = _bytes(r)
    if r.truncated or skip >= len(raw):
        return None
    while r.encoding == "utf-8" and skip < len(raw) and 0x80 <= raw[skip] < 0xC0:
        skip += 1  # a character the piece before cut in two belongs to neither
    if skip >= len(raw):
        return None
    value = raw[skip:].decode(CODECS[r.encoding])
    start = r.start + skip
    return attrs.evolve(r, address=f"0x{start:x}", start=start, value=value, length=r.length - skip, referenced_by=())


def holders(strings: Iterable[Mapping[str, Any]]) -> Callable[[str], str | None]:
    """Address -> the reported string holding it (a procedure's reference into a table names the table)."""
    rows = sorted(
        (int(s["address"], 16), int(s["address"], 16) + int(s["length"]), s["address"])
        for s in strings
        if ":" not in s["address"]
    )
    starts = [r[0] for r in rows]

    def holder(address: str) -> str | None:
        if ":" in address:
            return None
        at = int(address, 16)
        index = bisect.bisect_right(starts, at) - 1
        return rows[index][2] if index >= 0 and at < rows[index][1] else None

    return holder
