"""Contract of observe_native_calls: entries into functions of the open target, observed under Debian's LLDB."""

from __future__ import annotations

from rea.catalog.cli import Alias, Command, Opens
from rea.native_runtime import text
from rea.native_runtime.records import NativeCallObservation, ObserveNativeCallsArgs
from rea.wire.tool import evidence_tool

OBSERVE_NATIVE_CALLS = evidence_tool(
    "observe_native_calls",
    "Observe Native Calls",
    (
        "Launch the open Linux ELF executable as an owned process under LLDB and record each entry into "
        "chosen functions: thread, module, symbol, load and file address, argument registers and optional "
        "caller frames. Hits auto-continue; nothing is evaluated or attached. The process is killed at "
        "max_events or duration_ms, on cancel or on close; exit status, stdout/stderr and unresolved "
        "breakpoints are returned. It runs the target's code with REA's permissions (files, network). "
        "Objective-C breakpoints are reported unresolved. Without LLDB: capability_unavailable with the "
        "install step."
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
    cli=Command(
        name="observe-native-calls",
        help="launch an ELF under LLDB and record entries into functions (observe_native_calls)",
        opens=Opens(help="Linux ELF executable to launch"),
        aliases=(
            Alias(
                option="--break",
                argument="breakpoints",
                repeat=True,
                required=True,
                metavar="NAME[@MODULE]",
                help="function to observe",
                value=text.breakpoints_of,
            ),
            Alias(
                option="--env",
                argument="environment",
                repeat=True,
                metavar="NAME=VALUE",
                help="environment override",
                value=text.environment_of,
            ),
            Alias(option="--cwd", argument="working_directory", path=True, help="working directory of the process"),
            Alias(option="--arg", argument="arguments", repeat=True, help="one argument for the process"),
        ),
        defaults={"arguments": []},
        render=text.render,
    ),
)

TOOLS = (OBSERVE_NATIVE_CALLS,)
