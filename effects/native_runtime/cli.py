"""`rea observe-native-calls EXE --break NAME[@MODULE]... [--arg A]...`: launch under LLDB, print JSON or text."""

from __future__ import annotations

import argparse
import os
from typing import Any
from collections.abc import Mapping, Sequence

from effects.commands import ToolCommand, given


def _configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", help="Linux ELF executable to launch")
    parser.add_argument(
        "--break", dest="breaks", action="append", required=True, metavar="NAME[@MODULE]", help="function to observe"
    )
    parser.add_argument("--duration-ms", dest="duration_ms", type=int, default=None)
    parser.add_argument("--max-events", dest="max_events", type=int, default=None)
    parser.add_argument("--argument-registers", dest="argument_registers", type=int, default=None)
    parser.add_argument("--backtrace-frames", dest="backtrace_frames", type=int, default=None)
    parser.add_argument("--env", action="append", default=[], metavar="NAME=VALUE", help="environment override")
    parser.add_argument("--cwd", dest="working_directory", default=None)
    parser.add_argument("--arg", dest="arguments", action="append", default=[], help="one argument for the process")


def _breakpoint(text: str) -> dict[str, Any]:
    name, _, module = text.partition("@")
    return {"kind": "function", "name": name, **({"module": module} if module else {})}


def _steps(ns: argparse.Namespace) -> Sequence[tuple[str, Mapping[str, Any]]]:
    args: dict[str, Any] = {"breakpoints": [_breakpoint(b) for b in ns.breaks], "arguments": list(ns.arguments)}
    if ns.env:
        args["environment"] = dict(item.partition("=")[::2] for item in ns.env)
    if ns.working_directory:
        args["working_directory"] = os.path.abspath(ns.working_directory)
    args.update(given(ns, "duration_ms", "max_events", "argument_registers", "backtrace_frames"))
    return [("open_binary", {"path": os.path.abspath(ns.path)}), ("observe_native_calls", args)]


def _render(value: Mapping[str, Any]) -> str:
    r = value["normalized_result"]
    p = r["process"]
    lines = [
        f"{value['operation']} {value['evidence_id']}",
        f"  pid {p['pid']} {p['outcome']} exit={p['exit_status']} terminated={p['terminated']}",
    ]
    for e in r["events"]:
        regs = " ".join(f"{x['name']}={x['value']}" for x in e["registers"])
        lines.append(f"  #{e['sequence']} {e['symbol']} {e['load_address']} {regs}")
    lines += [f"  unresolved breakpoint {i}" for i in r["coverage"]["unresolved_breakpoints"]]
    if p["stdout"]["text"]:
        lines.append("  stdout: " + p["stdout"]["text"].rstrip("\n").replace("\n", "\n          "))
    return "\n".join(lines)


COMMANDS: tuple[ToolCommand, ...] = (
    ToolCommand(
        name="observe-native-calls",
        help="launch an ELF under LLDB and record entries into functions (observe_native_calls)",
        configure=_configure,
        steps=_steps,
        render=_render,
    ),
)
