"""`rea get-objc-classes MACHO` and its siblings: open the Mach-O, run the tool, print JSON or text."""

from __future__ import annotations

import argparse
import os
from typing import Any
from collections.abc import Callable, Mapping, Sequence

from effects.commands import ToolCommand


def _configure(extra: Callable[[argparse.ArgumentParser], None]) -> Callable[[argparse.ArgumentParser], None]:
    def configure(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("path", help="Mach-O file (thin or universal)")
        parser.add_argument("--architecture", default=None, help="slice of a universal file (x86_64, arm64, ...)")
        extra(parser)

    return configure


def _steps(tool: str, keys: tuple[str, ...]) -> Callable[[argparse.Namespace], Sequence[Any]]:
    def steps(ns: argparse.Namespace) -> Sequence[tuple[str, Mapping[str, Any]]]:
        args = {k: getattr(ns, k) for k in ("architecture", *keys) if getattr(ns, k) is not None}
        return [("open_binary", {"path": os.path.abspath(ns.path)}), (tool, args)]

    return steps


def _head(value: Mapping[str, Any]) -> list[str]:
    return [f"{value['operation']} {value['evidence_id']}"]


def _tail(r: Mapping[str, Any]) -> list[str]:
    return [f"  limitation: {t}" for t in r["limitations"]]


def _render_classes(value: Mapping[str, Any]) -> str:
    r = value["normalized_result"]
    lines = _head(value) + [f"  {r['count']} class(es)"]
    for c in r["classes"]:
        lines.append(f"  {c['address']} {c['name']} : {c['super_class']} ({c['method_count']} methods)")
    return "\n".join(lines + _tail(r))


def _render_protocols(value: Mapping[str, Any]) -> str:
    r = value["normalized_result"]
    lines = _head(value) + [f"  {r['count']} protocol(s)"]
    lines += [f"  {p['address']} {p['name']} ({p['source']})" for p in r["protocols"]]
    return "\n".join(lines + _tail(r))


def _render_swift(value: Mapping[str, Any]) -> str:
    r = value["normalized_result"]
    lines = _head(value) + [f"  {r['total']} Swift type(s)"]
    for name, group in r["categories"].items():
        lines.append(f"  {name}: {group['count']}")
        lines += [f"    {t['address']} {t['name']}" for t in group["items"]]
    return "\n".join(lines + _tail(r))


def _render_dispatch(value: Mapping[str, Any]) -> str:
    r = value["normalized_result"]
    m = r["result"]
    lines = _head(value)
    for key in ("objc_classes", "objc_categories", "objc_protocol_records", "objc_ivars"):
        lines.append(f"  {key}: {len(m[key])}")
    lines.append(f"  objc_dispatch_implementations: {len(m['objc_dispatch_implementations'])}")
    lines.append(f"  swift_decls: {len(m['swift_decls'])}, swift_symbols: {len(m['swift_symbols'])}")
    lines += [
        f"  coverage {c['facet']}: {c['status']}" + (f" ({c['reason']})" if c["reason"] else "") for c in m["coverage"]
    ]
    return "\n".join(lines + _tail(r))


def _pattern(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--pattern", default=None, help="case-sensitive literal filter on names")


def _swift_flags(parser: argparse.ArgumentParser) -> None:
    _pattern(parser)
    parser.add_argument(
        "--category", default=None, choices=("classes", "structs", "enums", "protocols", "extensions", "other")
    )


def _max_records(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--max-records", dest="max_records", type=int, default=None)


COMMANDS: tuple[ToolCommand, ...] = (
    ToolCommand(
        name="get-objc-classes",
        help="Objective-C classes of a Mach-O from __objc_classlist (get_objc_classes)",
        configure=_configure(_pattern),
        steps=_steps("get_objc_classes", ("pattern",)),
        render=_render_classes,
    ),
    ToolCommand(
        name="get-objc-protocols",
        help="Objective-C and Swift protocols of a Mach-O (get_objc_protocols)",
        configure=_configure(lambda parser: None),
        steps=_steps("get_objc_protocols", ()),
        render=_render_protocols,
    ),
    ToolCommand(
        name="analyze-swift-types",
        help="Swift type descriptors of a Mach-O by category (analyze_swift_types)",
        configure=_configure(_swift_flags),
        steps=_steps("analyze_swift_types", ("category", "pattern")),
        render=_render_swift,
    ),
    ToolCommand(
        name="inspect-native-dispatch-metadata",
        help="Objective-C/Swift dispatch metadata of a Mach-O (inspect_native_dispatch_metadata)",
        configure=_configure(_max_records),
        steps=_steps("inspect_native_dispatch_metadata", ("max_records",)),
        render=_render_dispatch,
    ),
)
