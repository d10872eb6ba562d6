"""What the file and the system's static libraries say about where each function came from.

Three readers, all facts and no decisions (rea.native.origin decides):

- `file_symbols`: the ELF symbol table's STT_FILE entries. The linker keeps each input object's
  local symbols after that object's FILE entry, so a local function belongs to the file named
  before it (glibc's members appear as `printf_fp.o`, the program's sources as `t.c`).
- `compile_units`: DWARF compile units with their name, producer, directory and address ranges.
- `library_matches`: function bytes compared with every defined function of the installed static
  libraries (Debian's libc.a, libm, libgcc, libgcc_eh and the crt objects), relocated fields masked,
  so a stripped static binary's library code is still recognised. The signature table is built
  once per library file and cached under REA's cache directory, keyed by the file's sha256.

Every reader returns an empty answer (and a `problem`) on files it cannot read: the origin is an
addition to the overview, never a reason for it to fail.
"""

from __future__ import annotations

import bisect
import glob
import hashlib
import os
import struct
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, BinaryIO

from effects.native.cache import cache_root, read_entry, write_entry
from rea.native.origin import MIN_MATCHED_SIZE  # shorter bodies (`ret`, `xor eax,eax; ret`) are everywhere

MAX_FILE_ENTRIES = 200_000
MAX_UNITS = 100_000
MAX_MATCHED_FUNCTION = 1 << 20
SIGNATURE_LAYOUT = 3

# the static libraries a gcc -static link draws from on Debian x86-64: (glob, kind)
LIBRARIES: tuple[tuple[str, str], ...] = (
    ("/usr/lib/x86_64-linux-gnu/libc.a", "library"),
    ("/usr/lib/x86_64-linux-gnu/libm-*.a", "library"),
    ("/usr/lib/x86_64-linux-gnu/libpthread.a", "library"),
    ("/usr/lib/gcc/x86_64-linux-gnu/*/libgcc.a", "library"),
    ("/usr/lib/gcc/x86_64-linux-gnu/*/libgcc_eh.a", "library"),
    ("/usr/lib/x86_64-linux-gnu/*crt1.o", "runtime"),
    ("/usr/lib/x86_64-linux-gnu/crti.o", "runtime"),
    ("/usr/lib/x86_64-linux-gnu/crtn.o", "runtime"),
    ("/usr/lib/gcc/x86_64-linux-gnu/*/crtbegin*.o", "runtime"),
    ("/usr/lib/gcc/x86_64-linux-gnu/*/crtend*.o", "runtime"),
)

# x86-64 relocation types whose field is 8 bytes; every other one patches 4
_WIDE = {1, 24, 16, 17, 18}  # R_X86_64_64, PC64, DTPMOD64, DTPOFF64, TPOFF64
# relocations the linker may relax by rewriting the instruction in front of the field (GOTPCRELX,
# REX_GOTPCRELX, GOTTPOFF, TLSGD, TLSLD, GOTPC32_TLSDESC): those bytes are masked too
_RELAXED = {41, 42, 22, 19, 20, 34}
_RELAXED_PREFIX = 3


# ------------------------------------------------------------------ symbol-table file entries


def file_symbols(elf: Any) -> list[dict[str, Any]]:
    """Each FILE entry with the local functions after it, in symbol-table order."""
    table = elf.get_section_by_name(".symtab")
    if table is None:
        return []
    rows: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None
    for index, sym in enumerate(table.iter_symbols()):
        if index > MAX_FILE_ENTRIES:
            break
        kind, bind = sym["st_info"]["type"], sym["st_info"]["bind"]
        if kind == "STT_FILE":
            current = {"file": sym.name, "functions": []}
            rows.append(current)
        elif bind != "STB_LOCAL":
            current = None  # globals follow every local: no file owns them
        elif current is not None and kind == "STT_FUNC" and sym["st_value"] and sym["st_shndx"] != "SHN_UNDEF":
            current["functions"].append(f"0x{sym['st_value']:x}")
    return rows


# ------------------------------------------------------------------------ DWARF compile units


def _attribute_text(die: Any, key: str) -> str | None:
    attr = die.attributes.get(key)
    if attr is None or not isinstance(attr.value, bytes):
        return None
    return attr.value.decode("utf-8", "replace")


