"""`rea capture-browser-scenario INPUT`: the scenario as inline JSON or a JSON file, as 6.x's CLI takes it."""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from typing import Any

from returns.result import Failure, Result, Success

from effects.commands import ToolCommand, json_object_input
from rea.errors import ReaError, invalid_request

ACCEPTED = "a JSON object matching capture_browser_scenario's input, inline or in a file"


def _configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("input_json", help="inline JSON or the path of a JSON file (capture_browser_scenario's input)")


def scenario_input(text: str) -> Result[dict[str, Any], ReaError]:
    """The argument object, or the error the runner reports as the failure."""
    return json_object_input(text, field="input_json", accepted=ACCEPTED, what="the scenario")


def _steps(tool: str) -> Any:
    def steps(ns: argparse.Namespace) -> Result[list[tuple[str, dict[str, Any]]], ReaError]:
        return scenario_input(ns.input_json).map(lambda value: [(tool, value)])

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


def _configure_compare(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "before", help="saved Evidence (--json) or normalized_result of inspect_web_page or capture_browser_scenario"
    )
    parser.add_argument("after", help="the later capture, of the same tool")
    parser.add_argument("--max-changes", type=int, default=None)


def _capture(value: dict[str, Any]) -> tuple[str, Any]:
    """(the tool that made it, its result) of saved Evidence or a bare normalized_result."""
    kind = value.get("operation")
    result = value.get("normalized_result", value)
    if kind is None:
        kind = "capture_browser_scenario" if "steps" in result else "inspect_web_page"
    return kind, result


def _compare_steps(ns: argparse.Namespace) -> Result[list[tuple[str, dict[str, Any]]], ReaError]:
    return scenario_input(ns.before).bind(
        lambda before: scenario_input(ns.after).bind(lambda after: _comparison(ns, _capture(before), _capture(after)))
    )


def _comparison(
    ns: argparse.Namespace, earlier: tuple[str, Any], later: tuple[str, Any]
) -> Result[list[tuple[str, dict[str, Any]]], ReaError]:
    (before_kind, before), (after_kind, after) = earlier, later
    if before_kind != after_kind or before_kind not in ("capture_browser_scenario", "inspect_web_page"):
        return Failure(
            invalid_request(
                f"the captures are {before_kind} and {after_kind}",
                field="after",
                accepted="two inspect_web_page or two capture_browser_scenario results",
            )
        )
    if before_kind == "capture_browser_scenario":
        args: dict[str, Any] = {"before_scenario": before, "after_scenario": after}
    else:
        args = {"before": {"inspection": before}, "after": {"inspection": after}}
    if ns.max_changes is not None:
        args["max_changes"] = ns.max_changes
    return Success([("compare_web_captures", args)])


def render_comparison(value: Mapping[str, Any]) -> str:
    r = value["normalized_result"]
    lines = [f"{value['operation']} {value['evidence_id']}", f"  overall {r['overall_status']}"]
    if "steps" in r:
        lines.append(f"  alignment {r['alignment']['status']} ({r['alignment']['aligned_steps']} steps)")
        lines += [f"  failure {f['code']}: {f['reason']}" for f in r["alignment"]["failures"]]
        for step in r["steps"]:
            changed = ", ".join(f"{d['artifact']} {d['status']}" for d in step["artifact_diffs"])
            lines.append(f"  {step['step_id']:<16} {step['status']:<9} {changed}")
    else:
        for name, d in r["dimensions"].items():
            lines.append(
                f"  {name:<14} {d['status']:<9} {d['total_changes']} change(s)"
                + (f"  {d['reason']}" if d["reason"] else "")
            )
    return "\n".join(lines + [f"  limitation: {t}" for t in r["limitations"]])


COMMANDS: tuple[ToolCommand, ...] = (
    ToolCommand(
        name="capture-browser-scenario",
        help="run declared actions in an owned headless Chromium (or a loopback target) and capture each step",
        configure=_configure,
        steps=_steps("capture_browser_scenario"),
        render=render_scenario,
    ),
    ToolCommand(
        name="capture-electron-scenario",
        help="launch an Electron executable with its application and drive its windows over CDP",
        configure=_configure,
        steps=_steps("capture_electron_scenario"),
    ),
    ToolCommand(
        name="compare-web-captures",
        help="compare two saved inspect_web_page or capture_browser_scenario results",
        configure=_configure_compare,
        steps=_compare_steps,
        render=render_comparison,
    ),
)
