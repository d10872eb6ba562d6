"""The LLDB side of observe_native_calls: run as its own process (`python3 lldb_bridge.py`), never imported.

It reads one JSON request on stdin, launches the executable under LLDB's SB API with
stdout/stderr redirected to the given files, sets one breakpoint per request, and writes
one JSON line per fact on stdout: `started`, `event` (each entry: thread, pc, module,
symbol, argument registers, caller frames; the hit auto-continues), `breakpoints`
(resolved locations) and `finished` (outcome, exit status). No expression is evaluated.
REA kills this process's group when the observation window ends or is cancelled.

Typed with the standard library only (it runs in LLDB's own Python, which has none of REA's packages);
LLDB's SB objects are untyped, so they are Any.
"""

from __future__ import annotations

import ctypes
import json
import os
import signal
import sys
import time
from typing import Any

import lldb

REGISTERS = {
    "x86_64": ["rdi", "rsi", "rdx", "rcx", "r8", "r9"],
    "aarch64": ["x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7"],
    "arm64": ["x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7"],
}


def emit(kind: str, **fields: Any) -> None:
    sys.stdout.write(json.dumps({"type": kind, **fields}) + "\n")
    sys.stdout.flush()


def location(target: Any, address: Any) -> dict[str, Any]:
    """load/file address, module and symbol of an SBAddress."""
    module = address.GetModule()
    symbol = address.GetSymbol()
    spec = module.GetFileSpec() if module.IsValid() else None
    file_address = address.GetFileAddress()
    return {
        "load_address": f"0x{address.GetLoadAddress(target):x}",
        "file_address": None if file_address == lldb.LLDB_INVALID_ADDRESS else f"0x{file_address:x}",
        "module": spec.GetFilename() if spec else None,
        "module_path": str(spec) if spec else None,
        "symbol": symbol.GetName() if symbol.IsValid() else None,
    }


def breakpoints(target: Any, created: list[tuple[int, Any]]) -> list[dict[str, Any]]:
    rows = []
    for index, bp in created:
        locations = [location(target, bp.GetLocationAtIndex(i).GetAddress()) for i in range(bp.GetNumLocations())]
        rows.append({"index": index, "location_count": bp.GetNumLocations(), "locations": locations[:64]})
    return rows


def hit(target: Any, thread: Any, index: int, request: dict[str, Any], started: float, sequence: int) -> None:
    frame = thread.GetFrameAtIndex(0)
    names = REGISTERS.get(request["architecture"], [])[: request["argument_registers"]]
    registers = []
    for name in names:
        value = frame.FindRegister(name)
        if value.IsValid():
            registers.append({"name": name, "value": f"0x{value.GetValueAsUnsigned():x}"})
    frames = [
        location(target, thread.GetFrameAtIndex(i).GetPCAddress())
        for i in range(1, min(thread.GetNumFrames(), request["backtrace_frames"] + 1))
    ]
    emit(
        "event",
        sequence=sequence,
        elapsed_ms=round((time.monotonic() - started) * 1000, 3),
        thread_id=thread.GetThreadID(),
        breakpoint_index=index,
        registers=registers,
        backtrace=frames,
        **location(target, frame.GetPCAddress()),
    )


def _die_with_parent() -> None:
    """SIGKILL this bridge when REA dies however it dies; lldb-server then kills the launched process."""
    parent = os.getppid()
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:
        sys.exit(1)


def main() -> None:
    _die_with_parent()
    request = json.loads(sys.stdin.readline())
    debugger = lldb.SBDebugger.Create()
    debugger.SetAsync(True)
    emit("debugger", version=lldb.SBDebugger.GetVersionString())
    error = lldb.SBError()
    target = debugger.CreateTarget(request["executable"], None, None, True, error)
    if not target.IsValid():
        emit("failed", reason="target", message=error.GetCString() or "LLDB could not create the target")
        return
    created: list[tuple[int, Any]] = []
    for index, bp in enumerate(request["breakpoints"]):
        if bp["kind"] != "function":
            continue
        if bp.get("module"):
            made = target.BreakpointCreateByName(bp["name"], bp["module"])
        else:
            made = target.BreakpointCreateByName(bp["name"])
        created.append((index, made))
    by_id = {made.GetID(): index for index, made in created}
    info = lldb.SBLaunchInfo([str(a) for a in request["arguments"]])
    info.SetEnvironmentEntries([f"{k}={v}" for k, v in request["environment"].items()], False)
    if request.get("working_directory"):
        info.SetWorkingDirectory(request["working_directory"])
    info.AddOpenFileAction(0, "/dev/null", True, False)
    info.AddOpenFileAction(1, request["stdout"], False, True)
    info.AddOpenFileAction(2, request["stderr"], False, True)
    listener = debugger.GetListener()
    process = target.Launch(info, error)
    if not process.IsValid() or error.Fail():
        emit("failed", reason="launch", message=error.GetCString() or "LLDB could not launch the target")
        return
    started = time.monotonic()
    emit("started", pid=process.GetProcessID())
    deadline = started + request["duration_ms"] / 1000.0
    sequence, outcome, other = 0, None, []
    event = lldb.SBEvent()
    while outcome is None:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            outcome = "duration-elapsed"
            break
        if not listener.WaitForEvent(max(1, min(5, int(remaining + 0.999))), event):
            continue
        if not lldb.SBProcess.EventIsProcessEvent(event):
            continue
        state = lldb.SBProcess.GetStateFromEvent(event)
        if state == lldb.eStateStopped and not lldb.SBProcess.GetRestartedFromEvent(event):
            for thread in process:
                reason = thread.GetStopReason()
                if reason == lldb.eStopReasonBreakpoint:
                    hit_index = by_id.get(thread.GetStopReasonDataAtIndex(0))
                    if hit_index is not None and outcome is None:
                        hit(target, thread, hit_index, request, started, sequence)
                        sequence += 1
                        if sequence >= request["max_events"]:
                            outcome = "event-limit"
                elif reason == lldb.eStopReasonSignal:
                    other.append(f"signal {thread.GetStopReasonDataAtIndex(0)}")
            if outcome is None:
                process.Continue()
        elif state in (lldb.eStateExited, lldb.eStateCrashed, lldb.eStateDetached):
            outcome = "exited"
    emit("breakpoints", rows=breakpoints(target, created), other_stops=other[:256])
    status = process.GetExitStatus() if process.GetState() == lldb.eStateExited else None
    description = process.GetExitDescription() if status is not None else None
    if process.GetState() != lldb.eStateExited:
        process.Kill()
    emit(
        "finished",
        outcome=outcome,
        exit_status=status,
        exit_description=description,
        elapsed_ms=round((time.monotonic() - started) * 1000, 3),
    )
    lldb.SBDebugger.Destroy(debugger)


if __name__ == "__main__":
    main()
