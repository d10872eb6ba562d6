"""Ghidra's answers, translated into the provider-neutral snapshot the native tools read.

effects/native/ghidra_worker.py walks Ghidra's API and hands over plain data shaped on it:
Function.getName / getEntryPoint / getBody ranges (inclusive maxima), Reference.getReferenceType
names (UNCONDITIONAL_CALL, DATA, READ, ...), MemoryBlock facts, DecompileResults' C text, each
address as Address.toString() prints it ("00101139", "EXTERNAL:00000001"). Everything here is a
plain function of that data, so it is tested on recorded answers without a running Ghidra.

Ghidra loads a position-independent ELF at an image base of its own (0x100000 by default); REA
reports the binary's link-time addresses, so every default-space address is moved by
image_base - linked_base (the linked base comes from REA's own reading of the file). The data is
treated as hostile: a record with a missing or malformed field, a body overlapping another, or an
address outside every loaded memory block is left out and counted in `provider_notes`, never raised.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Mapping, Sequence
from typing import Any

import attrs
from returns.result import Failure, Result, Success

from rea.errors import ReaError

Raw = Mapping[str, Any]
_ADDRESS = re.compile(r"^(?:(?P<space>[A-Za-z_][A-Za-z0-9_.]*)::?)?(?:0x)?(?P<hex>[0-9a-fA-F]{1,16})$")
DEFAULT_SPACES = frozenset({"", "ram"})
EXTERNAL_SPACE = "EXTERNAL"
CALLS = frozenset(
    {
        "UNCONDITIONAL_CALL",
        "CONDITIONAL_CALL",
        "COMPUTED_CALL",
        "CALL_TERMINATOR",
        "COMPUTED_CALL_TERMINATOR",
        "CONDITIONAL_CALL_TERMINATOR",
        "CALL_OVERRIDE_UNCONDITIONAL",
        "CALLOTHER_OVERRIDE_CALL",
    }
)
FLOWS = frozenset(
    {
        "FALL_THROUGH",
        "FLOW",
        "UNCONDITIONAL_JUMP",
        "CONDITIONAL_JUMP",
        "COMPUTED_JUMP",
        "CONDITIONAL_COMPUTED_JUMP",
        "JUMP_TERMINATOR",
        "CONDITIONAL_TERMINATOR",
        "TERMINATOR",
        "JUMP_OVERRIDE_UNCONDITIONAL",
        "CALLOTHER_OVERRIDE_JUMP",
        "INDIRECTION",
    }
)
# Ghidra's data reference types, in the vocabulary the native tools share with angr's xrefs
DATA_KINDS = {
    "DATA": "offset",
    "DATA_IND": "offset",
    "PARAM": "offset",
    "EXTERNAL_REF": "offset",
    "READ": "read",
    "READ_IND": "read",
    "WRITE": "write",
    "WRITE_IND": "write",
    "READ_WRITE": "read_write",
    "READ_WRITE_IND": "read_write",
}
THUNK = "THUNK"
PROVENANCE = "Ghidra auto-analysis"
ENCODINGS = {"unicode": "utf-16le", "terminatedunicode": "utf-16le", "unicode32": "utf-32le"}
MAX_STRING = 512
FORMATS = (("elf", "elf"), ("portable executable", "pe"), ("(pe)", "pe"), ("mach-o", "mach-o"))
ARCHITECTURES = {("x86", 8): "x86_64", ("x86", 4): "x86", ("aarch64", 8): "arm64", ("arm", 4): "arm"}


# ------------------------------------------------------------------ addresses


def parse_address(text: object) -> tuple[str, int] | None:
    """(space, offset) of an address as Ghidra prints it ("00101139", "ram:00101139",
    "EXTERNAL:00000001", also with 0x), or None for anything else."""
    if not isinstance(text, str):
        return None
    match = _ADDRESS.match(text.strip())
    if match is None:
        return None
    return (match["space"] or ""), int(match["hex"], 16)


@attrs.frozen(kw_only=True)
class Space:
    """How Ghidra's default address space maps to link-time addresses, and what memory is loaded."""

    delta: int  # Ghidra offset - link-time address
    spans: tuple[tuple[int, int], ...]  # loaded memory as [start, end) link-time ranges, sorted

    def link(self, text: object) -> str | None:
        """The neutral address of a Ghidra address: link-time 0x hex, `extern:0x..` for externals."""
        parsed = parse_address(text)
        if parsed is None:
            return None
        space, offset = parsed
        if space in DEFAULT_SPACES:
            return f"0x{offset - self.delta:x}" if offset >= self.delta else None
        if space.upper() == EXTERNAL_SPACE:
            return f"extern:0x{offset:x}"
        return f"{space.lower()}:0x{offset:x}"

    def loaded(self, address: str | None) -> bool:
        """Whether a neutral address is in loaded memory (extern: counts: Ghidra made it an import)."""
        if address is None:
            return False
        if address.startswith("extern:"):
            return True
        if ":" in address:
            return False
        at = int(address, 16)
        index = bisect.bisect_right(self.spans, (at, 1 << 65)) - 1
        return index >= 0 and self.spans[index][0] <= at < self.spans[index][1]

    def ghidra(self, address: str) -> str:
        """A neutral ram address as the Ghidra address the worker asks about (the inverse of link)."""
        return f"{int(address, 16) + self.delta:x}"


