"""Which first analysis a file gets, by the format identification found: one table.

Each plan is the tool calls a user would make first on such a file, run through the same
catalog programs MCP runs (no second implementation of any analysis). `PATH` in a step's
arguments stands for the item's absolute path.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

PATH = "$path"  # replaced by the item's path when the step runs


@attrs.frozen(kw_only=True)
class Step:
    tool: str
    arguments: Mapping[str, Any] = attrs.field(factory=dict)


def bound_arguments(arguments: Mapping[str, Any], path: str) -> dict[str, Any]:
    """A step's arguments (as a plan's JSON carries them) with PATH replaced by the item's path."""
    return {k: path if v == PATH else v for k, v in arguments.items()}


@attrs.frozen(kw_only=True)
class Plan:
    kind: str
    steps: tuple[Step, ...]
    # whether the Evidence's subject is the input file's own bytes (a JavaScript application's
    # subject is its tree's identity instead), so a changed file can be told from the digest
    subject_is_input: bool = True
    # whether the plan's Evidence records the input's path (in its parameters or results), so the
    # Evidence of a copy read at another path would differ: such items are never shipped to Ray
    path_in_evidence: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "steps": [{"tool": s.tool, "arguments": dict(s.arguments)} for s in self.steps]}


def _opened(tool: str) -> tuple[Step, ...]:
    return (Step(tool="open_binary", arguments={"path": PATH}), Step(tool=tool))


# kind -> the first analysis for it
PLANS: Mapping[str, Plan] = {
    "native": Plan(kind="native", steps=_opened("binary_overview")),
    "archive": Plan(kind="archive", steps=_opened("inventory_artifact")),
    "javascript": Plan(
        kind="javascript",
        steps=(Step(tool="analyze_javascript_application", arguments={"input_path": PATH}),),
        subject_is_input=False,
        path_in_evidence=True,
    ),
    "android": Plan(kind="android", steps=(Step(tool="inspect_android_package", arguments={"path": PATH}),)),
    "managed": Plan(
        kind="managed", steps=(Step(tool="inspect_managed_artifact", arguments={"path": PATH}),), path_in_evidence=True
    ),
    "wasm": Plan(
        kind="wasm", steps=(Step(tool="inspect_wasm_artifact", arguments={"path": PATH}),), path_in_evidence=True
    ),
}

# identified format -> kind; a format absent here is identified only (kind "other", no analysis)
KIND_BY_FORMAT: Mapping[str, str] = {
    "elf": "native",
    "pe": "native",
    "mach-o": "native",
    "mach-o-universal": "native",
    "apk": "android",
    "wasm": "wasm",
    "asar": "javascript",  # an Electron application archive: the JavaScript application is the first question
    "javascript": "javascript-file",  # a lone script is no application (analyze_javascript_application wants one)
    **{fmt: "archive" for fmt in ("zip", "jar", "aab", "aar", "ipa", "whl", "msix", "appx", "crx", "tar", "ar")},
}
OTHER = "other"


def kind_of(fmt: str, managed: bool) -> str:
    """The kind of a file of this format; a PE with a CLI header is a .NET assembly."""
    if fmt == "pe" and managed:
        return "managed"
    return KIND_BY_FORMAT.get(fmt, OTHER)


def plan_for(kind: str) -> Plan | None:
    """The first analysis of a kind, or None when the kind has none (identified only)."""
    return PLANS.get(kind)
