"""Stack strings and decoder candidates, read from the instructions the fast index's sweep kept.

Why: malware-like code builds its paths, hosts and commands on the stack, one immediate store at a time
(`mov byte [rbp-0x20], 0x2f`, `mov dword [rbp-0x30], 0x6e69622f`, `movabs rax, imm64; mov [rbp-x], rax`,
AArch64 `mov w8, #imm; strb w8, [sp, #x]`), so no string is stored in the clear and a section scan never
sees it. The sweep already decodes every instruction; it keeps the few kinds this pass reads (moves, stores,
address computations, calls, XORs: `FRAME_X86`, `FRAME_ARM64`), and this pure pass replays them per
procedure:

- a frame is one procedure's memory addressed from one base register: the stack pointer (rsp, esp, sp), or
  the frame pointer (rbp, ebp, x29) only where that procedure sets it from the stack pointer (`frame_bases`:
  optimized code uses rbp as any other register, and bytes stored through it fill someone else's buffer);
  each store writes its bytes at its offset in store order, so a later store overwrites an earlier one, and
  a store of a value the pass does not know (a register loaded from memory) overwrites with unknown bytes;
- a stack string is a printable run of at least `MIN_CHARS` known bytes inside one contiguous written range
  (a gap, an unknown or a non-printable byte ends it; a NUL ends it as its terminator);
- a register holds an immediate only while the kept instructions are adjacent: an instruction the sweep did
  not keep lies between two kept ones whose addresses do not meet, and it may have changed any register, so
  what the pass knew of registers is forgotten there (never guessed across).

Decoder candidates are the call sites a later step emulates: a call whose argument registers hold the
address of a stack buffer filled by immediate stores, or of constant data in a mapped non-executable section,
made to a small procedure that contains a XOR of two different operands or a loop (a backward jump inside
it). What such a call returns is not known here: decoded strings (origin `decoded`) need the emulator.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Container, Iterable, Mapping, Sequence
from typing import Any, NamedTuple

import attrs

MIN_CHARS = 4
MAX_DECODER_SIZE = 1024  # bytes: a decode routine is small; a large callee is not a candidate
WINDOW = 32  # kept rows replayed before a call, in a procedure that builds nothing on its stack
MAX_BUFFER = 256  # bytes of a stack argument's known contents carried in a candidate
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
FRAME_BASES = frozenset({"rbp", "rsp", "ebp", "esp", "x29", "sp"})
_WIDTH = {"byte": 1, "word": 2, "dword": 4, "qword": 8}
_NUMBER = r"-?(?:0x[0-9a-f]+|\d+)"
_X86_MEMORY = re.compile(r"^(byte|word|dword|qword) ptr \[(rbp|rsp|ebp|esp)(?: ([+-]) (0x[0-9a-f]+|\d+))?\], (\S+)$")
_X86_LEA = re.compile(r"^(\w+), \[(rbp|rsp|ebp|esp|rip)(?: ([+-]) (0x[0-9a-f]+|\d+))?\]$")
_HEX_TAILS = tuple("0123456789abcdef")
_ARM_STORE = re.compile(r"^([wx](?:\d+|zr)), \[(sp|x29)(?:, #(" + _NUMBER + r"))?\]$")
_ARM_MOVE = re.compile(r"^([wx]\d+), #(" + _NUMBER + r")(?:, lsl #(\d+))?$")
_ARM_COPY = re.compile(r"^([wx]\d+), ([wx](?:\d+|zr))$")
_ARM_ADD = re.compile(r"^([wx]\d+), (sp|x\d+), #(" + _NUMBER + r")$")
_ARM_ADR = re.compile(r"^(x\d+), #(" + _NUMBER + r")$")
_ARM_WIDTH = {"strb": 1, "sturb": 1, "strh": 2, "sturh": 2}
_X86_ARGUMENTS = ("rdi", "rsi", "rdx", "rcx", "r8", "r9")
_ARM_ARGUMENTS = tuple(f"x{n}" for n in range(8))

Kept = tuple[int, int, str, str]  # (address, size, mnemonic, operands): a capstone lite row the sweep kept


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


@attrs.frozen(kw_only=True)
class StackString:
    """A string a procedure builds in its frame: the text, where its first byte lies in the frame
    (base register and offset), the first store that wrote any of its bytes, and whether a NUL follows."""

    procedure: int
    site: int
    base: str
    offset: int
    value: str
    terminated: bool
    stores: int

    @property
    def frame_offset(self) -> str:
        return _frame_text(self.base, self.offset)


@attrs.frozen(kw_only=True)
class ArgumentSource:
    """Where one pointer argument of a call points: a stack buffer (`stack`, with the bytes immediate stores
    put there before the call, hex) or constant data (`data`, an address in a mapped non-executable section)."""

    register: str
    kind: str  # "stack" or "data"
    address: int | None = None
    base: str | None = None
    offset: int | None = None
    known_hex: str = ""


@attrs.frozen(kw_only=True)
class DecoderCandidate:
    """A call site worth emulating: caller, call site, callee, and the pointer arguments it passes."""

    caller: int
    call_site: int
    callee: int
    arguments: tuple[ArgumentSource, ...]
    reasons: tuple[str, ...]  # why the callee looks like a decoder: "xor", "loop"


@attrs.frozen(kw_only=True)
class DecodedInput:
    """One input of a decoder call, as the emulating step records it: the argument register and its value
    (an integer, or the bytes of a buffer, hex)."""

    register: str
    kind: str  # "integer", "buffer" or "pointer"
    value: str


@attrs.frozen(kw_only=True)
class DecodedString:
    """A string a decoder routine produced at run time (origin `decoded`): filled in by emulating the call
    site's caller and the call (effects.native.decoder, read by rea.native.decoding)."""

    decoder: int
    call_site: int
    caller: int
    value: str
    inputs: tuple[DecodedInput, ...]