def compile_units(elf: Any) -> list[dict[str, Any]]:
    """Every DWARF compile unit: name, producer, directory and the address ranges it covers."""
    if elf.get_section_by_name(".debug_info") is None:
        return []
    dwarf = elf.get_dwarf_info(follow_links=False)
    aranges = _aranges(dwarf)
    units = []
    for index, unit in enumerate(dwarf.iter_CUs()):
        if index >= MAX_UNITS:
            break
        top = unit.get_top_DIE()
        ranges = aranges.get(unit.cu_offset) or _die_ranges(dwarf, unit, top)
        units.append(
            {
                "name": _attribute_text(top, "DW_AT_name"),
                "producer": _attribute_text(top, "DW_AT_producer"),
                "directory": _attribute_text(top, "DW_AT_comp_dir"),
                "language": top.attributes["DW_AT_language"].value if "DW_AT_language" in top.attributes else None,
                "ranges": [[f"0x{lo:x}", f"0x{hi:x}"] for lo, hi in ranges if hi > lo],
            }
        )
    return units


def _aranges(dwarf: Any) -> dict[int, list[tuple[int, int]]]:
    """The `.debug_aranges` table by unit offset (absent in many files: then each unit's own ranges)."""
    try:
        table = dwarf.get_aranges()
    except Exception:  # a damaged table is only a missing one  # noqa: BLE001
        return {}
    found: dict[int, list[tuple[int, int]]] = {}
    for entry in getattr(table, "entries", ()) if table is not None else ():
        found.setdefault(entry.info_offset, []).append((entry.begin_addr, entry.begin_addr + entry.length))
    return found


def _die_ranges(dwarf: Any, unit: Any, top: Any) -> list[tuple[int, int]]:
    attrs = top.attributes
    if "DW_AT_low_pc" in attrs and "DW_AT_high_pc" in attrs:
        low = attrs["DW_AT_low_pc"].value
        high = attrs["DW_AT_high_pc"]
        return [(low, low + high.value if high.form != "DW_FORM_addr" else high.value)]
    if "DW_AT_ranges" in attrs:
        try:
            lists = dwarf.range_lists()
            if lists is None:
                return []
            base = attrs["DW_AT_low_pc"].value if "DW_AT_low_pc" in attrs else 0
            rows = []
            for entry in lists.get_range_list_at_offset(attrs["DW_AT_ranges"].value, cu=unit):
                if hasattr(entry, "begin_offset"):
                    rows.append((base + entry.begin_offset, base + entry.end_offset))
                elif hasattr(entry, "base_address"):
                    base = entry.base_address
            return rows
        except Exception:  # DWARF 5 range forms pyelftools cannot follow: no ranges  # noqa: BLE001
            return []
    return []


# ----------------------------------------------------------------------- static-library match


def _members(data: bytes) -> Iterator[tuple[str, bytes]]:
    """The members of a System V / GNU `ar` archive (names resolved through the `//` table)."""
    if not data.startswith(b"!<arch>\n"):
        yield "", data  # a plain object file (crt1.o)
        return
    at, names = 8, b""
    while at + 60 <= len(data):
        header = data[at : at + 60]
        name, size = header[:16].decode("latin-1").strip(), int(header[48:58].decode("latin-1").strip() or 0)
        body = data[at + 60 : at + 60 + size]
        at += 60 + size + (size & 1)
        if name == "//":
            names = body
        elif name in ("/", "/SYM64/"):
            continue
        elif name.startswith("/") and name[1:].isdigit():
            start = int(name[1:])
            yield names[start : names.index(b"/\n", start)].decode("latin-1"), body
        else:
            yield name.rstrip("/"), body


_SECTION = struct.Struct("<IIQQQQIIQQ")
_SYMBOL = struct.Struct("<IBBHQQ")
_RELA = struct.Struct("<QQq")
_REL = struct.Struct("<QQ")
_SHT_SYMTAB, _SHT_RELA, _SHT_REL, _SHT_NOBITS = 2, 4, 9, 8
_STT_FUNC, _SHN_LORESERVE = 2, 0xFF00


def _cstring(table: bytes, at: int) -> str:
    end = table.find(b"\0", at)
    return table[at : end if end >= 0 else len(table)].decode("latin-1")


