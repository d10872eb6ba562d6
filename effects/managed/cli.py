"""`rea inspect-managed-*` subcommands: one managed tool on an assembly path, flags from its args record."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from effects.commands import ToolCommand
from rea.catalog import BY_NAME
from rea.wire.schema import wire_of


def _options(tool: str) -> tuple[attrs.Attribute[Any], ...]:
    return tuple(a for a in attrs.fields(BY_NAME[tool].args_type) if a.name != "path")


def _configure(tool: str) -> Callable[[argparse.ArgumentParser], None]:
    def configure(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("path", help="managed PE/CLI file (.dll or .exe)")
        for option in _options(tool):
            parser.add_argument("--" + option.name.replace("_", "-"), type=int, default=None,
                                help=wire_of(option).description)  # fmt: skip

    return configure


def _steps(tool: str) -> Callable[[argparse.Namespace], Sequence[tuple[str, Mapping[str, Any]]]]:
    def steps(ns: argparse.Namespace) -> Sequence[tuple[str, Mapping[str, Any]]]:
        args: dict[str, Any] = {"path": os.path.abspath(ns.path)}
        for option in _options(tool):
            value = getattr(ns, option.name)
            if value is not None:
                args[option.name] = value
        return [(tool, args)]

    return steps


def _count(value: Any) -> str:
    return str(len(value)) if isinstance(value, list) else "-"


def render(value: Mapping[str, Any]) -> str:
    """Headline facts of any managed result, then its listings' sizes, issues and limitations."""
    r = value["normalized_result"]
    lines = [
        f"{value['operation']} {value['evidence_id']}",
        f"  {r['artifact']['path']} sha256 {r['artifact']['sha256']}",
    ]
    if r.get("assembly"):
        a = r["assembly"]
        lines.append(f"  assembly {a['name']} {a['version']} token {a['public_key']['token'] or 'none'}")
    if r.get("module"):
        lines.append(f"  module {r['module']['name']} mvid {r['module']['mvid']}")
    if r.get("classification"):
        k = r["classification"]
        lines.append(f"  {k['status']} {k['runtime_family']} {k['implementation']} {k['managed_architecture']}")
    listed = [key for key, item in r.items() if isinstance(item, list) and key not in ("limitations",)]
    lines.append("  " + ", ".join(f"{key} {_count(r[key])}" for key in listed))
    lines.append(f"  coverage {r['coverage']['state']}")
    for issue in r["coverage"]["issues"][:50]:
        lines.append(f"  issue {issue['code']} {issue['scope']}: {issue['detail']}")
    for text in value.get("limitations", []):
        lines.append(f"  limitation: {text}")
    return "\n".join(lines)


def _configure_compare(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("left", help="older build (.dll or .exe)")
    parser.add_argument("right", help="newer build")
    parser.add_argument("--max-method-matches", type=int, default=None, help="method items returned")


def _compare_steps(ns: argparse.Namespace) -> Sequence[tuple[str, Any]]:
    limits = {"max_method_matches": ns.max_method_matches} if ns.max_method_matches else {}

    def compare(earlier: list[Any]) -> Mapping[str, Any]:
        ids = [reply["evidence_id"] for reply in earlier]
        return {"left_evidence_id": ids[0], "right_evidence_id": ids[1], **({"limits": limits} if limits else {})}

    return [
        ("inspect_managed_members", {"path": os.path.abspath(ns.left)}),
        ("inspect_managed_members", {"path": os.path.abspath(ns.right)}),
        ("compare_managed_members", compare),
    ]


def render_comparison(value: Mapping[str, Any]) -> str:
    r = value["normalized_result"]
    lines = [f"compare_managed_members {value['evidence_id']}", f"  summary {r['summary']}",
             f"  coverage {r['coverage']['status']}"]  # fmt: skip
    for item in r["methods"]:
        if item["status"] != "unchanged":
            side = item["right"] or item["left"] or {}
            where = f"{side.get('declaring_type')}::{side.get('name')}" if side else "ambiguous"
            lines.append(f"  {item['status']:<9} {where} {','.join(item['dimensions'])}")
    return "\n".join(lines)


def _command(tool: str, help_text: str) -> ToolCommand:
    return ToolCommand(
        name=tool.replace("_", "-"), help=help_text, configure=_configure(tool), steps=_steps(tool), render=render
    )


COMMANDS: tuple[ToolCommand, ...] = (
    _command("inspect_managed_artifact", "identity, references, resources, attributes of a .NET assembly"),
    _command("inspect_managed_members", "types, fields, methods with CIL hashes, call edges of a .NET assembly"),
    _command("inspect_managed_native_boundaries", "P/Invoke imports, ModuleRefs, non-IL methods of a .NET assembly"),
    ToolCommand(
        name="compare-managed-members",
        help="members of two .NET builds compared (LEFT RIGHT: two assemblies)",
        configure=_configure_compare,
        steps=_compare_steps,
        render=render_comparison,
    ),
)
