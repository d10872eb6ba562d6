"""Go's pclntab and build info, parsed from bytes: every Go binary keeps each function's name and extent.

Stripping (`-ldflags=-s -w`) removes the symbol table but not `runtime.pclntab`, which the
runtime needs for stack traces. Four header layouts exist, told apart by the magic:

| magic      | Go        | functab rows                       | name offsets relative to |
|------------|-----------|------------------------------------|--------------------------|
| 0xfffffffb | 1.2-1.15  | (entry uintptr, funcoff uintptr)   | the table start          |
| 0xfffffffa | 1.16-1.17 | (entry uintptr, funcoff uintptr)   | funcnametab              |
| 0xfffffff0 | 1.18-1.19 | (entryoff uint32, funcoff uint32)  | funcnametab, entries + textStart |
| 0xfffffff1 | 1.20+     | as 1.18                            | as 1.18                  |

Every offset and count is checked against the bytes actually given: a lying header
yields a typed problem (or fewer functions with a reason), never an exception.
"""

from __future__ import annotations

import re
import struct

import attrs

MAX_FUNCTIONS = 2_000_000
MAX_NAME = 4096
BUILDINFO_MAGIC = b"\xff Go buildinf:"
MODINFO_SENTINEL = 16  # modinfo is framed by 16 bytes of sentinel on each side
# runtime.buildVersion's bytes ("go1.19.8", "go1.21rc2"): the toolchain version every Go binary carries as data
_GO_VERSION = re.compile(rb"(?<![0-9.])go1\.\d{1,3}(?:\.\d{1,3})?(?:(?:rc|beta)\d{1,2})?(?![0-9]|\.[0-9])")
MAX_VERSION_CANDIDATES = 8


@attrs.frozen(kw_only=True)
class Layout:
    version: str  # the Go releases the header layout belongs to
    wide_functab: bool  # functab rows are uintptr pairs (before 1.18)
    names_from_table: bool  # nameoff is relative to the table start (1.2)
    has_text_start: bool


LAYOUTS = {
    0xFFFFFFFB: Layout(version="1.2", wide_functab=True, names_from_table=True, has_text_start=False),
    0xFFFFFFFA: Layout(version="1.16", wide_functab=True, names_from_table=False, has_text_start=False),
    0xFFFFFFF0: Layout(version="1.18", wide_functab=False, names_from_table=False, has_text_start=True),
    0xFFFFFFF1: Layout(version="1.20", wide_functab=False, names_from_table=False, has_text_start=True),
}


@attrs.frozen(kw_only=True)
class GoFunction:
    entry: int  # link-time virtual address
    size: int
    name: str


@attrs.frozen(kw_only=True)
class PcLnTable:
    layout: str  # "1.2" | "1.16" | "1.18" | "1.20"
    pointer_size: int
    big_endian: bool
    functions: tuple[GoFunction, ...]
    problems: tuple[str, ...]  # rows skipped and why (a lying offset, a name out of range)


@attrs.frozen(kw_only=True)
class Problem:
    reason: str


@attrs.frozen(kw_only=True)
class BuildInfo:
    go_version: str
    module_path: str | None
    main_version: str | None
    dependencies: tuple[tuple[str, str], ...]  # (module path, version)
    settings: tuple[tuple[str, str], ...]  # build key=value lines


class _Reader:
    """Bounds-checked fixed-width reads over the table bytes."""

    def __init__(self, data: bytes, big_endian: bool, pointer_size: int) -> None:
        self.data, self.order, self.ptr = data, ">" if big_endian else "<", pointer_size

    def word(self, offset: int, width: int) -> int | None:
        if offset < 0 or offset + width > len(self.data):
            return None
        code = {4: "I", 8: "Q"}[width]
        value: int = struct.unpack_from(self.order + code, self.data, offset)[0]
        return value

    def u32(self, offset: int) -> int | None:
        return self.word(offset, 4)

    def i32(self, offset: int) -> int | None:
        raw = self.u32(offset)
        return None if raw is None else raw - (1 << 32) if raw >= 1 << 31 else raw

    def uintptr(self, offset: int) -> int | None:
        return self.word(offset, self.ptr)

    def cstring(self, offset: int) -> str | None:
        if offset < 0 or offset >= len(self.data):
            return None
        end = self.data.find(b"\x00", offset, offset + MAX_NAME)
        if end < 0:
            return None
        return self.data[offset:end].decode("utf-8", "replace")


