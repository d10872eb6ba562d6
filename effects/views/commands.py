"""`rea inspect-analysis-view EVIDENCE.json [--view JSON]`: one view of saved Evidence.

A one-shot CLI retains nothing between invocations, so the parent travels inline
(`{"kind": "inline", "evidence": ...}`) from the file; the call is validated and
run exactly as over MCP.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from typing import Any

import orjson
from returns.result import Failure, Result, Success

from effects.artifacts.commands import read_json_file
from effects.commands import ToolCommand
from rea.errors import ReaError, invalid_request


def _configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("evidence", help="a JSON file holding one complete Evidence record")
    parser.add_argument(
        "--view",
        default='{"kind": "summary"}',
        help='the view as JSON, e.g. \'{"kind": "native", "facet": "callers", "offset": 0, "limit": 64}\'',
    )


def _steps(ns: argparse.Namespace) -> Result[Sequence[tuple[str, Mapping[str, Any]]], ReaError]:
    return read_json_file(ns.evidence, "evidence").bind(lambda evidence: _view_steps(ns, evidence))


def _view_steps(ns: argparse.Namespace, evidence: Any) -> Result[Sequence[tuple[str, Mapping[str, Any]]], ReaError]:
    try:
        view = orjson.loads(ns.view)
    except orjson.JSONDecodeError as exc:
        return Failure(invalid_request(f"--view is not JSON: {exc}", field="view", accepted='{"kind": "summary"}'))
    return Success([("inspect_analysis_view", {"source": {"kind": "inline", "evidence": evidence}, "view": view})])


COMMANDS = (
    ToolCommand(
        name="inspect-analysis-view",
        help="one view (summary, native facet, inventory or module page) of an Evidence file",
        configure=_configure,
        steps=_steps,
    ),
)
