"""Wire records of emulate_native_function: REA's own tool (issue 29), with no REA 6.x counterpart.

Arguments arrive as JSON the advertised schema describes (integers, byte buffers, pointers into the image);
rea.native.emulation parses them into typed values with canonical errors, because a JSON union of a bare
integer and tagged objects is not a shape the strict converter structures.
"""

from __future__ import annotations

from typing import Literal

import attrs

from rea.wire.schema import Open, field

HEX_BYTES = "^([0-9a-fA-F]{2})*$"
ADDRESS = "^0x[0-9a-fA-F]{1,16}$"
MAX_ARGUMENTS = 12
MAX_BUFFER_BYTES = 1 << 20  # one buffer, and all buffers together
Status = Literal[
    "returned", "stopped_at", "step_limit", "time_limit", "memory_limit", "memory_fault", "unsupported", "cancelled"
]
STATUSES: tuple[str, ...] = (
    "returned",
    "stopped_at",
    "step_limit",
    "time_limit",
    "memory_limit",
    "memory_fault",
    "unsupported",
    "cancelled",
)

_INTEGER = {
    "type": "integer",
    "minimum": -(2**53 - 1),
    "maximum": 2**53 - 1,
    "description": "An integer argument, passed in the calling convention's next slot",
}
_WIDE = {
    "type": "object",
    "properties": {
        "kind": {"const": "integer", "type": "string"},
        "value": {
            "anyOf": [
                {"type": "integer", "minimum": -(2**53 - 1), "maximum": 2**53 - 1},
                {"type": "string", "pattern": "^-?0x[0-9a-fA-F]{1,16}$"},
            ],
            "description": "The value; 0x hex for values beyond 2**53 (two's complement when negative)",
        },
    },
    "required": ["kind", "value"],
    "additionalProperties": False,
    "description": "An integer given as an object (any 64-bit value)",
}
_BUFFER = {
    "type": "object",
    "properties": {
        "kind": {"const": "buffer", "type": "string"},
        "hex": {"type": "string", "pattern": HEX_BYTES, "maxLength": 2 * MAX_BUFFER_BYTES, "description": "Its bytes"},
        "writable": {"type": "boolean", "default": True, "description": "false: a write to it is a memory fault"},
        "size": {
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_BUFFER_BYTES,
            "description": "Its size (at least the bytes given; the rest is zero); default: the bytes given",
        },
    },
    "required": ["kind", "hex"],
    "additionalProperties": False,
    "description": "A byte buffer REA maps outside the image; the argument is its address",
}
_POINTER = {
    "type": "object",
    "properties": {
        "kind": {"const": "pointer", "type": "string"},
        "address": {"type": "string", "pattern": ADDRESS, "description": "A link-time address inside the image"},
    },
    "required": ["kind", "address"],
    "additionalProperties": False,
    "description": "A pointer into the binary's own memory (its data as loaded)",
}
ARGUMENTS_SCHEMA = {
    "type": "array",
    "maxItems": MAX_ARGUMENTS,
    "items": {"anyOf": [_INTEGER, _WIDE, _BUFFER, _POINTER]},
    "default": [],
}


@attrs.frozen(kw_only=True)
class EmulateArgs:
    procedure: str = field("The procedure to run: its start address (0x...), exact name or sub_ name", minLength=1)
    arguments: tuple[Open, ...] = field(
        "Its arguments in order: integers, {kind: buffer, hex, writable?, size?} or {kind: pointer, address}",
        default=(),
        schema=ARGUMENTS_SCHEMA,
    )
    max_steps: int = field("Most basic blocks executed", default=20_000, minimum=1, maximum=1_000_000)
    max_time_ms: int = field(
        "Most wall-clock milliseconds spent emulating", default=10_000, minimum=10, maximum=120_000
    )
    max_memory_bytes: int = field(
        "Most memory the routine may write (stack, buffers, image), counted in 4 KiB pages",
        default=16 << 20,
        minimum=4096,
        maximum=256 << 20,
    )
    stop_at: str | None = field("Stop at this link-time address (status stopped_at)", default=None, pattern=ADDRESS)


@attrs.frozen(kw_only=True)
class Procedure:
    address: str = field("Start address")
    name: str = field("Its name in the index")


@attrs.frozen(kw_only=True)
class PlacedArgument:
    index: int = field("Position", minimum=0)
    kind: Literal["integer", "buffer", "pointer"] = field("What was given")
    value: str = field(
        "The value passed, 0x hex (a buffer: its emulated address; a pointer: its link-time address, which angr "
        "rebases for a position-independent image)"
    )


