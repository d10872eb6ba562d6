"""A linear sweep of executable code: instruction boundaries, direct calls and jumps, and every code
reference to data, in seconds and without a control-flow graph.

Why a sweep: what an agent asks first (who references this string, who calls this function, what
does this function read) is answered by the operands of the instructions themselves. angr's
whole-program CFG takes minutes on a static binary and still misses references it did not reach;
capstone decodes every byte of every executable section in about the time objdump takes.

What it reads, per architecture (capstone's `disasm_lite` text, so no per-instruction detail
objects are built):

| architecture | calls and jumps            | data references                                             |
|--------------|----------------------------|-------------------------------------------------------------|
| x86-64       | `call/jmp/jcc 0x…`         | `[rip ± d]` (lea: offset, store: write, else read); absolute |
|              |                            | `[0x…]` and immediates inside the image (non-PIC only)       |
| x86          | `call/jmp/jcc 0x…`         | absolute `[0x…]` and immediates inside the image             |
| arm64        | `bl/b/b.cc/cbz/tbz #0x…`   | `adr`, `adrp` + `add`/`ldr`/`str` on the same register       |

An indirect call or jump (`call rax`, `blr x8`) is counted, never guessed; a call through an import
slot (`call [rip + slot]`, a PLT or stub `jmp [slot]`) is a call to that import. Bytes that do not
decode (data in code, padding) are skipped one at a time and counted, so the sweep always ends.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import attrs

from rea.native.stackframe import FRAME_ARM64, FRAME_X86, Columns

if TYPE_CHECKING:
    import capstone

# capstone's architecture and mode constants by name: capstone is imported by the first decoder, not with this
# module, which the MCP server's first call loads for its records (Region, Sweep) and never decodes with
ARCHITECTURES: dict[str, tuple[str, str]] = {
    "x86_64": ("CS_ARCH_X86", "CS_MODE_64"),
    "x86": ("CS_ARCH_X86", "CS_MODE_32"),
    "arm64": ("CS_ARCH_ARM64", "CS_MODE_ARM"),
}
_NUMBER = r"(0x[0-9a-f]+|\d+)"
_RIP = re.compile(r"\[rip ([+-]) " + _NUMBER + r"\]")
_ABSOLUTE = re.compile(r"\[(0x[0-9a-f]+)\]")
_IMMEDIATE = re.compile(r"(?:^|, )(0x[0-9a-f]+)$")
_LENGTH = re.compile(r"^[re]?[a-z0-9]+, (0x[0-9a-f]+|\d+)$")
MAX_SIZED = 1 << 16
_ARM_TARGET = re.compile(r"#(0x[0-9a-f]+|\d+)$")
_ARM_BASE = re.compile(r"^([wx]\d+), \[?([wx]\d+|sp)(?:, #(-?0x[0-9a-f]+|-?\d+))?\]?")
_X86_BRANCH = frozenset({"call", "jmp", "jo", "jno", "jb", "jae", "je", "jne", "jbe", "ja", "js", "jns", "jp", "jnp"})
_X86_JUMPS = _X86_BRANCH | {"jl", "jge", "jle", "jg", "jcxz", "jecxz", "jrcxz", "loop", "loope", "loopne"}
_ARM_CALLS = frozenset({"bl"})
_ARM_JUMPS = frozenset({"b", "cbz", "cbnz", "tbz", "tbnz"})
_ARM_INDIRECT = frozenset({"blr", "br", "blraa", "blrab", "braa", "brab"})
_WRITES = (
    "mov",
    "movs",
    "movq",
    "movd",
    "movaps",
    "movups",
    "movdqa",
    "movdqu",
    "movsd",
    "movss",
    "add",
    "sub",
    "and",
    "or",
    "xor",
    "inc",
    "dec",
    "stos",
)


@attrs.frozen(kw_only=True)
class Region:
    """Bytes of one mapped section at its link-time address."""

    name: str
    start: int
    data: bytes
    executable: bool


class Reference(NamedTuple):
    """One instruction operand that names an address: `kind` is call, jump, call-slot, jump-slot (through a
    pointer in memory), offset, read or write. A named tuple, not an attrs record: a sweep makes hundreds of
    thousands and their construction is most of its cost."""

    site: int
    target: int
    kind: str


@attrs.frozen(kw_only=True)
class Sweep:
    """What the sweep saw: references in site order, indirect transfers, and what it could not decode."""

    references: tuple[Reference, ...]
    indirect_calls: tuple[int, ...]
    indirect_jumps: tuple[int, ...]
    sized: tuple[tuple[int, int], ...]  # (address, length) pairs an lea and the mov after it give
    # the moves, stores, address computations, calls and XORs rea.native.stackstrings replays, as lite rows
    kept: Columns = attrs.field(factory=Columns.empty)
    instructions: int
    undecoded_bytes: int
    code_bytes: int


@attrs.frozen(kw_only=True)
class Instruction:
    address: int
    size: int
    mnemonic: str
    operands: str


class Found:
    """What a sweep collects as it decodes: references, (address, length) pairs, indirect calls and jumps, and
    counts of instructions, undecoded bytes and code bytes."""

    def __init__(self) -> None:
        self.refs: list[Reference] = []
        self.sized: list[tuple[int, int]] = []
        self.sized_at: list[int] = []  # the address of the mov that gave each sized pair
        self.kept = Columns.empty()
        self.calls: list[int] = []
        self.jumps: list[int] = []
        self.counts = [0, 0, 0]


def decoder(architecture: str) -> capstone.Cs | None:
    """A capstone decoder for an architecture the sweep reads, else None."""
    import capstone  # noqa: PLC0415 - see ARCHITECTURES

    mode = ARCHITECTURES.get(architecture)
    return None if mode is None else capstone.Cs(getattr(capstone, mode[0]), getattr(capstone, mode[1]))


def decode(architecture: str, data: bytes, start: int) -> Iterator[Instruction]:
    """Every instruction of `data` in address order; an undecodable byte is skipped (yielded as `.byte`)."""
    cs = decoder(architecture)
    if cs is None:
        return
    step = 4 if architecture == "arm64" else 1
    offset = 0
    while offset < len(data):
        end = offset
        for address, size, mnemonic, operands in cs.disasm_lite(data[offset:], start + offset):
            yield Instruction(address=address, size=size, mnemonic=mnemonic, operands=operands)
            end = address - start + size
        if end >= len(data):
            return
        skip = min(step, len(data) - end)
        yield Instruction(address=start + end, size=skip, mnemonic=".byte", operands=data[end : end + skip].hex())
        offset = end + skip


def _number(text: str) -> int:
    return int(text, 16) if text.startswith(("0x", "-0x")) else int(text)


class Mapped:
    """Is an address inside the image (any mapped section)?"""

    def __init__(self, regions: Sequence[tuple[int, int]]) -> None:
        self.spans = sorted(regions)
        self.low = min((s for s, _ in self.spans), default=0)
        self.high = max((e for _, e in self.spans), default=0)

    def __contains__(self, address: int) -> bool:
        if not self.low <= address < self.high:
            return False
        return any(s <= address < e for s, e in self.spans)


def sweep(
    architecture: str, regions: Iterable[Region], mapped: Sequence[tuple[int, int]], *, pic: bool
) -> Sweep | None:
    """The references of every executable region, or None for an architecture the sweep cannot read."""
    cs = decoder(architecture)
    if cs is None:
        return None
    inside = Mapped(mapped)
    found = Found()
    reader = _arm64 if architecture == "arm64" else sweep_x86
    for region in regions:
        if not region.executable:
            continue
        found.counts[2] += len(region.data)
        reader(cs, region, inside, pic and architecture == "x86_64", found)
    return finished(found)


def finished(found: Found) -> Sweep:
    return Sweep(
        references=tuple(found.refs),
        indirect_calls=tuple(found.calls),
        indirect_jumps=tuple(found.jumps),
        sized=tuple(found.sized),
        kept=found.kept,
        instructions=found.counts[0],
        undecoded_bytes=found.counts[1],
        code_bytes=found.counts[2],
    )


class Meeting:
    """The first half's stop: the first instruction it decodes at or after `after` that the second half's
    stream also decoded (`addresses`); from there on the two streams are one, since an x86 instruction decodes
    from its own bytes alone. `met` is that address (None: the streams never met, the first half ran to the
    end), `pending` the (next address, target) of the first half's last lea."""

    def __init__(self, after: int, addresses: Iterable[int]) -> None:
        self.after = after
        self.addresses = frozenset(addresses)
        self.last = max(self.addresses, default=after)
        self.met: int | None = None
        self.pending: tuple[int, int] = (-1, 0)

    def stop(self, rows: list[tuple[int, int, str, str]]) -> int | None:
        """The index in `rows` to stop before, or None to take them all."""
        if rows[-1][0] < self.after:
            return None
        for index, row in enumerate(rows):
            if row[0] < self.after:
                continue
            if row[0] in self.addresses:
                self.met = row[0]
                return index
            if row[0] > self.last:  # past every address the second half gave: no meeting, run to the end
                self.after = 2**64
                return None
        return None


