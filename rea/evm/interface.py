"""The interface a contract's dispatcher exposes: selectors, argument candidates, state mutability.

Selectors come from the dispatcher idiom, `PUSH4 selector EQ PUSH<n> body JUMPI` (solc also
emits `PUSH4 selector DUP2 EQ` and, past a few functions, splits the table with `GT` jumps:
the EQ idiom is the same in every leaf). Each body is then walked symbolically, without
running anything: the stack holds known constants (so solc's pushed return addresses and
jump tables resolve), calldata words read at constant offsets 4 + 32*i (argument i) and
unknowns; both sides of every conditional jump are explored within a step budget. What the
walk sees decides the candidates:

- a CALLVALUE test on the way in (per function, or once before the dispatcher when no
  function is payable) makes a function non-payable; without one it is payable;
- any state write (SSTORE, LOG, CALL, CREATE, SELFDESTRUCT, TSTORE) makes it nonpayable;
  else any state or environment read makes it view; else pure;
- an argument's cleanup names its type: AND with 2**160-1 address, with 2**(8k)-1 uintK,
  SIGNEXTEND intK, ISZERO ISZERO bool, a high mask bytesK; a word used as a calldata
  offset is a dynamic parameter (reported as `bytes`: string and arrays look the same);
  a word with no cleanup is reported as uint256 (bytes32 and int256 look the same).

These are inferences, and the result says so: a walk that runs out of budget, meets a jump
to a computed address or leaves the code is named in `unknowns`.
"""

from __future__ import annotations

from collections.abc import Iterable

import attrs

from rea.evm.bytecode import Instruction, disassemble, jumpdests

WRITES = frozenset({0x55, 0xA0, 0xA1, 0xA2, 0xA3, 0xA4, 0xF0, 0xF1, 0xF2, 0xF4, 0xF5, 0xFF, 0x5D})
READS = frozenset(
    {0x54, 0x31, 0x47, 0x3B, 0x3C, 0x3F, 0x40, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x48, 0x30, 0x32, 0x33, 0x3A}
    | {0xFA, 0x5C, 0x49, 0x4A, 0x5A}
)
STEP_BUDGET = 20_000  # instructions per function walk, all paths together
VISITS_PER_OFFSET = 12  # loops with changing constants stop here
MAX_STACK = 1024
WORD = (1 << 256) - 1
ADDRESS_MASK = (1 << 160) - 1


@attrs.frozen(kw_only=True)
class Word:
    """A symbolic stack value: a known constant, calldata argument word `arg`, a calldata offset derived
    from argument `ptr` (a dynamic parameter's head), or unknown (all None)."""

    const: int | None = None
    arg: int | None = None
    ptr: int | None = None
    negated: int | None = None  # ISZERO of argument word `negated` (a second ISZERO is bool's cleanup)


UNKNOWN = Word()


@attrs.frozen(kw_only=True)
class Candidate:
    selector: str
    bytecode_offset: int
    inferred_arguments: str | None
    inferred_state_mutability: str | None
    unknowns: tuple[str, ...]


@attrs.frozen(kw_only=True)
class Interface:
    functions: tuple[Candidate, ...]
    instructions: int
    truncated_push: bool
    guarded_before_dispatch: bool
    unknowns: tuple[str, ...]


def selector_table(instructions: tuple[Instruction, ...]) -> list[tuple[int, int]]:
    """(selector, body offset) for every dispatcher comparison, first occurrence of each selector."""
    found: dict[int, int] = {}
    for i, ins in enumerate(instructions):
        if ins.op != 0x63 or ins.truncated:  # PUSH4
            continue
        rest = [x.op for x in instructions[i + 1 : i + 5]]
        k = i + 1 + (1 if rest[:1] and 0x80 <= rest[0] <= 0x8F else 0)  # an optional DUPn before EQ
        if k + 2 >= len(instructions) or instructions[k].op != 0x14:
            continue
        push, jumpi = instructions[k + 1], instructions[k + 2]
        if push.immediate is not None and push.op != 0x5F and jumpi.op == 0x57 and ins.immediate is not None:
            found.setdefault(ins.immediate, push.immediate)
    return list(found.items())


