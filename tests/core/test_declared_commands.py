"""The artifact, observe-native-calls, layout, android, managed inspection, native surface, JavaScript runtime, browser
and compare-web-screenshots commands, now declared on their catalog rows (rea.catalog.cli) and built by
effects.derived_commands, make exactly the calls their hand-written commands made.

The expected calls are what the hand-written commands (effects/artifact_commands.py, effects/native_runtime/cli.py,
effects/layout/cli.py, effects/layout/dylib_cli.py, effects/android/cli.py, effects/managed/cli.py,
effects/native/surface_cli.py, effects/javascript/cli.py, effects/javascript/runtime_cli.py, effects/web/cli.py,
effects/web/scripts_cli.py and effects/web_network/cli.py before issue 31's one CLI) answered for the same command
lines; the outputs of real runs were compared byte for byte with those commands when they were replaced.
"""

from __future__ import annotations

import os

import pytest
from returns.result import Result

from effects.commandline import FAMILY_COMMANDS, _parser

OCC = "occ_" + "1" * 64
OTHER = "occ_" + "2" * 64


def _calls(argv: list[str]) -> list[tuple[str, dict[str, object]]]:
    ns = _parser().parse_args(argv)
    command = next(c for c in FAMILY_COMMANDS if c.name == argv[0])
    steps = command.steps(ns)
    steps = steps.unwrap() if isinstance(steps, Result) else steps
    return [(tool, dict(args)) for tool, args in steps]


def _opened(path: str) -> tuple[str, dict[str, object]]:
    return ("open_binary", {"path": os.path.abspath(path)})


CASES = [
    (["inspect-artifact", "a.zip"], [_opened("a.zip"), ("inspect_artifact", {})]),
    (
        [
            "inspect-artifact",
            "a.zip",
            "--detail",
            "summary",
            "--integrity-policy",
            "record-and-continue",
            "--max-entries",
            "9",
            "--max-compression-ratio",
            "2.5",
            "--max-integrity-mismatches",
            "3",
            "--json",
        ],
        [
            _opened("a.zip"),
            (
                "inspect_artifact",
                {
                    "detail": "summary",
                    "integrity_policy": "record-and-continue",
                    "max_entries": 9,
                    "max_compression_ratio": 2.5,
                    "max_integrity_mismatches": 3,
                },
            ),
        ],
    ),
    (
        ["inventory-artifact", "dir", "--node-offset", "1", "--occurrence-limit", "2", "--edge-limit", "3"],
        [_opened("dir"), ("inventory_artifact", {"node_offset": 1, "occurrence_limit": 2, "edge_limit": 3})],
    ),
    (["extract-artifact", "a.zip"], [_opened("a.zip"), ("extract_artifact", {})]),
    (
        ["extract-artifact", "a.zip", OCC, OTHER, "--max-depth", "1"],
        [_opened("a.zip"), ("extract_artifact", {"occurrence_ids": [OCC, OTHER], "max_depth": 1})],
    ),
    (
        ["observe-native-calls", "exe", "--break", "puts", "--break", "open@libc.so.6"],
        [
            _opened("exe"),
            (
                "observe_native_calls",
                {
                    "breakpoints": [
                        {"kind": "function", "name": "puts"},
                        {"kind": "function", "name": "open", "module": "libc.so.6"},
                    ],
                    "arguments": [],
                },
            ),
        ],
    ),
    (
        [
            "observe-native-calls",
            "exe",
            "--break",
            "puts",
            "--arg",
            "hi",
            "--arg",
            "there",
            "--env",
            "X=1",
            "--env",
            "Y=a=b",
            "--cwd",
            "work",
            "--duration-ms",
            "500",
            "--max-events",
            "3",
            "--argument-registers",
            "2",
            "--backtrace-frames",
            "4",
        ],
        [
            _opened("exe"),
            (
                "observe_native_calls",
                {
                    "breakpoints": [{"kind": "function", "name": "puts"}],
                    "arguments": ["hi", "there"],
                    "environment": {"X": "1", "Y": "a=b"},
                    "working_directory": os.path.abspath("work"),
                    "duration_ms": 500,
                    "max_events": 3,
                    "argument_registers": 2,
                    "backtrace_frames": 4,
                },
            ),
        ],
    ),
]


def _path(name: str) -> str:
    return os.path.abspath(name)


