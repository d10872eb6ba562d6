"""emulate_native_function, the pure part: what an argument may be, what a budget allows, and what the
worker's plain facts mean.

The worker (effects.native.emulator) runs one procedure in angr's emulator, never on the host, and asks
`stop` before every block whether a budget is spent; everything it reports comes back here to become the
typed answer, with the canonical reason for the way the run ended. Keeping those decisions here makes the
budget laws (a run never executes more blocks than its budget; step_limit exactly when the budget ran out
first) and the argument grammar checkable without angr.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Final

import attrs
from returns.result import Failure, Result, Success

from rea.errors import ReaError, invalid_request
from rea.native.records import emulation as w

PAGE: Final = 4096
MAX_IMAGE_WRITE_BYTES: Final = 64 << 10
MAX_CALLS: Final = 256
POINTED_TEXT_BYTES: Final = 256
WORD_MAX: Final = (1 << 64) - 1
ACCEPTED: Final = (
    "an integer (-(2**53-1)..2**53-1), {kind: integer, value: 0x hex up to 64 bits}, "
    "{kind: buffer, hex: even-length hex, writable?: bool, size?: 1..1048576 not below the bytes given}, "
    "or {kind: pointer, address: 0x hex inside the image}"
)
# the library routines angr models that compute on memory only; any other model (I/O, the environment,
# a stub that returns an unconstrained value) stops the run as an unsupported call
MODELLED_CALLS: Final = frozenset(
    {
        "memcpy",
        "memmove",
        "memset",
        "memcmp",
        "strlen",
        "strnlen",
        "strcpy",
        "strncpy",
        "strcat",
        "strncat",
        "strcmp",
        "strncmp",
        "strchr",
        "strrchr",
        "strstr",
        "tolower",
        "toupper",
        "malloc",
        "calloc",
        "realloc",
        "free",
    }
)
LIMITATIONS: Final = (
    "Emulated by angr (its unicorn engine where installed, else its VEX engine; `engine` says which; on a static "
    "x86-64 image, `unicorn` driven by REA itself in angr's state and layout, whenever the run needs nothing only "
    "angr models) with a concrete state (registers and memory nobody set read as zero); nothing runs on the host. Code reached is "
    "emulated instruction by instruction, calls included.",
    "The kernel is not emulated: a system call stops the run (unsupported, naming it). Library routines reached "
    "through imports run only when angr models them as pure memory computations (memcpy, strlen, malloc, ...); "
    "any other import stops the run.",
    "Memory outside the image, the stack and the given buffers is unmapped: touching it is a memory fault. "
    "Thread-local storage, the heap set up by the C runtime and global state initialised at start-up are "
    "as the file holds them, not as a running process would have them.",
    "A budget (steps, time, memory) that stops the run leaves the observations made until then; the time "
    "budget depends on the machine, so a run stopped by it may go further elsewhere.",
)


@attrs.frozen(kw_only=True)
class Integer:
    value: int  # unsigned, 0 .. 2**64-1 (negative values are given in two's complement)


@attrs.frozen(kw_only=True)
class Buffer:
    data: bytes
    size: int
    writable: bool


@attrs.frozen(kw_only=True)
class Pointer:
    address: int


@attrs.frozen(kw_only=True)
class Budget:
    steps: int
    time_ms: int
    memory_bytes: int


# ----------------------------------------------------------------- arguments


def _refuse(index: int, why: str) -> Failure[ReaError]:
    return Failure(invalid_request(f"arguments[{index}]: {why}", field=f"arguments[{index}]", accepted=ACCEPTED))


_HEX_WORD = re.compile(r"^(-?)0x([0-9a-fA-F]{1,16})$")
_ADDRESS = re.compile(r"^0x[0-9a-fA-F]{1,16}$")


def _word(value: Any) -> int | None:
    """A 64-bit two's-complement word from an integer or 0x text, or None when it is not one."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        number = value
    elif isinstance(value, str) and (m := _HEX_WORD.match(value)):
        number = -int(m.group(2), 16) if m.group(1) else int(m.group(2), 16)
    else:
        return None
    if not -(1 << 63) <= number <= WORD_MAX:
        return None
    return number & WORD_MAX