@attrs.frozen(kw_only=True)
class _Walk:
    """What one function's walk observed."""

    ops: frozenset[int]
    args: tuple[tuple[int, str], ...]
    unknowns: tuple[str, ...]


def _binary(op: int, a: Word, b: Word, types: dict[int, str]) -> Word:
    """The result of a two-operand opcode; records argument cleanups in `types` as a side table."""
    if op == 0x16:  # AND
        for word, mask in ((a, b.const), (b, a.const)):
            if word.arg is not None and mask is not None:
                types.setdefault(word.arg, _mask_type(mask))
    if op == 0x01 and (a.arg is not None or b.arg is not None) and (a.const is not None or b.const is not None):
        return Word(ptr=a.arg if a.arg is not None else b.arg)
    if op == 0x01 and (a.ptr is not None or b.ptr is not None):
        return Word(ptr=a.ptr if a.ptr is not None else b.ptr)
    if a.const is None or b.const is None:
        return UNKNOWN
    x, y = a.const, b.const
    table = {
        0x01: lambda: (x + y) & WORD,
        0x02: lambda: (x * y) & WORD,
        0x03: lambda: (x - y) & WORD,
        0x04: lambda: x // y if y else 0,
        0x06: lambda: x % y if y else 0,
        0x10: lambda: int(x < y),
        0x11: lambda: int(x > y),
        0x14: lambda: int(x == y),
        0x16: lambda: x & y,
        0x17: lambda: x | y,
        0x18: lambda: x ^ y,
        0x1B: lambda: (y << x) & WORD if x < 256 else 0,
        0x1C: lambda: y >> x if x < 256 else 0,
    }
    found = table.get(op)
    return Word(const=found()) if found is not None else UNKNOWN


def _mask_type(mask: int) -> str:
    if mask == ADDRESS_MASK:
        return "address"
    if mask and mask & (mask + 1) == 0 and mask.bit_length() % 8 == 0:
        return f"uint{mask.bit_length()}"
    low = (mask & -mask).bit_length() - 1  # bytesK keeps the high K bytes
    if mask and mask >> low == (1 << (256 - low)) - 1 and low % 8 == 0:
        return f"bytes{(256 - low) // 8}"
    return "uint256"


_ARITY = {0x01: 2, 0x02: 2, 0x03: 2, 0x04: 2, 0x05: 2, 0x06: 2, 0x07: 2, 0x0A: 2, 0x0B: 2, 0x10: 2, 0x11: 2}
_ARITY.update({0x12: 2, 0x13: 2, 0x14: 2, 0x16: 2, 0x17: 2, 0x18: 2, 0x1A: 2, 0x1B: 2, 0x1C: 2, 0x1D: 2, 0x20: 2})
_ARITY.update({0x08: 3, 0x09: 3, 0x15: 1, 0x19: 1, 0x35: 1, 0x31: 1, 0x3B: 1, 0x3F: 1, 0x40: 1, 0x51: 1, 0x54: 1})
_ARITY.update({0x5C: 1, 0x49: 1, 0x52: 2, 0x53: 2, 0x55: 2, 0x5D: 2, 0x50: 1, 0x37: 3, 0x39: 3, 0x3E: 3, 0x5E: 3})
_ARITY.update({0x3C: 4, 0xA0: 2, 0xA1: 3, 0xA2: 4, 0xA3: 5, 0xA4: 6, 0xF0: 3, 0xF5: 4, 0xF1: 7, 0xF2: 7})
_ARITY.update({0xF4: 6, 0xFA: 6})
_PUSHES = frozenset({0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x10, 0x11, 0x12, 0x13})
_PUSHES |= frozenset({0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1A, 0x1B, 0x1C, 0x1D, 0x20, 0x35, 0x51, 0x54, 0x5C})
_PUSHES |= frozenset({0x31, 0x3B, 0x3F, 0x40, 0x49, 0xF0, 0xF5, 0xF1, 0xF2, 0xF4, 0xFA})
_HALTS = frozenset({0x00, 0xF3, 0xFD, 0xFE, 0xFF})


