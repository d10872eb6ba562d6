"""`rea trace-dylib-resolution PATH`: open the Mach-O or bundle directory, trace its dylib loads, JSON or text."""

from __future__ import annotations

import argparse
import os
from typing import Any
from collections.abc import Mapping, Sequence

from effects.commands import ToolCommand, given

TEXT_EDGES = 400


def _configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", help="a Mach-O file, or a .app / bundle directory")
    parser.add_argument("--root", action="append", dest="roots", default=None, help="a process root (repeatable)")
    parser.add_argument("--architecture", choices=("arm64", "arm64e", "x86_64"), default=None)
    parser.add_argument("--max-entries", type=int, default=None)


def _steps(ns: argparse.Namespace) -> Sequence[tuple[str, Mapping[str, Any]]]:
    args = given(ns, "roots", "architecture", "max_entries")
    return [("open_binary", {"path": os.path.abspath(ns.path)}), ("trace_dylib_resolution", args)]


def _render(value: Mapping[str, Any]) -> str:
    r = value["normalized_result"]
    lines = [f"{value['operation']} {value['evidence_id']}", f"  root {r['root_path']} ({r['coverage']['status']})"]
    lines += [f"  process {x['image']} ({x['architecture']})" for x in r["roots"]]
    for edge in r["edges"][:TEXT_EDGES]:
        reached = edge["resolution"]["image"] or "-"
        lines.append(
            f"  {edge['loader']} {edge['command']} {edge['install_name']} -> {edge['resolution']['status']} {reached}"
        )
    if len(r["edges"]) > TEXT_EDGES:
        lines.append(f"  ... {len(r['edges']) - TEXT_EDGES} more edges (--json for all)")
    lines += [f"  finding {f['kind']}: {f['explanation']}" for f in r["findings"]]
    return "\n".join(lines)


COMMANDS = (
    ToolCommand(
        name="trace-dylib-resolution",
        help="which file each Mach-O dylib load reaches (@rpath, @loader_path, @executable_path)",
        configure=_configure,
        steps=_steps,
        render=_render,
    ),
)