def _buffer(index: int, item: Mapping[str, Any]) -> Result[Buffer, ReaError]:
    text = item.get("hex")
    if not isinstance(text, str) or len(text) % 2 or not re.fullmatch(r"[0-9a-fA-F]*", text):
        return _refuse(index, "a buffer's hex must be an even number of hex digits")
    data = bytes.fromhex(text)
    size = item.get("size", len(data))
    if isinstance(size, bool) or not isinstance(size, int) or not 1 <= size <= w.MAX_BUFFER_BYTES:
        return _refuse(index, f"a buffer's size must be 1..{w.MAX_BUFFER_BYTES}")
    if size < len(data):
        return _refuse(index, f"size {size} is smaller than the {len(data)} bytes given")
    writable = item.get("writable", True)
    if not isinstance(writable, bool):
        return _refuse(index, "writable must be true or false")
    return Success(Buffer(data=data, size=size, writable=writable))


_KEYS = {"integer": {"kind", "value"}, "buffer": {"kind", "hex", "writable", "size"}, "pointer": {"kind", "address"}}


def _integer(index: int, word: int | None, why: str) -> Result[Integer | Buffer | Pointer, ReaError]:
    return _refuse(index, why) if word is None else Success(Integer(value=word))


def _argument(index: int, item: Any) -> Result[Integer | Buffer | Pointer, ReaError]:
    if not isinstance(item, Mapping):
        return _integer(index, _word(item), f"{item!r} is not an argument")
    kind = item.get("kind")
    if kind not in _KEYS:
        return _refuse(index, f"unknown kind {kind!r}")
    extra = set(item) - _KEYS[kind]
    if extra:
        return _refuse(index, f"a {kind} has no {', '.join(sorted(extra))}")
    if kind == "integer":
        return _integer(index, _word(item.get("value")), "the value is not a 64-bit integer")
    if kind == "pointer":
        address = item.get("address")
        if not isinstance(address, str) or not _ADDRESS.match(address):
            return _refuse(index, "a pointer's address must be 0x hex")
        return Success(Pointer(address=int(address, 16)))
    return _buffer(index, item)


def parse_arguments(raw: Sequence[Any]) -> Result[tuple[Integer | Buffer | Pointer, ...], ReaError]:
    """The typed arguments, or invalid_request naming the first bad one and what is accepted."""
    if len(raw) > w.MAX_ARGUMENTS:
        return Failure(
            invalid_request(f"{len(raw)} arguments; at most {w.MAX_ARGUMENTS}", field="arguments", accepted=ACCEPTED)
        )
    parsed: list[Integer | Buffer | Pointer] = []
    for index, item in enumerate(raw):
        match _argument(index, item):
            case Failure() as refused:
                return refused
            case Success(argument):
                parsed.append(argument)
    total = sum(a.size for a in parsed if isinstance(a, Buffer))
    if total > w.MAX_BUFFER_BYTES:
        return Failure(
            invalid_request(
                f"the buffers hold {total} bytes together; at most {w.MAX_BUFFER_BYTES}",
                field="arguments",
                accepted=ACCEPTED,
            )
        )
    return Success(tuple(parsed))


def sub_address(text: str) -> str | None:
    """The start address a `sub_<hex>` name spells (what a stripped binary's procedures are called), so the
    name finds the procedure in a binary whose index knows it by its symbol."""
    found = re.fullmatch(r"sub_([0-9a-fA-F]{1,16})", text)
    return None if found is None else f"0x{int(found.group(1), 16):x}"


def budget(args: Mapping[str, Any]) -> Budget:
    """The run's budget from the tool's (schema-checked, defaulted) arguments."""
    return Budget(steps=args["max_steps"], time_ms=args["max_time_ms"], memory_bytes=args["max_memory_bytes"])