def candidates(data: bytes, limit: int = 64) -> list[int]:
    """Offsets of plausible pclntab headers in `data` (a PE or stripped image has no section name)."""
    found: list[int] = []
    for magic in LAYOUTS:
        for order in ("<", ">"):
            needle = struct.pack(order + "I", magic) + b"\x00\x00"
            start = 0
            while len(found) < limit and (at := data.find(needle, start)) >= 0:
                if _plausible_header(data, at):
                    found.append(at)
                start = at + 1
    return sorted(found)


def locate(data: bytes, text_start: int = 0) -> PcLnTable | None:
    """The first candidate table in `data` that parses to at least one function."""
    for at in candidates(data):
        table = parse(data[at:], text_start)
        if isinstance(table, PcLnTable) and table.functions:
            return table
    return None


def _plausible_header(data: bytes, at: int) -> bool:
    if at + 8 > len(data):
        return False
    quantum, pointer = data[at + 6], data[at + 7]
    return quantum in (1, 2, 4) and pointer in (4, 8)


def parse(data: bytes, text_start: int = 0) -> PcLnTable | Problem:
    """The function table of the pclntab that starts at data[0]. `text_start` stands in for the
    header's text address when that is 0 in the file (a PIE, where a relocation fills it at load)."""
    if len(data) < 16:
        return Problem(reason=f"the table has {len(data)} bytes, fewer than a header")
    little, big = struct.unpack_from("<I", data)[0], struct.unpack_from(">I", data)[0]
    magic = little if little in LAYOUTS else big if big in LAYOUTS else None
    if magic is None:
        return Problem(reason=f"unknown pclntab magic 0x{little:08x}")
    if not _plausible_header(data, 0) or data[4:6] != b"\x00\x00":
        return Problem(reason="the header's pad, pc quantum or pointer size is impossible")
    layout = LAYOUTS[magic]
    big_endian = magic != little
    reader = _Reader(data, big_endian, data[7])
    return _functions(reader, layout, text_start)


def _header_words(reader: _Reader, count: int) -> list[int] | None:
    words = [reader.uintptr(8 + i * reader.ptr) for i in range(count)]
    return None if any(w is None for w in words) else [w for w in words if w is not None]


def _functions(reader: _Reader, layout: Layout, fallback_text: int) -> PcLnTable | Problem:
    if layout.names_from_table:  # 1.2: nfunc, then the functab right after the header
        header = _header_words(reader, 1)
        if header is None:
            return Problem(reason="the header is truncated")
        nfunc, text_start, names_at = header[0], 0, 0
        functab = 8 + reader.ptr
    else:
        header = _header_words(reader, 8 if layout.has_text_start else 7)
        if header is None:
            return Problem(reason="the header is truncated")
        if layout.has_text_start:
            nfunc, _, text_start, names_at, _, _, _, functab = header
        else:
            nfunc, _, names_at, _, _, _, functab = header
            text_start = 0
    text_start = text_start or fallback_text
    row = 2 * reader.ptr if layout.wide_functab else 8
    if nfunc > MAX_FUNCTIONS or functab + nfunc * row + row // 2 > len(reader.data):
        return Problem(reason=f"the header claims {nfunc} functions at offset {functab}, past the table's end")
    return _rows(reader, layout, nfunc, functab, row, text_start, names_at)


def _rows(
    reader: _Reader, layout: Layout, nfunc: int, functab: int, row: int, text_start: int, names_at: int
) -> PcLnTable:
    half = row // 2
    read = reader.uintptr if layout.wide_functab else reader.u32
    entries: list[tuple[int, int]] = []
    for i in range(nfunc + 1):  # the last row holds only the end of the last function
        entry, funcoff = read(functab + i * row), read(functab + i * row + half) if i < nfunc else 0
        assert entry is not None and funcoff is not None  # the caller bounded the whole functab
        entries.append((entry + text_start, funcoff))
    functions, problems = [], []
    funcs_base = 0 if layout.names_from_table else functab
    for i in range(nfunc):
        (entry, funcoff), (following, _) = entries[i], entries[i + 1]
        name_off = reader.i32(funcs_base + funcoff + (reader.ptr if layout.wide_functab else 4))
        name = None if name_off is None else reader.cstring(names_at + name_off)
        if name is None:
            problems.append(f"function {i} at 0x{entry:x}: its name offset points outside the table")
            continue
        if following < entry:
            problems.append(f"function {i} at 0x{entry:x}: the table is not sorted, its size is unknown")
            continue
        functions.append(GoFunction(entry=entry, size=following - entry, name=name))
    return PcLnTable(
        layout=layout.version,
        pointer_size=reader.ptr,
        big_endian=reader.order == ">",
        functions=tuple(functions),
        problems=tuple(problems[:20]) + ((f"{len(problems) - 20} more rows skipped",) if len(problems) > 20 else ()),
    )


