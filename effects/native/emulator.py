"""Run one procedure in angr's emulator, inside the angr worker: never on the host.

The state is concrete: registers and memory nobody set read as zero, memory outside the image, the stack
and the caller's buffers is unmapped (angr's strict page access turns a touch into a fault), and every
block is stepped by hand so that a budget (rea.native.emulation.stop), a system call, a call into code that
has no body, or a second successor (a branch on a value that is not concrete) ends the run with what was
observed until then. Cancellation stops the run between blocks: the server signals the worker (SIGUSR1,
`Interrupt`), the loop ends the run as `cancelled` with its observations, and the worker, with its loaded
project, lives on for the next question.

`emulate(project, entry, arguments, budget)` is the reusable part: a later step emulates a caller up to a
call site (stop_at) and then a decoder from the state it reached (`Run.state`, `resume`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import attrs

from effects.native import native_blocks
from rea.native import emulation as plan

Emit = Callable[[str], None]
PROGRESS_EVERY = 2000  # blocks between progress notes
BUFFER_GAP = 0x10000  # unmapped guard between buffers
UNICORN = True  # angr's unicorn engine is used when its native library loads (see _engine_options)


class Interrupt:
    """The server's request to stop the current run: set by the worker's SIGUSR1 handler (a plain attribute,
    safe to set from a signal handler), read by `execute` between blocks, cleared before each request."""

    requested = False

    @classmethod
    def request(cls, *_: Any) -> None:
        cls.requested = True

    @classmethod
    def clear(cls) -> None:
        cls.requested = False


@attrs.define
class Tracker:
    """What the run touched: pages written (the memory budget) and image bytes written (the report)."""

    image: tuple[int, int]
    pages: set[int] = attrs.field(factory=set)
    image_bytes: set[int] = attrs.field(factory=set)

    def over(self, address: int, size: int, limit: int) -> bool:
        """Record a write; whether the pages written now pass `limit` bytes."""
        self.wrote(address, size)
        return len(self.pages) * plan.PAGE > limit

    def wrote(self, address: int, size: int) -> None:
        self.pages.update(range(address // plan.PAGE, (address + max(size, 1) - 1) // plan.PAGE + 1))
        low, high = self.image
        if address <= high and address + size > low and len(self.image_bytes) <= 4 * plan.MAX_IMAGE_WRITE_BYTES:
            self.image_bytes.update(range(max(address, low), min(address + size, high + 1)))


@attrs.define
class Run:
    """A finished run: the plain facts (rea.native.emulation.answer reads them) and the state it ended in."""

    facts: dict[str, Any]
    state: Any


@attrs.frozen
class Placed:
    index: int
    kind: str
    value: int
    buffer: tuple[int, bytes, int, bool] | None = None  # (address, initial bytes, size, writable)


def _engine_options(angr: Any, arch: Any) -> tuple[set[Any], str]:
    o = angr.options
    options = {o.ZERO_FILL_UNCONSTRAINED_MEMORY, o.ZERO_FILL_UNCONSTRAINED_REGISTERS, o.STRICT_PAGE_ACCESS}
    if UNICORN and native_blocks.available(angr) and native_blocks.supports(arch):
        return options | native_blocks.options(angr), "angr-unicorn"
    return options, "angr-vex"


def buffer_base(project: Any) -> int:
    """Where buffers go: above everything the loader mapped, so a pointer to one never aliases the image."""
    top = int(project.loader.max_addr) + 1
    return (top + 0xFFFFF) & ~0xFFFFF


def place(base: int, rows: list[dict[str, Any]], into: Callable[[str], int]) -> list[Placed]:
    """Each argument's value: integers as given, pointers rebased, buffers laid out one after another from
    base (buffer_base)."""
    placed, cursor = [], base
    for index, row in enumerate(rows):
        if row["kind"] == "integer":
            placed.append(Placed(index, "integer", int(row["value"], 16)))
        elif row["kind"] == "pointer":
            placed.append(Placed(index, "pointer", into(row["address"])))
        else:
            data, size = bytes.fromhex(row["hex"]), int(row["size"])
            placed.append(Placed(index, "buffer", cursor, (cursor, data, size, bool(row["writable"]))))
            cursor += (size + plan.PAGE - 1) // plan.PAGE * plan.PAGE + BUFFER_GAP
    return placed


def prepare(project: Any, entry: int, placed: list[Placed], tracker: Tracker) -> tuple[Any, str]:
    """The call state at entry: arguments in the default calling convention, buffers mapped and filled,
    every write watched."""
    import angr

    options, engine = _engine_options(angr, project.arch)
    state = project.factory.call_state(entry, *(p.value for p in placed), add_options=options)
    native_blocks.lazy_heap(state)
    for p in placed:
        if p.buffer is None:
            continue
        address, data, size, writable = p.buffer
        span = (size + plan.PAGE - 1) // plan.PAGE * plan.PAGE
        state.memory.map_region(address, span, 3, init_zero=True)
        if data:
            state.memory.store(address, data, inspect=False, disable_actions=True)
        if not writable:  # filled first, then read-only: a write to it is a memory fault
            for page in range(address, address + span, plan.PAGE):
                state.memory.permissions(page, 1)

    def wrote(s: Any) -> None:
        where = s.inspect.mem_write_address
        length = s.inspect.mem_write_length
        expr = s.inspect.mem_write_expr
        if where is None or where.symbolic:
            return
        size = length if isinstance(length, int) else (expr.size() // 8 if expr is not None else 1)
        if not isinstance(size, int):
            size = s.solver.eval(size) if not size.symbolic else 1
        tracker.wrote(s.solver.eval(where), size)

    state.inspect.b("mem_write", when=angr.BP_AFTER, action=wrote)
    return state, engine


SYSCALL_ABIS = {
    "AMD64": "amd64",
    "X86": "i386",
    "AARCH64": "aarch64",
    "ARMEL": "arm",
    "ARMHF": "armhf",
    "ARMCortexM": "arm",
}


def _syscall(project: Any, state: Any) -> dict[str, Any]:
    """The system call a block ended in, by number and (angr's table for the architecture's ABI) name."""
    number, name = None, None
    try:
        number = state.solver.eval(project.simos.syscall_cc(state).syscall_num(state))
        table = project.simos.syscall_library.syscall_number_mapping[SYSCALL_ABIS[project.arch.name]]
        name = table.get(number)
    except Exception:  # noqa: BLE001 - a number angr cannot read or name: reported as unknown
        pass
    return {"kind": "syscall", "name": name, "number": number}


def _hooked(project: Any, address: int) -> str | None:
    hook = project.hooked_by(address) if project.is_hooked(address) else None
    return None if hook is None else str(getattr(hook, "display_name", None) or type(hook).__name__)


@attrs.define
class Walk:
    """What a run executed so far: blocks (steps), instructions, the calls made, and the instructions of the
    block executed last (where a system call or an unsupported call is reported)."""

    project: Any
    out: Callable[[int | None], str | None]
    visited: set[int] | None
    site: list[int]
    # how a block unicorn executed is read (its instructions, whether it ends in a call) and which procedure
    # hooks an address: angr's project by default, the ELF and capstone for the direct engine (effects.native.direct)
    lift: Callable[[int, int], native_blocks.Block] | None = None
    hooked: Callable[[int], str | None] | None = None
    steps: int = 0
    instructions: int = 0
    calls: list[dict[str, Any]] = attrs.field(factory=list)
    calls_total: int = 0

    def ran(self, addresses: list[int] | tuple[int, ...]) -> None:
        self.steps += 1
        self.site = list(addresses)
        self.instructions += len(addresses)
        if self.visited is not None:
            self.visited.update(addresses)

    def called(self, target: int) -> None:
        """The block executed last ended in a call to target."""
        self.calls_total += 1
        if len(self.calls) < plan.MAX_CALLS:
            hook = self.hooked(target) if self.hooked is not None else _hooked(self.project, target)
            self.calls.append({"site": self.out(self.site[-1]), "target": self.out(target), "hook": hook})

    def unicorn(self, blocks: list[tuple[int, int]], after: int) -> None:
        """The blocks one unicorn step executed, in order; `after` is where it stopped."""
        pending = False
        for address, size in blocks:
            if pending:
                self.called(address)
            block = (
                self.lift(address, size) if self.lift is not None else native_blocks.block(self.project, address, size)
            )
            self.ran(block.instructions)
            pending = block.call
        if pending:
            self.called(after)

    def facts(self) -> dict[str, Any]:
        return {
            "steps": self.steps,
            "instructions": self.instructions,
            "calls": self.calls,
            "calls_total": self.calls_total,
        }


def execute(
    project: Any,
    state: Any,
    limits: plan.Budget,
    tracker: Tracker,
    *,
    out: Callable[[int | None], str | None],
    stop_at: int | None = None,
    emit: Emit | None = None,
    visited: set[int] | None = None,
) -> tuple[dict[str, Any], Any]:
    """Step until the routine returns, reaches stop_at, or something stops it; the plain facts of how it
    ended, and the last state (`visited`, when given, collects every instruction address executed). A step
    is one block in the VEX engine, or up to native_blocks.CHUNK blocks in unicorn, never more than the step
    budget leaves; the budgets and a cancel are checked between steps."""
    import angr

    started, walk = time.monotonic(), Walk(project, out, visited, [state.addr])
    recorder = native_blocks.Recorder(wrote=lambda address, size: tracker.over(address, size, limits.memory_bytes))
    fast = angr.options.UNICORN in state.options
    if fast:
        native_blocks.watch(state, recorder)
    end: dict[str, Any] = {}
    deadend, noted = project.simos.return_deadend, PROGRESS_EVERY
    stops = [stop_at] if stop_at is not None else None
    while True:
        ended = plan.verdict(
            limits,
            returned=state.addr == deadend,
            reached=stop_at is not None and state.addr == stop_at and walk.steps > 0,
            steps=walk.steps,
            elapsed_ms=(time.monotonic() - started) * 1000,
            pages=len(tracker.pages),
            cancelled=Interrupt.requested,
        )
        if ended is not None:
            end = {"status": ended} if ended == "returned" else {"status": ended, "stop_address": out(state.addr)}
            break
        hook = _hooked(project, state.addr)
        if hook is not None and hook not in plan.MODELLED_CALLS:  # stopped at the call that reached it
            end = {
                "status": "unsupported",
                "stop_address": out(walk.site[-1]),
                "unsupported": {"kind": "call", "name": hook},
            }
            break
        recorder.blocks.clear()
        try:
            if fast:
                step = min(native_blocks.CHUNK, limits.steps - walk.steps)
                successors = project.factory.successors(state, extra_stop_points=stops, step=step)
            else:
                successors = project.factory.successors(state, extra_stop_points=stops)
        except Exception as exc:  # noqa: BLE001 - angr's refusals become the run's end, never the worker's
            end = _failure(exc, state, out)
            break
        following = successors.flat_successors
        if successors.sort == "Unicorn" and len(following) == 1:  # the blocks it completed (not one it left)
            walk.unicorn(recorder.blocks[: following[0].unicorn.steps], following[0].addr)
        else:
            walk.ran(successors.artifacts.get("insn_addrs") or [state.addr])
        if len(following) != 1:
            end = {
                "status": "unsupported",
                "stop_address": out(state.addr),
                "unsupported": {"kind": "symbolic-branch", "name": f"{len(following)} successor states"},
            }
            break
        after = following[0]
        kind = after.history.jumpkind or ""
        if kind.startswith("Ijk_Sys"):
            end = {"status": "unsupported", "stop_address": out(walk.site[-1]), "unsupported": _syscall(project, after)}
            break
        if kind == "Ijk_Call" and successors.sort != "Unicorn":
            walk.called(after.addr)
        state = after
        if emit is not None and walk.steps >= noted:
            noted = walk.steps + PROGRESS_EVERY
            emit(f"emulated {walk.steps} blocks ({walk.instructions} instructions)")
    end.update(walk.facts())
    return end, state


def _failure(exc: Exception, state: Any, out: Callable[[int | None], str | None]) -> dict[str, Any]:
    from angr.errors import SimSegfaultException

    if isinstance(exc, SimSegfaultException):
        at = getattr(exc, "ins_addr", None) or state.addr
        return {
            "status": "memory_fault",
            "stop_address": out(at),
            "fault_address": _plain(out, getattr(exc, "addr", None)),
            "fault": str(getattr(exc, "reason", "") or "unmapped"),
        }
    return {
        "status": "unsupported",
        "stop_address": out(state.addr),
        "unsupported": {"kind": "instruction", "name": f"{type(exc).__name__}: {str(exc)[:200]}"},
    }


def _plain(out: Callable[[int | None], str | None], address: int | None) -> str | None:
    """An image address as its link-time address; anything else (a buffer, the zero page) as it is."""
    said = out(address)
    return said if said is None or not said.startswith("extern:") else f"0x{address:x}"


def _read(state: Any, address: int, size: int) -> bytes:
    """Bytes of the final state's memory (zero where nothing is mapped any more)."""
    if size <= 0:
        return b""
    try:
        value = state.memory.load(address, size, inspect=False, disable_actions=True)
        read: bytes = state.solver.eval(value, cast_to=bytes)
        return read
    except Exception:  # noqa: BLE001 - partly unmapped: read byte by byte
        data = bytearray()
        for i in range(size):
            try:
                byte = state.memory.load(address + i, 1, inspect=False, disable_actions=True)
                data.append(state.solver.eval(byte))
            except Exception:  # noqa: BLE001
                break
        return bytes(data)


