"""Decoded strings, inside the angr worker: each decoder call site the fast index found is run in angr's
emulator (effects.native.emulator; never on the host) in two parts that share one state:

1. the caller from its entry, arguments zeroed, until execution reaches the call site (stop_at): then the
   argument registers hold what the caller passes, and each one that points at mapped memory is an input
   buffer (its bytes up to rea.native.decoding.MAX_OUTPUT are recorded);
2. from there through the call until execution comes back to the instruction after it: each input buffer
   (and the buffer a returned pointer points at) is read again.

A run that stops early (a system call, a call with no body, a fault, a budget) is reported as it ended; the
pure side (rea.native.decoding) turns these plain facts into decoded strings and coverage.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from effects.native import emulator
from rea.native import emulation as plan

STACK_HEADROOM = 0x1000  # zeroed stack above the caller's entry stack pointer: its stack arguments
ARGUMENTS_RECORDED = 4  # the first argument registers always recorded (pointers beyond them too)


def _pointer(state: Any, value: int) -> bool:
    """A value that points at mapped, readable memory (the stack, the image, a buffer)."""
    if value < plan.PAGE:
        return False
    try:
        permissions = state.memory.permissions(value)
    except Exception:  # noqa: BLE001 - unmapped: not a pointer
        return False
    try:
        return bool(state.solver.eval(permissions) & 1)
    except Exception:  # noqa: BLE001
        return False


def _arguments(project: Any, state: Any, wanted: list[str], most: int) -> list[dict[str, Any]]:
    """The argument registers at the call site: pointers with the bytes they point at, integers as values."""
    names = list(project.factory.cc().ARG_REGS)
    seen: list[dict[str, Any]] = []
    for index, name in enumerate(names):
        value = state.solver.eval(state.registers.load(name))
        pointer = _pointer(state, value)
        if index >= ARGUMENTS_RECORDED and not pointer and name not in wanted:
            continue
        row: dict[str, Any] = {"register": name, "address": value, "pointer": pointer}
        if pointer:
            row["bytes"] = emulator._read(state, value, most)
        seen.append(row)
    return seen


def _headroom(project: Any, state: Any) -> None:
    """Move the entry's stack pointer STACK_HEADROOM bytes down, with the word at it on x86 (the return
    address): the caller's stack arguments (a seventh argument and on, read above its return address) then read
    as zero, like its register arguments, instead of faulting past the top of the stack."""
    sp = state.regs.sp
    state.regs.sp = sp - STACK_HEADROOM
    if project.arch.call_pushes_ret:  # AArch64 keeps it in the link register
        endness = project.arch.memory_endness
        word = state.memory.load(sp, project.arch.bytes, endness=endness, inspect=False, disable_actions=True)
        state.memory.store(state.regs.sp, word, endness=endness, inspect=False, disable_actions=True)


def _input_rows(arguments: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {"register": a["register"], "kind": "buffer", "value": a["bytes"].split(b"\0", 1)[0].hex()}
        if a["pointer"]
        else {"register": a["register"], "kind": "integer", "value": f"0x{a['address']:x}"}
        for a in arguments
    ]


def _returned(project: Any, state: Any, arguments: list[dict[str, Any]], most: int) -> dict[str, Any] | None:
    """The buffer a returned pointer points at, when it is not one of the input buffers."""
    register = project.factory.cc().RETURN_VAL.reg_name
    value = state.solver.eval(state.registers.load(register))
    if not _pointer(state, value) or any(a["pointer"] and a["address"] == value for a in arguments):
        return None
    return {"register": register, "before_hex": "", "after_hex": emulator._read(state, value, most).hex()}


# how a caller's run ended without reaching its call site, and every instruction it executed: the run is
# concrete and starts from the same state, so another call site of that caller it never executed would
# end the same way (a budget is not reused: blocks split at the call site, and time is the machine's)
Ended = dict[str, tuple[dict[str, Any], set[int]]]
REUSED = frozenset({"memory_fault", "unsupported", "returned"})


def one(
    analysis: Any, candidate: dict[str, Any], limits: plan.Budget, most: int, ended: Ended | None = None
) -> dict[str, Any]:
    """One call site's plain fact: how far it ran, its inputs and, once the call returned, its outputs."""
    project = analysis.project
    main = project.loader.main_object
    site = analysis.into(candidate["call_site"])
    ended = {} if ended is None else ended
    known = ended.get(candidate["caller"])
    if known is not None and site not in known[1]:
        return {"call_site": candidate["call_site"], "stage": "caller", "end": known[0]}
    tracker = emulator.Tracker(image=(main.min_addr, main.max_addr))
    state, engine = emulator.prepare(project, analysis.into(candidate["caller"]), [], tracker)
    _headroom(project, state)
    visited: set[int] = set()
    end, reached = emulator.execute(project, state, limits, tracker, out=analysis.out, stop_at=site, visited=visited)
    fact: dict[str, Any] = {"call_site": candidate["call_site"], "engine": engine, "stage": "caller", "end": end}
    if end["status"] != "stopped_at":
        if end["status"] in REUSED:
            ended[candidate["caller"]] = (end, visited)
        return fact
    arguments = _arguments(project, reached, list(candidate.get("registers", ())), most)
    fact["inputs"] = _input_rows(arguments)
    after = site + project.factory.block(site, num_inst=1).size
    end, back = emulator.execute(project, reached, limits, tracker, out=analysis.out, stop_at=after)
    fact.update(stage="decoder", end=end)
    if end["status"] != "stopped_at":
        return fact
    fact["end"] = {**end, "status": "returned_to_caller"}
    outputs = [
        {
            "register": a["register"],
            "before_hex": a["bytes"].hex(),
            "after_hex": emulator._read(back, a["address"], most).hex(),
        }
        for a in arguments
        if a["pointer"]
    ]
    returned = _returned(project, back, arguments, most)
    fact["outputs"] = outputs + ([returned] if returned is not None else [])
    return fact


def decode_strings_op(analysis: Any, params: dict[str, Any], emit: Callable[[str], None]) -> dict[str, Any]:
    """The worker operation: every planned call site (rea.native.decoding.plan) within the per-run budget,
    until the recovery's total time runs out (the call sites left have no fact: not emulated)."""
    limits = plan.Budget(**params["budget"])
    most = int(params.get("max_output", 256))
    candidates = params["candidates"]
    started = time.monotonic()
    facts: list[dict[str, Any]] = []
    engine: str | None = None
    ended: Ended = {}
    for number, candidate in enumerate(candidates, 1):
        if (time.monotonic() - started) * 1000 >= params["total_ms"]:
            emit(f"decoded strings: total time spent after {number - 1} of {len(candidates)} call sites")
            break
        if emulator.Interrupt.requested:  # the server cancelled the question: what ran so far, the worker lives
            break
        emit(f"emulating decoder call site {number}/{len(candidates)} at {candidate['call_site']}")
        try:
            fact = one(analysis, candidate, limits, most, ended)
        except Exception as exc:  # noqa: BLE001 - one call site's failure is its own, never the worker's
            fact = {
                "call_site": candidate["call_site"],
                "stage": "caller",
                "end": {
                    "status": "unsupported",
                    "unsupported": {"kind": "instruction", "name": f"{type(exc).__name__}: {str(exc)[:200]}"},
                },
            }
        engine = fact.get("engine", engine)
        facts.append(fact)
    return {"candidates": facts, "engine": engine, "elapsed_ms": int((time.monotonic() - started) * 1000)}
