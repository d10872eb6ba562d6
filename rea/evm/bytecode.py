"""Decode a bytecode carrier and disassemble EVM bytecode: pure, total over hostile input.

Why a disassembler of our own: the interface a contract exposes is in its dispatcher, a
fixed idiom solc and vyper emit (`PUSH4 selector EQ PUSH2 body JUMPI`), and reading it
needs only the instruction boundaries (PUSH1..PUSH32 carry 1..32 immediate bytes, so a
byte is an opcode only when no earlier PUSH swallowed it). A truncated trailing PUSH keeps
the bytes it has and is flagged; an undefined opcode is kept as INVALID-like; nothing here
raises on any byte string.
"""

from __future__ import annotations

from collections.abc import Mapping

import attrs
from returns.result import Failure, Result, Success

from rea.errors import ReaError, invalid_request

# Opcode byte -> mnemonic, for the opcodes the analysis names (the rest disassemble as `0x..`).
_NAMED: Mapping[int, str] = {
    0x00: "STOP", 0x01: "ADD", 0x02: "MUL", 0x03: "SUB", 0x04: "DIV", 0x05: "SDIV", 0x06: "MOD",
    0x07: "SMOD", 0x08: "ADDMOD", 0x09: "MULMOD", 0x0A: "EXP", 0x0B: "SIGNEXTEND",
    0x10: "LT", 0x11: "GT", 0x12: "SLT", 0x13: "SGT", 0x14: "EQ", 0x15: "ISZERO", 0x16: "AND",
    0x17: "OR", 0x18: "XOR", 0x19: "NOT", 0x1A: "BYTE", 0x1B: "SHL", 0x1C: "SHR", 0x1D: "SAR",
    0x20: "KECCAK256", 0x30: "ADDRESS", 0x31: "BALANCE", 0x32: "ORIGIN", 0x33: "CALLER",
    0x34: "CALLVALUE", 0x35: "CALLDATALOAD", 0x36: "CALLDATASIZE", 0x37: "CALLDATACOPY",
    0x38: "CODESIZE", 0x39: "CODECOPY", 0x3A: "GASPRICE", 0x3B: "EXTCODESIZE", 0x3C: "EXTCODECOPY",
    0x3D: "RETURNDATASIZE", 0x3E: "RETURNDATACOPY", 0x3F: "EXTCODEHASH", 0x40: "BLOCKHASH",
    0x41: "COINBASE", 0x42: "TIMESTAMP", 0x43: "NUMBER", 0x44: "PREVRANDAO", 0x45: "GASLIMIT",
    0x46: "CHAINID", 0x47: "SELFBALANCE", 0x48: "BASEFEE", 0x49: "BLOBHASH", 0x4A: "BLOBBASEFEE",
    0x50: "POP", 0x51: "MLOAD", 0x52: "MSTORE", 0x53: "MSTORE8", 0x54: "SLOAD", 0x55: "SSTORE",
    0x56: "JUMP", 0x57: "JUMPI", 0x58: "PC", 0x59: "MSIZE", 0x5A: "GAS", 0x5B: "JUMPDEST",
    0x5C: "TLOAD", 0x5D: "TSTORE", 0x5E: "MCOPY", 0x5F: "PUSH0",
    0xA0: "LOG0", 0xA1: "LOG1", 0xA2: "LOG2", 0xA3: "LOG3", 0xA4: "LOG4",
    0xF0: "CREATE", 0xF1: "CALL", 0xF2: "CALLCODE", 0xF3: "RETURN", 0xF4: "DELEGATECALL",
    0xF5: "CREATE2", 0xFA: "STATICCALL", 0xFD: "REVERT", 0xFE: "INVALID", 0xFF: "SELFDESTRUCT",
}  # fmt: skip
PUSH1, PUSH32 = 0x60, 0x7F
DUP1, DUP16, SWAP1, SWAP16 = 0x80, 0x8F, 0x90, 0x9F
EOF_MAGIC = b"\xef\x00"
MAX_CARRIER_BYTES = 4 << 20  # the reference's input limit
_ASCII_SPACE = b" \t\r\n\x0b\x0c"
_HEX = frozenset(b"0123456789abcdefABCDEF")


def mnemonic(op: int) -> str:
    if PUSH1 <= op <= PUSH32:
        return f"PUSH{op - PUSH1 + 1}"
    if DUP1 <= op <= DUP16:
        return f"DUP{op - DUP1 + 1}"
    if SWAP1 <= op <= SWAP16:
        return f"SWAP{op - SWAP1 + 1}"
    return _NAMED.get(op, f"0x{op:02x}")


@attrs.frozen(kw_only=True)
class Instruction:
    """One instruction at `offset`; `immediate` is a PUSH's value (None for others); `truncated` when the
    code ends inside a PUSH's immediate bytes (its value is then the bytes present, as the EVM pads with zeros
    on the right: the value is shifted accordingly)."""

    offset: int
    op: int
    immediate: int | None = None
    truncated: bool = False

    @property
    def name(self) -> str:
        return mnemonic(self.op)

    @property
    def size(self) -> int:
        return 1 + (self.op - PUSH1 + 1 if PUSH1 <= self.op <= PUSH32 else 0)


def disassemble(code: bytes) -> tuple[Instruction, ...]:
    """Every instruction in order; total over any bytes."""
    out: list[Instruction] = []
    pc = 0
    while pc < len(code):
        op = code[pc]
        if PUSH1 <= op <= PUSH32:
            width = op - PUSH1 + 1
            raw = code[pc + 1 : pc + 1 + width]
            value = int.from_bytes(raw.ljust(width, b"\0"), "big")
            out.append(Instruction(offset=pc, op=op, immediate=value, truncated=len(raw) < width))
            pc += 1 + width
        else:
            out.append(Instruction(offset=pc, op=op, immediate=0 if op == 0x5F else None))
            pc += 1
    return tuple(out)


def jumpdests(instructions: tuple[Instruction, ...]) -> frozenset[int]:
    return frozenset(i.offset for i in instructions if i.op == 0x5B)


def decode_carrier(data: bytes, encoding: str) -> Result[bytes, ReaError]:
    """The EVM bytes a carrier holds: raw is itself; hex is ASCII hex digits with an optional 0x prefix and
    outer ASCII whitespace. Odd digit counts, interior separators, a BOM and non-ASCII bytes are refused."""
    if encoding == "raw":
        return Success(data)
    text = data.strip(_ASCII_SPACE)
    if text[:2] in (b"0x", b"0X"):
        text = text[2:]
    bad = next((i for i, b in enumerate(text) if b not in _HEX), None)
    if bad is not None:
        return Failure(
            invalid_request(
                f"the hex carrier has a non-hex byte 0x{text[bad]:02x} at digit {bad}",
                field="encoding",
                accepted="hex digits with an optional 0x prefix and outer ASCII whitespace, or encoding raw",
            )
        )
    if len(text) % 2:
        return Failure(
            invalid_request(
                f"the hex carrier has an odd number of digits ({len(text)})",
                field="encoding",
                accepted="an even number of hex digits",
            )
        )
    return Success(bytes.fromhex(text.decode("ascii")))