def sized_pair(target: int, operands: str) -> tuple[int, int] | None:
    """The (address, length) pair an lea's target and the mov after it give, if the mov moves a small length."""
    length = _LENGTH.match(operands)
    if length is not None and 0 < _number(length.group(1)) <= MAX_SIZED:
        return (target, _number(length.group(1)))
    return None


BATCH = 1024  # instructions per capstone call: 250 KB of capstone's records, memory the allocator reuses


def batches(
    cs: capstone.Cs, region: Region, counts: list[int], step: int, meeting: Meeting | None = None
) -> Iterator[list[tuple[int, int, str, str]]]:
    """capstone's lite tuples over a whole region, BATCH instructions at a time, resuming past bytes that do not
    decode. Why batches: capstone holds every instruction of one call in memory until the last is read, and a
    whole Go executable's section at once was 230 MB and a fifth of the sweep in page faults. 4,096 at a time
    (1 MB) still took fresh pages from the system on every call (62,000 faults over a Go executable's text, a
    third of capstone's time); 1,024 at a time reuse the same memory. A batch is a list because a loop over a
    list costs less than one more generator frame per instruction."""
    data, start, offset = region.data, region.start, 0
    view = memoryview(bytearray(data))  # writable: capstone reads a slice in place (a slice of bytes is copied)
    while offset < len(data):
        rows = list(cs.disasm_lite(view[offset:], start + offset, BATCH))
        stop = None if meeting is None or not rows else meeting.stop(rows)
        if stop is not None:  # the first half of a cut sweep ends where the second half's stream joins it
            counts[0] += stop
            if stop:
                yield rows[:stop]
            return
        counts[0] += len(rows)
        if rows:
            yield rows
        end = offset if not rows else rows[-1][0] - start + rows[-1][1]
        if len(rows) == BATCH:  # stopped at the count, not at a byte it cannot decode
            offset = end
            continue
        if end >= len(data):
            return
        skip = min(step, len(data) - end)
        counts[1] += skip
        offset = end + skip


