"""`rea analyze`: an overview of a native binary (open_binary, then binary_overview) or, for an application
directory or .asar, the JavaScript application analysis. Written by hand because it chooses its tool by what
the path is; `rea function`, `rea decompile`, `rea xrefs` and `rea instructions` are declared on their catalog
rows (rea.native.contract.tools). The target options here are shared by the other hand-written native commands."""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping, Sequence
from typing import Any

from returns.result import Result

from effects.commands import Step, ToolCommand, open_step
from rea.errors import ReaError
from rea.javascript import application_text
from rea.native import text
from rea.native.text import result as _result

__all__ = ["COMMANDS", "_binary", "_opened", "_result"]


def _binary(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("binary", help="path of the executable or library")
    parser.add_argument("--provider", default="auto", help="deep-analysis provider id or auto (default)")
    parser.add_argument(
        "--architecture",
        help="slice of a universal Mach-O to analyse, as lipo names it (default: x86_64, then arm64, then the first)",
    )


def _opened(ns: argparse.Namespace, *then: Step) -> Result[list[Step], ReaError]:
    """open_binary first (effects.commands.open_step, as every command that opens its target)."""
    return open_step(ns.binary, ns.provider, getattr(ns, "architecture", None)).map(lambda opened: [opened, *then])


def _analyze_configure(parser: argparse.ArgumentParser) -> None:
    _binary(parser)
    parser.add_argument(
        "--integrity-policy",
        choices=("fail-closed", "record-and-continue"),
        default="fail-closed",
        help="for an application directory or .asar: integrity mismatch handling",
    )


def _is_application(path: str) -> bool:
    """An app tree or .asar goes to the JavaScript family; anything else is a native binary."""
    return os.path.isdir(path) or path.lower().endswith(".asar")


def _analyze_steps(ns: argparse.Namespace) -> Sequence[Step] | Result[list[Step], ReaError]:
    if _is_application(ns.binary):
        return [
            (
                "analyze_javascript_application",
                {
                    "input_path": os.path.abspath(ns.binary),
                    "detail": "summary",
                    "integrity_policy": ns.integrity_policy,
                },
            )
        ]
    return _opened(ns, ("binary_overview", {"detail": "concise"}))


def _render_analysis(value: Mapping[str, Any]) -> str:
    if value.get("operation") == "analyze_javascript_application" or (
        value.get("operation") == "inspect_analysis_view" and "parent_evidence_id" in value.get("normalized_result", {})
    ):
        return application_text.render(value)
    return text.overview(value)


COMMANDS = (
    ToolCommand(
        name="analyze",
        help="overview of a native binary (angr), or of an application directory or .asar",
        configure=_analyze_configure,
        steps=_analyze_steps,
        render=_render_analysis,
    ),
)
