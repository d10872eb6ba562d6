"""The stack frame machine of the stack-string pass (rea.native.stackstrings): registers and the values they
hold, and the x86 and AArch64 instructions replayed into a frame's known bytes and the calls it makes."""

from __future__ import annotations

import re
from collections.abc import Container, Iterable, Sequence
from typing import NamedTuple

import attrs

# ------------------------------------------------------------------ registers and values


MAX_BUFFER = 256  # bytes of a stack argument's known contents carried in a candidate
FRAME_BASES = frozenset({"rbp", "rsp", "ebp", "esp", "x29", "sp"})
WIDTH = {"byte": 1, "word": 2, "dword": 4, "qword": 8}
_NUMBER = r"-?(?:0x[0-9a-f]+|\d+)"
_X86_MEMORY = re.compile(r"^(byte|word|dword|qword) ptr \[(rbp|rsp|ebp|esp)(?: ([+-]) (0x[0-9a-f]+|\d+))?\], (\S+)$")
_X86_LEA = re.compile(r"^(\w+), \[(rbp|rsp|ebp|esp|rip)(?: ([+-]) (0x[0-9a-f]+|\d+))?\]$")
_ARM_STORE = re.compile(r"^([wx](?:\d+|zr)), \[(sp|x29)(?:, #(" + _NUMBER + r"))?\]$")
_ARM_MOVE = re.compile(r"^([wx]\d+), #(" + _NUMBER + r")(?:, lsl #(\d+))?$")
_ARM_COPY = re.compile(r"^([wx]\d+), ([wx](?:\d+|zr))$")
_ARM_ADD = re.compile(r"^([wx]\d+), (sp|x\d+), #(" + _NUMBER + r")$")
_ARM_ADR = re.compile(r"^(x\d+), #(" + _NUMBER + r")$")
_ARM_WIDTH = {"strb": 1, "sturb": 1, "strh": 2, "sturh": 2}
Kept = tuple[int, int, str, str]  # (address, size, mnemonic, operands): a capstone lite row the sweep kept


MIN_CHARS = 4
FRAME_X86 = frozenset({"mov", "movabs", "lea", "call", "xor"})
FRAME_ARM64 = frozenset(
    {
        "mov",
        "movz",
        "movk",
        "movn",
        "orr",
        "str",
        "strb",
        "strh",
        "stur",
        "sturb",
        "sturh",
        "add",
        "bl",
        "eor",
        "adr",
        "adrp",
    }
)
_HEX_TAILS = tuple("0123456789abcdef")
_ARM_STORE = re.compile(r"^([wx](?:\d+|zr)), \[(sp|x29)(?:, #(" + _NUMBER + r"))?\]$")
_ARM_MOVE = re.compile(r"^([wx]\d+), #(" + _NUMBER + r")(?:, lsl #(\d+))?$")
_ARM_COPY = re.compile(r"^([wx]\d+), ([wx](?:\d+|zr))$")
_ARM_ADD = re.compile(r"^([wx]\d+), (sp|x\d+), #(" + _NUMBER + r")$")
_ARM_ADR = re.compile(r"^(x\d+), #(" + _NUMBER + r")$")
_ARM_WIDTH = {"strb": 1, "sturb": 1, "strh": 2, "sturh": 2}


class Columns(NamedTuple):
    """The kept rows as four columns in address order. Why columns: lists of ints and strings are not
    tracked by the garbage collector, while 180,000 retained row tuples (busybox) made its collections cost
    a third of the sweep."""

    addresses: list[int]
    sizes: list[int]
    mnemonics: list[str]
    operands: list[str]

    @classmethod
    def empty(cls) -> Columns:
        return cls([], [], [], [])

    @classmethod
    def of(cls, rows: Iterable[Kept]) -> Columns:
        columns = cls.empty()
        for row in rows:
            columns.append(row)
        return columns

    def append(self, row: Kept) -> None:
        self.addresses.append(row[0])
        self.sizes.append(row[1])
        self.mnemonics.append(row[2])
        self.operands.append(row[3])

    def rows(self, low: int = 0, high: int | None = None) -> list[Kept]:
        end = len(self.addresses) if high is None else high
        return list(
            zip(
                self.addresses[low:end],
                self.sizes[low:end],
                self.mnemonics[low:end],
                self.operands[low:end],
                strict=True,
            )
        )


def is_printable(byte: int | None) -> bool:
    return byte is not None and (0x20 <= byte <= 0x7E or byte in (0x09, 0x0A, 0x0D))