CASES += [
    (
        ["inspect-binary-layout", "x", "--architecture", "arm64", "--detail", "summary", "--max-symbols", "3"],
        [
            (
                "inspect_binary_layout",
                {"path": _path("x"), "architecture": "arm64", "detail": "summary", "max_symbols": 3},
            )
        ],
    ),
    (["list-architectures", "a"], [_opened("a"), ("list_architectures", {})]),
    (
        ["inspect-macho", "a", "--architecture", "x86_64", "--max-symbols", "2"],
        [_opened("a"), ("inspect_macho", {"architecture": "x86_64", "max_symbols": 2})],
    ),
    (["demangle-swift", "s1", "s2"], [("demangle_swift", {"symbols": ["s1", "s2"]})]),
    (
        ["inspect-recorded-crash", "core"],
        [("inspect_recorded_crash", {"path": _path("core"), "include_debugger_context": False})],
    ),
    (
        ["inspect-recorded-crash", "core", "--include-debugger-context"],
        [("inspect_recorded_crash", {"path": _path("core"), "include_debugger_context": True})],
    ),
    (
        ["trace-dylib-resolution", "b", "--root", "r1", "--root", "r2", "--max-entries", "5"],
        [_opened("b"), ("trace_dylib_resolution", {"roots": ["r1", "r2"], "max_entries": 5})],
    ),
    (
        ["decode-android-resources", "a.apk", "--no-strings", "--locale", "de", "--deadline-ms", "5"],
        [
            (
                "decode_android_resources",
                {"path": _path("a.apk"), "include_strings": False, "locale": "de", "deadline_ms": 5},
            )
        ],
    ),
    (["inspect-adb-client"], [("inspect_adb_client", {})]),
    (["search-android-classes", "a.apk"], [("search_android_classes", {"path": _path("a.apk"), "query": ""})]),
    (
        ["search-android-classes", "a.apk", "Foo", "--limit", "2"],
        [("search_android_classes", {"path": _path("a.apk"), "query": "Foo", "limit": 2})],
    ),
    (
        ["inspect-android-method", "a.apk", "com.X", "m", "--overload-index", "1"],
        [
            (
                "inspect_android_method",
                {"path": _path("a.apk"), "class_name": "com.X", "method_name": "m", "overload_index": 1},
            )
        ],
    ),
    (
        ["trace-android-references", "a.apk", "com.X"],
        [("trace_android_references", {"path": _path("a.apk"), "class_name": "com.X"})],
    ),
    (
        ["inspect-managed-artifact", "a.dll", "--detail", "summary", "--reference-limit", "2"],
        [("inspect_managed_artifact", {"path": _path("a.dll"), "detail": "summary", "reference_limit": 2})],
    ),
    (
        ["compare-web-screenshots", "a.png", "b.png", "--channel-threshold", "3"],
        [
            (
                "compare_web_screenshots",
                {"before": {"path": _path("a.png")}, "after": {"path": _path("b.png")}, "channel_threshold": 3},
            )
        ],
    ),
]


def _native(path: str, **more: object) -> tuple[str, dict[str, object]]:
    return ("open_binary", {"path": os.path.abspath(path), "provider_id": "auto", **more})


# the native surface commands (effects/native/surface_cli.py before issue 31"s one CLI)
CASES += [
    (["read-bytes", "a.out", "0x1000"], [_native("a.out"), ("read_bytes", {"address": "0x1000", "length": 256})]),
    (
        ["read-bytes", "a.out", "0x1000", "--length", "16", "--provider", "fast-index"],
        [_native("a.out", provider_id="fast-index"), ("read_bytes", {"address": "0x1000", "length": 16})],
    ),
    (
        ["address-to-file-offset", "a.out", "0x1000", "--architecture", "arm64"],
        [_native("a.out", architecture="arm64"), ("address_to_file_offset", {"address": "0x1000"})],
    ),
    (
        ["inspect-native-instruction", "a.out", "0x1000"],
        [_native("a.out"), ("inspect_native_instruction", {"address": "0x1000"})],
    ),
    (
        ["resolve-native-call-targets", "a.out", "0x1000"],
        [_native("a.out"), ("resolve_native_call_targets", {"address": "0x1000"})],
    ),
    (["comment", "a.out", "0x1000"], [_native("a.out"), ("comment", {"address": "0x1000"})]),
    (["list-bookmarks", "a.out"], [_native("a.out"), ("list_bookmarks", {})]),
    (
        [
            "annotate-native-function",
            "a.out",
            "main",
            "--name",
            "m",
            "--inline-comment",
            "x",
            "--calling-convention",
            "cdecl",
        ],
        [
            _native("a.out"),
            (
                "annotate_native_function",
                {"calling_convention": "cdecl", "inline_comment": "x", "name": "m", "procedure": "main"},
            ),
        ],
    ),
    (
        ["annotate-native-function", "a.out", "0x1000", "--comment", "c", "--signature", "int f(void)"],
        [
            _native("a.out"),
            ("annotate_native_function", {"comment": "c", "procedure": "0x1000", "signature": "int f(void)"}),
        ],
    ),
]