def sweep_x86(
    cs: capstone.Cs,
    region: Region,
    inside: Mapped,
    pic: bool,
    found: Found,
    meeting: Meeting | None = None,
) -> None:
    """x86: branches, memory operands and address immediates; an lea followed at once by a mov of a small
    immediate is also kept as (address, length): Go passes a string as its pointer and its length so."""
    add, refs, sized = found.refs.append, found.refs, found.sized
    kept = found.kept
    at, sizes, mnemonics, texts = kept.addresses.append, kept.sizes.append, kept.mnemonics.append, kept.operands.append
    after_lea: tuple[int, int] = (-1, 0)  # (next address, target) of the last lea that named an address
    for rows in batches(cs, region, found.counts, 1, meeting):
        for address, size, mnemonic, operands in rows:
            if mnemonic in FRAME_X86:
                at(address)
                sizes(size)
                mnemonics(mnemonic)
                texts(operands)
                if address == after_lea[0] and mnemonic == "mov":  # only the instruction right after the lea
                    pair = sized_pair(after_lea[1], operands)
                    if pair is not None:
                        sized.append(pair)
                        found.sized_at.append(address)
            if mnemonic[0] == "j" or mnemonic in _X86_JUMPS:
                if operands[:1].isdigit():  # a direct target, as most are: no call (a branch is one in six)
                    target = int(operands, 16) if operands[:2] == "0x" else int(operands)
                    add(Reference(address, target, "call" if mnemonic == "call" else "jump"))
                else:
                    _x86_branch(address, size, mnemonic, operands, pic, add, found.calls, found.jumps)
            elif "rip" in operands or (not pic and "0x" in operands and _names_address(operands)):
                _x86_operand(address, size, mnemonic, operands, inside, pic, add)
                if mnemonic == "lea" and refs and refs[-1][0] == address:
                    after_lea = (address + size, refs[-1][1])
    if meeting is not None:
        meeting.pending = after_lea


def _names_address(operands: str) -> bool:
    """Can a non-RIP operand name an address: `[0x…]`, or a last operand that is a hex immediate (not the
    `0x20]` that ends `[rsp + 0x20]`)? Most operands with a `0x` are stack offsets that cannot: checked before
    the call, and they were nine in ten of a Go executable's calls of it."""
    return "[0x" in operands or (operands[-1] != "]" and operands.rpartition(" ")[2].startswith("0x"))


def _x86_branch(
    address: int, size: int, mnemonic: str, operands: str, pic: bool, add: Any, calls: list[int], jumps: list[int]
) -> None:
    kind = "call" if mnemonic == "call" else "jump"
    if operands[:1].isdigit():  # capstone prints small targets in decimal (`call 0`)
        add(Reference(address, _number(operands), kind))
        return
    match = _RIP.search(operands)
    if match is not None:  # through a slot: the slot is what the operand names (an import, a vtable)
        add(Reference(address, _rip(address, size, match), kind + "-slot"))
        return
    slot = None if pic else _ABSOLUTE.search(operands)
    if slot is not None:
        add(Reference(address, int(slot.group(1), 16), kind + "-slot"))
        return
    (calls if kind == "call" else jumps).append(address)