X86_REGISTERS: dict[str, tuple[str, int]] = {}
for _n, _names in {
    "rax": ("rax", "eax", "ax", "al"),
    "rbx": ("rbx", "ebx", "bx", "bl"),
    "rcx": ("rcx", "ecx", "cx", "cl"),
    "rdx": ("rdx", "edx", "dx", "dl"),
    "rsi": ("rsi", "esi", "si", "sil"),
    "rdi": ("rdi", "edi", "di", "dil"),
    **{f"r{i}": (f"r{i}", f"r{i}d", f"r{i}w", f"r{i}b") for i in range(8, 16)},
}.items():
    for _name, _width in zip(_names, (8, 4, 2, 1), strict=True):
        X86_REGISTERS[_name] = (_n, _width)


def _number(text: str) -> int:
    negative = text.startswith("-")
    digits = text[1:] if negative else text
    found = int(digits, 16) if digits.startswith("0x") else int(digits)
    return -found if negative else found


_IMMEDIATE = re.compile(_NUMBER)


def immediate(text: str) -> int | None:
    """The number a whole operand text spells (`0x41`, `65`, `#0x41`), else None."""
    text = text.removeprefix("#")
    return _number(text) if _IMMEDIATE.fullmatch(text) else None


def _arm_register(name: str) -> tuple[str, int]:
    return ("x" + name[1:], 8 if name[0] == "x" else 4)


@attrs.frozen
class Pointer:
    """A register holding an address: into a frame (base, offset) or into the image (address)."""

    base: str | None
    offset: int


class Frame:
    """One procedure's replay: registers known since the last gap, frame bytes (each with the store that
    wrote it and that store's rank in store order), and the calls to the procedures `wanted` names. Only
    `bases` address the frame: a store through any other register writes memory the pass does not follow."""

    def __init__(self, wanted: Container[int] = frozenset(), bases: Container[str] = FRAME_BASES) -> None:
        self.registers: dict[str, int | Pointer] = {}
        self.bases = bases
        self.bytes: dict[tuple[str, int], tuple[int, int, int]] = {}
        self.stores = 0
        self.wanted = wanted
        self.calls: list[tuple[int, int, dict[str, int | Pointer], dict[str, bytes]]] = []

    def store(self, site: int, base: str, offset: int, width: int, value: int | None) -> None:
        """Write `width` little-endian bytes of `value` at base+offset, in store order. An unknown value
        (None) forgets what was there: an unknown byte ends a string and a buffer exactly as an unwritten
        one does, and most stores (register spills) are unknown."""
        self.stores += 1
        if value is None:
            if self.bytes:
                for i in range(width):
                    self.bytes.pop((base, offset + i), None)
            return
        for i in range(width):
            self.bytes[(base, offset + i)] = ((value >> (8 * i)) & 0xFF, site, self.stores)

    def call(self, site: int, target: int) -> None:
        """A call to a wanted procedure keeps what the registers hold at that moment, and the known bytes
        of each frame buffer a register points at (later stores must not change them)."""
        if target in self.wanted:
            buffers = {
                name: self.known(held)
                for name, held in self.registers.items()
                if isinstance(held, Pointer) and held.base
            }
            self.calls.append((site, target, dict(self.registers), buffers))

    def known(self, pointer: Pointer) -> bytes:
        """The known bytes from a frame address on, up to the first unknown or unwritten one."""
        known = bytearray()
        for i in range(MAX_BUFFER):
            held = self.bytes.get((pointer.base or "", pointer.offset + i))
            if held is None or held[0] is None:
                break
            known.append(held[0])
        return bytes(known)


# ------------------------------------------------------------------ x86


def x86_step(frame: Frame, row: Kept) -> None:
    address, size, mnemonic, operands = row
    if mnemonic == "call":
        _x86_call(frame, address, size, operands)
        return
    if mnemonic == "lea":
        _x86_lea(frame, address, size, operands)
        return
    if mnemonic == "xor":
        target, _, source = operands.partition(", ")
        if target in X86_REGISTERS:
            name, width = X86_REGISTERS[target]
            if target == source and width >= 4:
                frame.registers[name] = 0  # the zeroing idiom
            else:
                frame.registers.pop(name, None)
        return
    destination, _, source = operands.partition(", ")
    register = X86_REGISTERS.get(destination)
    if register is not None:
        _x86_move(frame, register, source)
    elif "bp" in destination or "sp" in destination:
        memory = _X86_MEMORY.match(operands)
        if memory is not None:
            spelled, base, sign, displacement, stored = memory.groups()
            if base not in frame.bases:
                return
            offset = (_number(displacement) if displacement else 0) * (-1 if sign == "-" else 1)
            value = _x86_value(frame, stored, WIDTH[spelled])
            frame.store(address, base, offset, WIDTH[spelled], value)


