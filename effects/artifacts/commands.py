"""`rea compare-artifacts LEFT.json RIGHT.json`: the artifact command that reads files before its call.

inspect-artifact, inventory-artifact and extract-artifact are declared on their catalog rows
(rea.artifacts.contract) and built by effects.derived_commands.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping, Sequence
from typing import Any

import orjson
from returns.result import Failure, Result, Success

from effects.commands import ToolCommand
from rea.artifacts import text
from rea.errors import ReaError, invalid_request
from rea.results import all_of

MAX_EVIDENCE_FILE = 512 << 20


def read_json_file(
    path: str, field: str, accepted: str = "a JSON file holding inspect_artifact or inventory_artifact Evidence"
) -> Result[Any, ReaError]:
    """The JSON value of a local file the command line names, or invalid_request naming the argument."""
    try:
        if os.path.getsize(path) > MAX_EVIDENCE_FILE:
            return Failure(invalid_request(f"{path} is larger than {MAX_EVIDENCE_FILE} bytes", field=field))
        with open(path, "rb") as handle:
            value = orjson.loads(handle.read())
    except OSError as exc:
        return Failure(
            invalid_request(
                f"{path} cannot be read: {exc.strerror or exc}",
                field=field,
                accepted=accepted,
            )
        )
    except orjson.JSONDecodeError as exc:
        return Failure(invalid_request(f"{path} is not JSON: {exc}", field=field))
    return Success(value)


def _compare_steps(ns: argparse.Namespace) -> Result[Sequence[tuple[str, Mapping[str, Any]]], ReaError]:
    # left, then right: a side that cannot be read is the answer (the other is not read after it)
    sides = all_of(read_json_file(getattr(ns, field), field) for field in ("left", "right"))
    return sides.map(lambda values: [("compare_artifacts", _compare_args(ns, values[0], values[1]))])


def _compare_args(ns: argparse.Namespace, left: Any, right: Any) -> dict[str, Any]:
    args: dict[str, Any] = {"left": left, "right": right}
    if ns.offset is not None:
        args["offset"] = ns.offset
    if ns.limit is not None:
        args["limit"] = ns.limit
    return args


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