def _pop(stack: list[Word], n: int) -> list[Word]:
    """The top n words, top first; a walk that starts mid-function pops unknowns below its bottom."""
    out = [stack.pop() if stack else UNKNOWN for _ in range(n)]
    return out


def _step(ins: Instruction, stack: list[Word], types: dict[int, str]) -> None:
    """Apply one non-control instruction to the symbolic stack."""
    op = ins.op
    if ins.immediate is not None:
        stack.append(Word(const=ins.immediate))
    elif 0x80 <= op <= 0x8F:
        n = op - 0x7F
        stack.append(stack[-n] if len(stack) >= n else UNKNOWN)
    elif 0x90 <= op <= 0x9F:
        n = op - 0x8F
        while len(stack) <= n:
            stack.insert(0, UNKNOWN)
        stack[-1], stack[-1 - n] = stack[-1 - n], stack[-1]
    elif op == 0x35:
        (at,) = _pop(stack, 1)
        if at.const is not None and at.const >= 4 and (at.const - 4) % 32 == 0 and at.const < 4 + 32 * 64:
            stack.append(Word(arg=(at.const - 4) // 32))
        else:
            if at.ptr is not None:
                types[at.ptr] = "bytes"
            stack.append(UNKNOWN)
    elif op == 0x15:
        (a,) = _pop(stack, 1)
        if a.negated is not None:
            types.setdefault(a.negated, "bool")
        stack.append(Word(const=int(a.const == 0)) if a.const is not None else Word(negated=a.arg))
    elif op == 0x0B:
        b, x = _pop(stack, 2)
        if x.arg is not None and b.const is not None and b.const < 32:
            types.setdefault(x.arg, f"int{8 * (b.const + 1)}")
        stack.append(UNKNOWN)
    elif op in _ARITY:
        words = _pop(stack, _ARITY[op])
        if op in _PUSHES:
            stack.append(_binary(op, words[0], words[1], types) if _ARITY[op] == 2 else UNKNOWN)
    elif op not in _HALTS and op not in (0x56, 0x57, 0x5B):
        stack.append(UNKNOWN)  # environment reads and undefined opcodes: one unknown word
    if len(stack) > MAX_STACK:
        del stack[: len(stack) - MAX_STACK]


def _walk(instructions: tuple[Instruction, ...], start: int) -> _Walk:
    """Explore every path from `start` within the budget (see the module docstring)."""
    at = {ins.offset: k for k, ins in enumerate(instructions)}
    dests = jumpdests(instructions)
    ops: set[int] = set()
    types: dict[int, str] = {}
    args: set[int] = set()
    unknowns: set[str] = set()
    visits: dict[int, int] = {}
    pending: list[tuple[int, list[Word]]] = [(start, [UNKNOWN])]
    steps = 0
    while pending:
        pc, stack = pending.pop()
        k = at.get(pc)
        if k is None or pc not in dests and pc != start:
            unknowns.add(f"a jump to {pc:#x}, which is not a JUMPDEST")
            continue
        if visits.get(pc, 0) >= VISITS_PER_OFFSET:
            continue
        visits[pc] = visits.get(pc, 0) + 1
        while k < len(instructions):
            steps += 1
            if steps > STEP_BUDGET:
                unknowns.add(f"the walk stopped at its budget of {STEP_BUDGET} instructions")
                pending.clear()
                break
            ins = instructions[k]
            ops.add(ins.op)
            if ins.op == 0x56 or ins.op == 0x57:
                target, *cond = _pop(stack, 1 if ins.op == 0x56 else 2)
                if target.const is None:
                    unknowns.add(f"a jump to a computed address at {ins.offset:#x}")
                elif not cond or cond[0].const != 0:
                    pending.append((target.const, list(stack)))
                if ins.op == 0x56 or (cond and cond[0].const not in (None, 0)):
                    break
                k += 1
                continue
            if ins.op in _HALTS:
                break
            before = len(stack)
            _step(ins, stack, types)
            if ins.op == 0x35 and stack and stack[-1].arg is not None and len(stack) == before:
                args.add(stack[-1].arg)
            k += 1
    return _Walk(
        ops=frozenset(ops),
        args=tuple((i, types.get(i, "uint256")) for i in sorted(args)),
        unknowns=tuple(sorted(unknowns)),
    )


def _guarded_body(instructions: tuple[Instruction, ...], body: int) -> bool:
    """solc's check of a non-payable function at the top of its body: CALLVALUE [DUP1] ISZERO PUSH JUMPI
    (a payable function that reads msg.value does not test it this way before anything else)."""
    k = next((k for k, ins in enumerate(instructions) if ins.offset == body), len(instructions))
    return any(_is_guard(instructions[j : j + 5]) for j in (k, k + 1))


def _is_guard(window: tuple[Instruction, ...]) -> bool:
    ops = [ins.op for ins in window]
    if ops[:1] != [0x34]:
        return False
    k = 2 if ops[1:2] == [0x80] else 1  # an optional DUP1 keeps the value for the revert path
    return (
        ops[k : k + 1] == [0x15] and k + 2 < len(window) and window[k + 1].immediate is not None and ops[k + 2] == 0x57
    )


def _guarded_prologue(instructions: tuple[Instruction, ...], first_selector_at: int) -> bool:
    """A CALLVALUE before the dispatcher's first comparison: solc's one check when no function is payable."""
    return any(
        _is_guard(instructions[j : j + 5]) for j, ins in enumerate(instructions) if ins.offset < first_selector_at
    )


def _mutability(walk: _Walk, guarded: bool) -> str:
    if not guarded:
        return "payable"
    if walk.ops & WRITES:
        return "nonpayable"
    if walk.ops & READS:
        return "view"
    return "pure"


def _arguments(walk: _Walk) -> str:
    """Arguments 0..n-1 in order; a gap (an argument never read) is `uint256`, since solc reads every head."""
    if not walk.args:
        return ""
    known = dict(walk.args)
    return ",".join(known.get(i, "uint256") for i in range(max(known) + 1))


def interface_of(code: bytes) -> Interface:
    """The dispatcher's functions with their candidates; total over any bytes."""
    instructions = disassemble(code)
    table = selector_table(instructions)
    first = min(
        (ins.offset for ins in instructions if ins.op == 0x63 and ins.immediate in dict(table)), default=len(code)
    )
    prologue = _guarded_prologue(instructions, first)
    functions = []
    for selector, body in table:
        walk = _walk(instructions, body) if body < len(code) else None
        if walk is None:
            functions.append(
                Candidate(
                    selector=f"0x{selector:08x}",
                    bytecode_offset=body,
                    inferred_arguments=None,
                    inferred_state_mutability=None,
                    unknowns=(f"the dispatcher jumps to {body:#x}, past the end of the code",),
                )
            )
            continue
        functions.append(
            Candidate(
                selector=f"0x{selector:08x}",
                bytecode_offset=body,
                inferred_arguments=_arguments(walk),
                inferred_state_mutability=_mutability(walk, prologue or _guarded_body(instructions, body)),
                unknowns=walk.unknowns,
            )
        )
    return Interface(
        functions=tuple(functions),
        instructions=len(instructions),
        truncated_push=any(i.truncated for i in instructions[-1:]),
        guarded_before_dispatch=prologue,
        unknowns=_overall(code, table),
    )


def _overall(code: bytes, table: Iterable[tuple[int, int]]) -> tuple[str, ...]:
    out = []
    if not code:
        out.append("the bytecode is empty: no dispatcher, coverage unknown")
    elif not list(table):
        out.append("no dispatcher comparison (PUSH4 selector EQ PUSH target JUMPI) was found")
    return tuple(out)