# ------------------------------------------------------------------ registers and values


_X86_REGISTERS: dict[str, tuple[str, int]] = {}
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
        _X86_REGISTERS[_name] = (_n, _width)


def _number(text: str) -> int:
    negative = text.startswith("-")
    digits = text[1:] if negative else text
    found = int(digits, 16) if digits.startswith("0x") else int(digits)
    return -found if negative else found


_IMMEDIATE = re.compile(_NUMBER)


def _immediate(text: str) -> int | None:
    """The number a whole operand text spells (`0x41`, `65`, `#0x41`), else None."""
    text = text.removeprefix("#")
    return _number(text) if _IMMEDIATE.fullmatch(text) else None


def _arm_register(name: str) -> tuple[str, int]:
    return ("x" + name[1:], 8 if name[0] == "x" else 4)


@attrs.frozen
class _Pointer:
    """A register holding an address: into a frame (base, offset) or into the image (address)."""

    base: str | None
    offset: int


class _Frame:
    """One procedure's replay: registers known since the last gap, frame bytes (each with the store that
    wrote it and that store's rank in store order), and the calls to the procedures `wanted` names. Only
    `bases` address the frame: a store through any other register writes memory the pass does not follow."""

    def __init__(self, wanted: Container[int] = frozenset(), bases: Container[str] = FRAME_BASES) -> None:
        self.registers: dict[str, int | _Pointer] = {}
        self.bases = bases
        self.bytes: dict[tuple[str, int], tuple[int, int, int]] = {}
        self.stores = 0
        self.wanted = wanted
        self.calls: list[tuple[int, int, dict[str, int | _Pointer], dict[str, bytes]]] = []

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
                if isinstance(held, _Pointer) and held.base
            }
            self.calls.append((site, target, dict(self.registers), buffers))

    def known(self, pointer: _Pointer) -> bytes:
        """The known bytes from a frame address on, up to the first unknown or unwritten one."""
        known = bytearray()
        for i in range(MAX_BUFFER):
            held = self.bytes.get((pointer.base or "", pointer.offset + i))
            if held is None or held[0] is None:
                break
            known.append(held[0])
        return bytes(known)


# ------------------------------------------------------------------ x86


def _x86_step(frame: _Frame, row: Kept) -> None:
    address, size, mnemonic, operands = row
    if mnemonic == "call":
        _x86_call(frame, address, size, operands)
        return
    if mnemonic == "lea":
        _x86_lea(frame, address, size, operands)
        return
    if mnemonic == "xor":
        target, _, source = operands.partition(", ")
        if target in _X86_REGISTERS:
            name, width = _X86_REGISTERS[target]
            if target == source and width >= 4:
                frame.registers[name] = 0  # the zeroing idiom
            else:
                frame.registers.pop(name, None)
        return
    destination, _, source = operands.partition(", ")
    register = _X86_REGISTERS.get(destination)
    if register is not None:
        _x86_move(frame, register, source)
    elif "bp" in destination or "sp" in destination:
        memory = _X86_MEMORY.match(operands)
        if memory is not None:
            spelled, base, sign, displacement, stored = memory.groups()
            if base not in frame.bases:
                return
            offset = (_number(displacement) if displacement else 0) * (-1 if sign == "-" else 1)
            value = _x86_value(frame, stored, _WIDTH[spelled])
            frame.store(address, base, offset, _WIDTH[spelled], value)


