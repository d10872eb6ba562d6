"""`rea read-bytes`, `rea address-to-file-offset`, `rea inspect-native-instruction`,
`rea resolve-native-call-targets`, `rea set-comment`, `rea comment`, `rea list-bookmarks`,
`rea annotate-native-function`, `rea inspect-native-load-image`: open the binary on a one-shot connection, then ask."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Mapping
from typing import Any

from effects.commands import ToolCommand
from effects.native.cli import _binary, _opened, _result

Build = Callable[[argparse.Namespace], Mapping[str, Any]]


def _at(parser: argparse.ArgumentParser) -> None:
    _binary(parser)
    parser.add_argument("address", help="link-time virtual address (0x...)")


def _render_bytes(value: Mapping[str, Any]) -> str:
    r = _result(value)
    tail = "" if r["complete"] else f"  ({r['stop_reason']})"
    return f"{r['address']} (file offset {r['file_offset']}): {r['returned_bytes']}/{r['requested_bytes']} bytes{tail}\n{r['bytes_hex']}"


def _render_instruction(value: Mapping[str, Any]) -> str:
    r = _result(value)
    head = f"{r['address']}  {r['status']}"
    if r["status"] == "decoded":
        head += f"  {r['bytes']:<24} {r['raw_disassembly']}  [{r['flow']['kind']}]"
    refs = [f"  -> {x['target_address']} ({x['type']}, {x['provenance']})" for x in r["references"]]
    return "\n".join([head, *refs, *(f"  note: {n}" for n in r["limitations"])])


def _render_targets(value: Mapping[str, Any]) -> str:
    r = _result(value)
    rows = [f"  {t['address']} {t['procedure'] or '?'} ({t['status']})" for t in r["targets"]]
    return "\n".join([f"{r['call_site']}: {r['status']} ({r['mechanism']})", *rows])


def _render_plain(value: Mapping[str, Any]) -> str:
    r = _result(value)
    if isinstance(r, list):
        return "\n".join(f"{row['address']}  {row['name']}" for row in r) or "(none)"
    return "(none)" if r is None else str(r)


def _set_comment(parser: argparse.ArgumentParser) -> None:
    _at(parser)
    parser.add_argument("text", help="the comment (empty text clears it)")
    parser.add_argument("--inline", action="store_true", help="set the inline comment instead")


def _annotate(parser: argparse.ArgumentParser) -> None:
    _binary(parser)
    parser.add_argument("procedure", help="procedure start address (0x...) or exact name")
    for flag in ("name", "comment", "inline-comment", "signature", "calling-convention"):
        parser.add_argument(f"--{flag}")


def _annotation_args(ns: argparse.Namespace) -> Mapping[str, Any]:
    keys = ("name", "comment", "inline_comment", "signature", "calling_convention")
    return {"procedure": ns.procedure, **{k: getattr(ns, k) for k in keys if getattr(ns, k) is not None}}


def _render_annotation(value: Mapping[str, Any]) -> str:
    a = _result(value)["annotations"]
    return "\n".join(f"{k}: {a[k]}" for k in ("address", "name", "comment", "inline_comment", "signature") if a[k])


def _on_address(name: str, help_: str, render: Callable[[Mapping[str, Any]], str], extra: Build) -> ToolCommand:
    tool = name.replace("-", "_")
    return ToolCommand(
        name=name,
        help=help_,
        configure=_at if name != "read-bytes" else _read_bytes,
        steps=lambda ns: _opened(ns, (tool, {"address": ns.address, **extra(ns)})),
        render=render,
    )


def _read_bytes(parser: argparse.ArgumentParser) -> None:
    _at(parser)
    parser.add_argument("--length", type=int, default=256, help="bytes to read (1..4096, default 256)")


def _nothing(ns: argparse.Namespace) -> Mapping[str, Any]:
    return {}


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
    _on_address("read-bytes", "file-backed bytes at an address", _render_bytes, lambda ns: {"length": ns.length}),
    _on_address("address-to-file-offset", "file offset of an address", _render_plain, _nothing),
    _on_address("inspect-native-instruction", "decode the instruction at an address", _render_instruction, _nothing),
    _on_address("resolve-native-call-targets", "targets of the call at an address", _render_targets, _nothing),
    _on_address("comment", "the analyst comment at an address", _render_plain, _nothing),
    ToolCommand(
        name="set-comment",
        help="store (or clear) the comment at an address",
        configure=_set_comment,
        steps=lambda ns: _opened(
            ns, ("set_inline_comment" if ns.inline else "set_comment", {"address": ns.address, "comment": ns.text})
        ),
        render=_render_plain,
    ),
    ToolCommand(
        name="list-bookmarks",
        help="every bookmark of a binary",
        configure=_binary,
        steps=lambda ns: _opened(ns, ("list_bookmarks", {})),
        render=_render_plain,
    ),
    ToolCommand(
        name="annotate-native-function",
        help="rename, comment or type one function",
        configure=_annotate,
        steps=lambda ns: _opened(ns, ("annotate_native_function", _annotation_args(ns))),
        render=_render_annotation,
    ),
)
