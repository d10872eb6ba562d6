"""`rea recover-javascript-sources BUNDLE [--output-directory DIR]` and the runtime subcommands."""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping, Sequence
from typing import Any

from effects.commands import ToolCommand


def _recover_configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", help="JavaScript bundle (UTF-8); never executed")
    parser.add_argument("--output-directory", default=None, help="absent directory to publish into (default: fresh)")
    parser.add_argument("--extraction-mode", choices=("structural", "heuristic", "inspection"), default=None)
    parser.add_argument("--source-root", default=None, help="tree map sources without content may be read from")


def _recover_steps(ns: argparse.Namespace) -> Sequence[tuple[str, Mapping[str, Any]]]:
    args: dict[str, Any] = {"path": os.path.abspath(ns.path)}
    if ns.output_directory:
        args["output_directory"] = os.path.abspath(ns.output_directory)
    if ns.extraction_mode:
        args["extraction_mode"] = ns.extraction_mode
    if ns.source_root:
        args["source_root"] = os.path.abspath(ns.source_root)
    return [("recover_javascript_sources", args)]


def _recover_render(value: Mapping[str, Any]) -> str:
    r = value["normalized_result"]
    lines = [
        f"{r['source']['path']} -> {r['output_directory']} ({r['status']}, {r['total']} modules, "
        f"{r['failed']} failed; {r['reported_strategy']})"
    ]
    for m in r["modules"]:
        ranges = ", ".join(f"{b['start']}..{b['end']}" for b in m["provenance"]["byte_ranges"][:3])
        lines.append(
            f"  {m['reported_status']:<9} {m['reported_filename']}  [{m['provenance']['extraction']}] {ranges}"
        )
    for w in r["warnings"]:
        lines.append(f"  {'error' if w['is_error'] else 'warning'} {w['kind']}: {w['filename']}: {w['message']}")
    if r["analysis_input"]:
        lines.append(f"  analyze next: rea analyze-javascript-application {r['analysis_input']['input_path']}")
    lines.append(f"  evidence: {value['evidence_id']}")
    return "\n".join(lines)


COMMANDS: tuple[ToolCommand, ...] = (
    ToolCommand(
        name="recover-javascript-sources",
        help="write a bundle's original sources (source map) and its bundled modules into a fresh directory",
        configure=_recover_configure,
        steps=_recover_steps,
        render=_recover_render,
    ),
)