def _sections(blob: bytes) -> list[tuple[int, ...]] | None:
    """The section headers of a little-endian ELF64 x86-64 relocatable object, or None for anything else."""
    if len(blob) < 64 or blob[:4] != b"\x7fELF" or blob[4] != 2 or blob[5] != 1:
        return None
    e_type, e_machine = struct.unpack_from("<HH", blob, 0x10)
    (shoff,) = struct.unpack_from("<Q", blob, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", blob, 0x3A)
    if e_type != 1 or e_machine != 62 or shentsize != _SECTION.size or shoff + shnum * shentsize > len(blob):
        return None
    return [_SECTION.unpack_from(blob, shoff + i * shentsize) for i in range(shnum)]


def _masks(blob: bytes, sections: list[tuple[int, ...]], index: int) -> list[tuple[int, int]]:
    """Byte ranges of a section that relocations patch (or may relax), sorted."""
    ranges = []
    for header in sections:
        kind, offset, size, info = header[1], header[4], header[5], header[7]
        if kind not in (_SHT_RELA, _SHT_REL) or info != index:
            continue
        layout = _RELA if kind == _SHT_RELA else _REL
        for entry in layout.iter_unpack(blob[offset : offset + size - size % layout.size]):
            where, rtype = entry[0], entry[1] & 0xFFFFFFFF
            width = 8 if rtype in _WIDE else 4
            start = where - _RELAXED_PREFIX if rtype in _RELAXED else where
            ranges.append((max(start, 0), where + width))
    return sorted(ranges)


def masked_digest(body: bytes, masks: Iterable[tuple[int, int]]) -> str:
    """sha256 (first 32 hex digits) of the body with every masked byte zeroed."""
    data = bytearray(body)
    for start, end in masks:
        lo, hi = max(start, 0), max(min(end, len(data)), 0)
        if hi > lo:
            data[lo:hi] = bytes(hi - lo)
    return hashlib.sha256(bytes(data)).hexdigest()[:32]


def _symbols(blob: bytes, sections: list[tuple[int, ...]]) -> list[tuple[str, int, int, int, int]]:
    """(name, bind, section index, value, size) of every function symbol defined in a section."""
    table = next((h for h in sections if h[1] == _SHT_SYMTAB), None)
    if table is None or table[6] >= len(sections):
        return []
    strings = sections[table[6]]
    names = blob[strings[4] : strings[4] + strings[5]]
    raw = blob[table[4] : table[4] + table[5] - table[5] % _SYMBOL.size]
    return [
        (_cstring(names, name), info >> 4, shndx, at, size)
        for name, info, _other, shndx, at, size in _SYMBOL.iter_unpack(raw)
        if info & 0xF == _STT_FUNC and 0 < shndx < min(_SHN_LORESERVE, len(sections))
    ]


def _object_signatures(member: str, blob: bytes) -> tuple[list[dict[str, Any]], list[tuple[str, str]]]:
    """Each defined function of one object (size from its symbol, or up to the next function), its masked
    digest, and the names of its global functions (matched by name where bytes are too few)."""
    sections = _sections(blob)
    if sections is None:
        return [], []
    functions = _symbols(blob, sections)
    rows, cached = [], {}
    for name, _bind, shndx, start, declared in functions:
        header = sections[shndx]
        if header[1] == _SHT_NOBITS:
            continue
        if shndx not in cached:
            cached[shndx] = (blob[header[4] : header[4] + header[5]], _masks(blob, sections, shndx))
        data, masks = cached[shndx]
        later = [f[3] for f in functions if f[2] == shndx and f[3] > start]
        size = declared or min(later, default=len(data)) - start
        if size < MIN_MATCHED_SIZE or start + size > len(data):
            continue
        own = [(a - start, b - start) for a, b in masks if b > start and a < start + size]
        rows.append(
            {
                "name": name,
                "member": member,
                "size": size,
                "exact": bool(declared),
                "masks": own,
                "digest": masked_digest(data[start : start + size], own),
            }
        )
    return rows, [(name, member) for name, bind, *_ in functions if name and bind != 0]


_TABLES: dict[tuple[str, int, int, str], dict[str, Any]] = {}  # this process's tables, by file identity


def library_signatures(path: str, kind: str, root: Path) -> dict[str, Any]:
    """The signature table of one static library or object, from the cache or built and cached."""
    stat = os.stat(path)
    key = (path, stat.st_size, stat.st_mtime_ns, str(root))
    if key not in _TABLES:
        _TABLES[key] = _signatures(path, kind, root)
    return _TABLES[key]


def _signatures(path: str, kind: str, root: Path) -> dict[str, Any]:
    data = Path(path).read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    cached_at = root / "native" / "library-signatures" / f"{digest}.v{SIGNATURE_LAYOUT}.json"
    cached = read_entry(cached_at)
    if isinstance(cached, dict) and cached.get("digest") == digest:
        return cached
    functions: list[dict[str, Any]] = []
    names: list[tuple[str, str]] = []
    for member, blob in _members(data):
        signed, named = _object_signatures(member, blob)
        functions += signed
        names += named
    table = {"path": path, "digest": digest, "kind": kind, "functions": functions, "names": names}
    write_entry(cached_at, table)
    return table


def installed_libraries(patterns: Iterable[tuple[str, str]] = LIBRARIES) -> list[tuple[str, str]]:
    """The static libraries present on this machine, each once, with the origin kind its code has."""
    seen, found = set(), []
    for pattern, kind in patterns:
        for path in sorted(glob.glob(pattern)):
            real = os.path.realpath(path)
            if real not in seen and os.path.isfile(real):
                seen.add(real)
                found.append((real, kind))
    return found


class _Image:
    """Reads a link-time address range from an ELF file through its PT_LOAD segments."""

    def __init__(self, elf: Any, handle: BinaryIO) -> None:
        self.handle = handle
        loads = [s for s in elf.iter_segments() if s["p_type"] == "PT_LOAD" and s["p_filesz"]]
        self.spans = sorted((s["p_vaddr"], s["p_vaddr"] + s["p_filesz"], s["p_offset"]) for s in loads)
        self.starts = [s[0] for s in self.spans]

    def read(self, address: int, size: int) -> bytes | None:
        index = bisect.bisect_right(self.starts, address) - 1
        if index < 0 or size > MAX_MATCHED_FUNCTION:
            return None
        start, end, offset = self.spans[index]
        if address + size > end:
            return None
        self.handle.seek(offset + address - start)
        body = self.handle.read(size)
        return body if len(body) == size else None


def _found(function: Mapping[str, Any], table: Mapping[str, Any], row: Mapping[str, Any], by: str) -> dict[str, Any]:
    return {
        "address": function["address"],
        "name": row["name"],
        "library": Path(table["path"]).name,
        "member": row["member"] or None,
        "kind": table["kind"],
        "by": by,
    }


# a size-less symbol's extent runs over the padding after it; the binary's function may stop before it
LOOSE_PADDING = 15
Candidate = tuple[Mapping[str, Any], Mapping[str, Any]]


# a library row with its comparison key (size, masks), made once: every row by size, and the size-less ones
Keyed = tuple[Mapping[str, Any], Mapping[str, Any], tuple[int, tuple[tuple[int, int], ...]]]
Sizes = tuple[dict[int, list[Keyed]], dict[int, list[Keyed]]]


def _index(tables: Iterable[Mapping[str, Any]]) -> tuple[Sizes, dict[str, Candidate]]:
    by_size: dict[int, list[Keyed]] = {}
    loose: dict[int, list[Keyed]] = {}
    by_name: dict[str, Candidate] = {}
    for table in tables:
        for row in table["functions"]:
            keyed = (table, row, (row["size"], tuple(tuple(m) for m in row["masks"])))
            by_size.setdefault(row["size"], []).append(keyed)
            if not row.get("exact", True):
                loose.setdefault(row["size"], []).append(keyed)
        for name, member in table.get("names", ()):
            by_name.setdefault(name, (table, {"name": name, "member": member}))
    return (by_size, loose), by_name


def _candidates(sizes: Sizes, size: int) -> Iterator[Keyed]:
    """Rows of exactly this size, then size-less rows whose extent may add padding to it (kept apart once:
    filtering every row of the next fifteen sizes for each function was most of a Go executable's match)."""
    by_size, loose = sizes
    yield from by_size.get(size, ())
    for extra in range(1, LOOSE_PADDING + 1):
        yield from loose.get(size + extra, ())


def match(
    image: _Image, functions: Iterable[Mapping[str, Any]], tables: Iterable[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """The binary's functions whose masked bytes equal a library function of the same size; below the size
    bytes can decide, a function whose symbol name a library defines (`by: name`)."""
    sizes, by_name = _index(tables)
    matches = []
    for function in functions:
        size = int(function.get("size") or 0)
        if size < MIN_MATCHED_SIZE:
            named = by_name.get(function.get("name") or "")
            if named is not None:
                matches.append(_found(function, *named, "name"))
            continue
        digests: dict[tuple[int, tuple[tuple[int, int], ...]], str | None] = {}
        for table, row, key in _candidates(sizes, size):
            if key not in digests:
                body = image.read(int(function["address"], 16), row["size"])
                digests[key] = None if body is None else masked_digest(body, key[1])
            if digests[key] == row["digest"]:
                matches.append(_found(function, table, row, "bytes"))
                break
    return matches


def library_matches(elf: Any, handle: BinaryIO, functions: Iterable[Mapping[str, Any]], linked: str) -> dict[str, Any]:
    """Which of the binary's functions are byte-identical to an installed static library's (x86-64 ELF). A
    dynamically linked binary takes its libraries at run time: only the C runtime objects are compared."""
    if elf["e_machine"] != "EM_X86_64":
        return {"libraries": [], "matches": [], "problem": "static-library matching covers x86-64 ELF only"}
    libraries = [(p, k) for p, k in installed_libraries() if linked == "static" or k == "runtime"]
    if not libraries:
        return {"libraries": [], "matches": [], "problem": "no static libraries (libc.a) are installed to match"}
    root = cache_root()
    tables = [library_signatures(path, kind, root) for path, kind in libraries]
    return {
        "libraries": [{"path": t["path"], "sha256": t["digest"], "functions": len(t["functions"])} for t in tables],
        "matches": match(_Image(elf, handle), functions, tables),
        "problem": None,
    }


def matches_in(path: str | bytes, functions: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Library matches for functions found after the loader facts (the CFG's, with their own sizes)."""
    from elftools.elf.elffile import ELFFile  # noqa: PLC0415

    if not isinstance(path, str):
        return []
    try:
        with open(path, "rb") as handle:
            if handle.read(4) != b"\x7fELF":
                return []
            handle.seek(0)
            elf = ELFFile(handle)
            matches: list[dict[str, Any]] = library_matches(elf, handle, functions, linkage(elf))["matches"]
            return matches
    except Exception:  # matching is an addition: a file it cannot read gives none  # noqa: BLE001
        return []


def linkage(elf: Any) -> str:
    """static: no program interpreter and no dynamic section; else dynamic."""
    kinds = {s["p_type"] for s in elf.iter_segments()}
    return "dynamic" if "PT_INTERP" in kinds or "PT_DYNAMIC" in kinds else "static"


def origin_facts(path: str | bytes, functions: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Everything rea.native.origin classifies from, for an ELF file; other formats give only a linkage."""
    from elftools.elf.elffile import ELFFile  # noqa: PLC0415

    if not isinstance(path, str):
        return {"linkage": None, "file_symbols": [], "compile_units": [], "library_matches": None}
    facts: dict[str, Any] = {"linkage": None, "file_symbols": [], "compile_units": [], "library_matches": None}
    problems = []
    try:
        with open(path, "rb") as handle:
            if handle.read(4) != b"\x7fELF":
                return facts
            handle.seek(0)
            elf = ELFFile(handle)
            facts["linkage"] = linkage(elf)
            for key, read in (("file_symbols", file_symbols), ("compile_units", compile_units)):
                try:
                    facts[key] = read(elf)
                except Exception as exc:  # a damaged table: the other readers still answer  # noqa: BLE001
                    problems.append(f"{key}: {type(exc).__name__}: {exc}"[:300])
            try:
                facts["library_matches"] = library_matches(elf, handle, functions, facts["linkage"])
            except Exception as exc:  # noqa: BLE001
                problems.append(f"library_matches: {type(exc).__name__}: {exc}"[:300])
    except Exception as exc:  # not an ELF pyelftools can read  # noqa: BLE001
        problems.append(f"{type(exc).__name__}: {exc}"[:300])
    facts["problems"] = problems
    return facts
