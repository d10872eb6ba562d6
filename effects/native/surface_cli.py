"""`rea set-comment` (its tool chosen by --inline) and `rea inspect-native-load-image` (--target-format goes to
open_binary): open the binary on a one-shot connection, then ask. The other native surface commands are declared
on their catalog rows (rea.native.contract.surface)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping
from typing import Any

from effects.commands import ToolCommand
from effects.native.cli import _binary, _opened, _result
from rea.native import text


def _set_comment(parser: argparse.ArgumentParser) -> None:
    _binary(parser)
    parser.add_argument("address", help="link-time virtual address (0x...)")
    parser.add_argument("text", help="the comment (empty text clears it)")
    parser.add_argument("--inline", action="store_true", help="set the inline comment instead")


def _load_image(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("binary", help="path of the DOS MZ executable or COM program")
    parser.add_argument(
        "--target-format",
        choices=("dos-com",),
        help="read the file as a headerless DOS COM program (a .com file of at most 65,280 bytes is by default)",
    )


def _load_image_steps(ns: argparse.Namespace) -> list[tuple[str, Mapping[str, Any]]]:
    opened: dict[str, Any] = {"path": os.path.abspath(ns.binary)}
    if ns.target_format is not None:
        opened["format"] = ns.target_format
    return [("open_binary", opened), ("inspect_native_load_image", {})]


def _render_load_image(value: Mapping[str, Any]) -> str:
    r = _result(value)
    e, o = r["entry"], r["observations"]
    lines = [
        f"{r['format']} {r['status']}: header {r['header_bytes']} B, module {r['module_bytes']} B, overlay "
        f"{r['overlay_bytes']} B, load segment {r['load_segment']:#x}, entry {e['linear_address']}",
        *(f"  {m['block']:<10} {m['start']}-{m['end']} ({m['length']} B) sha256 {m['sha256']}" for m in o["mappings"]),
        f"  {len(o['relocations'])} relocations, modified sha256 {o['source_files'][0]['modified_sha256']}",
    ]
    for c in r["checks"]:
        if not c["matched"]:
            where = "" if c["file_offset"] is None else f" at file offset {c['file_offset']:#x}"
            lines.append(f"  mismatch {c['name']}{where}: expected {c['expected']}, observed {c['observed']}")
    return "\n".join(lines)


COMMANDS = (
    ToolCommand(
        name="inspect-native-load-image",
        help="load a DOS MZ or COM image and verify it against the file",
        configure=_load_image,
        steps=_load_image_steps,
        render=_render_load_image,
    ),
    ToolCommand(
        name="set-comment",
        help="store (or clear) the comment at an address",
        configure=_set_comment,
        steps=lambda ns: _opened(
            ns, ("set_inline_comment" if ns.inline else "set_comment", {"address": ns.address, "comment": ns.text})
        ),
        render=text.plain,
    ),
)