# the JavaScript runtime commands (effects/javascript/runtime_cli.py before issue 31's one CLI)
CASES += [
    (
        ["list-electron-targets", "http://127.0.0.1:9223"],
        [("list_electron_targets", {"cdp_endpoint": "http://127.0.0.1:9223"})],
    ),
    (
        ["inspect-electron-page", "http://127.0.0.1:9223", "T1"],
        [("inspect_electron_page", {"cdp_endpoint": "http://127.0.0.1:9223", "target_id": "T1"})],
    ),
    (
        ["inspect-electron-page", "http://127.0.0.1:9223", "T1", "--observation-ms", "50", "--include-script-sources"],
        [
            (
                "inspect_electron_page",
                {
                    "cdp_endpoint": "http://127.0.0.1:9223",
                    "include_script_sources": True,
                    "observation_ms": 50,
                    "target_id": "T1",
                },
            )
        ],
    ),
    (
        ["list-javascript-runtime-targets", "http://127.0.0.1:9229"],
        [("list_javascript_runtime_targets", {"inspector_endpoint": "http://127.0.0.1:9229"})],
    ),
    (
        ["observe-javascript-runtime", "http://127.0.0.1:9229", "T2"],
        [("observe_javascript_runtime", {"inspector_endpoint": "http://127.0.0.1:9229", "target_id": "T2"})],
    ),
    (
        [
            "observe-javascript-runtime",
            "http://127.0.0.1:9229",
            "T2",
            "--observation-ms",
            "10",
            "--runtime-kind",
            "electron-main",
        ],
        [
            (
                "observe_javascript_runtime",
                {
                    "inspector_endpoint": "http://127.0.0.1:9229",
                    "observation_ms": 10,
                    "runtime_kind": "electron-main",
                    "target_id": "T2",
                },
            )
        ],
    ),
    (["recover-javascript-sources", "b.js"], [("recover_javascript_sources", {"path": _path("b.js")})]),
    (
        [
            "recover-javascript-sources",
            "b.js",
            "--output-directory",
            "out",
            "--extraction-mode",
            "heuristic",
            "--source-root",
            "src",
        ],
        [
            (
                "recover_javascript_sources",
                {
                    "extraction_mode": "heuristic",
                    "output_directory": _path("out"),
                    "path": _path("b.js"),
                    "source_root": _path("src"),
                },
            )
        ],
    ),
]