@attrs.frozen
class View:
    """What the observations read from a finished run, whichever engine ran it: memory, the image's bounds and
    sections, and the return register."""

    read: Callable[[int, int], bytes]
    section: Callable[[int], tuple[str, int, int] | None]  # (name, start, size) of the section holding an address
    image: tuple[int, int]  # the main object's lowest and highest address
    register: str
    returned: Callable[[], int]  # the return register's value
    bits: int


def angr_view(project: Any, state: Any) -> View:
    main = project.loader.main_object

    def section(address: int) -> tuple[str, int, int] | None:
        found = main.find_section_containing(address)
        return None if found is None else (found.name, found.vaddr, found.memsize)

    register = project.factory.cc().RETURN_VAL.reg_name
    return View(
        read=lambda address, size: _read(state, address, size),
        section=section,
        image=(main.min_addr, main.max_addr),
        register=register,
        returned=lambda: state.solver.eval(state.registers.load(register)),
        bits=project.arch.bits,
    )


def observe(
    view: View,
    end: dict[str, Any],
    placed: list[Placed],
    tracker: Tracker,
    out: Callable[[int | None], str | None],
) -> dict[str, Any]:
    """The observations of a finished run: arguments, buffers after, image writes, the return value."""
    facts = dict(end)
    facts["arguments"] = [
        {"index": p.index, "kind": p.kind, "value": out(p.value) if p.kind == "pointer" else f"0x{p.value:x}"}
        for p in placed
    ]
    facts["buffers"] = [
        {
            "argument": p.index,
            "address": f"0x{p.buffer[0]:x}",
            "size": p.buffer[2],
            "writable": p.buffer[3],
            "before_hex": p.buffer[1].ljust(p.buffer[2], b"\0").hex(),
            "after_hex": view.read(p.buffer[0], p.buffer[2]).hex(),
        }
        for p in placed
        if p.buffer is not None
    ]
    kept, total, truncated = plan.ranges(tracker.image_bytes)
    facts["image_writes"] = [
        {
            "start": out(start),
            "end": out(end_),
            "hex": view.read(start, end_ - start).hex(),
            "section": (view.section(start) or (None,))[0],
        }
        for start, end_ in kept
    ]
    facts["image_writes_total"], facts["image_writes_truncated"] = total, truncated
    facts["memory_pages"] = len(tracker.pages)
    if end["status"] == "returned":
        facts["return"] = _returned(view, placed)
    return facts


