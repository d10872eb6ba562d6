"""angr's pseudocode made readable for an agent: a pure post-processor over the text plus facts.

angr prints what its structured-code generator knows, and some of it misleads a reader who
checks it against the assembly:

- integers are decimal unless angr guessed otherwise, so masks (`2147483649`), addresses and
  the bytes of a stack string stored by `movabs` (`7522537965568948840`) are unreadable;
- a local's comment `// [bp-0x28]` counts from the stack pointer *at entry* (angr's "bp"), not
  from the `rbp` the assembly uses, so `-0x20(%rbp)` in objdump is angr's `[bp-0x28]`;
- an identity insert (`_INSERT(v, 0, v)`, from junk such as `mov %al,%al`) reads like a call;
- two returns in a row (the second unreachable) and inline stores rendered as `strncpy` or
  `wcsncpy` (angr's wide copies count 16-bit units, while a Linux reader's wchar_t is 4 bytes);
- a division by a constant is left as its magic-number multiplication.

`readable` rewrites only what it can prove from the text and the facts handed in, never a
string, comment or identifier: decimal literals become hex where they are masks, addresses or
packed bytes (the value is unchanged), packed text and magic divisors are named in comments,
local comments say the assembly's operand, and identity intrinsics and unreachable returns
go. It counts what it did so the caller can say so.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs

# C tokens that must never be rewritten come first in the alternation, so a digit inside a
# string, character constant, comment or identifier is never seen as a literal.
_TOKEN = re.compile(
    r"""(?P<comment>//[^\n]*|/\*.*?\*/)
      |(?P<string>L?"(?:\\.|[^"\\\n])*")
      |(?P<char>L?'(?:\\.|[^'\\\n])*')
      |(?P<ident>[A-Za-z_$][A-Za-z0-9_$]*)
      |(?P<number>0[xX][0-9a-fA-F]+[uUlL]*|[0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?[uUlLfF]*)
    """,
    re.VERBOSE | re.DOTALL,
)
# the binary operator next to a literal, on each side (longest first, so `&&` is not `&`)
_OP_BEFORE = re.compile(r"(<<=|>>=|&&|\|\||==|!=|<=|>=|<<|>>|[&|^]=|[-+*/%&|^<>=!~(,?:\[])\s*$")
_OP_AFTER = re.compile(r"^\s*(<<=|>>=|&&|\|\||==|!=|<=|>=|<<|>>|[&|^]=|[-+*/%&|^<>=)\],;?:])")
BITWISE = frozenset({"&", "|", "^", "&=", "|=", "^="})
# operators that bind tighter than the bitwise ones: a literal beside one of them is its operand
TIGHTER = frozenset({"*", "/", "%", "+", "-", "<<", ">>", "<", ">", "<=", ">=", "==", "!="})
_COMMENT_AFTER = re.compile(r"^\s*/\*")
PRINTABLE = frozenset(range(0x20, 0x7F)) | {0x09, 0x0A, 0x0D}
# REA's architecture names (the worker's and the fast index's snapshots agree on them) -> the frame readers'
ARCH = {"x86_64": "AMD64", "x86": "X86", "arm64": "AARCH64"}


@attrs.frozen(kw_only=True)
class Facts:
    """What the text cannot say by itself: the procedure's instructions from its entry (capstone's
    mnemonic and operand text), the word size, the image's address ranges in angr's address space,
    and the names the procedure really calls."""

    instructions: tuple[tuple[str, str], ...] = ()
    bits: int = 64
    arch: str = "AMD64"
    ranges: tuple[tuple[int, int], ...] = ()
    callees: frozenset[str] = frozenset()


@attrs.frozen(kw_only=True)
class StackLocal:
    """A local angr placed on the stack: its declaration, angr's offset from the stack pointer at
    entry, and the assembly's operand for the same bytes (None when the frame is not known)."""

    name: str
    declaration: str
    entry_offset: int
    operand: str | None


