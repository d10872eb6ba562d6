"""`rea capture-browser-scenario INPUT`: the scenario as inline JSON or a JSON file, as 6.x's CLI takes it."""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Mapping
from typing import Any

from effects.commands import ToolCommand
from rea.errors import invalid_request

ACCEPTED = "a JSON object matching capture_browser_scenario's input, inline or in a file"


def _configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("input_json", help="inline JSON or the path of a JSON file (capture_browser_scenario's input)")


def scenario_input(text: str) -> Any:
    """The argument object, or a ReaError the runner reports as the failure."""
    source = text
    if not text.lstrip().startswith("{"):
        try:
            with open(os.path.abspath(text), encoding="utf-8") as f:
                source = f.read()
        except OSError as exc:
            return invalid_request(f"cannot read {text!r}: {exc.strerror}", field="input_json", accepted=ACCEPTED)
    try:
        value = json.loads(source)
    except json.JSONDecodeError as bad:
        return invalid_request(f"the scenario is not JSON: {bad}", field="input_json", accepted=ACCEPTED)
    if not isinstance(value, dict):
        return invalid_request("the scenario is not a JSON object", field="input_json", accepted=ACCEPTED)
    return value


def _steps(tool: str) -> Any:
    def steps(ns: argparse.Namespace) -> Any:
        value = scenario_input(ns.input_json)
        return [(tool, value)] if isinstance(value, dict) else value

    return steps


def render_scenario(value: Mapping[str, Any]) -> str:
    r = value["normalized_result"]
    b, c = r["browser"], r["completeness"]
    lines = [
        f"{value['operation']} {value['evidence_id']}",
        f"  {b['product']} {b['version']} ({b['mode']}, {b['process_ownership']}, cleanup {b['cleanup']})",
        f"  origins {', '.join(r['scenario']['allowed_origins'])}; {r['duration_ms']} ms; completeness {c['status']}",
    ]
    for s in r["steps"]:
        captured = [k for k, v in s["artifacts"].items() if v["state"] == "captured"]
        lines.append(
            f"  {s['step_index']:>3} {s['step_id']:<16} {s['action']:<16} {s['status']:<9} {s['after_url']}"
            + (f"  captured {','.join(captured)}" if captured else "")
            + (f"  error: {s['error']}" if s["error"] else "")
        )
    lines.append(f"  events retained {r['events']['retained']}, dropped {r['events']['dropped']}")
    lines += [f"  limitation: {text}" for text in r["limitations"]]
    return "\n".join(lines)


COMMANDS: tuple[ToolCommand, ...] = (
    ToolCommand(
        name="capture-browser-scenario",
        help="run declared actions in an owned headless Chromium (or a loopback target) and capture each step",
        configure=_configure,
        steps=_steps("capture_browser_scenario"),
        render=render_scenario,
    ),
)