def _x86_move(frame: _Frame, register: tuple[str, int], source: str) -> None:
    """A register written: an immediate, a copy of a known register, or (a load) unknown."""
    target, width = register
    value = None if "[" in source else _x86_source(frame, source)
    if value is None or (isinstance(value, int) and width < 4):  # a partial write leaves the rest unknown
        frame.registers.pop(target, None)
    else:
        frame.registers[target] = value & 0xFFFFFFFF if isinstance(value, int) and width == 4 else value


def _x86_source(frame: _Frame, text: str) -> int | _Pointer | None:
    """An immediate, or what a register is known to hold; None for anything else."""
    if text[:1].isdigit() or text.startswith("-"):
        return _immediate(text)
    if text in _X86_REGISTERS:
        name, width = _X86_REGISTERS[text]
        held = frame.registers.get(name)
        if isinstance(held, int):
            return held & ((1 << (8 * width)) - 1)
        return held if width == 8 else None
    return None


def _x86_value(frame: _Frame, text: str, width: int) -> int | None:
    held = _x86_source(frame, text)
    return held & ((1 << (8 * width)) - 1) if isinstance(held, int) else None


def _x86_lea(frame: _Frame, address: int, size: int, operands: str) -> None:
    match = _X86_LEA.match(operands)
    target = operands.partition(", ")[0]
    name = _X86_REGISTERS.get(target, (target, 0))[0]
    if match is None or target not in _X86_REGISTERS:
        frame.registers.pop(name, None)
        return
    _, base, sign, displacement = match.groups()
    offset = (_number(displacement) if displacement else 0) * (-1 if sign == "-" else 1)
    if base != "rip" and base not in frame.bases:
        frame.registers.pop(name, None)
    elif base == "rip":
        frame.registers[name] = _Pointer(None, address + size + offset)
    else:
        frame.registers[name] = _Pointer(base, offset)


def _x86_call(frame: _Frame, address: int, size: int, operands: str) -> None:
    target = _immediate(operands)
    if target is not None:
        frame.call(address, target)
    for name in ("rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11"):  # the callee may change them
        frame.registers.pop(name, None)


# ------------------------------------------------------------------ AArch64


def _arm_step(frame: _Frame, row: Kept) -> None:
    address, _size, mnemonic, operands = row
    if mnemonic == "bl":
        target = _immediate(operands)
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


def _arm_value(frame: _Frame, mnemonic: str, operands: str) -> int | _Pointer | None:
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
            return _Pointer(add.group(2), _number(add.group(3))) if add.group(2) in frame.bases else None
        page = frame.registers.get(add.group(2))  # adrp's page completed by the add
        return (
            _Pointer(None, page.offset + _number(add.group(3)))
            if isinstance(page, _Pointer) and page.base is None
            else None
        )
    adr = _ARM_ADR.match(operands)
    if adr is not None and mnemonic in ("adr", "adrp"):
        return _Pointer(None, _number(adr.group(2)))
    return None


def _arm_store(frame: _Frame, address: int, mnemonic: str, operands: str) -> None:
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


# ------------------------------------------------------------------ the pass


def replay(
    rows: Iterable[Kept],
    architecture: str,
    wanted: Container[int] = frozenset(),
    bases: Container[str] = FRAME_BASES,
) -> _Frame:
    """One procedure's kept instructions replayed in address order (registers forgotten at every gap); the
    calls to `wanted` procedures are kept with what the registers and frame held then. `bases` are the
    registers that address its frame (`frame_bases` of the procedure; all of them by default)."""
    arm = architecture == "arm64"
    step = _arm_step if arm else _x86_step
    frame = _Frame(wanted, bases)
    registers = frame.registers
    end = None
    for row in rows:
        if row[0] != end:
            registers.clear()
        end = row[0] + row[1]
        operands = row[3]
        if not arm and operands[-1:] == "]" and row[2] == "mov":  # a load (most moves): forget its register
            loaded = _X86_REGISTERS.get(operands.partition(", ")[0])
            if loaded is not None:
                registers.pop(loaded[0], None)
                continue
        try:
            step(frame, row)
        except (ValueError, KeyError, IndexError):  # an operand text the pass does not read changes nothing known
            frame.registers.clear()
    return frame


