"""`rea inspect-wasm-artifact MODULE.wasm [--glue PATH] [--candidate PATH]`: JSON or readable text."""

from __future__ import annotations

import argparse
import os
from typing import Any
from collections.abc import Mapping, Sequence

from effects.commands import ToolCommand


def _configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", help="WebAssembly module")
    parser.add_argument("--glue", action="append", default=[], help="JavaScript glue file (repeatable, at most 16)")
    parser.add_argument("--candidate", action="append", default=[], help="candidate file (repeatable, at most 16)")
    parser.add_argument("--detail", choices=("complete", "summary"), default=None)
    parser.add_argument("--max-wat-inline-units", type=int, default=None)


def _steps(ns: argparse.Namespace) -> Sequence[tuple[str, Mapping[str, Any]]]:
    args: dict[str, Any] = {
        "path": os.path.abspath(ns.path),
        "glue_paths": [os.path.abspath(p) for p in ns.glue],
        "candidate_paths": [os.path.abspath(p) for p in ns.candidate],
    }
    if ns.detail:
        args["detail"] = ns.detail
    if ns.max_wat_inline_units is not None:
        args["max_wat_inline_units"] = ns.max_wat_inline_units
    return [("inspect_wasm_artifact", args)]


def _render(value: Mapping[str, Any]) -> str:
    r = value.get("normalized_result") or {}
    lines = [f"{value['operation']} {value['evidence_id']}"]
    if "wat" in r and "sections" in r:
        wat = r["wat"]
        lines.append(
            f"  {r['artifact']['path']} {r['artifact']['bytes']} bytes, {r['validation']}, "
            f"WABT {r['tool_profile']['release']}"
        )
        lines.append(
            f"  wat sha256 {wat['sha256']} ({wat['utf16_length']} UTF-16 units, "
            f"{'complete' if wat['complete'] else 'first units inline'})"
        )
        if "module_counts" in r:
            c = r["module_counts"]
            lines.append(
                f"  functions {c['functions']} ({c['imported_functions']} imported, {c['defined_functions']} defined)"
            )
        for p in r["custom_sections"].get("producer_fields", []):
            values = ", ".join(f"{v['name']} {v['version']}".strip() for v in p["values"])
            lines.append(f"  producers {p['name']}: {values}")
        for s in r["sections"]:
            lines.append(f"  section {s['kind']:<10} {s['start']:>8}..{s['end']:<8} {s['description']}")
        lines += [f"  import {line.strip()}" for line in r["imports"]]
        lines += [f"  export {line.strip()}" for line in r["exports"]]
        for g in r["glue"]:
            for ref in g["references"]:
                lines.append(
                    f"  glue {g['artifact']['path']}:{ref['line']}:{ref['column']} {ref['value']!r} "
                    f"{ref['association']} {', '.join(ref['candidate_paths'])}"
                )
    elif r.get("kind") == "summary":
        lines.append(f"  summary of {r['parent_evidence_id']}: {r['summary']['counts']}")
    for text in value.get("limitations", []):
        lines.append(f"  limitation: {text}")
    return "\n".join(lines)


COMMANDS: tuple[ToolCommand, ...] = (
    ToolCommand(
        name="inspect-wasm-artifact",
        help="validate a WebAssembly module with WABT: sections, imports, exports, custom sections, decoded WAT",
        configure=_configure,
        steps=_steps,
        render=_render,
    ),
)