@attrs.frozen(kw_only=True)
class Bytes:
    hex: str = field("The bytes, lowercase hex", pattern="^([0-9a-f]{2})*$")
    text: str = field("The bytes as text: printable ASCII kept, anything else as \\xNN, a NUL as \\0")
    c_string: str | None = field("The text up to the first NUL when that prefix is printable ASCII, else null")


@attrs.frozen(kw_only=True)
class BufferAfter:
    argument: int = field("The argument it was given as", minimum=0)
    address: str = field("Its emulated address (outside the image)")
    size: int = field("Its size in bytes", minimum=0)
    writable: bool = field("Whether the routine could write it")
    changed: bool = field("Its bytes differ from those given")
    after: Bytes = field("Its bytes after the call")


@attrs.frozen(kw_only=True)
class WrittenRange:
    start: str = field("First address written")
    end: str = field("Address after the last byte")
    size: int = field("Bytes", minimum=0)
    section: str | None = field("The section holding it")
    after: Bytes = field("Its bytes after the call")


@attrs.frozen(kw_only=True)
class CallMade:
    site: str | None = field("The call instruction (null when not in the image)")
    target: str = field("Where it went (extern:0x... for an import stub)")
    name: str | None = field("The index's name for the target (null when it has none)")


@attrs.frozen(kw_only=True)
class PointsTo:
    region: Literal["buffer", "image"] = field("Where the returned value points")
    argument: int | None = field("The buffer's argument position (image: null)")
    text: str = field("Up to 256 bytes from there, rendered as text")


@attrs.frozen(kw_only=True)
class ReturnValue:
    register: str = field("The calling convention's return register")
    value: str = field("Its value, 0x hex")
    signed: str = field("Its value as a signed decimal of the register's width")
    points_to: PointsTo | None = field("When the value is the address of a buffer or of image memory")


@attrs.frozen(kw_only=True)
class Unsupported:
    kind: Literal["syscall", "call", "symbolic-branch", "instruction"] = field(
        "syscall: the routine called the kernel; call: it reached code with no body (an import) or a model "
        "REA does not run; symbolic-branch: a branch on a value that is not concrete; instruction: angr could "
        "not lift or execute the instruction"
    )
    name: str | None = field("The syscall's or the call's name, when known")
    number: int | None = field("The syscall number", minimum=0)


@attrs.frozen(kw_only=True)
class Usage:
    limit: int = field("The budget", minimum=0)
    used: int = field("How much was used", minimum=0)
    exhausted: bool = field("This budget stopped the run")


@attrs.frozen(kw_only=True)
class Budgets:
    steps: Usage = field("max_steps: basic blocks executed")
    memory: Usage = field("max_memory_bytes: bytes of 4 KiB pages written")
    time_ms: int = field("max_time_ms (time used is left out: it would change the Evidence id)", minimum=0)
    time_exhausted: bool = field("The time budget stopped the run")


@attrs.frozen(kw_only=True)
class Coverage:
    status: Literal["complete", "partial"] = field(
        "complete: the routine returned or reached stop_at; partial: a budget, a fault or an unsupported "
        "operation stopped it, and the observations are those made until then"
    )
    reason: str = field("Why it stopped", minLength=1)


@attrs.frozen(kw_only=True)
class Emulation:
    procedure: Procedure = field("The routine run")
    engine: Literal["angr-vex", "angr-unicorn", "unicorn"] = field(
        "angr's VEX engine, unicorn where angr has it, or unicorn driven by REA itself on a static x86-64 image "
        "(the same answer angr's unicorn engine gives, without loading angr)"
    )
    status: Status = field(
        "returned; stopped_at (stop_at reached); step_limit, time_limit, memory_limit (a budget); memory_fault "
        "(an unmapped or protected access); unsupported (see unsupported); cancelled (the client cancelled the "
        "call: the partial run is retained as Evidence)"
    )
    stop_address: str | None = field("The instruction or block where it stopped (null when it returned)")
    fault_address: str | None = field("The address a memory fault touched")
    unsupported: Unsupported | None = field("What could not be emulated (status unsupported)")
    return_value: ReturnValue | None = field("The value returned (status returned)")
    arguments: tuple[PlacedArgument, ...] = field("The arguments as placed")
    buffers: tuple[BufferAfter, ...] = field("Every buffer argument after the call")
    image_writes: tuple[WrittenRange, ...] = field("Image memory the routine wrote, merged into ranges")
    image_writes_total: int = field("Bytes of image memory written", minimum=0)
    image_writes_truncated: bool = field("Ranges past 64 KiB of written bytes are left out")
    calls: tuple[CallMade, ...] = field("The calls it made, in order (the first 256)")
    calls_total: int = field("Calls made", minimum=0)
    instructions: int = field("Instructions executed", minimum=0)
    budgets: Budgets = field("Each budget, its use and whether it stopped the run")
    coverage: Coverage = field("Whether the run is the whole call")
