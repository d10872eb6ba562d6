"""`rea trace-feature`, `rea build-call-path`, `rea inspect-native-api`, `rea trace-native-values`,
`rea emulate-native-function`: open the binary on a one-shot connection, then ask (build-call-path first
analyses the functions whose dossiers it reads)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping
from typing import Any

from effects.commands import ToolCommand
from effects.native.cli import _binary, _opened, _result


def _feature(parser: argparse.ArgumentParser) -> None:
    _binary(parser)
    parser.add_argument("query", help="literal text to find in strings and procedure names")
    parser.add_argument("--case-sensitive", action="store_true")
    parser.add_argument("--limit", type=int, default=20, help="most matches and references (1..100)")
    parser.add_argument("--max-operations", type=int, default=20, help="read budget (1..100)")


def _render_feature(value: Mapping[str, Any]) -> str:
    r = _result(value)
    lines = [f"{m['type']:<9} {m['address']}  {m['value']!r}" for m in r["matches"]]
    for ref in r["references"]:
        held = ref["containing_procedure"]
        where = held["procedure"]["name"] if held["found"] else held["reason"]
        lines.append(f"  {ref['source_address']} -> {ref['target_address']}  in {where}")
    lines.append(f"{r['operations_used']}/{r['operation_budget']} operations")
    lines += [f"  unread: {u}" for u in r["residual_unknowns"]]
    return "\n".join(lines)


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


def _api(parser: argparse.ArgumentParser) -> None:
    _binary(parser)
    parser.add_argument("procedure", help="procedure start address (0x...) or exact name")


def _render_api(value: Mapping[str, Any]) -> str:
    r = _result(value)
    b, p = r["boundary"], r["procedure"]
    if not b["available"]:
        return f"{p['name']}@{p['address']}: boundary unavailable ({b['reason']})"
    params = ", ".join(f"{x['data_type']} {x['name'] or '?'} [{x['storage'] or '?'}]" for x in b["parameters"])
    lines = [f"{p['name']}@{p['address']}: {b['return_type']['data_type']} ({params})  {b['calling_convention']}"]
    for table in b["jump_tables"]:
        lines.append(f"  jump table at {table['dispatch_address']}: {len(table['mappings'])} targets")
    return "\n".join(lines)


_VALUE_LIMITS = ("max_depth", "max_functions", "max_call_sites", "max_nodes", "max_edges", "offset", "limit")


def _values(parser: argparse.ArgumentParser) -> None:
    _binary(parser)
    parser.add_argument("--procedure", required=True, help="seed procedure (a name, 0x address or sub_<hex>)")
    for name in _VALUE_LIMITS:
        parser.add_argument(f"--{name.replace('_', '-')}", type=int, default=None, help="see the tool's schema")
    parser.add_argument(
        "--detail", choices=("complete", "summary"), default=None, help="summary: counts and the first rows"
    )


def _values_args(ns: argparse.Namespace) -> Mapping[str, Any]:
    given = {name: getattr(ns, name) for name in (*_VALUE_LIMITS, "detail") if getattr(ns, name) is not None}
    return {"procedure": ns.procedure, **given}


def _spent(budgets: Mapping[str, Any]) -> str:
    return ", ".join(
        f"{k} {x['used']}/{x['limit']}{' (exhausted)' if x['exhausted'] else ''}" for k, x in budgets.items()
    )


def _render_values_summary(r: Mapping[str, Any]) -> str:
    """A value trace's summary view: its totals and budgets, each collection's count, and where to read on."""
    facts = r["summary"]["facts"]
    lines = [f"{facts['total_nodes']} nodes, {facts['total_edges']} edges; {_spent(facts['budgets'])}"]
    lines += [f"  {c['facet']}: {c['total']} in this page's Evidence" for c in r["summary"]["collections"]]
    lines.append(f"complete trace retained as {r['parent_evidence_id']} (--detail complete, --offset/--limit)")
    return "\n".join(lines)


def _render_values(value: Mapping[str, Any]) -> str:
    r = _result(value)
    if r.get("kind") == "summary":
        return _render_values_summary(r)
    lines = [f"{p['address']} depth {p['depth']}" for p in r["procedures"]]
    for n in r["nodes"]:
        if n["kind"] == "parameter":
            lines.append(f"  {n['id']}  parameter {n['parameter']['name']}: {n['parameter']['data_type']}")
        else:
            op = n["operation"]
            lines.append(f"  {n['id']}  {op['opcode']} {', '.join(str(i['location']) for i in op['inputs'])}")
    lines += [f"  {e['kind']}: {e['source']} -> {e['target']}" for e in r["edges"] if e["kind"] != "def-use"]
    lines.append(f"{r['total_nodes']} nodes, {r['total_edges']} edges; {_spent(r['budgets'])}")
    lines += [f"  unknown: {u['procedure']} {u['address'] or ''} {u['reason']}" for u in r["unknowns"]]
    if r["next_offset"] is not None:
        lines.append(f"more nodes from --offset {r['next_offset']}")
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
        name="trace-native-values",
        help="value dependencies from one procedure through its calls (angr reaching definitions)",
        configure=_values,
        steps=lambda ns: _opened(ns, ("trace_native_values", _values_args(ns))),
        render=_render_values,
    ),
    ToolCommand(
        name="trace-feature",
        help="literal matches in strings and procedure names, traced through their references",
        configure=_feature,
        steps=lambda ns: _opened(
            ns,
            (
                "trace_feature",
                {
                    "query": ns.query,
                    "case_sensitive": ns.case_sensitive,
                    "limit": ns.limit,
                    "max_operations": ns.max_operations,
                },
            ),
        ),
        render=_render_feature,
    ),
    ToolCommand(
        name="inspect-native-api",
        help="calling convention, parameters and jump tables of one procedure",
        configure=_api,
        steps=lambda ns: _opened(ns, ("inspect_native_api", {"procedure": ns.procedure})),
        render=_render_api,
    ),
    ToolCommand(
        name="build-call-path",
        help="call paths between two functions from their analyze_function dossiers",
        configure=_path,
        steps=_path_steps,
        render=_render_paths,
    ),
)
