"""Contract of the process-capture family (capture_process_scenario, compare_process_captures)."""

from __future__ import annotations

from rea.process_capture.records import CaptureArgs, CompareCapturesArgs
from rea.process_capture.results import CaptureComparison, ProcessCapture
from rea.wire.tool import evidence_tool

_EXAMPLE = {"approved": True, "executable": "/usr/bin/true", "working_directory": "/tmp", "arguments": []}
_LEFT = "ev_" + "1" * 64
_RIGHT = "ev_" + "2" * 64

CAPTURE_PROCESS_SCENARIO = evidence_tool(
    "capture_process_scenario",
    "Capture Process Scenario",
    (
        "Run a local executable (approved: true) as an owned process group on a pseudo-terminal in a private "
        "network namespace (none, or loopback only), with only the declared environment, timed events, command "
        "shims and a reactive machine on its terminal. Records exit, terminal frames, the group's "
        "processes, shim calls, file changes and checkpoints under filesystem_roots; the group is killed at its "
        "limits, cancel or close and verified gone. No replay."
    ),
    args=CaptureArgs,
    result=ProcessCapture,
    examples=[_EXAMPLE],
    surface="runtime-provider",
    effects={"mutatesSession", "launchesProcess", "executesForeignCode", "writesFilesystem"},
)
COMPARE_PROCESS_CAPTURES = evidence_tool(
    "compare_process_captures",
    "Compare Process Captures",
    (
        "Compare two retained capture_process_scenario Evidence of one scenario (only executable and arguments "
        "may differ): per dimension (terminal, "
        "interaction, exit, filesystem, protocol, process, shim) unchanged, added, removed, changed or unknown, "
        "and the first divergence. A dimension either capture did not observe completely is unknown, never "
        "unchanged."
    ),
    args=CompareCapturesArgs,
    result=CaptureComparison,
    examples=[{"left_evidence_id": _LEFT, "right_evidence_id": _RIGHT}],
    surface="runtime-provider",
    effects={"mutatesSession", "idempotent"},
)

CLI_COMMANDS: tuple[str, ...] = ()
TOOLS = (CAPTURE_PROCESS_SCENARIO, COMPARE_PROCESS_CAPTURES)