def _printable(byte: int | None) -> bool:
    return byte is not None and (0x20 <= byte <= 0x7E or byte in (0x09, 0x0A, 0x0D))


def strings_of(procedure: int, frame: _Frame) -> list[StackString]:
    """The printable runs of at least `MIN_CHARS` known bytes of each frame, in frame order."""
    found: list[StackString] = []
    for base in sorted({b for b, _ in frame.bytes}):
        offsets = sorted(o for b, o in frame.bytes if b == base)
        run: list[int] = []
        for offset in offsets:
            byte = frame.bytes[(base, offset)][0]
            if run and offset == run[-1] + 1 and _printable(byte):
                run.append(offset)
                continue
            _emit(found, procedure, frame, base, run, offset if run and offset == run[-1] + 1 else None)
            run = [offset] if _printable(byte) else []
        _emit(found, procedure, frame, base, run, None)
    return found


def _emit(
    found: list[StackString], procedure: int, frame: _Frame, base: str, run: list[int], after: int | None
) -> None:
    if len(run) < MIN_CHARS:
        return
    held = [frame.bytes[(base, o)] for o in run]
    first = min(held, key=lambda h: h[2])
    following = frame.bytes.get((base, after)) if after is not None else None
    found.append(
        StackString(
            procedure=procedure,
            site=first[1],
            base=base,
            offset=run[0],
            value=bytes(h[0] or 0 for h in held).decode("ascii"),
            terminated=following is not None and following[0] == 0,
            stores=len({h[2] for h in held}),
        )
    )


def scan(
    kept: Columns,
    procedures: Sequence[tuple[int, int]],
    architecture: str,
    wanted: Mapping[int, tuple[str, ...]] | None = None,
) -> tuple[list[StackString], dict[int, _Frame]]:
    """Every procedure's stack strings, and each replayed frame with its calls to `wanted` procedures (the
    decoder planner reads them). `kept` is in address order; `procedures` are (start, end) ranges sorted by
    start; `wanted` maps a procedure to its decoder traits (`decoder_traits`). Only a procedure that could
    build a string in its frame (`_builds_x86`, `_builds_arm64`) is replayed whole; of any other, only the
    rows just before its calls to a procedure that XORs (which may decode constant data) are replayed.

    Why the columns are read by slice and index: building row tuples for every procedure cost more than the
    replay itself (a Go executable keeps 550,000 rows, of which a few percent are replayed)."""
    frames: dict[int, _Frame] = {}
    found: list[StackString] = []
    builds = _builds_arm64 if architecture == "arm64" else _builds_x86
    wanted = wanted or {}
    calls = _calls_to(kept, [at for at, reasons in wanted.items() if "xor" in reasons])
    addresses = kept.addresses
    for start, end in procedures:
        low = bisect.bisect_left(addresses, start)
        high = bisect.bisect_left(addresses, end, low)
        if high == low:
            continue
        bases = frame_bases(kept.mnemonics[low:high], kept.operands[low:high], architecture)
        if builds(kept.mnemonics[low:high], kept.operands[low:high], bases):
            frame = replay(kept.rows(low, high), architecture, wanted, bases)
            found.extend(strings_of(start, frame))
        else:
            frame = _Frame(wanted, bases)
            first = bisect.bisect_left(calls, low)
            for index in calls[first : bisect.bisect_left(calls, high, first)]:
                frame.calls.extend(replay(_window(kept, low, index), architecture, wanted, bases).calls)
            if not frame.calls:
                continue
        frames[start] = frame
    return found, frames


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


def _calls_to(kept: Columns, targets: Iterable[int]) -> list[int]:
    """The indices of the kept calls to `targets`, in order (capstone spells a target in hex, `#` first on
    AArch64, and a small one in decimal)."""
    spelled = {text for t in targets for text in (f"{t:#x}", f"#{t:#x}", str(t), f"#{t}")}
    if not spelled:
        return []
    operands = kept.operands
    return [
        i
        for i, mnemonic in enumerate(kept.mnemonics)
        if (mnemonic == "call" or mnemonic == "bl") and operands[i] in spelled
    ]


def _window(kept: Columns, low: int, index: int) -> list[Kept]:
    """The adjacent kept rows that end with the call at `index` (at most `WINDOW`, none before `low`): in a
    procedure that builds nothing on its stack only the registers set just before a call matter, and
    registers are forgotten at the first gap anyway."""
    addresses, sizes = kept.addresses, kept.sizes
    first = index
    while first > low and index - first < WINDOW and addresses[first - 1] + sizes[first - 1] == addresses[first]:
        first -= 1
    return kept.rows(first, index + 1)


