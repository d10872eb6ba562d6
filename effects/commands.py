"""Family CLI commands: a `rea` subcommand that runs catalog tools on a one-shot connection.

A family declares what its command takes and which tool calls it makes (for
example open_binary, then analyze_function); the CLI runs them through the same
validation and programs as MCP, prints the last reply, and stops at the first
failure.
"""

from __future__ import annotations

import argparse
from typing import Any
from collections.abc import Callable, Mapping, Sequence

import attrs
import orjson


def render_json(value: Any) -> str:
    return orjson.dumps(value, option=orjson.OPT_INDENT_2).decode()


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
