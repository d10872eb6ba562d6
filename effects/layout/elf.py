"""ELF tables as recorded: section and program headers, symbol tables, REL/RELA/RELR entries and GNU notes.

lief has already accepted the file as ELF (and reads its dynamic section); the
rows here are decoded from the header tables themselves so each keeps its
original index and file location, which lief's normalized objects do not carry.
Every table is bounded by the file size; a table past the end is reported, not read.
"""

from __future__ import annotations

import base64
import struct
from typing import Any

NAME_MAX = 4096
SHT_SYMTAB, SHT_DYNSYM, SHT_RELA, SHT_REL, SHT_RELR, SHT_NOBITS = 2, 11, 4, 9, 19, 8


class Image:
    """The file's bytes (a memory map) with the ELF class and byte order."""

    def __init__(self, data: Any, bits: int, little: bool) -> None:
        self.data = data
        self.size = len(data)
        self.bits = bits
        self.end = "<" if little else ">"

    def fits(self, offset: int, length: int) -> bool:
        return 0 <= offset and 0 <= length and offset + length <= self.size

    def unpack(self, fmt: str, offset: int) -> tuple[Any, ...]:
        return struct.unpack_from(self.end + fmt, self.data, offset)

    def name(self, table_offset: int, table_size: int, index: int) -> dict[str, Any]:
        """A NUL-terminated name inside a string table, with its bytes and location."""
        start = table_offset + index
        if index >= table_size or not self.fits(start, 1):
            return {"display": "", "bytes": None, "location": None, "unknown_reason": "name offset outside its table"}
        limit = min(table_offset + table_size, self.size, start + NAME_MAX)
        end = bytes(self.data[start:limit]).find(b"\0")
        raw = bytes(self.data[start : start + end]) if end >= 0 else bytes(self.data[start:limit])
        return {
            "display": raw.decode("utf-8", "replace"),
            "bytes": base64.b64encode(raw).decode(),
            "location": (start, len(raw)),
            "unknown_reason": None if end >= 0 else "name is not terminated inside its table",
        }


def _shdr_format(bits: int) -> tuple[str, int]:
    return ("IIQQQQIIQQ", 64) if bits == 64 else ("IIIIIIIIII", 40)


def section_headers(img: Image, shoff: int, shnum: int, shentsize: int, shstrndx: int) -> tuple[list[Any], str]:
    """Every section header row and whether the table is present, absent or malformed."""
    fmt, natural = _shdr_format(img.bits)
    if shoff == 0 or shnum == 0:
        return [], "absent"
    if shentsize < natural or not img.fits(shoff, shnum * shentsize):
        return [], "malformed"
    raw = []
    for i in range(shnum):
        at = shoff + i * shentsize
        name, typ, flags, addr, off, size, link, info, align, entsize = img.unpack(fmt, at)
        raw.append((i, at, name, typ, flags, addr, off, size, link, info, align, entsize))
    strtab = raw[shstrndx] if shstrndx < len(raw) else None
    rows = []
    for i, at, name, typ, flags, addr, off, size, link, info, align, entsize in raw:
        if strtab is not None:
            label = img.name(strtab[6], strtab[7], name)
        else:
            label = {"display": "", "bytes": None, "location": None, "unknown_reason": "no section-name table"}
        rows.append(
            {
                "index": i,
                "name": label,
                "name_offset": name,
                "type": typ,
                "header_location": (at, shentsize),
                "address": addr,
                "offset": off,
                "size": size,
                "alignment": align,
                "flags": flags,
                "link": link,
                "info": info,
                "entry_size": entsize,
                "nobits": typ == SHT_NOBITS,
                "segment": None,
                "raw_size": None,
            }
        )
    return rows, "present"


def program_headers(img: Image, phoff: int, phnum: int, phentsize: int) -> list[dict[str, Any]]:
    natural = 56 if img.bits == 64 else 32
    if phoff == 0 or phnum == 0 or phentsize < natural or not img.fits(phoff, phnum * phentsize):
        return []
    rows = []
    for i in range(phnum):
        at = phoff + i * phentsize
        if img.bits == 64:
            typ, flags, off, vaddr, paddr, filesz, memsz, align = img.unpack("IIQQQQQQ", at)
        else:
            typ, off, vaddr, paddr, filesz, memsz, flags, align = img.unpack("IIIIIIII", at)
        rows.append(
            {
                "index": i,
                "type": typ,
                "name": None,
                "header_location": (at, phentsize),
                "offset": off,
                "file_size": filesz,
                "memory_size": memsz,
                "virtual_address": vaddr,
                "physical_address": paddr,
                "alignment": align,
                "flags": flags,
            }
        )
    return rows


def _entries(section: dict[str, Any], natural: int, img: Image) -> tuple[int, int]:
    """(count, entry size) of a table section, zero when it does not fit the file."""
    entsize = section["entry_size"] or natural
    if entsize < natural or not img.fits(section["offset"], section["size"]):
        return 0, entsize
    return section["size"] // entsize, entsize


