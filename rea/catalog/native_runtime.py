"""Contract of observe_native_calls: entries into functions of the open target, observed under Debian's LLDB."""

from __future__ import annotations

from rea.wire.native_runtime import NativeCallObservation, ObserveNativeCallsArgs
from rea.wire.tool import evidence_tool

OBSERVE_NATIVE_CALLS = evidence_tool(
    "observe_native_calls",
    "Observe Native Calls",
    (
        "Launch the open target (a Linux ELF executable) as an owned process under Debian's LLDB and record each "
        "entry into caller-selected functions: thread, module, symbol, load and file address, raw argument "
        "registers and optional caller frames. Every hit auto-continues; no expression is evaluated and no other "
        "process is attached. The process is killed when max_events or duration_ms is reached, and on cancel or "
        "close; exit status, captured stdout/stderr, unresolved breakpoints and limitations are returned inline. "
        "It runs the target's code with REA's permissions: it may change files or use the network. Objective-C "
        "method breakpoints are accepted and reported unresolved (no Objective-C runtime on Linux). Without LLDB "
        "the call fails with capability_unavailable and the install step."
    ),
    args=ObserveNativeCallsArgs,
    result=NativeCallObservation,
    examples=[
        {"breakpoints": [{"kind": "function", "name": "open", "module": "libc.so.6"}], "duration_ms": 5000},
        {
            "breakpoints": [
                {
                    "kind": "objc-method",
                    "class_name": "NSURLSession",
                    "selector": "dataTaskWithRequest:completionHandler:",
                },
                {"kind": "function", "name": "open", "module": "libsystem_kernel.dylib"},
            ],
            "arguments": ["--help"],
            "duration_ms": 5000,
            "backtrace_frames": 4,
        },
    ],
    surface="native-provider",
    effects={"mutatesSession", "launchesProcess", "executesForeignCode"},
    needs="target",
)

CLI_COMMANDS = ("observe-native-calls",)
TOOLS = (OBSERVE_NATIVE_CALLS,)
