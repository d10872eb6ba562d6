"""The load image of a DOS MZ or COM file, and checks that recompute it from the file.

Two routes over the same bytes. The loader builds memory: the module copied to the load segment and each
relocation added to its word there (the observations). The checks patch a copy of the file instead, hash
its ranges and test every header-declared extent against the file, naming the file offset of the field or
record at fault. A lying header never raises: what can be loaded is, the rest is a failed check."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from typing import Any, Literal

import attrs
from returns.result import Failure, Result, Success

from rea.errors import ReaError
from rea.native.dos import COM_MAX_BYTES, MZ_FIXED_HEADER, OFFSETS, PARAGRAPH, MzHeader, read_mz_header
from rea.native.records import load_image as w
from rea.wire.convert import to_wire

LOAD_SEGMENT = 0x1000
COM_ORIGIN = 0x100
DETAILED = 64  # per-record checks kept for failing relocations; the aggregate check counts them all
MZ_FORMAT, COM_FORMAT = "Old-style DOS Executable (MZ)", "Raw Binary"
LANGUAGE = "x86:LE:16:Real Mode"

LIMITATIONS = (
    "No analysis engine here loads DOS images (angr/cle cannot), so the observations are REA's own loader over "
    "the file bytes; the checks recompute them by a second route (a patched copy of the file) and test every "
    "header-declared extent against the file. verified means self-consistent and file-backed, not confirmed by "
    "a third-party loader.",
    "Load segment 0x1000 is a fixed analysis base, not a running DOS process: the PSP, DOS interrupts, "
    "initial memory contents and runtime behaviour are not modeled. Mapping ends are inclusive.",
    "A mismatching memory digest names its range, not the first differing byte inside it.",
)
MZ_LIMITATIONS = (
    "Bytes after the declared image (overlay_bytes) are in both file digests but are not loaded. The "
    "uninitialized e_minalloc allocation is reported as a block; its contents are not verified.",
)
COM_LIMITATIONS = (
    "DOS COM has no header to identify it: REA reads a file as COM when open_binary was given format dos-com, "
    "or when its name ends in .com and it has 1 to 65,280 bytes without another format's magic. CS, DS, ES and "
    "SS at entry are imposed (0x1000), not observed.",
)


def hexa(value: int) -> str:
    return f"0x{value:x}"


def hashlib_sha256(data: bytes | bytearray) -> str:
    return hashlib.sha256(data).hexdigest()


_sha = hashlib_sha256


def _u16(data: bytes | bytearray, offset: int) -> int:
    return int.from_bytes(data[offset : offset + 2], "little")


class _Checks:
    """The checks in the order they were made."""

    def __init__(self) -> None:
        self.rows: list[w.Check] = []

    def equal(self, name: str, expected: Any, observed: Any, at: int | None = None, address: str | None = None) -> None:
        self.rows.append(
            w.Check(
                name=name,
                matched=expected == observed,
                expected=expected,
                observed=observed,
                file_offset=at,
                address=address,
            )
        )

    def bound(
        self,
        name: str,
        observed: int,
        *,
        at: int | None,
        at_least: int | None = None,
        at_most: int | None = None,
        address: str | None = None,
    ) -> None:
        expected = {k: v for k, v in (("at_least", at_least), ("at_most", at_most)) if v is not None}
        ok = (at_least is None or observed >= at_least) and (at_most is None or observed <= at_most)
        self.rows.append(
            w.Check(name=name, matched=ok, expected=expected, observed=observed, file_offset=at, address=address)
        )


@attrs.frozen(kw_only=True)
class _Record:
    index: int
    at: int  # file offset of the record
    segment: int
    offset: int

    @property
    def target(self) -> int:
        """Offset of the patched word in the module."""
        return self.segment * PARAGRAPH + self.offset

    @property
    def address(self) -> str:
        return hexa(LOAD_SEGMENT * PARAGRAPH + self.target)


def _records(data: bytes, h: MzHeader) -> list[_Record]:
    """The relocation records that lie in the file, in table order (a table past the end stops there)."""
    found = []
    for i in range(h.e_crlc):
        at = h.e_lfarlc + 4 * i
        if at + 4 > len(data):
            break
        found.append(_Record(index=i, at=at, offset=_u16(data, at), segment=_u16(data, at + 2)))
    return found


def _fixup(image: bytearray, where: int) -> tuple[str, str, int]:
    """Add the load segment to the word at `where`: (before hex, after hex, new word)."""
    before = bytes(image[where : where + 2])
    word = (_u16(image, where) + LOAD_SEGMENT) & 0xFFFF
    image[where : where + 2] = word.to_bytes(2, "little")
    return before.hex(), bytes(image[where : where + 2]).hex(), word


def _relocate(memory: bytearray, records: Iterable[_Record], data: bytes, start: int) -> list[w.Relocation]:
    """Route one: patch memory; a record outside the loaded module is skipped, its file word kept."""
    rows = []
    for r in records:
        segment = (LOAD_SEGMENT + r.segment) & 0xFFFF
        if r.target + 2 <= len(memory):
            before, after, word = _fixup(memory, r.target)
            rows.append(
                w.Relocation(
                    address=r.address,
                    segment=segment,
                    offset=r.offset,
                    status="APPLIED",
                    type=0,
                    values=(r.segment, r.offset, word),
                    original_bytes_hex=before,
                    memory_bytes_hex=after,
                )
            )
            continue
        at = start + r.target
        original = data[at : at + 2].hex() if at + 2 <= len(data) else None
        rows.append(
            w.Relocation(
                address=r.address,
                segment=segment,
                offset=r.offset,
                status="SKIPPED",
                type=0,
                values=(r.segment, r.offset),
                original_bytes_hex=original,
                memory_bytes_hex=None,
            )
        )
    return rows


def _rows_digest(rows: Sequence[tuple[Any, ...]]) -> dict[str, Any]:
    """A multiset of relocation rows as {count, sha256}: order is not semantic, duplicates are."""
    listed = sorted(json.dumps(list(r), separators=(",", ":")) for r in rows)
    return {"count": len(listed), "sha256": _sha("\n".join(listed).encode())}


def _observed_rows(rows: Iterable[w.Relocation]) -> list[tuple[Any, ...]]:
    return [(r.address, r.status, list(r.values), r.original_bytes_hex, r.memory_bytes_hex) for r in rows]


@attrs.frozen(kw_only=True)
class _Extent:
    """Where the module sits in the file: [start, end), clamped to the file."""

    header: int  # header bytes present in the file
    start: int
    end: int


def _extent(h: MzHeader, size: int) -> _Extent:
    end = min(h.image_end, size)
    return _Extent(header=min(h.header_bytes, size), start=min(h.header_bytes, end), end=end)


def _mappings(data: bytes, x: _Extent, memory: bytes, base: int, allocation: int) -> tuple[w.MemoryMapping, ...]:
    rows = []
    if x.header:
        rows.append(
            w.MemoryMapping(
                block="HEADER",
                start="HEADER:0x0",
                end=f"HEADER:{hexa(x.header - 1)}",
                address_space="HEADER",
                initialized=True,
                loaded=False,
                overlay=True,
                length=x.header,
                source_file_index=0,
                file_offset=0,
                sha256=_sha(data[: x.header]),
            )
        )
    if memory:
        rows.append(
            w.MemoryMapping(
                block="MODULE",
                start=hexa(base),
                end=hexa(base + len(memory) - 1),
                address_space="ram",
                initialized=True,
                loaded=True,
                overlay=False,
                length=len(memory),
                source_file_index=0,
                file_offset=x.start,
                sha256=_sha(memory),
            )
        )
    if allocation:
        at = base + len(memory)
        rows.append(
            w.MemoryMapping(
                block="ALLOCATION",
                start=hexa(at),
                end=hexa(at + allocation - 1),
                address_space="ram",
                initialized=False,
                loaded=True,
                overlay=False,
                length=allocation,
                source_file_index=None,
                file_offset=None,
                sha256=None,
            )
        )
    return tuple(rows)


def _structure(c: _Checks, data: bytes, h: MzHeader, records: Sequence[_Record], module: int) -> None:
    """The header's declared extents against each other and the file, at the field or record at fault."""
    c.equal("mz_signature", "MZ", data[:2].decode("latin-1"), 0)
    c.bound("final_page_size", h.e_cblp, at=OFFSETS["e_cblp"], at_most=511)
    c.bound("page_count", h.e_cp, at=OFFSETS["e_cp"], at_least=1)
    c.bound("header_size", h.header_bytes, at=OFFSETS["e_cparhdr"], at_least=MZ_FIXED_HEADER)
    c.bound("header_within_image", h.header_bytes, at=OFFSETS["e_cparhdr"], at_most=h.image_end - 1)
    c.bound("image_within_file", h.image_end, at=OFFSETS["e_cp"], at_most=len(data))
    if h.e_crlc:
        table_end = h.e_lfarlc + 4 * h.e_crlc
        c.bound("relocation_table_start", h.e_lfarlc, at=OFFSETS["e_lfarlc"], at_least=MZ_FIXED_HEADER)
        c.bound("relocation_table_within_header", table_end, at=OFFSETS["e_lfarlc"], at_most=h.header_bytes)
        c.bound("relocation_table_within_file", table_end, at=OFFSETS["e_lfarlc"], at_most=len(data))
    outside = [r for r in records if r.target + 2 > module]
    first = outside[0] if outside else None
    c.equal(
        "relocations_within_module",
        0,
        len(outside),
        None if first is None else first.at,
        None if first is None else first.address,
    )
    for r in outside[:DETAILED]:
        c.bound(f"relocation[{r.index}].target_within_module", r.target + 2, at=r.at, at_most=module, address=r.address)
    entry = (LOAD_SEGMENT * PARAGRAPH) + h.e_cs * PARAGRAPH + h.e_ip
    c.bound(
        "entry_within_module", h.e_cs * PARAGRAPH + h.e_ip, at=OFFSETS["e_ip"], at_most=module - 1, address=hexa(entry)
    )


