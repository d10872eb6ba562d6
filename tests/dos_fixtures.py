"""DOS programs written byte by byte: an MZ executable with segment relocations and an overlay, and a COM
program. Each builder also returns the facts a test checks against, computed here with struct by hand."""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any

# entry (CS:IP = 0000:0000): mov ax, seg DATA ; mov ds, ax ; mov dx, msg ; mov ah, 9 ; int 21h ;
# mov ax, seg DATA (again, a second fixup) ; mov ax, 4c00h ; int 21h
CODE = bytes.fromhex("b801008ed8ba0000b409cd21b80100b8004ccd21")
DATA = b"hello from DOS$" + b"\0"  # segment 1 of the module (paragraph 1 after the code's 16 bytes)
RELOCATED = (1, 13)  # module offsets of the two `mov ax, imm16` operands (segment 0)
HEADER_PARAGRAPHS = 4  # 64 bytes: the fixed header, the table and padding
OVERLAY = b"OVERLAY-DATA-NOT-LOADED"


def mz_header(
    image_bytes: int,
    relocations: list[tuple[int, int]],
    *,
    header_paragraphs: int = HEADER_PARAGRAPHS,
    table: int = 0x1C,
    e_cs: int = 0,
    e_ip: int = 0,
    minalloc: int = 0x10,
    pages: int | None = None,
    last: int | None = None,
) -> bytes:
    """A DOS header for `image_bytes` (header included) whose table at `table` lists (offset, segment) pairs."""
    cp = (image_bytes + 511) // 512 if pages is None else pages
    cblp = image_bytes % 512 if last is None else last
    fixed = struct.pack(
        "<2s13H", b"MZ", cblp, cp, len(relocations), header_paragraphs, minalloc, 0xFFFF, 2, 0x100, 0, e_ip, e_cs,
        table, 0,
    )  # fmt: skip
    head = bytearray(fixed.ljust(header_paragraphs * 16, b"\0"))
    for i, (offset, segment) in enumerate(relocations):
        at = table + 4 * i
        if at + 4 <= len(head):
            head[at : at + 4] = struct.pack("<HH", offset, segment)
    return bytes(head)


def mz_program() -> tuple[bytes, dict[str, Any]]:
    """The MZ file and its ground truth: header/module sizes, the relocated module and the entry."""
    module = CODE.ljust(16, b"\x90") + DATA
    relocations = [(offset, 0) for offset in RELOCATED]
    header = mz_header(HEADER_PARAGRAPHS * 16 + len(module), relocations)
    data = header + module + OVERLAY
    patched = bytearray(module)
    for offset in RELOCATED:
        word = struct.unpack_from("<H", patched, offset)[0]
        struct.pack_into("<H", patched, offset, (word + 0x1000) & 0xFFFF)
    facts = {
        "header_bytes": len(header),
        "module_bytes": len(module),
        "overlay_bytes": len(OVERLAY),
        "relocated_module": bytes(patched),
        "relocated_file": header + bytes(patched) + OVERLAY,
        "entry": "0x10000",
        "relocation_addresses": [hex(0x10000 + o) for o in RELOCATED],
    }
    return data, facts


# mov ah, 9 ; mov dx, 0109h ; int 21h ; ret ; "$"
COM = bytes.fromhex("b409ba0901cd21c3") + b"hi$"


def write(root: Path, name: str, data: bytes) -> Path:
    path = root / name
    path.write_bytes(data)
    return path