def _returned(view: View, placed: list[Placed]) -> dict[str, Any]:
    value = view.returned()
    points = None
    for p in placed:
        if p.buffer is not None and p.buffer[0] <= value < p.buffer[0] + p.buffer[2]:
            n = min(plan.POINTED_TEXT_BYTES, p.buffer[0] + p.buffer[2] - value)
            points = {"region": "buffer", "argument": p.index, "hex": view.read(value, n).hex()}
    if points is None and view.image[0] <= value <= view.image[1]:
        section = view.section(value)
        limit = min(plan.POINTED_TEXT_BYTES, (section[1] + section[2] - value) if section else 0)
        if limit > 0:
            points = {"region": "image", "argument": None, "hex": view.read(value, limit).hex()}
    return {"register": view.register, "value": f"0x{value:x}", "bits": view.bits, "points_to": points}


def emulate(
    project: Any,
    entry: int,
    arguments: list[dict[str, Any]],
    limits: plan.Budget,
    *,
    stop_at: int | None = None,
    into: Callable[[str], int] = lambda text: int(text, 16),
    out: Callable[[int | None], str | None] = lambda a: None if a is None else f"0x{a:x}",
    emit: Emit | None = None,
) -> Run:
    """Run the procedure at entry (a loaded address) on arguments (rea.native.emulation.plan's rows) within
    the budget; `into`/`out` convert link-time addresses for a rebased image."""
    main = project.loader.main_object
    tracker = Tracker(image=(main.min_addr, main.max_addr))
    placed = place(buffer_base(project), arguments, into)
    state, engine = prepare(project, entry, placed, tracker)
    end, last = execute(project, state, limits, tracker, out=out, stop_at=stop_at, emit=emit)
    facts = observe(angr_view(project, last), end, placed, tracker, out)
    facts["engine"] = engine
    return Run(facts=facts, state=last)


def emulate_op(analysis: Any, params: dict[str, Any], emit: Emit) -> dict[str, Any]:
    """The procedure at params["address"] with the planned arguments and budget, in angr (the worker's
    `emulate` operation tries effects.native.direct first)."""
    limits = plan.Budget(**params["budget"])
    stop_at = params.get("stop_at")
    run = emulate(
        analysis.project,
        analysis.into(params["address"]),
        params["arguments"],
        limits,
        stop_at=None if stop_at is None else analysis.into(stop_at),
        into=analysis.into,
        out=analysis.out,
        emit=emit,
    )
    return run.facts