@attrs.frozen(kw_only=True)
class Readable:
    """The rewritten text and what was done to it."""

    text: str
    locals: tuple[StackLocal, ...]
    hex_constants: int
    packed_strings: int
    divisions: int
    identities_removed: int
    returns_removed: int
    inline_copies: int

    def notes(self) -> tuple[str, ...]:
        """One sentence per kind of change, for the Evidence's limitations."""
        said = []
        if self.hex_constants:
            said.append(f"{self.hex_constants} integer constants shown in hex (masks, addresses, packed bytes)")
        if self.packed_strings:
            said.append(f"{self.packed_strings} constants whose little-endian bytes are text are spelled in a comment")
        if self.divisions:
            said.append(f"{self.divisions} magic-number multiplications are named as the division they compute")
        if self.identities_removed:
            said.append(f"{self.identities_removed} identity intrinsics (_INSERT(v, 0, v)) removed")
        if self.returns_removed:
            said.append(f"{self.returns_removed} unreachable returns right after a return removed")
        if self.inline_copies:
            said.append(f"{self.inline_copies} strncpy/wcsncpy calls marked as angr's rendering of inline stores")
        if self.locals:
            said.append("stack locals' comments give the assembly's operand; angr's [bp-N] counts from sp at entry")
        return tuple(f"Pseudocode post-processing: {s}." for s in said)


# ------------------------------------------------------------------ constants


