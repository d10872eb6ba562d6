"""Family CLI commands: a `rea` subcommand that runs catalog tools on a one-shot connection.

A family declares what its command takes and which tool calls it makes (for
example open_binary, then analyze_function); the CLI runs them through the same
validation and programs as MCP, prints the last reply, and stops at the first
failure.
"""

from __future__ import annotations

import argparse
import json
import os
from typing import Any
from collections.abc import Callable, Mapping, Sequence

import attrs
import orjson

from rea.errors import ReaError, invalid_request


def render_json(value: Any) -> str:
    return orjson.dumps(value, option=orjson.OPT_INDENT_2).decode()


def json_object_input(text: str, *, field: str, accepted: str, what: str) -> dict[str, Any] | ReaError:
    """One JSON object given inline (text starting with '{') or as the path of a JSON file, as 6.x's CLI
    takes a tool's input; a ReaError naming `field` otherwise."""
    source = text
    if not text.lstrip().startswith("{"):
        try:
            with open(os.path.abspath(text), encoding="utf-8") as f:
                source = f.read()
        except OSError as exc:
            return invalid_request(f"cannot read {text!r}: {exc.strerror}", field=field, accepted=accepted)
    try:
        value = json.loads(source)
    except json.JSONDecodeError as bad:
        return invalid_request(f"{what} is not JSON: {bad}", field=field, accepted=accepted)
    if not isinstance(value, dict):
        return invalid_request(f"{what} is not a JSON object", field=field, accepted=accepted)
    return value


def given(ns: argparse.Namespace, *keys: str) -> dict[str, Any]:
    """The flags a person gave, by argument name (an absent flag leaves the tool's default)."""
    return {key: getattr(ns, key) for key in keys if getattr(ns, key) is not None}


@attrs.frozen(kw_only=True)
class ToolCommand:
    name: str
    help: str
    configure: Callable[[argparse.ArgumentParser], None]
    # each step is (tool, arguments); arguments may be a function of the earlier steps' replies
    steps: Callable[
        [argparse.Namespace], Sequence[tuple[str, Mapping[str, Any] | Callable[[list[Any]], Mapping[str, Any]]]]
    ]
    render: Callable[[Any], str] = render_json
