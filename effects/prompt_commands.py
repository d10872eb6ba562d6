"""`rea prompts` and `rea prompt NAME --arg k=v`: the MCP prompts from the command line.

Rendering runs no tool, so these need no connection: they list the guided
workflows and print one rendered for the given arguments (text or JSON).
"""

from __future__ import annotations

import argparse
from typing import Any

from returns.result import Failure, Result, Success

from rea import prompts
from rea.errors import ReaError, invalid_request


def configure_list(parser: argparse.ArgumentParser) -> None:
    parser.set_defaults(prompt_command="list")


def configure_get(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", help="prompt name (see `rea prompts`)")
    parser.add_argument(
        "--arg", action="append", default=[], metavar="KEY=VALUE", help="a prompt argument (repeatable)"
    )


def listing() -> dict[str, Any]:
    return {"prompts": prompts.listing()}


def render_listing(value: dict[str, Any]) -> str:
    lines = []
    for p in value["prompts"]:
        lines.append(f"{p['name']}: {p['title']}")
        lines.append(f"  {p['description']}")
        for a in p["arguments"]:
            lines.append(f"  --arg {a['name']}=...{'  (required)' if a['required'] else ''}  {a['description']}")
    return "\n".join(lines)


def _arguments(pairs: list[str]) -> Result[dict[str, str], ReaError]:
    found: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            return Failure(invalid_request(f"--arg {pair!r} is not KEY=VALUE", field="arg", accepted="KEY=VALUE"))
        found[key] = value
    return Success(found)


def prompt(ns: argparse.Namespace) -> Result[dict[str, Any], ReaError]:
    """{name, description, messages[{role, content{type, text}}]}, the shape prompts/get answers."""
    return _arguments(ns.arg).bind(lambda args: prompts.render(ns.name, args)).map(_prompt_json)


def _prompt_json(value: prompts.Rendered) -> dict[str, Any]:
    return {
        "name": value.name,
        "description": value.description,
        "messages": [{"role": m.role, "content": {"type": "text", "text": m.text}} for m in value.messages],
    }


def render_prompt(value: dict[str, Any]) -> str:
    return "\n".join(m["content"]["text"] for m in value["messages"])