def _x86_move(frame: Frame, register: tuple[str, int], source: str) -> None:
    """A register written: an immediate, a copy of a known register, or (a load) unknown."""
    target, width = register
    value = None if "[" in source else _x86_source(frame, source)
    if value is None or (isinstance(value, int) and width < 4):  # a partial write leaves the rest unknown
        frame.registers.pop(target, None)
    else:
        frame.registers[target] = value & 0xFFFFFFFF if isinstance(value, int) and width == 4 else value


def _x86_source(frame: Frame, text: str) -> int | Pointer | None:
    """An immediate, or what a register is known to hold; None for anything else."""
    if text[:1].isdigit() or text.startswith("-"):
        return immediate(text)
    if text in X86_REGISTERS:
        name, width = X86_REGISTERS[text]
        held = frame.registers.get(name)
        if isinstance(held, int):
            return held & ((1 << (8 * width)) - 1)
        return held if width == 8 else None
    return None


def _x86_value(frame: Frame, text: str, width: int) -> int | None:
    held = _x86_source(frame, text)
    return held & ((1 << (8 * width)) - 1) if isinstance(held, int) else None


def _x86_lea(frame: Frame, address: int, size: int, operands: str) -> None:
    match = _X86_LEA.match(operands)
    target = operands.partition(", ")[0]
    name = X86_REGISTERS.get(target, (target, 0))[0]
    if match is None or target not in X86_REGISTERS:
        frame.registers.pop(name, None)
        return
    _, base, sign, displacement = match.groups()
    offset = (_number(displacement) if displacement else 0) * (-1 if sign == "-" else 1)
    if base != "rip" and base not in frame.bases:
        frame.registers.pop(name, None)
    elif base == "rip":
        frame.registers[name] = Pointer(None, address + size + offset)
    else:
        frame.registers[name] = Pointer(base, offset)


def _x86_call(frame: Frame, address: int, size: int, operands: str) -> None:
    target = immediate(operands)
    if target is not None:
        frame.call(address, target)
    for name in ("rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11"):  # the callee may change them
        frame.registers.pop(name, None)


# ------------------------------------------------------------------ AArch64


def arm_step(frame: Frame, row: Kept) -> None:
    address, _size, mnemonic, operands = row
    if mnemonic == "bl":
        target = immediate(operands)
        if target is not None:
            frame.call(address, target)
        for n in range(19):
            frame.registers.pop(f"x{n}", None)
        return
    if mnemonic in _ARM_WIDTH or mnemonic in ("str", "stur"):
        _arm_store(frame, address, mnemonic, operands)
        return
    destination = _arm_register(operands.partition(",")[0])[0]
    known = _arm_value(frame, mnemonic, operands)
    if known is None:
        frame.registers.pop(destination, None)
    else:
        frame.registers[destination] = known


def _arm_value(frame: Frame, mnemonic: str, operands: str) -> int | Pointer | None:
    """What a mov/movz/movk/movn/orr/add/adr leaves in its destination, if the pass can know it."""
    move = _ARM_MOVE.match(operands)
    if move is not None and mnemonic in ("mov", "movz", "movk", "movn", "orr"):
        name, width = _arm_register(move.group(1))
        shift = int(move.group(3) or 0)
        mask = (1 << (8 * width)) - 1
        piece = (_number(move.group(2)) << shift) & mask
        if mnemonic == "movk":
            held = frame.registers.get(name)
            if not isinstance(held, int):
                return None
            return (held & ~(0xFFFF << shift) & mask) | piece
        if mnemonic == "movn":
            return ~piece & mask
        return piece if mnemonic != "orr" or operands.count(",") == 1 else None
    copy = _ARM_COPY.match(operands)
    if copy is not None and mnemonic == "mov":
        if copy.group(2).endswith("zr"):
            return 0
        held = frame.registers.get(_arm_register(copy.group(2))[0])
        if isinstance(held, int) and copy.group(2)[0] == "w":
            return held & 0xFFFFFFFF
        return held
    add = _ARM_ADD.match(operands)
    if add is not None and mnemonic == "add":
        if add.group(2) in ("sp", "x29"):
            return Pointer(add.group(2), _number(add.group(3))) if add.group(2) in frame.bases else None
        page = frame.registers.get(add.group(2))  # adrp's page completed by the add
        return (
            Pointer(None, page.offset + _number(add.group(3)))
            if isinstance(page, Pointer) and page.base is None
            else None
        )
    adr = _ARM_ADR.match(operands)
    if adr is not None and mnemonic in ("adr", "adrp"):
        return Pointer(None, _number(adr.group(2)))
    return None


