"""The target file's load map and one read of it, as effects/native/image.py hands them over (lief's
segments and sections, capstone's decode of one instruction). Structured once where those answers enter,
so rea.native.image and the memory programs read fields, not keys."""

from __future__ import annotations

import attrs


@attrs.frozen(kw_only=True)
class Region:
    """A load segment (or a code section): its memory range and the file bytes behind it."""

    name: str
    vaddr: int
    memsize: int
    offset: int
    filesize: int  # what the file really holds (rea.native.image.held_by_file cuts a header's claim)
    readable: bool = False
    writable: bool = False
    executable: bool = False


@attrs.frozen(kw_only=True)
class LoadMap:
    """Where the file's bytes sit in memory: its load segments, and its code sections where the format
    names them (ELF; a PE's sections are its segments)."""

    format: str
    architecture: str
    bits: int
    segments: tuple[Region, ...]
    code: tuple[Region, ...] = ()


@attrs.frozen(kw_only=True)
class Operand:
    """One capstone operand: a register, an immediate or a memory reference (base + index + displacement)."""

    index: int
    type: str  # register | immediate | memory | unknown
    provider_type: int
    size: int = 0
    register: str = ""  # a register operand's name
    value: int = 0  # an immediate's value
    base: str | None = None
    index_register: str | None = None
    displacement: int = 0


@attrs.frozen(kw_only=True)
class Decoded:
    """capstone's decode of the instruction at an address; `status` says whether there is one."""

    status: str  # decoded | undecodable | unsupported
    mode: str
    size: int = 0
    data_hex: str = ""
    mnemonic: str = ""
    op_str: str = ""
    groups: tuple[str, ...] = ()
    operands: tuple[Operand, ...] = ()
    operand_texts: tuple[str, ...] = ()


@attrs.frozen(kw_only=True)
class ImageRead:
    """The load map, with the file bytes read at an offset (hex, empty when none were asked) and their
    decode when one was asked."""

    load_map: LoadMap
    bytes_hex: str = ""
    decoded: Decoded | None = None
