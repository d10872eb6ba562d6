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
from collections.abc import Callable, Mapping
from typing import Any

import attrs
import orjson
from returns.result import Failure, Result, Success

from rea.errors import ReaError, invalid_request
from rea.native.selector import parse_selector

Step = tuple[str, Mapping[str, Any]]


def render_json(value: Any) -> str:
    return orjson.dumps(value, option=orjson.OPT_INDENT_2).decode()


def json_object_input(text: str, *, field: str, accepted: str, what: str) -> Result[dict[str, Any], ReaError]:
    """One JSON object given inline (text starting with '{') or as the path of a JSON file, as 6.x's CLI
    takes a tool's input; an invalid_request naming `field` otherwise."""
    source = text
    if not text.lstrip().startswith("{"):
        try:
            with open(os.path.abspath(text), encoding="utf-8") as f:
                source = f.read()
        except OSError as exc:
            return Failure(invalid_request(f"cannot read {text!r}: {exc.strerror}", field=field, accepted=accepted))
    try:
        value = json.loads(source)
    except json.JSONDecodeError as bad:
        return Failure(invalid_request(f"{what} is not JSON: {bad}", field=field, accepted=accepted))
    if not isinstance(value, dict):
        return Failure(invalid_request(f"{what} is not a JSON object", field=field, accepted=accepted))
    return Success(value)


def given(ns: argparse.Namespace, *keys: str) -> dict[str, Any]:
    """The flags a person gave, by argument name (an absent flag leaves the tool's default)."""
    return {key: getattr(ns, key) for key in keys if getattr(ns, key) is not None}


@attrs.frozen(kw_only=True)
class ToolCommand:
    name: str
    help: str
    configure: Callable[[argparse.ArgumentParser], None]
    # each step is (tool, arguments); arguments may be a function of the earlier steps' replies. A command that
    # cannot prepare its calls (a bad --provider, an unreadable input file) answers the error instead.
    steps: Callable[[argparse.Namespace], Any]
    render: Callable[[Any], str] = render_json


def open_step(path: str, provider: str | None = None, architecture: str | None = None) -> Result[Step, ReaError]:
    """The open_binary call that opens a command's target first; a --provider is checked by the one provider
    parser (as MCP and the environment check it)."""
    opened: dict[str, Any] = {"path": os.path.abspath(path)}
    if architecture is not None:
        opened["architecture"] = architecture
    if provider is None:
        return Success(("open_binary", opened))
    return parse_selector(provider, "cli").map(lambda _: ("open_binary", {**opened, "provider_id": provider}))
