"""CIL method bodies (ECMA-335 II.25.4) decoded with dncil's opcode tables in one tight loop.

dncil's own reader builds several objects per instruction through a stream, which costs ~25 us an
instruction; an assembly of 4,000 methods would take seconds. This loop takes each opcode's
name and operand type from dncil's tables (CIL_OPCODES) and reads operands with struct from the
body's bytes: same instructions, no stream. tests/managed/test_managed_cil.py checks it against dncil's
full decode. Every read is bounded by the window; a header, operand or section that runs past it
ends the body as malformed with what was read.
"""

from __future__ import annotations

import hashlib
import struct

import attrs
from dncil.cil.body.reader import CIL_OPCODES

from rea.managed.facts import Instruction, Region

# operand bytes and struct format per dncil OperandType name ("" = no value, "switch" = counted)
_OPERANDS: dict[str, tuple[int, str]] = {
    "InlineNone": (0, ""), "InlinePhi": (0, ""), "ShortInlineBrTarget": (1, "<b"), "ShortInlineI": (1, "<b"),
    "ShortInlineVar": (1, "<B"), "InlineVar": (2, "<H"), "InlineBrTarget": (4, "<i"), "InlineI": (4, "<i"),
    "InlineField": (4, "<I"), "InlineMethod": (4, "<I"), "InlineSig": (4, "<I"), "InlineString": (4, "<I"),
    "InlineTok": (4, "<I"), "InlineType": (4, "<I"), "ShortInlineR": (4, "<f"), "InlineI8": (8, "<q"),
    "InlineR": (8, "<d"), "InlineSwitch": (4, "switch"),
}  # fmt: skip
_BRANCHES = frozenset({"ShortInlineBrTarget", "InlineBrTarget"})


def _table(codes: list) -> list[tuple[str, str] | None]:  # type: ignore[type-arg]
    return [None if op.name.startswith("UNKNOWN") else (op.name, op.operand_type.name) for op in codes]


ONE_BYTE = _table(CIL_OPCODES.one_byte_op_codes)
TWO_BYTE = _table(CIL_OPCODES.two_byte_op_codes)


class BodyError(Exception):
    """The body's bytes end or lie; the message says where."""


@attrs.frozen(kw_only=True)
class Decoded:
    header_format: str
    max_stack: int
    init_locals: bool
    local_var_sig_token: int | None
    il_size: int
    il_sha256: str
    instructions: tuple[Instruction, ...]
    instruction_total: int
    regions: tuple[Region, ...]


def _header(window: bytes) -> tuple[str, int, int, int, bool, int | None, bool]:
    """(format, header bytes, max_stack, code size, init_locals, locals token, more sections)."""
    if not window:
        raise BodyError("the body is empty")
    first = window[0]
    if first & 0x3 == 0x2:
        return "tiny", 1, 8, first >> 2, False, None, False
    if first & 0x3 != 0x3 or len(window) < 12:
        raise BodyError(f"bad method header 0x{first:02x}")
    flags, max_stack, code_size, local_sig = struct.unpack_from("<HHII", window, 0)
    size = (flags >> 12) * 4
    if size < 12:
        raise BodyError(f"fat header size {size} is below 12 bytes")
    return "fat", size, max_stack, code_size, bool(flags & 0x10), local_sig or None, bool(flags & 0x8)


def _instructions(code: bytes, keep: int) -> tuple[list[Instruction], int]:
    out: list[Instruction] = []
    at, total, end = 0, 0, len(code)
    unpack = struct.unpack_from
    while at < end:
        start = at
        byte = code[at]
        at += 1
        if byte == 0xFE:
            if at >= end:
                raise BodyError(f"two-byte opcode cut at IL 0x{start:x}")
            entry = TWO_BYTE[code[at]]
            at += 1
        else:
            entry = ONE_BYTE[byte]
        if entry is None:
            raise BodyError(f"unknown opcode at IL 0x{start:x}")
        name, kind = entry
        size, fmt = _OPERANDS.get(kind, (0, ""))
        if at + size > end:
            raise BodyError(f"{name} operand runs past the code at IL 0x{start:x}")
        operand: object = None
        if fmt == "switch":
            (count,) = unpack("<I", code, at)
            if at + 4 + 4 * count > end:
                raise BodyError(f"switch of {count} targets runs past the code at IL 0x{start:x}")
            base = at + 4 + 4 * count
            operand = tuple(base + d for d in unpack(f"<{count}i", code, at + 4))
            at = base
        elif fmt:
            (operand,) = unpack(fmt, code, at)
            at += size
            if kind in _BRANCHES:
                operand = at + operand  # type: ignore[operator]
        total += 1
        if len(out) < keep:
            out.append(Instruction(offset=start, opcode=name, operand_type=kind, operand=operand))
    return out, total


def _regions(window: bytes, at: int) -> tuple[Region, ...]:
    out: list[Region] = []
    more = True
    while more and len(out) < 10_000:
        at = (at + 3) & ~3
        if at + 4 > len(window):
            raise BodyError("an exception section runs past the body")
        kind = window[at]
        more = bool(kind & 0x80)
        fat = bool(kind & 0x40)
        size = int.from_bytes(window[at + 1 : at + 4], "little") if fat else window[at + 1]
        if at + size > len(window) or size < 4:
            raise BodyError(f"an exception section of {size} bytes runs past the body")
        if kind & 0x1:
            out.extend(_clauses(window[at + 4 : at + size], fat))
        at += size
    return tuple(out)


def _clauses(data: bytes, fat: bool) -> list[Region]:
    out = []
    fmt, width = ("<IIIIII", 24) if fat else ("<HHBHBI", 12)
    for offset in range(0, len(data) - width + 1, width):
        flags, try_off, try_len, h_off, h_len, extra = struct.unpack_from(fmt, data, offset)
        out.append(
            Region(
                flags=flags,
                try_offset=try_off,
                try_length=try_len,
                handler_offset=h_off,
                handler_length=h_len,
                class_token=extra if flags == 0 else None,
                filter_offset=extra if flags & 0x1 else None,
            )  # fmt: skip
        )
    return out


def decode(window: bytes, keep: int) -> Decoded:
    """One body from the bytes at its RVA (at most max_method_body_bytes of them)."""
    header_format, header, max_stack, code_size, init_locals, local_sig, more = _header(window)
    if header + code_size > len(window):
        raise BodyError(f"code size {code_size} runs past the {len(window)} bytes available")
    code = window[header : header + code_size]
    instructions, total = _instructions(code, keep)
    return Decoded(
        header_format=header_format,
        max_stack=max_stack,
        init_locals=init_locals,
        local_var_sig_token=local_sig,
        il_size=code_size,
        il_sha256=hashlib.sha256(code).hexdigest(),
        instructions=tuple(instructions),
        instruction_total=total,
        regions=_regions(window, header + code_size) if more else (),
    )