def _int(value: object) -> int | None:
    """A whole number from an int or a 0x/decimal string (never a bool)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        text = value.strip().lower()
        try:
            return int(text, 16) if text.startswith("0x") else int(text, 10)
        except ValueError:
            return None
    return None


def rows_of(raw: Raw, key: str) -> list[Mapping[str, Any]]:
    value = raw.get(key)
    if not isinstance(value, list):
        return []
    return [r for r in value if isinstance(r, Mapping)]


def _text(row: Mapping[str, Any], key: str) -> str | None:
    value = row.get(key)
    return value if isinstance(value, str) and value else None


def _blocks_of(raw: Raw) -> list[Mapping[str, Any]]:
    return [b for b in rows_of(raw, "memory_blocks") if b.get("loaded", True) is not False and not _external_block(b)]


def _external_block(block: Mapping[str, Any]) -> bool:
    """Ghidra's EXTERNAL block holds made-up addresses for imports: it is not the binary's memory."""
    return block.get("external") is True or block.get("name") == EXTERNAL_SPACE


def space_of(raw: Raw) -> Result[Space, ReaError]:
    """The address mapping of one program (image base vs the file's linked base) and its loaded memory."""
    program = raw.get("program")
    if not isinstance(program, Mapping):
        return Failure(unreadable("the answer has no program record"))
    base = parse_address(program.get("image_base"))
    linked = _int((raw.get("file") or {}).get("linked_base")) if isinstance(raw.get("file"), Mapping) else None
    delta = 0 if base is None or linked is None else base[1] - linked
    staged = Space(delta=delta, spans=())
    spans = []
    for block in _blocks_of(raw):
        start, end = parse_address(block.get("start")), parse_address(block.get("end"))
        if start is None or end is None or start[0] not in DEFAULT_SPACES or end[1] < start[1]:
            continue
        spans.append((start[1] - staged.delta, end[1] - staged.delta + 1))
    return Success(Space(delta=delta, spans=tuple(sorted(spans))))


def unreadable(why: str) -> ReaError:
    return ReaError(
        code="unreadable_output",
        message=f"Ghidra's answer cannot be read: {why}.",
        details={"provider": "ghidra", "reason": "malformed-answer"},
        action="close_binary and open_binary again; if it persists, run `rea doctor --provider ghidra`.",
    )


class Notes:
    """Counts of records left out of a translation, reported as one limitation each."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}

    def add(self, why: str) -> None:
        self.counts[why] = self.counts.get(why, 0) + 1

    def lines(self) -> list[str]:
        return [f"Ghidra's answer: {n} {why}." for why, n in sorted(self.counts.items())]


# ---------------------------------------------------------------- loader facts


def _format(program: Mapping[str, Any]) -> str:
    text = str(program.get("executable_format") or "").lower()
    return next((fmt for needle, fmt in FORMATS if needle in text), "unknown")


def _architecture(program: Mapping[str, Any]) -> str:
    processor = str(program.get("processor") or "unknown").lower()
    size = _int(program.get("pointer_size")) or 0
    return ARCHITECTURES.get((processor, size), processor)


def _region(space: Space, block: Mapping[str, Any], kind: str) -> dict[str, Any] | None:
    start, end = space.link(block.get("start")), space.link(block.get("end"))
    name = _text(block, "name")
    if start is None or end is None or name is None or ":" in start or int(end, 16) < int(start, 16):
        return None
    size = int(end, 16) - int(start, 16) + 1  # MemoryBlock.getEnd() is the last byte
    return {
        "name": name,
        "start": start,
        "end": f"0x{int(start, 16) + size:x}",
        "size": size,
        "readable": block.get("read") is True,
        "writable": block.get("write") is True,
        "executable": block.get("execute") is True,
        "kind": kind,
    }


def _symbols(raw: Raw, space: Space, sizes: Mapping[str, int], notes: Notes) -> list[dict[str, Any]]:
    """The binary's own symbol table (SourceType IMPORTED) and its imports; analysis names are not symbols."""
    rows: list[dict[str, Any]] = []
    seen: set[tuple[str, str | None]] = set()
    for sym in rows_of(raw, "symbols"):
        name, address = _text(sym, "name"), space.link(sym.get("address"))
        if sym.get("source") != "IMPORTED" or sym.get("external") is True:
            continue
        if name is None or address is None or not space.loaded(address) or (name, address) in seen:
            notes.add("symbol(s) without a name or with an address outside loaded memory, left out")
            continue
        seen.add((name, address))
        function = sym.get("symbol_type") == "Function"
        rows.append(
            {
                "name": name,
                "address": address,
                "kind": "function" if function else "other",
                "source": "primary",
                "size": sizes.get(address, 0) if function else 0,
                "exported": sym.get("external_entry_point") is True,
            }
        )
    for ext in rows_of(raw, "externals"):
        name = _text(ext, "name")
        if name is None or (name, None) in seen:
            continue
        seen.add((name, None))
        kind = "function" if ext.get("function", True) is True else "other"
        rows.append({"name": name, "address": None, "kind": kind, "source": "external", "size": 0, "exported": False})
    return rows


def strings_of(raw: Raw, space: Space, notes: Notes) -> list[dict[str, Any]]:
    rows = []
    for item in rows_of(raw, "strings"):
        address, value = space.link(item.get("address")), item.get("value")
        if address is None or not isinstance(value, str) or not space.loaded(address):
            notes.add("string(s) without a value or outside loaded memory, left out")
            continue
        kind = str(item.get("data_type") or "string").lower()
        rows.append(
            {
                "address": address,
                "value": value[:MAX_STRING],
                "truncated": len(value) > MAX_STRING,
                "encoding": ENCODINGS.get(kind, "utf-8"),
                "length": _int(item.get("length")) or len(value.encode()),
                "section": None,
            }
        )
    return sorted(rows, key=lambda r: int(r["address"], 16))


def loader_facts(raw: Raw) -> Result[dict[str, Any], ReaError]:
    """The loader part of the snapshot: format, architecture, memory, symbols, entry and strings."""
    if not isinstance(raw, Mapping):
        return Failure(unreadable("the answer is not an object"))
    return space_of(raw).map(lambda space: _loader(raw, space))


def _loader(raw: Raw, space: Space) -> dict[str, Any]:
    program: Mapping[str, Any] = raw["program"]
    file: Mapping[str, Any] = raw["file"] if isinstance(raw.get("file"), Mapping) else {}
    notes = Notes()
    regions = [_region(space, b, "segment") for b in _blocks_of(raw)]
    segments = sorted((r for r in regions if r is not None), key=lambda r: int(r["start"], 16))
    for _ in range(len(regions) - len(segments)):
        notes.add("memory block(s) without a name or a valid start and end, left out")
    sizes = {p.address: p.size for p in functions_of(raw, space, Notes())}
    symbols = _symbols(raw, space, sizes, notes)
    entry = _int(file.get("entry"))
    linked = _int(file.get("linked_base"))
    application: Mapping[str, Any] = raw["application"] if isinstance(raw.get("application"), Mapping) else {}
    return {
        "format": _format(program),
        "architecture": _architecture(program),
        "arch_name": str(program.get("language_id") or "unknown"),
        "bits": (_int(program.get("pointer_size")) or 0) * 8,
        "endianness": "big" if program.get("big_endian") is True else "little",
        "entry": None if entry is None else f"0x{entry:x}",
        "pic": file.get("pic") is True,
        "linked_base": f"0x{linked or 0:x}",
        "stripped": not any(s["kind"] == "function" and s["source"] == "primary" for s in symbols),
        "sections": [{**s, "kind": "section"} for s in segments],
        "segments": segments,
        "symbols": symbols,
        "engine": {"name": "ghidra", "version": str(application.get("version") or "unknown")},
        "scanned_strings": strings_of(raw, space, notes),
        "function_starts": [],
        "macho_filetype": None,
        "go": None,
        "provider_notes": notes.lines(),
    }


# ------------------------------------------------------------------ procedures


def ranges_of(space: Space, rows: object) -> list[tuple[int, int]] | None:
    """A body's address ranges as [start, end) link-time integers; None when any is malformed."""
    if not isinstance(rows, list):
        return None
    spans = []
    for row in rows:
        if not isinstance(row, Mapping):
            return None
        low, high = space.link(row.get("min")), space.link(row.get("max"))
        if low is None or high is None or ":" in low or ":" in high or int(high, 16) < int(low, 16):
            return None
        if not (space.loaded(low) and space.loaded(high)):
            return None
        spans.append((int(low, 16), int(high, 16) + 1))
    return sorted(spans)


def subtract(spans: Sequence[tuple[int, int]], taken: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """spans minus every taken range (both sorted, half-open)."""
    left = list(spans)
    for lo, hi in taken:
        kept = []
        for a, b in left:
            if hi <= a or b <= lo:
                kept.append((a, b))
                continue
            if a < lo:
                kept.append((a, lo))
            if hi < b:
                kept.append((hi, b))
        left = kept
    return left


def _kind(fn: Mapping[str, Any], address: str) -> str:
    if fn.get("external") is True or address.startswith("extern:"):
        return "external"
    return "thunk" if fn.get("thunk") is True else "function"


@attrs.frozen(kw_only=True)
class Function:
    """One of Ghidra's functions as the adapter keeps it: its link-time entry, name and kind, its body as
    sorted half-open ranges (each byte with one function), and Ghidra's record itself (hostile data: its
    other fields are read where needed, defensively)."""

    address: str
    name: str
    kind: str
    body: tuple[tuple[int, int], ...]
    size: int = 0
    raw: Raw


def functions_of(raw: Raw, space: Space, notes: Notes) -> list[Function]:
    """Each function once, by entry, with its body: overlapping bytes stay with the lower entry."""
    found: dict[str, Function] = {}
    for fn in rows_of(raw, "functions"):
        address = space.link(fn.get("entry"))
        if address is None or not space.loaded(address):
            notes.add("function(s) without an entry in loaded memory, left out")
            continue
        if address in found:
            notes.add("duplicate function record(s) for one entry, the first kept")
            continue
        kind = _kind(fn, address)
        body = [] if kind == "external" else ranges_of(space, fn.get("body"))
        if body is None:
            notes.add("function(s) with a malformed body or one outside loaded memory, kept without a body")
            body = []
        name = _text(fn, "name") or (f"FUN_{address[2:]}" if ":" not in address else f"EXT_{address[9:]}")
        found[address] = Function(address=address, name=name, kind=kind, body=tuple(body), raw=fn)
    rows = []
    taken: list[tuple[int, int]] = []
    for row in sorted(found.values(), key=_order):
        kept = subtract(row.body, taken)
        if kept != list(row.body):
            notes.add("function body overlap(s), the shared bytes kept by the lower-addressed function")
        rows.append(attrs.evolve(row, body=tuple(kept), size=sum(b - a for a, b in kept)))
        taken = sorted([*taken, *kept])
    return rows


def _order(row: Function) -> tuple[bool, int]:
    return ":" in row.address, int(row.address.rpartition(":")[2], 16)