def _builds_x86(mnemonics: Sequence[str], operands: Sequence[str], bases: Container[str]) -> bool:
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
            number = _immediate(value)
            if number is None:
                stored = True  # a register (r8d, r11 end like hex digits, so the text is parsed)
                continue
            number &= (1 << (8 * _WIDTH[spelled])) - 1
            builds = builds or number != 0
            printable += sum(_printable(b) for b in number.to_bytes(_WIDTH[spelled], "little"))
        elif not held and text.endswith(_HEX_TAILS):
            held = _has_printable(text.rpartition(", ")[2], 8)
    return builds and (printable >= MIN_CHARS or (held and stored))


_FRAME_STORE = re.compile(r"^(byte|word|dword|qword) ptr \[(rbp|rsp|ebp|esp)([^\]]*)\], (\S+)$")


def _has_printable(text: str, width: int) -> bool:
    value = _immediate(text)
    return value is not None and any(_printable((value >> (8 * i)) & 0xFF) for i in range(width))


def _builds_arm64(mnemonics: Sequence[str], operands: Sequence[str], bases: Container[str]) -> bool:
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


# ------------------------------------------------------------------ decoder candidates


def decoder_traits(
    kept: Columns, jumps: Iterable[tuple[int, int]], procedures: Sequence[tuple[int, int]]
) -> dict[int, tuple[str, ...]]:
    """Small procedures (at most `MAX_DECODER_SIZE` bytes) that XOR two different operands or loop (a jump
    to an earlier address inside the procedure), by start, with the reasons."""
    small = [(s, e) for s, e in procedures if 0 < e - s <= MAX_DECODER_SIZE]
    traits: dict[int, set[str]] = {}
    owner = _owner(small)
    for index, mnemonic in enumerate(kept.mnemonics):
        if mnemonic == "xor" or mnemonic == "eor":
            parts = kept.operands[index].split(", ")
            if len(set(parts)) > 1 or len(parts) == 1:
                at = owner(kept.addresses[index])
                if at is not None:
                    traits.setdefault(at, set()).add("xor")
    for site, target in jumps:
        if target < site:
            at = owner(site)
            if at is not None and at <= target:
                traits.setdefault(at, set()).add("loop")
    return {at: tuple(sorted(reasons)) for at, reasons in traits.items()}


def _owner(spans: Sequence[tuple[int, int]]) -> Callable[[int], int | None]:
    starts = [s for s, _ in spans]

    def owner(address: int) -> int | None:
        index = bisect.bisect_right(starts, address) - 1
        return spans[index][0] if index >= 0 and address < spans[index][1] else None

    return owner


def candidates(
    frames: Mapping[int, _Frame],
    traits: Mapping[int, tuple[str, ...]],
    data: Callable[[int], bool],
    architecture: str,
) -> list[DecoderCandidate]:
    """Calls to a decoder-like procedure (`traits`) with an argument register pointing at a stack buffer
    immediate stores filled, or at constant data (`data(address)`: mapped and not executable): see `_worth`."""
    registers = _ARM_ARGUMENTS if architecture == "arm64" else _X86_ARGUMENTS
    found = []
    for caller in sorted(frames):
        for site, callee, held, buffers in frames[caller].calls:
            if callee not in traits:
                continue
            arguments = tuple(a for a in (_argument(r, held.get(r), buffers, data) for r in registers) if a is not None)
            if _worth(arguments, traits[callee]):
                found.append(
                    DecoderCandidate(
                        caller=caller, call_site=site, callee=callee, arguments=arguments, reasons=traits[callee]
                    )
                )
    return found


def _worth(arguments: Sequence[ArgumentSource], reasons: Sequence[str]) -> bool:
    """A callee that XORs, given any constant pointer; a callee that only loops, given a stack buffer of at
    least `MIN_CHARS` known bytes that are not all zero (a loop over constant data alone is strlen, memcpy)."""
    if "xor" in reasons:
        return bool(arguments)
    return any(a.kind == "stack" and len(a.known_hex) >= 2 * MIN_CHARS and a.known_hex.strip("0") for a in arguments)


def _argument(
    register: str, held: int | _Pointer | None, buffers: Mapping[str, bytes], data: Callable[[int], bool]
) -> ArgumentSource | None:
    if isinstance(held, int):
        held = _Pointer(None, held)  # an absolute address (non-PIC code passes data so)
    if not isinstance(held, _Pointer):
        return None
    if held.base is None:
        return ArgumentSource(register=register, kind="data", address=held.offset) if data(held.offset) else None
    known = buffers.get(register, b"")
    if not known:
        return None
    return ArgumentSource(register=register, kind="stack", base=held.base, offset=held.offset, known_hex=known.hex())