# the browser commands (effects/web/cli.py before issue 31's one CLI)
CASES += [
    (
        ["list-browser-targets", "http://127.0.0.1:9222"],
        [("list_browser_targets", {"allowed_origins": [], "cdp_endpoint": "http://127.0.0.1:9222"})],
    ),
    (
        ["list-browser-targets", "http://127.0.0.1:9222", "--origin", "http://a.test", "--origin", "http://b.test"],
        [
            (
                "list_browser_targets",
                {"allowed_origins": ["http://a.test", "http://b.test"], "cdp_endpoint": "http://127.0.0.1:9222"},
            )
        ],
    ),
    (
        ["inspect-web-page", "http://127.0.0.1:9222", "T"],
        [("inspect_web_page", {"allowed_origins": [], "cdp_endpoint": "http://127.0.0.1:9222", "target_id": "T"})],
    ),
    (
        [
            "inspect-web-page",
            "http://127.0.0.1:9222",
            "T",
            "--observation-ms",
            "5",
            "--include-console-text",
            "--include-script-sources",
            "--origin",
            "http://a.test",
        ],
        [
            (
                "inspect_web_page",
                {
                    "allowed_origins": ["http://a.test"],
                    "cdp_endpoint": "http://127.0.0.1:9222",
                    "include_console_text": True,
                    "include_script_sources": True,
                    "observation_ms": 5,
                    "target_id": "T",
                },
            )
        ],
    ),
    (
        ["discover-webmcp-tools", "http://127.0.0.1:9222", "T"],
        [("discover_webmcp_tools", {"allowed_origins": [], "cdp_endpoint": "http://127.0.0.1:9222", "target_id": "T"})],
    ),
    (
        ["discover-webmcp-tools", "http://127.0.0.1:9222", "T", "--observation-ms", "7"],
        [
            (
                "discover_webmcp_tools",
                {"allowed_origins": [], "cdp_endpoint": "http://127.0.0.1:9222", "observation_ms": 7, "target_id": "T"},
            )
        ],
    ),
    (
        ["capture-web-screenshot", "http://127.0.0.1:9222", "T"],
        [
            (
                "capture_web_screenshot",
                {
                    "allowed_origins": [],
                    "approved": True,
                    "cdp_endpoint": "http://127.0.0.1:9222",
                    "screenshot_approved": True,
                    "target_id": "T",
                },
            )
        ],
    ),
    (
        ["capture-web-screenshot", "http://127.0.0.1:9222", "T", "--origin", "http://a.test"],
        [
            (
                "capture_web_screenshot",
                {
                    "allowed_origins": ["http://a.test"],
                    "approved": True,
                    "cdp_endpoint": "http://127.0.0.1:9222",
                    "screenshot_approved": True,
                    "target_id": "T",
                },
            )
        ],
    ),
    (
        ["inspect-web-event-listeners", "http://127.0.0.1:9222", "T", "#go"],
        [
            (
                "inspect_web_event_listeners",
                {"allowed_origins": [], "cdp_endpoint": "http://127.0.0.1:9222", "selector": "#go", "target_id": "T"},
            )
        ],
    ),
    (
        ["observe-web-execution", "http://127.0.0.1:9222", "T", "--observation-ms", "9"],
        [
            (
                "observe_web_execution",
                {"allowed_origins": [], "cdp_endpoint": "http://127.0.0.1:9222", "observation_ms": 9, "target_id": "T"},
            )
        ],
    ),
    (
        ["observe-web-session", "http://127.0.0.1:9222", "T"],
        [
            (
                "observe_web_session",
                {"allowed_origins": [], "approved": True, "cdp_endpoint": "http://127.0.0.1:9222", "target_id": "T"},
            )
        ],
    ),
    (
        ["observe-web-session", "http://127.0.0.1:9222", "T", "--observation-ms", "11", "--origin", "http://a.test"],
        [
            (
                "observe_web_session",
                {
                    "allowed_origins": ["http://a.test"],
                    "approved": True,
                    "cdp_endpoint": "http://127.0.0.1:9222",
                    "observation_ms": 11,
                    "target_id": "T",
                },
            )
        ],
    ),
]


# the script export command (effects/web/scripts_cli.py before issue 31's one CLI)
CASES += [
    (["export-web-scripts", "cap.json"], [("export_web_scripts", {"capture_path": _path("cap.json")})]),
    (
        ["export-web-scripts", "cap.json", "--output-directory", "out"],
        [("export_web_scripts", {"capture_path": _path("cap.json"), "output_directory": _path("out")})],
    ),
]


# the application analysis command (effects/javascript/cli.py before issue 31's one CLI)
CASES += [
    (
        ["analyze-javascript-application", "app"],
        [
            (
                "analyze_javascript_application",
                {"detail": "summary", "format": "auto", "input_path": _path("app"), "integrity_policy": "fail"},
            )
        ],
    ),
    (
        [
            "analyze-javascript-application",
            "app",
            "--detail",
            "complete",
            "--integrity-policy",
            "record-and-continue",
            "--input-format",
            "asar",
        ],
        [
            (
                "analyze_javascript_application",
                {
                    "detail": "complete",
                    "format": "asar",
                    "input_path": _path("app"),
                    "integrity_policy": "record-and-continue",
                },
            )
        ],
    ),
    (
        ["analyze-javascript-application", "app", "--integrity-policy", "fail-closed", "--input-format", "directory"],
        [
            (
                "analyze_javascript_application",
                {
                    "detail": "summary",
                    "format": "directory",
                    "input_path": _path("app"),
                    "integrity_policy": "fail-closed",
                },
            )
        ],
    ),
]


@pytest.mark.parametrize(("argv", "expected"), CASES, ids=[" ".join(a[:3]) for a, _ in CASES])
def test_a_declared_command_makes_the_calls_its_hand_written_command_made(argv, expected):
    assert _calls(argv) == expected


def test_observe_native_calls_still_needs_a_breakpoint():
    with pytest.raises(SystemExit) as stopped:
        _parser().parse_args(["observe-native-calls", "exe"])
    assert stopped.value.code == 2


@pytest.mark.parametrize(
    "argv",
    [
        ["demangle-swift"],
        ["inspect-binary-layout"],
        ["inspect-android-class", "a.apk"],
        ["compare-web-screenshots", "a"],
    ],
)
def test_a_declared_command_still_needs_its_positionals(argv):
    with pytest.raises(SystemExit) as stopped:
        _parser().parse_args(argv)
    assert stopped.value.code == 2
