"""The observe-native-calls command's pieces that the schema cannot say (rea.catalog.cli): its short flag
spellings and its text output."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def breakpoints_of(items: list[str]) -> list[dict[str, Any]]:
    """Every `--break NAME[@MODULE]`: one function breakpoint each."""
    return [_breakpoint(item) for item in items]


def _breakpoint(text: str) -> dict[str, Any]:
    name, _, module = text.partition("@")
    return {"kind": "function", "name": name, **({"module": module} if module else {})}


def environment_of(items: list[str]) -> dict[str, str]:
    """Every `--env NAME=VALUE`: the environment overrides (a later NAME wins)."""
    return dict(item.partition("=")[::2] for item in items)


def render(value: Mapping[str, Any]) -> str:
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
