"""`rea compare-artifacts LEFT.json RIGHT.json`: the artifact command that reads files before its call.

inspect-artifact, inventory-artifact and extract-artifact are declared on their catalog rows
(rea.artifacts.contract) and built by effects.derived_commands.
"""

from __future__ import annotations

import argparse
import os
from typing import Any
from collections.abc import Mapping, Sequence

import orjson

from effects.commands import ToolCommand
from rea.artifacts import text
from rea.errors import ReaError, invalid_request

MAX_EVIDENCE_FILE = 512 << 20


def read_json_file(
    path: str, field: str, accepted: str = "a JSON file holding inspect_artifact or inventory_artifact Evidence"
) -> Any:
    """The JSON value of a local file the command line names, or invalid_request naming the argument."""
    try:
        if os.path.getsize(path) > MAX_EVIDENCE_FILE:
            return invalid_request(f"{path} is larger than {MAX_EVIDENCE_FILE} bytes", field=field)
        with open(path, "rb") as handle:
            value = orjson.loads(handle.read())
    except OSError as exc:
        return invalid_request(
            f"{path} cannot be read: {exc.strerror or exc}",
            field=field,
            accepted=accepted,
        )
    except orjson.JSONDecodeError as exc:
        return invalid_request(f"{path} is not JSON: {exc}", field=field)
    return value


def _compare_steps(ns: argparse.Namespace) -> Sequence[tuple[str, Mapping[str, Any]]] | ReaError:
    sides = {}
    for field in ("left", "right"):
        value = read_json_file(getattr(ns, field), field)
        if isinstance(value, ReaError):
            return value
        sides[field] = value
    args: dict[str, Any] = dict(sides)
    if ns.offset is not None:
        args["offset"] = ns.offset
    if ns.limit is not None:
        args["limit"] = ns.limit
    return [("compare_artifacts", args)]


def _configure_compare(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("left", help="LEFT.json: inspect_artifact/inventory_artifact Evidence, or an array of pages")
    parser.add_argument("right", help="RIGHT.json")
    parser.add_argument("--offset", type=int, default=None)
    parser.add_argument("--limit", type=int, default=None)


COMMANDS: tuple[ToolCommand, ...] = (
    ToolCommand(
        name="compare-artifacts",
        help="compare two inventory Evidence files (LEFT.json RIGHT.json)",
        configure=_configure_compare,
        steps=_compare_steps,
        render=text.evidence,
    ),
)
