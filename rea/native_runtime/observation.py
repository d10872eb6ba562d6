"""observe_native_calls's bridge request and result: outcome, coverage and limitations decided here.

The effect reports what happened as plain facts (the bridge's JSON lines, captured
output, the launched file's identity before and after, whether the process group
is verifiably gone); this module turns them into the 6.x nativeCallObservation
record. An Objective-C method request cannot resolve in a Linux process: it is
listed unresolved with a limitation, never guessed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rea.native_runtime.records import FunctionBreakpoint, ObjcMethodBreakpoint, ObserveNativeCallsArgs
from rea.wire.convert import to_wire

LIMITATIONS = (
    "Only entries are observed; return values, floating-point and stack-passed arguments are not captured.",
    "Registers are the raw integer argument registers at entry (System V x86-64: rdi, rsi, rdx, rcx, r8, r9; "
    "AArch64: x0-x7).",
    "LLDB launches with address-space randomization disabled, so load addresses repeat between runs.",
    "The process runs with REA's user permissions; it may change files or use the network.",
)
OBJC_LIMITATION = (
    "Objective-C method breakpoints need an Objective-C runtime; a Linux process has none, so they are unresolved."
)
ARCHITECTURES = {"x86_64": "x86_64", "amd64": "x86_64", "aarch64": "aarch64", "arm64": "aarch64"}


def bridge_request(args: ObserveNativeCallsArgs, architecture: str | None, executable: str) -> dict[str, Any]:
    """What the LLDB bridge is told (the effect adds output files and the full environment): the bridge
    script's JSON, so the breakpoints travel in their wire form."""
    return {
        "executable": executable,
        "breakpoints": [to_wire(b) for b in args.breakpoints],
        "arguments": list(args.arguments),
        "environment": dict(args.environment),
        "working_directory": args.working_directory,
        "duration_ms": args.duration_ms,
        "max_events": args.max_events,
        "argument_registers": args.argument_registers,
        "backtrace_frames": args.backtrace_frames,
        "architecture": ARCHITECTURES.get(architecture or "", architecture or "x86_64"),
    }


def _request_row(index: int, request: FunctionBreakpoint | ObjcMethodBreakpoint) -> dict[str, Any]:
    if isinstance(request, FunctionBreakpoint):
        return {"kind": "function", "name": request.name, "module": request.module}
    return {
        "kind": "objc-method",
        "selector": request.selector,
        "class_name": request.class_name,
        "method_type": request.method_type,
    }


def _by_type(lines: Sequence[Mapping[str, Any]], kind: str) -> list[Mapping[str, Any]]:
    return [line for line in lines if line.get("type") == kind]


def _event(line: Mapping[str, Any]) -> dict[str, Any]:
    row = {k: v for k, v in line.items() if k != "type"}
    return {**row, "receiver_class": None, "selector": None}


def observation_result(args: ObserveNativeCallsArgs, facts: Mapping[str, Any]) -> dict[str, Any]:
    """The nativeCallObservation record from the effect's facts."""
    lines = facts["lines"]
    finished = next(iter(_by_type(lines, "finished")), None)
    resolved = next(iter(_by_type(lines, "breakpoints")), None)
    events = [_event(e) for e in _by_type(lines, "event")][: args.max_events]
    rows = {r["index"]: r for r in (resolved or {}).get("rows", [])}
    breakpoints = []
    for index, request in enumerate(args.breakpoints):
        found = rows.get(index, {"location_count": 0, "locations": []})
        breakpoints.append(
            {
                "index": index,
                "request": _request_row(index, request),
                "location_count": found["location_count"],
                "locations": found["locations"],
            }
        )
    outcome = "resource-limit" if facts["resource_limit"] else (finished or {}).get("outcome") or "duration-elapsed"
    limitations = list(LIMITATIONS)
    if any(isinstance(b, ObjcMethodBreakpoint) for b in args.breakpoints):
        limitations.append(OBJC_LIMITATION)
    if finished is None:
        limitations.append(
            "LLDB did not report the end of the observation; the window was closed by REA's deadline or a stop"
        )
    limitations += list(facts.get("notes", []))
    unresolved = [b["index"] for b in breakpoints if b["location_count"] == 0]
    target = facts["target"]
    return {
        "target": {
            "path": target["path"],
            "sha256": target["sha256"],
            "architecture": target["architecture"],
            "arguments": list(args.arguments),
            "environment": dict(args.environment),
            "working_directory": args.working_directory,
            "launch_identity": {
                "loaded_image_sha256": None,
                "file_device": target["file_device"],
                "file_inode": target["file_inode"],
                "selected_file_sha256": target["sha256"],
                "module_path": target["path"],
                "module_uuid": None,
                "stable": target["stable"],
            },
        },
        "debugger": facts["debugger"],
        "process": {
            "pid": facts["pid"],
            "outcome": outcome,
            "exit_status": (finished or {}).get("exit_status"),
            "exit_description": (finished or {}).get("exit_description"),
            "terminated": facts["terminated"],
            "elapsed_ms": (finished or {}).get("elapsed_ms", facts["elapsed_ms"]),
            "stdout": facts["stdout"],
            "stderr": facts["stderr"],
            "other_stops": list((resolved or {}).get("other_stops", [])),
        },
        "breakpoints": breakpoints,
        "events": events,
        "coverage": {
            "status": "complete" if outcome == "exited" else "partial",
            "event_limit_reached": outcome == "event-limit",
            "resource_limit_reached": outcome == "resource-limit",
            "breakpoint_locations_truncated": any(b["location_count"] > len(b["locations"]) for b in breakpoints),
            "unresolved_breakpoints": unresolved,
        },
        "limitations": limitations,
    }


INTERRUPTIONS = {
    "cancelled": "the call was cancelled while the process ran; REA stopped it and kept what LLDB had reported",
    "launch-failed": "LLDB could not launch the process; only the debugger, the target's identity and the "
    "requests were observed",
    "cleanup-incomplete": "the observed process group did not exit when REA stopped it",
}


def partial_result(args: ObserveNativeCallsArgs, facts: Mapping[str, Any]) -> dict[str, Any]:
    """The observation a failed or cancelled call retains: the record of what was seen, marked partial.

    `interrupted.reason` says what ended it (cancelled, launch-failed, cleanup-incomplete); a launch
    that never produced a process has `process: null` (there is no pid, exit or output to report)."""
    result = observation_result(args, facts)
    reason = facts["interrupted"]["reason"]
    limitation = f"Partial: {INTERRUPTIONS[reason]}."
    return {
        **result,
        "process": result["process"] if facts["pid"] is not None else None,
        "coverage": {**result["coverage"], "status": "partial"},
        "interrupted": {"reason": reason},
        "limitations": [limitation, *result["limitations"]],
    }
