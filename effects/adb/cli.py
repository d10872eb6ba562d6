"""`rea list-adb-devices`, `rea inspect-adb-device SERIAL`, ... one subcommand per adb device tool.

Built from the catalog's rows: the args record's required fields are positionals in record
order (serial first), the optional ones `--flags`; `--extras` takes JSON. Host paths are
made absolute, as every CLI path is.
"""

from __future__ import annotations

import argparse
import json
import os
from typing import Any
from collections.abc import Mapping, Sequence

import attrs

from effects.commands import ToolCommand
from rea.adb.contract import ROWS, Row

_PATHS = {"output_directory", "local_path", "apk_path"}


def _fields(row: Row) -> tuple[list[attrs.Attribute[Any]], list[attrs.Attribute[Any]]]:
    fields = list(attrs.fields(row.args))
    required = [f for f in fields if f.default is attrs.NOTHING]
    required.sort(key=lambda f: f.name != "serial")
    return required, [f for f in fields if f.default is not attrs.NOTHING]


def _configure(row: Row) -> Any:
    required, optional = _fields(row)

    def configure(parser: argparse.ArgumentParser) -> None:
        for f in required:
            parser.add_argument(f.name)
        for f in optional:
            flag = "--" + f.name.replace("_", "-")
            if isinstance(f.default, bool):
                parser.add_argument(flag, dest=f.name, action="store_true", default=None)
            elif f.name == "extras":
                parser.add_argument(flag, dest=f.name, type=json.loads, default=None, help="JSON list of extras")
            elif f.name in ("count", "pid", "deadline_ms"):
                parser.add_argument(flag, dest=f.name, type=int, default=None)
            else:
                parser.add_argument(flag, dest=f.name, default=None)

    return configure


def _steps(row: Row) -> Any:
    def steps(ns: argparse.Namespace) -> Sequence[tuple[str, Mapping[str, Any]]]:
        args = {f.name: getattr(ns, f.name) for f in attrs.fields(row.args) if getattr(ns, f.name, None) is not None}
        for name in _PATHS & set(args):
            args[name] = os.path.abspath(args[name])
        return [(row.name, args)]

    return steps


def _render(value: Mapping[str, Any]) -> str:
    result = value.get("normalized_result", value)
    lines = []
    for key, item in result.items():
        if key == "client":
            lines.append(f"client: {item['binary_path']} {item['version']}")
        elif isinstance(item, list):
            lines.append(f"{key}: {len(item)}")
            lines += [f"  {json.dumps(row, sort_keys=True)}" for row in item[:500]]
        else:
            lines.append(f"{key}: {json.dumps(item) if isinstance(item, dict) else item}")
    lines += [f"limitation: {t}" for t in value.get("limitations", [])]
    return "\n".join([*lines, f"evidence: {value.get('evidence_id', '-')}"])


COMMANDS: tuple[ToolCommand, ...] = tuple(
    ToolCommand(
        name=row.name.replace("_", "-"),
        help=row.description.split(". ")[0],
        configure=_configure(row),
        steps=_steps(row),
        render=_render,
    )
    for row in ROWS
)
