"""`rea build-call-path` and `rea emulate-native-function`: open the binary on a one-shot connection, then ask.
Written by hand: build-call-path first analyses the functions whose dossiers it reads (dependent calls), and
emulate-native-function spells its arguments in a short form of its own. `rea trace-feature`,
`rea inspect-native-api` and `rea trace-native-values` are declared on their catalog rows
(rea.native.contract.analyses)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping
from typing import Any

from effects.commands import ToolCommand
from effects.native.cli import _binary, _opened, _result


def _path(parser: argparse.ArgumentParser) -> None:
    _binary(parser)
    parser.add_argument("start", help="start procedure (address or exact name)")
    parser.add_argument("goal", help="goal procedure (address or exact name)")
    parser.add_argument("--through", nargs="*", default=[], help="other functions whose dossiers the paths may use")
    parser.add_argument("--max-depth", type=int, default=8)
    parser.add_argument("--max-paths", type=int, default=10)


def _address_of(replies: list[Any], index: int) -> str:
    return str(replies[index]["normalized_result"]["procedure"]["address"])


def _path_steps(ns: argparse.Namespace) -> Any:
    functions = [ns.start, *ns.through, ns.goal]
    first = 1  # the open_binary reply comes first

    def ask(replies: list[Any]) -> Mapping[str, Any]:
        dossiers = replies[first : first + len(functions)]
        return {
            "functions": [{"kind": "retained-evidence", "evidence_id": d["evidence_id"]} for d in dossiers],
            "start": {"address": _address_of(replies, first)},
            "goal": {"address": _address_of(replies, first + len(functions) - 1)},
            "max_depth": ns.max_depth,
            "max_paths": ns.max_paths,
        }

    analysed = [("analyze_function", {"procedure": f}) for f in functions]
    return _opened(ns, *analysed, ("build_call_path", ask))  # type: ignore[arg-type]


def _render_paths(value: Mapping[str, Any]) -> str:
    r = _result(value)
    lines = [f"{r['start']} -> {r['goal']}: {r['status']}"]
    for p in r["paths"]["items"]:
        lines.append(f"  {p['hops']} hops: " + " -> ".join(n["name"] or n["address"] for n in p["nodes"]))
    lines += [f"  note: {n}" for n in r["limitations"]]
    return "\n".join(lines)


EMULATED_ARGUMENT = (
    "an argument: an integer (12, -1, 0x5a), ptr:0x4a50d0 (a pointer into the image), buf:HEX[:SIZE] (a writable "
    "buffer), robuf:HEX[:SIZE] (read-only), zero:SIZE (a zeroed buffer), or the JSON of one argument"
)


def _emulated_argument(text: str) -> Any:
    """One argument of emulate-native-function from its command-line spelling (the tool checks the values)."""
    kind, _, rest = text.partition(":")
    if text.startswith("{"):
        return json.loads(text)
    if kind == "ptr" and rest:
        return {"kind": "pointer", "address": rest}
    if kind in ("buf", "robuf"):
        data, _, size = rest.partition(":")
        item: dict[str, Any] = {"kind": "buffer", "hex": data, "writable": kind == "buf"}
        return {**item, "size": int(size, 0)} if size else item
    if kind == "zero" and rest:
        return {"kind": "buffer", "hex": "", "size": int(rest, 0)}
    number = int(text, 0)
    return number if abs(number) < 2**53 else {"kind": "integer", "value": hex(number)}


def _emulate(parser: argparse.ArgumentParser) -> None:
    _binary(parser)
    parser.add_argument("procedure", help="procedure start address (0x...), exact name or sub_ name")
    parser.add_argument("arguments", nargs="*", type=_emulated_argument, help=EMULATED_ARGUMENT)
    parser.add_argument("--max-steps", type=int, default=None, help="most basic blocks executed")
    parser.add_argument("--max-time-ms", type=int, default=None, help="most milliseconds spent emulating")
    parser.add_argument("--max-memory-bytes", type=int, default=None, help="most bytes of memory written")
    parser.add_argument("--stop-at", default=None, help="stop when execution reaches this address")


def _emulate_args(ns: argparse.Namespace) -> Mapping[str, Any]:
    given = {k: getattr(ns, k) for k in ("max_steps", "max_time_ms", "max_memory_bytes", "stop_at")}
    return {"procedure": ns.procedure, "arguments": ns.arguments, **{k: v for k, v in given.items() if v is not None}}


def _render_emulation(value: Mapping[str, Any]) -> str:
    r = _result(value)
    p, steps = r["procedure"], r["budgets"]["steps"]
    lines = [
        f"{p['name']}@{p['address']}: {r['coverage']['reason']} ({steps['used']} blocks, {r['instructions']} instructions)"
    ]
    if r["return_value"] is not None:
        ret = r["return_value"]
        pointed = f" -> {ret['points_to']['text']!r}" if ret["points_to"] else ""
        lines.append(f"  returned {ret['value']} ({ret['signed']}){pointed}")
    for b in r["buffers"]:
        lines.append(
            f"  buffer {b['argument']} at {b['address']}{' (changed)' if b['changed'] else ''}: {b['after']['text']}"
        )
    for w in r["image_writes"]:
        lines.append(f"  wrote {w['start']}..{w['end']} ({w['section'] or '?'}): {w['after']['text']}")
    lines += [f"  call {c['site']} -> {c['target']} {c['name'] or ''}".rstrip() for c in r["calls"]]
    return "\n".join(lines)


COMMANDS = (
    ToolCommand(
        name="emulate-native-function",
        help="run one procedure in angr's emulator on given arguments (never on the host)",
        configure=_emulate,
        steps=lambda ns: _opened(ns, ("emulate_native_function", _emulate_args(ns))),
        render=_render_emulation,
    ),
    ToolCommand(
        name="build-call-path",
        help="call paths between two functions from their analyze_function dossiers",
        configure=_path,
        steps=_path_steps,
        render=_render_paths,
    ),
)
