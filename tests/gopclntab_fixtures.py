"""Go pclntab byte images in each header layout, written from the Go runtime's documented struct
layouts (runtime/symtab.go of each release), independent of the parser under test.

The Debian toolchain here is Go 1.19 (the 1.18 layout); the 1.2, 1.16 and 1.20 layouts are
built here so every magic is exercised on bytes a real linker would lay out the same way.
"""

from __future__ import annotations

import struct

MAGIC = {"1.2": 0xFFFFFFFB, "1.16": 0xFFFFFFFA, "1.18": 0xFFFFFFF0, "1.20": 0xFFFFFFF1}


def table(layout: str, functions: list[tuple[int, int, str]], ptr: int = 8, big: bool = False, text: int = 0x401000):
    """(entry, size, name) rows, sorted and contiguous, as the linker writes them."""
    order = ">" if big else "<"
    word = order + ("Q" if ptr == 8 else "I")
    end = functions[-1][0] + functions[-1][1]
    names = b"".join(n.encode() + b"\x00" for _, _, n in functions)
    name_offsets, at = [], 0
    for _, _, n in functions:
        name_offsets.append(at)
        at += len(n) + 1
    header = struct.pack(order + "I", MAGIC[layout]) + bytes([0, 0, 1, ptr])
    count = len(functions)
    if layout == "1.2":
        head_len = 8 + ptr
        functab_len = count * 2 * ptr + ptr
        funcs_at = head_len + functab_len
        func_size = ptr + 4
        names_at = funcs_at + count * func_size
        out = header + struct.pack(word, count)
        for i, (entry, _, _) in enumerate(functions):
            out += struct.pack(word, entry) + struct.pack(word, funcs_at + i * func_size)
        out += struct.pack(word, end)
        for i, (entry, _, _) in enumerate(functions):
            out += struct.pack(word, entry) + struct.pack(order + "i", names_at + name_offsets[i])
        return out + names
    words = 8 if layout in ("1.18", "1.20") else 7
    head_len = 8 + words * ptr
    names_at = head_len
    functab_at = names_at + len(names)
    wide = layout == "1.16"
    row = 2 * ptr if wide else 8
    functab_len = count * row + (ptr if wide else 4)
    func_size = (ptr if wide else 4) + 4
    fields = [count, 0]
    if not wide:
        fields.append(text)
    fields += [names_at, 0, 0, 0, functab_at]
    out = header + b"".join(struct.pack(word, f) for f in fields)
    out += names
    rel = (lambda e: e) if wide else (lambda e: e - text)
    cell = word if wide else order + "I"
    for i, (entry, _, _) in enumerate(functions):
        out += struct.pack(cell, rel(entry)) + struct.pack(cell, functab_len + i * func_size)
    out += struct.pack(cell, rel(end))
    for i, (entry, _, _) in enumerate(functions):
        out += struct.pack(cell, rel(entry)) + struct.pack(order + "i", name_offsets[i])
    return out


def rows(count: int = 5, text: int = 0x401000) -> list[tuple[int, int, str]]:
    out, at = [], text
    for i in range(count):
        size = 32 + 16 * i
        out.append((at, size, f"main.f{i}"))
        at += size
    return out