def plan(arguments: Iterable[Integer | Buffer | Pointer], limits: Budget, stop_at: int | None) -> dict[str, Any]:
    """The worker's request: plain JSON (addresses stay link-time; the worker rebases them)."""
    rows: list[dict[str, Any]] = []
    for a in arguments:
        if isinstance(a, Integer):
            rows.append({"kind": "integer", "value": f"0x{a.value:x}"})
        elif isinstance(a, Pointer):
            rows.append({"kind": "pointer", "address": f"0x{a.address:x}"})
        else:
            rows.append({"kind": "buffer", "hex": a.data.hex(), "size": a.size, "writable": a.writable})
    return {
        "arguments": rows,
        "budget": attrs.asdict(limits),
        "stop_at": None if stop_at is None else f"0x{stop_at:x}",
    }


# ------------------------------------------------------------------- budgets


def stop(limits: Budget, steps: int, elapsed_ms: float, pages: int) -> str | None:
    """Asked before each block: the budget that forbids executing it, else None (steps first, then memory,
    then time, so a run that spent several at once names the deterministic one)."""
    if steps >= limits.steps:
        return "step_limit"
    if pages * PAGE > limits.memory_bytes:
        return "memory_limit"
    if elapsed_ms >= limits.time_ms:
        return "time_limit"
    return None


def verdict(
    limits: Budget,
    *,
    returned: bool,
    reached: bool,
    steps: int,
    elapsed_ms: float,
    pages: int,
    cancelled: bool = False,
) -> str | None:
    """Asked at the top of every step of a run: how it ends here, or None to execute the next block. A
    return (or reaching stop_at) wins over a budget spent by the same block, and a budget over a cancel
    (the budget's verdict does not depend on when the client gave up)."""
    if returned:
        return "returned"
    if reached:
        return "stopped_at"
    spent = stop(limits, steps, elapsed_ms, pages)
    if spent is None and cancelled:
        return "cancelled"
    return spent


# --------------------------------------------------------------- rendering


def text(data: bytes) -> str:
    """Bytes as readable text: printable ASCII as it is (a backslash doubled), NUL as \\0, others \\xNN."""
    out = []
    for byte in data:
        if byte == 0x5C:
            out.append("\\\\")
        elif 0x20 <= byte < 0x7F:
            out.append(chr(byte))
        elif byte == 0:
            out.append("\\0")
        elif byte in (0x09, 0x0A, 0x0D):
            out.append({0x09: "\\t", 0x0A: "\\n", 0x0D: "\\r"}[byte])
        else:
            out.append(f"\\x{byte:02x}")
    return "".join(out)


def c_string(data: bytes) -> str | None:
    """The bytes before the first NUL when they are printable ASCII (tab and newlines allowed)."""
    head = data.split(b"\0", 1)[0]
    if all(0x20 <= b < 0x7F or b in (0x09, 0x0A, 0x0D) for b in head):
        return head.decode("ascii")
    return None


def rendered(data: bytes) -> w.Bytes:
    return w.Bytes(hex=data.hex(), text=text(data), c_string=c_string(data))


def ranges(addresses: Iterable[int], limit: int = MAX_IMAGE_WRITE_BYTES) -> tuple[list[tuple[int, int]], int, bool]:
    """Written addresses merged into [start, end) ranges in address order, keeping whole ranges while their
    bytes fit `limit`; (ranges kept, bytes written in all, whether any range was left out)."""
    ordered = sorted(set(addresses))
    merged: list[tuple[int, int]] = []
    for address in ordered:
        if merged and merged[-1][1] == address:
            merged[-1] = (merged[-1][0], address + 1)
        else:
            merged.append((address, address + 1))
    kept, used = [], 0
    for start, end in merged:
        if used + (end - start) > limit:
            break
        kept.append((start, end))
        used += end - start
    return kept, len(ordered), len(kept) < len(merged)


def signed(value: int, bits: int) -> int:
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


# -------------------------------------------------------------------- answer

_REASONS: Final = {
    "returned": "the routine returned",
    "stopped_at": "execution reached stop_at",
    "step_limit": "max_steps blocks were executed",
    "time_limit": "max_time_ms passed",
    "memory_limit": "the routine wrote more than max_memory_bytes",
    "cancelled": "the call was cancelled",
}


