"""observe_native_calls: a gcc-built program whose calls and arguments are known, launched under Debian's LLDB.

Ground truth is the source (the arguments each call receives, the exit status, what it
prints) and binutils nm for the functions' file addresses; the process's end is checked
with psutil, not taken from LLDB's word.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import time

import anyio
import psutil
import pytest

from mcp_client import connect, error, evidence
from rea.native_runtime.observation import observation_result
from rea.native_runtime.records import ObserveNativeCallsArgs
from rea.wire.convert import structure
from support import clean_env, rea_command

SOURCE = r"""
#include <stdio.h>
#include <unistd.h>
#include <string.h>
__attribute__((noinline)) long add3(long a, long b, long c) { return a + b + c; }
__attribute__((noinline)) void greet(const char *s, int n) { printf("%s %d\n", s, n); }
int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "wait") == 0) { for (;;) pause(); }
    long total = 0;
    for (int i = 0; i < 3; i++) total += add3(i, 10 + i, 100 + i);
    greet("hi", argc);
    return (int)(total % 7) + 3;
}
"""
needs_lldb = pytest.mark.skipif(shutil.which("lldb") is None, reason="Debian lldb is not installed")


def program(tmp_path):
    src = tmp_path / "calls.c"
    src.write_text(SOURCE)
    exe = tmp_path / "calls"
    subprocess.run(["gcc", "-O1", "-o", str(exe), str(src)], check=True)
    return exe


def nm(exe) -> dict[str, int]:
    out = subprocess.run(["nm", str(exe)], capture_output=True, text=True, check=True).stdout
    return {p[2]: int(p[0], 16) for p in (line.split() for line in out.splitlines()) if len(p) == 3}


def _gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


BREAKS = [
    {"kind": "function", "name": "add3"},
    {"kind": "function", "name": "greet"},
    {"kind": "function", "name": "no_such_function"},
    {"kind": "objc-method", "selector": "length", "class_name": "NSString"},
]


@pytest.mark.slow
@needs_lldb
def test_calls_arguments_and_exit_over_mcp(tmp_path):
    exe = program(tmp_path)
    addresses = nm(exe)

    async def main():
        async with connect(TMPDIR=str(tmp_path)) as s:
            await s.call_tool("open_binary", {"path": str(exe)})
            out = {
                "full": await s.call_tool(
                    "observe_native_calls",
                    {
                        "breakpoints": BREAKS,
                        "arguments": ["x"],
                        "environment": {"REA_TEST_MARK": "1"},
                        "argument_registers": 3,
                        "backtrace_frames": 1,
                    },
                ),
                "limited": await s.call_tool(
                    "observe_native_calls", {"breakpoints": BREAKS[:1], "max_events": 2, "argument_registers": 1}
                ),
                "window": await s.call_tool(
                    "observe_native_calls",
                    {"breakpoints": [{"kind": "function", "name": "greet"}], "arguments": ["wait"], "duration_ms": 300},
                ),
                "session": await s.call_tool("binary_session", {}),
            }
            return out

    out = anyio.run(main)
    full = evidence(out["full"])["normalized_result"]
    process = full["process"]
    assert process["outcome"] == "exited" and process["exit_status"] == 6 and process["terminated"]
    assert process["stdout"]["text"] == "hi 2\n" and _gone(process["pid"])
    calls = [(e["symbol"], [int(r["value"], 16) for r in e["registers"]]) for e in full["events"]]
    assert calls[:3] == [("add3", [i, 10 + i, 100 + i]) for i in range(3)]
    assert calls[3][0] == "greet" and calls[3][1][1] == 2  # argc
    for event in full["events"]:
        assert int(event["file_address"], 16) == addresses[event["symbol"]]
        assert [f["symbol"] for f in event["backtrace"]] == ["main"]
    assert full["coverage"]["unresolved_breakpoints"] == [2, 3] and full["coverage"]["status"] == "complete"
    assert full["breakpoints"][0]["locations"][0]["symbol"] == "add3"
    assert any("Objective-C" in t for t in full["limitations"])
    assert full["target"]["launch_identity"]["stable"] and full["target"]["environment"] == {"REA_TEST_MARK": "1"}

    limited = evidence(out["limited"])["normalized_result"]
    assert limited["process"]["outcome"] == "event-limit" and len(limited["events"]) == 2
    assert limited["process"]["terminated"] and _gone(limited["process"]["pid"])
    assert limited["coverage"] == {
        "status": "partial",
        "event_limit_reached": True,
        "resource_limit_reached": False,
        "breakpoint_locations_truncated": False,
        "unresolved_breakpoints": [],
    }
    window = evidence(out["window"])["normalized_result"]
    assert window["process"]["outcome"] == "duration-elapsed" and window["events"] == []
    assert window["process"]["terminated"] and _gone(window["process"]["pid"])
    lineage = out["session"].structured_content["result"].get("analysis_run") or {}
    snapshots = (lineage.get("process_lineage") or {}).get("snapshots", [])
    assert any(s["provider"]["id"] == "lldb" for s in snapshots), lineage


@pytest.mark.slow
def test_without_lldb_the_answer_is_typed_unavailability(tmp_path):
    exe = program(tmp_path)

    async def main():
        async with connect(TMPDIR=str(tmp_path), REA_LLDB=str(tmp_path / "no-lldb")) as s:
            await s.call_tool("open_binary", {"path": str(exe)})
            return await s.call_tool("observe_native_calls", {"breakpoints": BREAKS[:1]})

    body = error(anyio.run(main), "capability_unavailable")
    assert body["details"]["reason"] == "provider_missing" and "apt-get install lldb" in body["remediation"]["action"]


@pytest.mark.slow
@needs_lldb
def test_observe_native_calls_cli(tmp_path):
    exe = program(tmp_path)
    run = subprocess.run(
        [*rea_command(), "observe-native-calls", str(exe), "--break", "add3", "--max-events", "1", "--json"],
        capture_output=True,
        text=True,
        env=clean_env(),
    )
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)["normalized_result"]
    assert [e["symbol"] for e in result["events"]] == ["add3"] and result["process"]["outcome"] == "event-limit"


def test_an_observation_without_lldbs_last_word_is_partial():
    facts = {
        "lines": [{"type": "started", "pid": 5}],
        "pid": 5,
        "resource_limit": False,
        "terminated": True,
        "elapsed_ms": 70_000.0,
        "stdout": {"text": "", "bytes": 0, "truncated": False, "complete": True},
        "stderr": {"text": "", "bytes": 0, "truncated": False, "complete": True},
        "debugger": {"path": "/usr/bin/lldb", "sha256": "0" * 64, "version": None},
        "target": {
            "path": "/x",
            "sha256": "1" * 64,
            "architecture": "x86_64",
            "file_device": "1",
            "file_inode": "2",
            "stable": True,
        },
        "notes": [],
    }
    args = {
        "breakpoints": [{"kind": "function", "name": "f"}],
        "arguments": [],
        "environment": {},
        "max_events": 10,
    }
    got = observation_result(structure(args, ObserveNativeCallsArgs).unwrap(), facts)
    assert got["process"]["outcome"] == "duration-elapsed" and got["coverage"]["status"] == "partial"
    assert got["coverage"]["unresolved_breakpoints"] == [0]
    assert any("did not report the end" in t for t in got["limitations"])


@pytest.mark.slow
@needs_lldb
def test_a_cancelled_observation_leaves_no_process(tmp_path):
    exe = program(tmp_path)
    seen: list[int] = []

    async def main():
        async with connect(TMPDIR=str(tmp_path)) as s:
            await s.call_tool("open_binary", {"path": str(exe)})
            with anyio.CancelScope() as scope:

                async def on_progress(progress, total, message):
                    found = re.search(r"pid (\d+) under LLDB", message or "")
                    if found:  # the process runs under LLDB: cancel now
                        seen.append(int(found.group(1)))
                        scope.cancel()

                args = {"breakpoints": BREAKS[:1], "arguments": ["wait"], "duration_ms": 120_000}
                await s.call_tool("observe_native_calls", args, progress_callback=on_progress)
            for _ in range(200):  # the server unwinds the cancelled call asynchronously
                if seen and _gone(seen[0]):
                    break
                await anyio.sleep(0.05)
            after = await s.call_tool("binary_session", {})
            return scope.cancelled_caught, after

    cancelled, after = anyio.run(main)
    assert cancelled and seen and _gone(seen[0])
    assert after.is_error is False  # the connection survived the cancel


@pytest.mark.slow
@needs_lldb
def test_when_rea_itself_is_killed_the_observed_process_dies_too(tmp_path):
    """SIGKILL leaves REA no time to clean up: the bridge dies with its parent and takes LLDB and the target."""
    exe = program(tmp_path)
    cli = subprocess.Popen(
        [
            *rea_command(),
            "observe-native-calls",
            str(exe),
            "--break",
            "greet",
            "--arg",
            "wait",
            "--duration-ms",
            "120000",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=clean_env(),
    )
    pid = None
    for line in cli.stderr:  # progress lines: the launched pid is reported once it runs under LLDB
        found = re.search(r"pid (\d+) under LLDB", line)
        if found:
            pid = int(found.group(1))
            break
    cli.kill()
    cli.wait()
    assert pid is not None
    for _ in range(200):
        if _gone(pid):
            break
        time.sleep(0.05)
    assert _gone(pid)