# ------------------------------------------------------------------ the snapshot's rows

SCANNED_ARCHITECTURES = frozenset({"x86_64", "x86", "arm64"})


def recover(
    procedures: Sequence[Mapping[str, Any]],
    kept: Columns,
    jumps: Iterable[tuple[int, int]],
    architecture: str,
    data: Callable[[int], bool],
) -> dict[str, Any]:
    """The index snapshot's stack strings, decoder candidates and what was scanned, from the sweep's kept
    rows and jumps (`data(address)`: the address is in a mapped non-executable section)."""
    spans = sorted(
        (int(p["address"], 16), int(p["address"], 16) + int(p["size"]))
        for p in procedures
        if p["kind"] != "external" and str(p["address"]).startswith("0x")
    )
    if architecture not in SCANNED_ARCHITECTURES:
        return {"stack_strings": [], "decoder_candidates": [], "stack_scan": _scanned(architecture, 0, 0, 0)}
    traits = decoder_traits(kept, jumps, spans)
    found, frames = scan(kept, spans, architecture, traits)
    planned = candidates(frames, traits, data, architecture)
    return {
        "stack_strings": [string_row(s) for s in found],
        "decoder_candidates": [candidate_row(c) for c in planned],
        "stack_scan": _scanned(architecture, len(spans), len(frames), len(found)),
    }


def not_scanned(architecture: str, reason: str) -> dict[str, Any]:
    """The snapshot's rows when the pass did not run, with why (an answer must not read "none found")."""
    scan = {**_scanned(architecture, 0, 0, 0), "scanned": False, "reason": reason}
    return {"stack_strings": [], "decoder_candidates": [], "stack_scan": scan}


def _scanned(architecture: str, procedures: int, replayed: int, found: int) -> dict[str, Any]:
    return {
        "architecture": architecture,
        "scanned": architecture in SCANNED_ARCHITECTURES,
        "procedures": procedures,
        "replayed": replayed,
        "stack_strings": found,
    }


def string_row(s: StackString) -> dict[str, Any]:
    """A stack string in the snapshot's string shape: its address is the first store's."""
    return {
        "address": f"0x{s.site:x}",
        "value": s.value,
        "truncated": False,
        "encoding": "ascii",
        "length": len(s.value) + (1 if s.terminated else 0),
        "terminator": 1 if s.terminated else 0,
        "origin": "stack",
        "procedure": f"0x{s.procedure:x}",
        "frame_offset": s.frame_offset,
        "stores": s.stores,
        "referenced_by": [f"0x{s.procedure:x}"],
    }


def candidate_row(c: DecoderCandidate) -> dict[str, Any]:
    return {
        "caller": f"0x{c.caller:x}",
        "call_site": f"0x{c.call_site:x}",
        "callee": f"0x{c.callee:x}",
        "reasons": list(c.reasons),
        "arguments": [
            {
                "register": a.register,
                "kind": a.kind,
                **({"address": f"0x{a.address:x}"} if a.address is not None else {}),
                **({"frame_offset": _frame_text(a.base, a.offset)} if a.base is not None else {}),
                **({"known_hex": a.known_hex} if a.known_hex else {}),
            }
            for a in c.arguments
        ],
    }


def _frame_text(base: str, offset: int | None) -> str:
    offset = offset or 0
    return f"{base}{'-' if offset < 0 else '+'}0x{abs(offset):x}"


def decoded_row(s: DecodedString) -> dict[str, Any]:
    """A decoded string in the snapshot's string shape (`decoded_strings`, beside `stack_strings`): its
    address is the call site, its producer the decoder, its inputs the ones the emulation ran."""
    raw = s.value.encode("utf-8")
    return {
        "address": f"0x{s.call_site:x}",
        "value": s.value,
        "truncated": False,
        "encoding": "utf-8",
        "length": len(raw),
        "terminator": 0,
        "origin": "decoded",
        "procedure": f"0x{s.caller:x}",
        "decoder": f"0x{s.decoder:x}",
        "call_site": f"0x{s.call_site:x}",
        "inputs": [{"register": i.register, "kind": i.kind, "value": i.value} for i in s.inputs],
        "referenced_by": [f"0x{s.caller:x}"],
    }