def _file_route(data: bytes, records: Iterable[_Record], x: _Extent) -> tuple[bytearray, list[tuple[Any, ...]]]:
    """Route two: patch a copy of the file at header + target, for the records that land in the module."""
    copy = bytearray(data)
    rows: list[tuple[Any, ...]] = []
    for r in records:
        at = x.start + r.target
        if r.target + 2 <= x.end - x.start:
            before, after, word = _fixup(copy, at)
            rows.append((r.address, "APPLIED", [r.segment, r.offset, word], before, after))
        else:
            rows.append(
                (
                    r.address,
                    "SKIPPED",
                    [r.segment, r.offset],
                    data[at : at + 2].hex() if at + 2 <= len(data) else None,
                    None,
                )
            )
    return copy, rows


def _cross(
    c: _Checks,
    obs: w.Observations,
    sha256: str,
    copy: bytes,
    rows: Sequence[tuple[Any, ...]],
    base: int,
    header: int,
    image_end: int,
) -> None:
    """The loader's observations against the file route."""
    source = obs.source_files[0]
    c.equal("source_file_size", len(copy), source.size)
    c.equal("original_file_sha256", sha256, source.original_sha256)
    c.equal("modified_file_sha256", _sha(copy), source.modified_sha256)
    c.equal("relocation_records", _rows_digest(rows), _rows_digest(_observed_rows(obs.relocations)))
    covered = 0
    backed = sorted((m for m in obs.mappings if m.file_offset is not None), key=lambda m: m.file_offset or 0)
    for i, m in enumerate(backed):
        at = m.file_offset or 0
        first = f"HEADER:{hexa(at)}" if m.address_space == "HEADER" else hexa(base + at - header)
        last = (
            f"HEADER:{hexa(at + m.length - 1)}"
            if m.address_space == "HEADER"
            else hexa(base + at - header + m.length - 1)
        )
        c.equal(f"mapping[{i}].file_coverage_start", covered, at, at, m.start)
        c.equal(f"mapping[{i}].start", first, m.start, at, m.start)
        c.equal(f"mapping[{i}].end", last, m.end, at, m.end)
        c.equal(f"mapping[{i}].memory_sha256", _sha(copy[at : at + m.length]), m.sha256, at, m.start)
        covered = at + m.length
    c.equal("initialized_file_coverage_end", image_end, covered)