def reason(facts: Mapping[str, Any]) -> str:
    """The canonical sentence for the way a run ended."""
    status = facts["status"]
    where = facts.get("stop_address")
    if status in _REASONS:
        said = _REASONS[status]
    elif status == "memory_fault":
        said = f"a memory fault at {facts.get('fault_address') or 'an unknown address'}"
        if facts.get("fault"):
            said += f" ({facts['fault']})"
    else:
        gap = facts.get("unsupported") or {}
        kind, name = gap.get("kind"), gap.get("name")
        said = {
            "syscall": f"system call {name or '?'} (number {gap.get('number')})",
            "call": f"a call to {name or 'code with no body'}, which is not emulated",
            "symbolic-branch": "a branch on a value that is not concrete",
        }.get(str(kind), f"angr could not execute the instruction ({name or 'unknown reason'})")
        said = f"unsupported: {said}"
    return f"{said} at {where}" if where and status not in ("returned", "stopped_at") else said


def _calls(facts: Mapping[str, Any], name_of: Callable[[str], str | None]) -> tuple[w.CallMade, ...]:
    return tuple(
        w.CallMade(site=c.get("site"), target=c["target"], name=name_of(c["target"]) or c.get("hook"))
        for c in facts.get("calls", ())[:MAX_CALLS]
    )


def _return(facts: Mapping[str, Any]) -> w.ReturnValue | None:
    got = facts.get("return")
    if not got:
        return None
    value, bits = int(got["value"], 16), int(got["bits"])
    pointed = got.get("points_to")
    return w.ReturnValue(
        register=got["register"],
        value=f"0x{value:x}",
        signed=str(signed(value, bits)),
        points_to=None
        if not pointed
        else w.PointsTo(
            region=pointed["region"], argument=pointed.get("argument"), text=text(bytes.fromhex(pointed["hex"]))
        ),
    )


def answer(
    proc: Mapping[str, Any], facts: Mapping[str, Any], limits: Budget, name_of: Callable[[str], str | None]
) -> w.Emulation:
    """The worker's facts as the typed answer; `name_of` gives the index's name of a call target."""
    status = facts["status"]
    gap = facts.get("unsupported")
    pages = int(facts.get("memory_pages", 0))
    return w.Emulation(
        procedure=w.Procedure(address=proc["address"], name=str(proc["name"])),
        engine=facts.get("engine", "angr-vex"),
        status=status,
        stop_address=facts.get("stop_address"),
        fault_address=facts.get("fault_address"),
        unsupported=None
        if not gap
        else w.Unsupported(kind=gap["kind"], name=gap.get("name"), number=gap.get("number")),
        return_value=_return(facts),
        arguments=tuple(
            w.PlacedArgument(index=a["index"], kind=a["kind"], value=a["value"]) for a in facts.get("arguments", ())
        ),
        buffers=tuple(
            w.BufferAfter(
                argument=b["argument"],
                address=b["address"],
                size=b["size"],
                writable=b["writable"],
                changed=b["after_hex"] != b["before_hex"],
                after=rendered(bytes.fromhex(b["after_hex"])),
            )
            for b in facts.get("buffers", ())
        ),
        image_writes=tuple(
            w.WrittenRange(
                start=r["start"],
                end=r["end"],
                size=len(r["hex"]) // 2,
                section=r.get("section"),
                after=rendered(bytes.fromhex(r["hex"])),
            )
            for r in facts.get("image_writes", ())
        ),
        image_writes_total=int(facts.get("image_writes_total", 0)),
        image_writes_truncated=bool(facts.get("image_writes_truncated", False)),
        calls=_calls(facts, name_of),
        calls_total=int(facts.get("calls_total", 0)),
        instructions=int(facts.get("instructions", 0)),
        budgets=w.Budgets(
            steps=w.Usage(limit=limits.steps, used=int(facts["steps"]), exhausted=status == "step_limit"),
            memory=w.Usage(limit=limits.memory_bytes, used=pages * PAGE, exhausted=status == "memory_limit"),
            time_ms=limits.time_ms,
            time_exhausted=status == "time_limit",
        ),
        coverage=w.Coverage(
            status="complete" if status in ("returned", "stopped_at") else "partial", reason=reason(facts)
        ),
    )