def packed_text(v: int) -> str | None:
    """The text a constant's little-endian bytes spell (movabs/mov stores of a stack string), or None.

    At least four bytes, every one printable, at least one letter or digit."""
    if v < 0:
        return None
    raw = v.to_bytes(max(1, (v.bit_length() + 7) // 8), "little")
    if len(raw) < 4 or len(raw) > 8 or any(b not in PRINTABLE for b in raw):
        return None
    if not any(chr(b).isalnum() for b in raw):
        return None
    return raw.decode("ascii")


def _quoted(text: str) -> str:
    body = text.replace("\\", "\\\\").replace('"', '\\"').replace("\t", "\\t").replace("\n", "\\n")
    return '"' + body.replace("\r", "\\r").replace("*/", "*\\/") + '"'


def magic_divisor(v: int) -> int | None:
    """The divisor d when v is the reciprocal compilers multiply by for x / d (and x % d).

    v is ceil(2**(N+s) / d) for a word size N of 32 or 64 bits and a post-shift s, read from its
    low N bits when the high bits only sign-extend; d is kept small (3..65535, not a power of two)
    so an unrelated large constant is very unlikely to match."""
    for n in (32, 64):
        high = v >> n
        if high not in (0, (1 << (max(v.bit_length(), n) - n)) - 1):
            continue
        m = v & ((1 << n) - 1)
        if m < 1 << (n - 1):
            continue
        for s in range(0, 17):
            d = round((1 << (n + s)) / m)
            if d < 3 or d > 0xFFFF or d & (d - 1) == 0:
                continue
            if -(-(1 << (n + s)) // d) == m:
                return d
    return None


def _is_mask(v: int) -> bool:
    """A run of at least eight set bits (0xff, 0xff00, 0xfff0) or a single bit from 0x100 up."""
    if v < 0xFF:
        return False
    run = v >> ((v & -v).bit_length() - 1)
    return run & (run + 1) == 0 and (run.bit_length() >= 8 or run == 1)


def _decimal_value(token: str) -> int | None:
    if not token[0].isdigit() or token.lower().startswith("0x") or any(c in token for c in ".eE"):
        return None
    digits = token.rstrip("uUlL")
    if not digits.isdigit() or (len(digits) > 1 and digits.startswith("0")):  # 1.5f, octal: leave as written
        return None
    return int(digits)


def _hex_value(token: str) -> int | None:
    return int(token.rstrip("uUlL"), 16) if token.lower().startswith("0x") else None


@attrs.frozen
class _Counts:
    hexed: int = 0
    packed: int = 0
    divisions: int = 0


def constants(text: str, ranges: Sequence[tuple[int, int]] = ()) -> tuple[str, _Counts]:
    """Decimal literals in hex where they are masks, addresses or packed bytes; comments naming
    packed text and magic divisors. Nothing but number literals changes (comments are added)."""
    out: list[str] = []
    hexed = packed = divisions = 0
    last = 0
    for match in _TOKEN.finditer(text):
        if match.lastgroup != "number":
            continue
        token, start, end = match.group(), match.start(), match.end()
        before, after = text[max(0, start - 8) : start], text[end : end + 8]
        decimal = _decimal_value(token)
        v = decimal if decimal is not None else _hex_value(token)
        if v is None:
            continue
        shown = token
        if decimal is not None and _wants_hex(v, before, after, ranges):
            shown = hex(v) + token[len(token.rstrip("uUlL")) :]
            hexed += 1
        note = None
        if not _COMMENT_AFTER.match(text[end:]):
            multiplied = "*" in _operators(before, after)
            d = magic_divisor(v) if multiplied and v > 0xFFFF else None
            if d is not None:
                note, divisions = f"/* magic reciprocal: x / {d} */", divisions + 1
            elif (spelled := packed_text(v)) is not None:
                note, packed = f"/* {_quoted(spelled)} */", packed + 1
        if shown != token or note:
            out.append(text[last:start] + shown + (f" {note}" if note else ""))
            last = end
    out.append(text[last:])
    return "".join(out), _Counts(hexed, packed, divisions)


def _operators(before: str, after: str) -> tuple[str | None, str | None]:
    left, right = _OP_BEFORE.search(before), _OP_AFTER.match(after)
    return (left.group(1) if left else None), (right.group(1) if right else None)


def _bitwise_operand(before: str, after: str) -> bool:
    """Whether the literal is an operand of &, | or ^ (not of a tighter operator beside it)."""
    left, right = _operators(before, after)
    return (left in BITWISE and right not in TIGHTER) or (right in BITWISE and left not in TIGHTER)


def _wants_hex(v: int, before: str, after: str, ranges: Sequence[tuple[int, int]]) -> bool:
    if v > 0xFFFF or _is_mask(v) or (v >= 0x1000 and any(lo <= v < hi for lo, hi in ranges)):
        return True
    return v >= 10 and _bitwise_operand(before, after)


# ------------------------------------------------------------------ stack frame


def _int(text: str) -> int | None:
    text = text.strip().lstrip("#")
    try:
        return int(text, 0)
    except ValueError:
        return None


_X86_BRANCH = ("j", "call", "ret", "loop", "hlt", "ud", "int", "syscall", "leave")
_ARM64_BRANCH = ("b", "bl", "br", "blr", "ret", "cbz", "cbnz", "tbz", "tbnz", "brk", "svc")


def _x86_frame(instructions: Iterable[tuple[str, str]], bits: int) -> tuple[str, int]:
    """(register, its offset from sp at entry) for the register the body addresses locals through:
    the frame pointer once the prologue sets it, else the stack pointer after the prologue.

    The entry block is read up to its first branch: pushes count while they lead (a later push is an
    argument), `sub`/`add` of a negative size to the stack pointer count wherever the compiler
    scheduled them, and anything else that writes the stack pointer ends the reading."""
    sp_name, fp_name, word = ("rsp", "rbp", 8) if bits == 64 else ("esp", "ebp", 4)
    sp, fp, body = 0, None, False
    for mnemonic, operands in instructions:
        ops = [o.strip() for o in operands.split(",")]
        if mnemonic.startswith(_X86_BRANCH):
            break
        if mnemonic in ("endbr64", "endbr32", "nop"):
            continue
        if mnemonic == "push":
            if body:
                break
            sp -= word
        elif mnemonic in ("sub", "add") and ops[0] == sp_name and (n := _int(ops[-1])) is not None:
            change = -n if mnemonic == "sub" else n
            if change > 0:
                break  # the epilogue releasing the frame
            sp += change
        elif mnemonic == "mov" and ops == [fp_name, sp_name]:
            fp = sp
        elif (
            mnemonic == "lea" and ops[0] == fp_name and (m := re.fullmatch(rf"\[{sp_name}(?: ([+-]) (\w+))?\]", ops[1]))
        ):
            fp = sp + (0 if m.group(1) is None else (1 if m.group(1) == "+" else -1) * (_int(m.group(2)) or 0))
        elif mnemonic == "enter" and (n := _int(ops[0])) is not None:
            sp -= word
            fp, sp = sp, sp - n
        elif ops[0] == sp_name:
            break  # `and rsp, -16`, `mov rsp, …`: the offset is no longer known
        else:
            if ops[0] == fp_name:
                fp = None  # the frame pointer register reused as a general one
            body = True
    return (fp_name, fp) if fp is not None else (sp_name, sp)


def _arm64_frame(instructions: Iterable[tuple[str, str]]) -> tuple[str, int]:
    """The same reading for AArch64: `stp`/`str` with a pre-indexed sp writeback, `sub sp, sp, #n`,
    and `mov x29, sp` or `add x29, sp, #n` setting the frame pointer."""
    sp, fp = 0, None
    for mnemonic, operands in instructions:
        ops = [o.strip() for o in operands.split(",")]
        if mnemonic in _ARM64_BRANCH or mnemonic.startswith("b."):
            break
        if (m := re.search(r"\[sp, #(-?\w+)\]!$", operands)) is not None:
            sp += _int(m.group(1)) or 0
        elif mnemonic == "sub" and ops[:2] == ["sp", "sp"] and (n := _int(ops[2])) is not None:
            sp -= n
        elif mnemonic == "mov" and ops == ["x29", "sp"]:
            fp = sp
        elif mnemonic == "add" and ops[:2] == ["x29", "sp"] and (n := _int(ops[2])) is not None:
            fp = sp + n
        elif ops[0] == "sp":
            break
        elif ops[0] in ("x29", "w29"):
            fp = None
    return ("x29", fp) if fp is not None else ("sp", sp)


def frame(facts: Facts) -> tuple[str, int] | None:
    """The base register the assembly addresses locals through and its offset from sp at entry."""
    if not facts.instructions:
        return None
    if facts.arch in ("AMD64", "X86"):
        return _x86_frame(facts.instructions, facts.bits)
    if facts.arch == "AARCH64":
        return _arm64_frame(facts.instructions)
    return None


def operand(base: tuple[str, int], entry_offset: int, arch: str) -> str:
    """The assembly's memory operand for the bytes at entry sp + entry_offset, as capstone prints it
    (the dossier's assembly): displacements below 10 in decimal, others in hex."""
    register, at = base
    delta = entry_offset - at
    size = f"{abs(delta)}" if abs(delta) < 10 else f"{abs(delta):#x}"
    if not delta:
        return f"[{register}]"
    if arch == "AARCH64":
        return f"[{register}, #{'-' if delta < 0 else ''}{size}]"
    return f"[{register} {'-' if delta < 0 else '+'} {size}]"


_DECLARATION = re.compile(
    r"^(?P<decl>[ \t]*[^\n;]*?(?P<name>[A-Za-z_$][A-Za-z0-9_$]*)(?:\[[^\]\n]*\])*;)(?P<gap>[ \t]*)// \[bp(?P<off>[+-]0x[0-9a-fA-F]+)?\][ \t]*$",
    re.MULTILINE,
)


def stack_locals(text: str, facts: Facts) -> tuple[str, tuple[StackLocal, ...]]:
    """Each `// [bp-N]` local comment restated as the assembly's operand and the entry-sp offset."""
    base = frame(facts)
    found: list[StackLocal] = []

    def restate(m: re.Match[str]) -> str:
        offset = int(m.group("off") or "0", 16)
        where = None if base is None else operand(base, offset, facts.arch)
        sign = "-" if offset < 0 else "+"
        entry = f"entry sp {sign} {abs(offset):#x}"
        found.append(
            StackLocal(name=m.group("name"), declaration=m.group("decl").strip(), entry_offset=offset, operand=where)
        )
        return f"{m.group('decl')}{m.group('gap')}// {where + ' = ' if where else ''}{entry}"

    return _DECLARATION.sub(restate, text), tuple(found)


# ------------------------------------------------------------------ statements

_IDENTITY_INSERT = re.compile(r"_INSERT\(\s*([A-Za-z_$][A-Za-z0-9_$]*)\s*,\s*(?:0|0x0)\s*,\s*\1\s*\)")
_SELF_ASSIGN = re.compile(r"[ \t]*([A-Za-z_$][A-Za-z0-9_$]*) = \1;[ \t]*\n?")
_BARE = re.compile(r"[ \t]*[A-Za-z_$][A-Za-z0-9_$]*;[ \t]*\n?")
_RETURN = re.compile(r"^([ \t]*)return\b[^\n]*;[ \t]*$")


def identities(text: str) -> tuple[str, int]:
    """`_INSERT(v, 0, v)` is v itself; a statement left as `v = v;` or `v;` by that is removed.

    Only the exact identity (same variable, offset 0) is rewritten; other inserts stay, as angr gave them."""
    count = 0
    lines = []
    for line in text.splitlines(keepends=True):
        rewritten, n = _IDENTITY_INSERT.subn(r"\1", line)
        if n:
            count += n
            if _SELF_ASSIGN.fullmatch(rewritten) or _BARE.fullmatch(rewritten):
                continue
        lines.append(rewritten)
    return "".join(lines), count


def returns(text: str) -> tuple[str, int]:
    """A return right after another return at the same indentation (blank lines between) is unreachable."""
    kept: list[str] = []
    previous: str | None = None  # indentation of the last kept line when it was a return
    removed = 0
    for line in text.splitlines(keepends=True):
        if not line.strip():
            kept.append(line)
            continue
        m = _RETURN.match(line.rstrip("\n"))
        if m and previous == m.group(1):
            removed += 1
            continue
        previous = m.group(1) if m else None
        kept.append(line)
    return "".join(kept), removed


_COPY = re.compile(
    r"\b(?P<fn>strncpy|wcsncpy)\((?P<dst>[^;\n]*?), (?P<lit>L?\"(?:\\.|[^\"\\\n])*\"), (?P<n>0x[0-9a-fA-F]+|\d+)\);(?P<rest>[^\n]*)$",
    re.MULTILINE,
)


def _decoded(literal: str) -> str | None:
    body = literal[1:] if literal.startswith("L") else literal
    try:
        decoded = ast.literal_eval(body)
    except (ValueError, SyntaxError):
        return None
    return decoded if isinstance(decoded, str) else None


def inline_copies(text: str, callees: frozenset[str]) -> tuple[str, int]:
    """angr renders runs of constant stores as strncpy/wcsncpy; when the procedure calls neither,
    say so, with the byte count (angr's wcsncpy counts UTF-16 units, not 4-byte wchar_t) and the
    bytes themselves when any is a control character (an encoded string such as "\\r@KL\\rQJ")."""
    count = 0

    def mark(m: re.Match[str]) -> str:
        nonlocal count
        if m.group("fn") in callees or "/* inline" in m.group("rest"):
            return m.group()
        count += 1
        n = int(m.group("n"), 0)
        wide = m.group("fn") == "wcsncpy"
        said = f"{n} UTF-16 units = {2 * n} bytes" if wide else f"{n} bytes"
        content = _decoded(m.group("lit"))
        if content is not None and not wide and any(not 0x20 <= ord(c) < 0x7F for c in content):
            raw = content.encode("latin-1", errors="replace")
            said += ": " + " ".join(f"{b:02x}" for b in raw)
        return f"{m.group()[: len(m.group()) - len(m.group('rest'))]} /* inline stores, not a call: {said} */{m.group('rest')}"

    return _COPY.sub(mark, text), count


# ------------------------------------------------------------------ the whole pass


def readable(text: str, facts: Facts = Facts()) -> Readable:
    """Every rewrite above, in an order where none undoes another; idempotent."""
    text, removed = identities(text)
    text, dropped = returns(text)
    text, copies = inline_copies(text, facts.callees)
    text, slots = stack_locals(text, facts)
    text, counts = constants(text, facts.ranges)
    return Readable(
        text=text,
        locals=slots,
        hex_constants=counts.hexed,
        packed_strings=counts.packed,
        divisions=counts.divisions,
        identities_removed=removed,
        returns_removed=dropped,
        inline_copies=copies,
    )


def facts_of(
    snapshot: Mapping[str, Any],
    proc: Mapping[str, Any] | None,
    instructions: Sequence[Mapping[str, Any]] | None,
    callee_names: Iterable[str] = (),
) -> Facts:
    """The facts from a snapshot and a procedure's disassembly (link-time ranges moved to angr's base;
    none when the snapshot does not say where angr mapped the image)."""
    ranges = []
    if snapshot.get("mapped_base"):  # a snapshot cached before it was recorded: angr's base is unknown
        shift = int(snapshot["mapped_base"], 16) - int(snapshot.get("linked_base") or "0", 16)
        for seg in snapshot.get("segments", ()):
            if ":" not in seg["start"]:
                start = int(seg["start"], 16) + shift
                ranges.append((start, start + seg["size"]))
    listing = tuple((i["mnemonic"], i["operands"]) for i in instructions or ())
    if proc is not None and instructions:
        entry = next((k for k, i in enumerate(instructions) if i["address"] == proc["address"]), 0)
        listing = listing[entry:]
    return Facts(
        instructions=listing,
        bits=int(snapshot.get("bits") or 64),
        arch=ARCH.get(str(snapshot.get("architecture")), ""),  # unknown: no frame is guessed
        ranges=tuple(ranges),
        callees=frozenset(callee_names),
    )