def _x86_operand(address: int, size: int, mnemonic: str, operands: str, inside: Mapped, pic: bool, add: Any) -> None:
    """The reference an operand names. Each pattern is tried only when a substring it needs is there: most
    operands with a `0x` are stack offsets (`[rsp + 0x20]`) that name nothing, and three failed searches
    each were a fifth of the sweep of a Go executable."""
    match = _RIP.search(operands) if "rip" in operands else None
    if match is not None:
        add(Reference(address, _rip(address, size, match), _access(mnemonic, operands, match)))
        return
    if pic:
        return
    slot = _ABSOLUTE.search(operands) if "[0x" in operands else None
    if slot is not None and int(slot.group(1), 16) in inside:
        add(Reference(address, int(slot.group(1), 16), _access(mnemonic, operands, slot)))
        return
    immediate = _IMMEDIATE.search(operands) if operands[-1:] != "]" else None
    if immediate is not None and int(immediate.group(1), 16) in inside:
        add(Reference(address, int(immediate.group(1), 16), "offset"))


def _rip(address: int, size: int, match: re.Match[str]) -> int:
    """The address a RIP-relative operand names. The CPU adds modulo 2**64, so a displacement that runs
    below zero names a high address (outside any image), never a negative one."""
    displacement = _number(match.group(2))
    return (address + size + (displacement if match.group(1) == "+" else -displacement)) & (2**64 - 1)


def _access(mnemonic: str, operands: str, match: re.Match[str]) -> str:
    """lea takes the address (offset); a memory operand written first is a write; anything else reads."""
    if mnemonic == "lea":
        return "offset"
    if match.start() < operands.find(",") and mnemonic.startswith(_WRITES):
        return "write"
    return "read"


def _arm64(
    cs: capstone.Cs,
    region: Region,
    inside: Mapped,
    pic: bool,
    found: Found,
) -> None:
    """AArch64: branch targets, `adr`, and `adrp` pages completed by the add/ldr/str that use the register."""
    add = found.refs.append
    kept = found.kept
    at, sizes, mnemonics, texts = kept.addresses.append, kept.sizes.append, kept.mnemonics.append, kept.operands.append
    pages: dict[str, int] = {}
    for rows in batches(cs, region, found.counts, 4):
        for address, size, mnemonic, operands in rows:
            if mnemonic in FRAME_ARM64:
                at(address)
                sizes(size)
                mnemonics(mnemonic)
                texts(operands)
            if mnemonic in _ARM_CALLS or mnemonic in _ARM_JUMPS or mnemonic.startswith("b."):
                target = _ARM_TARGET.search(operands)
                if target is not None:
                    add(Reference(address, _number(target.group(1)), "call" if mnemonic == "bl" else "jump"))
                _after_branch(pages, mnemonic)
                continue
            if mnemonic in _ARM_INDIRECT:
                (found.calls if mnemonic.startswith("bl") else found.jumps).append(address)
                _after_branch(pages, mnemonic)
                continue
            if mnemonic == "ret":
                pages.clear()
                continue
            if mnemonic in ("adrp", "adr"):
                register, _, value = operands.partition(", #")
                if value:
                    if mnemonic == "adrp":
                        pages[register] = _number(value)
                    else:
                        add(Reference(address, _number(value), "offset"))
                        pages.pop(register, None)
                continue
            match = _ARM_BASE.match(operands)
            if match is None:
                pages.pop(operands.partition(",")[0], None)
                continue
            destination, base, offset = match.group(1), match.group(2), match.group(3)
            page = pages.get(base)
            if page is not None:
                named = page + (_number(offset) if offset else 0)
                if mnemonic == "add" and offset:
                    add(Reference(address, named, "offset"))
                elif mnemonic.startswith(("ldr", "ldp")):
                    add(Reference(address, named, "read"))
                elif mnemonic.startswith(("str", "stp")):
                    add(Reference(address, named, "write"))
            if not mnemonic.startswith(("str", "stp", "cmp", "tst")):
                pages.pop(destination, None)


_CALLEE_SAVED = frozenset(f"x{n}" for n in range(19, 30))


def _after_branch(pages: dict[str, int], mnemonic: str) -> None:
    """What a page register still holds after a branch: a call keeps the callee-saved x19-x29; a conditional
    branch falls through with everything; an unconditional jump leaves nothing known."""
    if mnemonic in ("bl", "blr", "blraa", "blrab"):
        for register in [r for r in pages if r not in _CALLEE_SAVED]:
            del pages[register]
    elif mnemonic in ("b", "br", "braa", "brab"):
        pages.clear()