def _source(name: str, data: bytes, x: _Extent, memory: bytes) -> w.SourceFile:
    loaded = data[: x.start] + memory + data[x.end :]
    return w.SourceFile(name=name, size=len(data), original_sha256=_sha(data), modified_sha256=_sha(loaded))


def _mz(data: bytes, name: str, sha256: str) -> Result[w.LoadImage, ReaError]:
    h = read_mz_header(data)
    if h is None:
        return Failure(_truncated(len(data)))
    x = _extent(h, len(data))
    records = _records(data, h)
    memory = bytearray(data[x.start : x.end])
    relocations = _relocate(memory, records, data, x.start)
    base = LOAD_SEGMENT * PARAGRAPH
    cs, ss = (LOAD_SEGMENT + h.e_cs) & 0xFFFF, (LOAD_SEGMENT + h.e_ss) & 0xFFFF
    entry = hexa(cs * PARAGRAPH + h.e_ip)
    registers = (("CS", cs), ("IP", h.e_ip), ("SS", ss), ("SP", h.e_sp))
    obs = _observations(
        MZ_FORMAT,
        _source(name, data, x, bytes(memory)),
        _mappings(data, x, bytes(memory), base, h.e_minalloc * PARAGRAPH),
        relocations,
        entry,
        registers,
    )
    c = _Checks()
    _structure(c, data, h, records, len(memory))
    copy, rows = _file_route(data, records, x)
    c.equal("entry_points", [entry], list(obs.entry_points), OFFSETS["e_ip"], entry)
    _cross(c, obs, sha256, bytes(copy), rows, base, x.start, h.image_end)
    entry_at = w.Entry(relative_segment=h.e_cs, offset=h.e_ip, linear_address=entry)
    return Success(
        _result(
            "dos-mz",
            sha256,
            h.header_bytes,
            len(memory),
            max(0, len(data) - h.image_end),
            entry_at,
            obs,
            c,
            MZ_LIMITATIONS,
        )
    )