# ---------------------------------------------------------------- build info


def _varint(data: bytes, at: int) -> tuple[int, int] | None:
    value, shift = 0, 0
    while at < len(data) and shift < 64:
        byte = data[at]
        value |= (byte & 0x7F) << shift
        at += 1
        if not byte & 0x80:
            return value, at
        shift += 7
    return None


def _inline_string(data: bytes, at: int) -> tuple[str, int] | None:
    got = _varint(data, at)
    if got is None or got[1] + got[0] > len(data):
        return None
    length, start = got
    return data[start : start + length].decode("utf-8", "replace"), start + length


@attrs.frozen(kw_only=True)
class VersionString:
    value: str
    offset: int  # file offset of its first byte


def version_strings(data: bytes) -> list[VersionString]:
    """Every `go1.N[.M][rcK|betaK]` in the bytes, in file order (at most MAX_VERSION_CANDIDATES).

    Without build info the toolchain version survives as runtime.buildVersion's string
    data (a Go string: length-addressed, not NUL-terminated), so only its shape is matched.
    """
    found = []
    for m in _GO_VERSION.finditer(data):
        found.append(VersionString(value=m.group().decode("ascii"), offset=m.start()))
        if len(found) >= MAX_VERSION_CANDIDATES:
            break
    return found


def inferred_version(found: list[VersionString]) -> tuple[VersionString, str] | None:
    """The version to offer and its confidence: medium when every match agrees (the most specific form
    when one is a prefix of another: go1.19 inside go1.19.8), low when they disagree (the first is offered)."""
    if not found:
        return None
    values = {v.value for v in found}
    best = max(found, key=lambda v: len(v.value))
    agree = all(best.value == v or best.value.startswith(v + ".") for v in values)
    return (best, "medium") if agree else (found[0], "low")


def build_info(data: bytes) -> BuildInfo | Problem | None:
    """Go's build info (version, main module, dependencies) from the bytes holding `\\xff Go buildinf:`,
    or None when there is none. Only the inline form (Go 1.18+) is read; the older pointer form needs
    the image's address map and is reported as a Problem."""
    at = data.find(BUILDINFO_MAGIC)
    if at < 0:
        return None
    if at + 32 > len(data):
        return Problem(reason="the build info header is truncated")
    flags = data[at + 15]
    if not flags & 2:
        return Problem(reason="the build info uses the pre-1.18 pointer form, which is not read")
    version = _inline_string(data, at + 32)
    if version is None:
        return Problem(reason="the build info's version string runs past the data")
    modinfo = _inline_string(data, version[1])
    lines = modinfo[0] if modinfo is not None else ""
    if len(lines) >= 2 * MODINFO_SENTINEL:
        lines = lines[MODINFO_SENTINEL:-MODINFO_SENTINEL]
    return _modules(version[0], lines)


def _modules(go_version: str, modinfo: str) -> BuildInfo:
    path = main = None
    deps: list[tuple[str, str]] = []
    settings: list[tuple[str, str]] = []
    for line in modinfo.splitlines():
        parts = line.split("\t")
        if parts[0] == "path" and len(parts) > 1:
            path = parts[1]
        elif parts[0] == "mod" and len(parts) > 2:
            main = parts[2]
        elif parts[0] == "dep" and len(parts) > 2:
            deps.append((parts[1], parts[2]))
        elif parts[0] == "=>" and len(parts) > 2 and deps:
            deps[-1] = (deps[-1][0], f"{deps[-1][1]} => {parts[1]} {parts[2]}")
        elif parts[0] == "build" and len(parts) > 1 and "=" in parts[1]:
            key, _, value = parts[1].partition("=")
            settings.append((key, value))
    return BuildInfo(
        go_version=go_version,
        module_path=path,
        main_version=main,
        dependencies=tuple(deps),
        settings=tuple(settings),
    )