def symbols(img: Image, sections: list[dict[str, Any]], cap: int) -> tuple[list[dict[str, Any]], int]:
    """Rows of every SHT_SYMTAB and SHT_DYNSYM table (at most `cap`) and the recorded total."""
    natural = 24 if img.bits == 64 else 16
    rows: list[dict[str, Any]] = []
    total = 0
    for table in sections:
        if table["type"] not in (SHT_SYMTAB, SHT_DYNSYM):
            continue
        count, entsize = _entries(table, natural, img)
        total += count
        strtab = sections[table["link"]] if table["link"] < len(sections) else None
        for i in range(count):
            if len(rows) >= cap:
                break
            at = table["offset"] + i * entsize
            if img.bits == 64:
                name, info, other, shndx, value, size = img.unpack("IBBHQQ", at)
            else:
                name, value, size, info, other, shndx = img.unpack("IIIBBH", at)
            label = (
                img.name(strtab["offset"], strtab["size"], name)
                if strtab is not None
                else {"display": "", "bytes": None, "location": None, "unknown_reason": "no linked string table"}
            )
            rows.append(
                {
                    "table_index": table["index"],
                    "entry_index": i,
                    "name": label,
                    "name_offset": name,
                    "location": (at, entsize),
                    "value": value,
                    "size": size,
                    "binding": info >> 4,
                    "type": info & 0xF,
                    "visibility": other & 0x3,
                    "section_index": shndx,
                }
            )
    return rows, total


def _symbol_name(img: Image, sections: list[dict[str, Any]], table_index: int, sym: int) -> str | None:
    if sym == 0 or table_index >= len(sections):
        return None
    table = sections[table_index]
    natural = 24 if img.bits == 64 else 16
    count, entsize = _entries(table, natural, img)
    if sym >= count or table["link"] >= len(sections):
        return None
    (name,) = img.unpack("I", table["offset"] + sym * entsize)
    strtab = sections[table["link"]]
    return str(img.name(strtab["offset"], strtab["size"], name)["display"]) or None


def relocations(img: Image, sections: list[dict[str, Any]], cap: int) -> tuple[list[dict[str, Any]], int]:
    """REL and RELA entries with their owner section (at most `cap`) and the recorded total."""
    rows: list[dict[str, Any]] = []
    total = 0
    for owner in sections:
        rela = owner["type"] == SHT_RELA
        if not rela and owner["type"] != SHT_REL:
            continue
        natural = (24 if rela else 16) if img.bits == 64 else (12 if rela else 8)
        count, entsize = _entries(owner, natural, img)
        total += count
        for i in range(count):
            if len(rows) >= cap:
                break
            at = owner["offset"] + i * entsize
            if img.bits == 64:
                offset, info = img.unpack("QQ", at)
                addend = img.unpack("q", at + 16)[0] if rela else None
                sym, typ = info >> 32, info & 0xFFFFFFFF
            else:
                offset, info = img.unpack("II", at)
                addend = img.unpack("i", at + 8)[0] if rela else None
                sym, typ = info >> 8, info & 0xFF
            rows.append(
                {
                    "section_index": owner["index"],
                    "entry_index": i,
                    "reported_offset": offset,
                    "location": (at, entsize),
                    "type": typ,
                    "symbol_table_index": owner["link"],
                    "symbol_index": sym,
                    "symbol_name": _symbol_name(img, sections, owner["link"], sym),
                    "addend": addend,
                    "owner_info": owner["info"],
                }
            )
    return rows, total


def relr_tables(img: Image, sections: list[dict[str, Any]], cap: int) -> list[dict[str, Any]]:
    """SHT_RELR tables: their bytes and decoded offsets (address entries, then bitmaps of following words)."""
    word = img.bits // 8
    out = []
    for table in sections:
        if table["type"] != SHT_RELR or not img.fits(table["offset"], table["size"]):
            continue
        raw = bytes(img.data[table["offset"] : table["offset"] + table["size"]])
        fmt = "Q" if word == 8 else "I"
        decoded: list[int] = []
        base = 0
        for (entry,) in struct.iter_unpack(img.end + fmt, raw[: len(raw) - len(raw) % word]):
            if len(decoded) >= cap:
                break
            if entry & 1 == 0:
                decoded.append(entry)
                base = entry + word
                continue
            bits, at = entry >> 1, base
            while bits:
                if bits & 1:
                    decoded.append(at)
                bits >>= 1
                at += word
            base += (img.bits - 1) * word
        out.append(
            {
                "section_index": table["index"],
                "location": (table["offset"], table["size"]),
                "encoded": base64.b64encode(raw).decode(),
                "entries": decoded,
            }
        )
    return out


GNU_PROPERTY_X86_FEATURE_1_AND = 0xC0000002
GNU_PROPERTY_AARCH64_FEATURE_1_AND = 0xC0000000


def gnu_properties(img: Image, segments: list[dict[str, Any]]) -> dict[int, int]:
    """pr_type -> u32 value of every PT_GNU_PROPERTY (or PT_NOTE NT_GNU_PROPERTY_TYPE_0) property."""
    found: dict[int, int] = {}
    align = 8 if img.bits == 64 else 4
    for seg in segments:
        if seg["type"] not in (4, 0x6474E553) or not img.fits(seg["offset"], seg["file_size"]):
            continue
        at, end = seg["offset"], seg["offset"] + seg["file_size"]
        while at + 12 <= end:
            namesz, descsz, ntype = img.unpack("III", at)
            name_end = at + 12 + ((namesz + 3) & ~3)
            desc_end = name_end + ((descsz + align - 1) & ~(align - 1))
            if desc_end > end or namesz > 64:
                break
            if ntype == 5 and bytes(img.data[at + 12 : at + 12 + namesz]).rstrip(b"\0") == b"GNU":
                p = name_end
                while p + 8 <= name_end + descsz:
                    pr_type, size = img.unpack("II", p)
                    if size >= 4 and p + 8 + size <= name_end + descsz:
                        found[pr_type] = img.unpack("I", p + 8)[0]
                    p += 8 + ((size + align - 1) & ~(align - 1))
            at = desc_end
    return found