def _arm_store(frame: Frame, address: int, mnemonic: str, operands: str) -> None:
    match = _ARM_STORE.match(operands)
    if match is None:
        return
    register, base, offset = match.groups()
    if base not in frame.bases:
        return
    width = _ARM_WIDTH.get(mnemonic) or (8 if register[0] == "x" else 4)
    if register.endswith("zr"):
        value: int | None = 0
    else:
        held = frame.registers.get(_arm_register(register)[0])
        value = held & ((1 << (8 * width)) - 1) if isinstance(held, int) else None
    frame.store(address, base, _number(offset) if offset else 0, width, value)


# ------------------------------------------------------------------ which frames to replay


def frame_bases(mnemonics: Sequence[str], operands: Sequence[str], architecture: str) -> frozenset[str]:
    """The registers that address one procedure's frame: the stack pointer always, the frame pointer only
    where the procedure sets it from the stack pointer (`mov rbp, rsp`, `mov ebp, esp`, `mov x29, sp`,
    `add x29, sp, #n`). Why: optimized code uses rbp (and x29) as any other register, so bytes stored
    through it (`mov rbp, rsi; mov byte [rbp + 8], 0x2f`) fill a caller's buffer, not a stack string."""
    if architecture == "arm64":
        sets = any(m in ("mov", "add") and o.startswith("x29, sp") for m, o in zip(mnemonics, operands, strict=True))
        return _ARM_FRAME if sets else _ARM_STACK
    stack, pointer, setting = ("esp", "ebp", "ebp, esp") if architecture == "x86" else ("rsp", "rbp", "rbp, rsp")
    at = -1
    while True:
        try:
            at = operands.index(setting, at + 1)
        except ValueError:
            return frozenset({stack})
        if mnemonics[at] == "mov":
            return frozenset({stack, pointer})


_ARM_STACK, _ARM_FRAME = frozenset({"sp"}), frozenset({"sp", "x29"})


def builds_x86(mnemonics: Sequence[str], operands: Sequence[str], bases: Container[str]) -> bool:
    """Could the replay find a string here? Only where the procedure stores a non-zero immediate into its
    frame or loads a movabs, and at least `MIN_CHARS` printable bytes can reach the frame: those of its
    frame-immediate stores, or (any number: one register may be stored many times) a printable byte of
    an immediate in a register when it also stores a register into its frame."""
    builds = held = stored = False
    printable = 0
    for mnemonic, text in zip(mnemonics, operands, strict=True):
        if mnemonic == "movabs":
            builds = True
            held = held or _has_printable(text.rpartition(", ")[2], 8)
        elif mnemonic != "mov" or text[-1:] == "]":
            continue  # not a move, or a load
        elif "ptr [" in text:
            store = _FRAME_STORE.match(text)
            if store is None or store.group(2) not in bases:
                continue
            spelled, _, _, value = store.groups()
            number = immediate(value)
            if number is None:
                stored = True  # a register (r8d, r11 end like hex digits, so the text is parsed)
                continue
            number &= (1 << (8 * WIDTH[spelled])) - 1
            builds = builds or number != 0
            printable += sum(is_printable(b) for b in number.to_bytes(WIDTH[spelled], "little"))
        elif not held and text.endswith(_HEX_TAILS):
            held = _has_printable(text.rpartition(", ")[2], 8)
    return builds and (printable >= MIN_CHARS or (held and stored))


_FRAME_STORE = re.compile(r"^(byte|word|dword|qword) ptr \[(rbp|rsp|ebp|esp)([^\]]*)\], (\S+)$")


def _has_printable(text: str, width: int) -> bool:
    value = immediate(text)
    return value is not None and any(is_printable((value >> (8 * i)) & 0xFF) for i in range(width))


def builds_arm64(mnemonics: Sequence[str], operands: Sequence[str], bases: Container[str]) -> bool:
    """Any non-zero immediate moved into a register, and any store of a register other than the zero
    register into the frame (sp, or x29 where the procedure sets it from sp)."""
    moves = stores = False
    for mnemonic, text in zip(mnemonics, operands, strict=True):
        if mnemonic.startswith("mov") and ", #" in text and not text.endswith(", #0"):
            moves = True
        elif mnemonic.startswith("st") and "zr," not in text and _stores_to_frame(text, bases):
            stores = True
        if moves and stores:
            return True
    return False


def _stores_to_frame(text: str, bases: Container[str]) -> bool:
    return ("[sp" in text and "sp" in bases) or ("[x29" in text and "x29" in bases)