def _com(data: bytes, name: str, sha256: str) -> w.LoadImage:
    memory = data[:COM_MAX_BYTES]
    base = LOAD_SEGMENT * PARAGRAPH + COM_ORIGIN
    entry = hexa(base)
    x = _Extent(header=0, start=0, end=len(memory))
    registers = tuple((r, LOAD_SEGMENT) for r in ("CS", "DS", "ES", "SS"))
    obs = _observations(
        COM_FORMAT, _source(name, data, x, memory), _mappings(data, x, memory, base, 0), [], entry, registers
    )
    c = _Checks()
    c.bound("com_size", len(data), at=0, at_least=1, at_most=COM_MAX_BYTES)
    c.equal("entry_points", [entry], list(obs.entry_points), 0, entry)
    context = [
        {
            "address": entry,
            "registers": [{"name": n, "value_hex": hexa(LOAD_SEGMENT)} for n in ("CS", "DS", "ES", "SS")],
        }
    ]
    c.equal("entry_context", context, [to_wire(e) for e in obs.entry_context])
    _cross(c, obs, sha256, data, [], base, 0, len(data))
    entry_at = w.Entry(relative_segment=0, offset=COM_ORIGIN, linear_address=entry)
    return _result("dos-com", sha256, 0, len(memory), 0, entry_at, obs, c, COM_LIMITATIONS)


def _observations(
    fmt: str,
    source: w.SourceFile,
    mappings: tuple[w.MemoryMapping, ...],
    relocations: Sequence[w.Relocation],
    entry: str,
    registers: Iterable[tuple[str, int]],
) -> w.Observations:
    context = w.EntryContext(
        address=entry, registers=tuple(w.Register(name=n, value_hex=hexa(v)) for n, v in registers)
    )
    return w.Observations(
        executable_format=fmt,
        language_id=LANGUAGE,
        compiler_spec_id="default",
        image_base="0x0",
        default_address_space="ram",
        source_files=(source,),
        mappings=mappings,
        relocations=tuple(relocations),
        entry_points=(entry,),
        entry_context=(context,),
    )


def _result(
    fmt: Literal["dos-mz", "dos-com"],
    sha256: str,
    header: int,
    module: int,
    overlay: int,
    entry: w.Entry,
    obs: w.Observations,
    c: _Checks,
    extra: tuple[str, ...],
) -> w.LoadImage:
    status: Literal["verified", "mismatch"] = "verified" if all(r.matched for r in c.rows) else "mismatch"
    return w.LoadImage(
        status=status,
        format=fmt,
        target_sha256=sha256,
        load_segment=LOAD_SEGMENT,
        header_bytes=header,
        module_bytes=module,
        overlay_bytes=overlay,
        entry=entry,
        observations=obs,
        checks=tuple(c.rows),
        limitations=(*LIMITATIONS, *extra),
    )


def _truncated(size: int) -> ReaError:
    return ReaError(
        code="target_unavailable",
        message=f"The target cannot be loaded as DOS MZ: its {size} bytes end inside the {MZ_FIXED_HEADER}-byte "
        "fixed header, so no field of it can be read.",
        details={"reason": "truncated_header", "size": size, "required": MZ_FIXED_HEADER},
        action="Open the complete DOS executable, or open a headerless COM program with format dos-com.",
    )


def load_image(data: bytes, fmt: str, name: str, sha256: str) -> Result[w.LoadImage, ReaError]:
    """The load image of `data` read as `fmt` (dos-mz or dos-com), with its checks; a header shorter than its
    fixed part is the error."""
    return Success(_com(data, name, sha256)) if fmt == "dos-com" else _mz(data, name, sha256)


def mismatches(result: w.LoadImage) -> list[w.Check]:
    """The checks that failed."""
    return [r for r in result.checks if not r.matched]
