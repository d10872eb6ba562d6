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
from collections.abc import Callable, Container, Iterable, Mapping, Sequence
from typing import Any

import attrs

from rea.native.stackframe import (
    FRAME_BASES,
    MIN_CHARS,
    X86_REGISTERS,
    Columns,
    Frame,
    Kept,
    Pointer,
    arm_step,
    builds_arm64,
    builds_x86,
    frame_bases,
    is_printable,
    x86_step,
)

MAX_DECODER_SIZE = 1024  # bytes: a decode routine is small; a large callee is not a candidate
WINDOW = 32  # kept rows replayed before a call, in a procedure that builds nothing on its stack
_X86_ARGUMENTS = ("rdi", "rsi", "rdx", "rcx", "r8", "r9")
_ARM_ARGUMENTS = tuple(f"x{n}" for n in range(8))


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


# ------------------------------------------------------------------ the pass


def replay(
    rows: Iterable[Kept],
    architecture: str,
    wanted: Container[int] = frozenset(),
    bases: Container[str] = FRAME_BASES,
) -> Frame:
    """One procedure's kept instructions replayed in address order (registers forgotten at every gap); the
    calls to `wanted` procedures are kept with what the registers and frame held then. `bases` are the
    registers that address its frame (`frame_bases` of the procedure; all of them by default)."""
    arm = architecture == "arm64"
    step = arm_step if arm else x86_step
    frame = Frame(wanted, bases)
    registers = frame.registers
    end = None
    for row in rows:
        if row[0] != end:
            registers.clear()
        end = row[0] + row[1]
        operands = row[3]
        if not arm and operands[-1:] == "]" and row[2] == "mov":  # a load (most moves): forget its register
            loaded = X86_REGISTERS.get(operands.partition(", ")[0])
            if loaded is not None:
                registers.pop(loaded[0], None)
                continue
        try:
            step(frame, row)
        except (ValueError, KeyError, IndexError):  # an operand text the pass does not read changes nothing known
            frame.registers.clear()
    return frame


def strings_of(procedure: int, frame: Frame) -> list[StackString]:
    """The printable runs of at least `MIN_CHARS` known bytes of each frame, in frame order."""
    found: list[StackString] = []
    for base in sorted({b for b, _ in frame.bytes}):
        offsets = sorted(o for b, o in frame.bytes if b == base)
        run: list[int] = []
        for offset in offsets:
            byte = frame.bytes[(base, offset)][0]
            if run and offset == run[-1] + 1 and is_printable(byte):
                run.append(offset)
                continue
            _emit(found, procedure, frame, base, run, offset if run and offset == run[-1] + 1 else None)
            run = [offset] if is_printable(byte) else []
        _emit(found, procedure, frame, base, run, None)
    return found


def _emit(found: list[StackString], procedure: int, frame: Frame, base: str, run: list[int], after: int | None) -> None:
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
) -> tuple[list[StackString], dict[int, Frame]]:
    """Every procedure's stack strings, and each replayed frame with its calls to `wanted` procedures (the
    decoder planner reads them). `kept` is in address order; `procedures` are (start, end) ranges sorted by
    start; `wanted` maps a procedure to its decoder traits (`decoder_traits`). Only a procedure that could
    build a string in its frame (`builds_x86`, `builds_arm64`) is replayed whole; of any other, only the
    rows just before its calls to a procedure that XORs (which may decode constant data) are replayed.

    Why the columns are read by slice and index: building row tuples for every procedure cost more than the
    replay itself (a Go executable keeps 550,000 rows, of which a few percent are replayed)."""
    frames: dict[int, Frame] = {}
    found: list[StackString] = []
    builds = builds_arm64 if architecture == "arm64" else builds_x86
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
            frame = Frame(wanted, bases)
            first = bisect.bisect_left(calls, low)
            for index in calls[first : bisect.bisect_left(calls, high, first)]:
                frame.calls.extend(replay(_window(kept, low, index), architecture, wanted, bases).calls)
            if not frame.calls:
                continue
        frames[start] = frame
    return found, frames


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
    frames: Mapping[int, Frame],
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
    register: str, held: int | Pointer | None, buffers: Mapping[str, bytes], data: Callable[[int], bool]
) -> ArgumentSource | None:
    if isinstance(held, int):
        held = Pointer(None, held)  # an absolute address (non-PIC code passes data so)
    if not isinstance(held, Pointer):
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
