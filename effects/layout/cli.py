"""`rea inspect-plist PATH`: open a bundle directory then read its plist, or read a plist file directly; `rea
inspect-signature PATH`, which leaves out an empty --architecture (the other layout commands are declared on their
catalog rows, rea.layout.contract)."""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Mapping, Sequence
from typing import Any

from effects.commands import ToolCommand
from rea.layout import text
from rea.layout.text import TEXT_ROWS


def _configure_plist(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", help="a plist file, or a bundle directory with --relative-path")
    parser.add_argument(
        "--relative-path", default=None, help="the plist inside the bundle (default Contents/Info.plist)"
    )


def _plist_steps(ns: argparse.Namespace) -> Sequence[tuple[str, Mapping[str, Any]]]:
    path = os.path.abspath(ns.path)
    if os.path.isdir(path):
        args = {"relative_path": ns.relative_path} if ns.relative_path else {}
        return [("open_binary", {"path": path}), ("inspect_plist", args)]
    return [("inspect_plist", {"path": path})]


def _render_plist(value: Mapping[str, Any]) -> str:
    r = value["normalized_result"]
    b = r["bundle"]
    lines = [f"{value['operation']} {value['evidence_id']}", f"  {r['format']} plist {r['source_path']}"]
    lines.append(
        f"  bundle {b['identifier']} executable={b['executable']} version={b['short_version']} ({b['version']})"
    )
    if isinstance(r["value"], dict):
        lines += [f"  {k}: {json.dumps(v)[:100]}" for k, v in list(r["value"].items())[:TEXT_ROWS]]
    lines += [f"  limitation: {t}" for t in r["limitations"]]
    return "\n".join(lines)


def _configure_signature(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", help="Mach-O file (thin or universal)")
    parser.add_argument("--architecture", default=None, help="slice of a universal file")


def _signature_steps(ns: argparse.Namespace) -> Sequence[tuple[str, Mapping[str, Any]]]:
    args = {"architecture": ns.architecture} if ns.architecture else {}
    return [("open_binary", {"path": os.path.abspath(ns.path)}), ("inspect_signature", args)]


COMMANDS = (
    ToolCommand(
        name="inspect-signature",
        help="the embedded code signature of a Mach-O (inspect_signature)",
        configure=_configure_signature,
        steps=_signature_steps,
        render=text.signature,
    ),
    ToolCommand(
        name="inspect-plist",
        help="an XML, binary or JSON property list as JSON, with the bundle identity (inspect_plist)",
        configure=_configure_plist,
        steps=_plist_steps,
        render=_render_plist,
    ),
)
