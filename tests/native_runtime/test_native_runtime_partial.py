"""observe_native_calls keeps what it saw when it fails or is cancelled (issue 30, item 9).

A gcc-built program calls `tick(i)` and prints in a loop; cancelled through the MCP SDK once
LLDB has reported entries, the call answers `cancelled` and retains partial Evidence whose
events are the loop's own (tick's argument counts up from 0, as the source says), found again
with get_evidence_bundle's operation filter because the SDK stops waiting at the cancel. A
target LLDB cannot launch (an ELF without execute permission) fails with the Evidence of what
was observed named in details.partial_observation. A group that will not die cannot be made
for real here (REA runs as root, SIGKILL reaches everything), so that path drives the real
LLDB run with process_group.terminate answering a survivor.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess

import anyio
import psutil
import pytest

from mcp_client import connect, error

LOOP = r"""
#include <stdio.h>
#include <unistd.h>
__attribute__((noinline)) void tick(long i) { printf("tick %ld\n", i); fflush(stdout); }
int main(void) { for (long i = 0;; i++) { tick(i); usleep(20000); } }
"""
needs_lldb = pytest.mark.skipif(shutil.which("lldb") is None, reason="Debian lldb is not installed")
TICK = [{"kind": "function", "name": "tick"}]


@pytest.fixture(scope="module")
def loop(tmp_path_factory):
    root = tmp_path_factory.mktemp("loop")
    (root / "loop.c").write_text(LOOP)
    subprocess.run(["gcc", "-O1", "-o", str(root / "loop"), str(root / "loop.c")], check=True)
    return root / "loop"


def _gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


async def _retained(s, evidence_id: str | None = None) -> dict:
    """The partial observe_native_calls record, found as the contract tells a client whose SDK stopped waiting."""
    found = await s.call_tool(
        "get_evidence_bundle", {"detail": "summary", "filters": {"operation": "observe_native_calls"}}
    )
    ids = [r["evidence_id"] for r in found.structured_content["result"]["records"]]
    assert len(ids) == 1 and (evidence_id is None or ids == [evidence_id])
    bundle = await s.call_tool("get_evidence_bundle", {})
    records = json.loads(bundle.content[0].text)["result"]["records"]
    (kept,) = [r for r in records if r["evidence_id"] == ids[0]]
    return kept


@pytest.mark.slow
@needs_lldb
def test_a_cancel_mid_observation_retains_the_calls_seen(loop, tmp_path):
    seen: list[int] = []

    async def main():
        async with connect(TMPDIR=str(tmp_path)) as s:
            await s.call_tool("open_binary", {"path": str(loop)})
            with anyio.CancelScope() as scope:

                async def on_progress(progress, total, message):
                    found = re.search(r"pid (\d+) under LLDB", message or "")
                    if found and not seen:
                        seen.append(int(found.group(1)))
                        await anyio.sleep(1.0)  # let the loop tick under LLDB a few dozen times
                        scope.cancel()

                args = {"breakpoints": TICK, "duration_ms": 120_000, "max_events": 100_000, "argument_registers": 1}
                await s.call_tool("observe_native_calls", args, progress_callback=on_progress)
            for _ in range(400):  # the server unwinds the cancelled call asynchronously
                if seen and _gone(seen[0]):
                    found = await s.call_tool(
                        "get_evidence_bundle", {"detail": "summary", "filters": {"operation": "observe_native_calls"}}
                    )
                    if "observe_native_calls" in found.content[0].text:
                        break
                await anyio.sleep(0.05)
            return scope.cancelled_caught, await _retained(s)

    cancelled, kept = anyio.run(main)
    assert cancelled and seen and _gone(seen[0])
    result = kept["normalized_result"]
    assert result["interrupted"] == {"reason": "cancelled"} and result["coverage"]["status"] == "partial"
    assert kept["limitations"][0].startswith("Partial: the call was cancelled")
    ticks = [int(e["registers"][0]["value"], 16) for e in result["events"]]
    assert len(ticks) >= 3 and ticks == list(range(len(ticks)))  # the source's argument: 0, 1, 2, ...
    assert result["process"]["pid"] == seen[0] and result["process"]["terminated"] is True
    printed = result["process"]["stdout"]["text"].splitlines()
    assert printed and printed == [f"tick {i}" for i in range(len(printed))]


@pytest.mark.slow
@needs_lldb
def test_a_launch_failure_names_what_was_observed(loop, tmp_path):
    target = tmp_path / "not-executable"
    shutil.copy(loop, target)
    os.chmod(target, 0o644)

    async def main():
        async with connect(TMPDIR=str(tmp_path)) as s:
            await s.call_tool("open_binary", {"path": str(target)})
            failed = await s.call_tool("observe_native_calls", {"breakpoints": TICK})
            return failed, await _retained(s)

    failed, kept = anyio.run(main)
    body = error(failed, "process_capture_failed")
    assert body["details"]["partial_observation"] == {"kind": "retained-evidence", "evidence_id": kept["evidence_id"]}
    result = kept["normalized_result"]
    assert result["interrupted"] == {"reason": "launch-failed"} and result["process"] is None
    assert result["events"] == [] and result["coverage"]["status"] == "partial"
    assert kept["limitations"][0].startswith("Partial: LLDB could not launch")
    assert result["debugger"]["version"] and result["target"]["launch_identity"]["stable"] is True


@pytest.mark.slow
@needs_lldb
def test_a_cleanup_failure_keeps_the_observation_and_names_the_survivor(loop, tmp_path, monkeypatch):
    from effects import process_group
    from effects.calls import Connection, call_tool
    from scripted import CTX

    real = process_group.terminate

    async def survivor(process):
        await real(process)  # the group really is stopped; REA is told one member survived
        return ["process 4242 (group 4242)"]

    monkeypatch.setattr(process_group, "terminate", survivor)
    conn = Connection(ctx=CTX)

    async def main():
        await call_tool(conn, "open_binary", {"path": str(loop)}, None)
        return await call_tool(
            conn, "observe_native_calls", {"breakpoints": TICK, "max_events": 3, "argument_registers": 1}, None
        )

    reply = anyio.run(main)
    failure = reply.failure()
    assert failure.code == "cleanup_incomplete" and failure.details["remaining"] == ["process 4242 (group 4242)"]
    kept = conn.session.evidence[failure.details["partial_observation"]["evidence_id"]]
    result = kept.normalized_result
    assert result["interrupted"] == {"reason": "cleanup-incomplete"} and result["coverage"]["status"] == "partial"
    assert [int(e["registers"][0]["value"], 16) for e in result["events"]] == [0, 1, 2]
    assert result["process"]["terminated"] is False


def test_the_partial_record_says_what_ended_it():
    """Pure: a launch that made no process reports process null; every partial record is partial."""
    from rea.native_runtime.observation import partial_result
    from rea.native_runtime.records import ObserveNativeCallsArgs
    from rea.wire.convert import structure

    facts = {
        "lines": [{"type": "debugger", "version": "lldb 14"}, {"type": "failed", "reason": "launch"}],
        "pid": None,
        "resource_limit": False,
        "terminated": True,
        "elapsed_ms": 12.0,
        "stdout": {"text": "", "bytes": 0, "truncated": False, "complete": True},
        "stderr": {"text": "", "bytes": 0, "truncated": False, "complete": True},
        "debugger": {"path": "/usr/bin/lldb", "sha256": "0" * 64, "version": "lldb 14"},
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
    wire = {"breakpoints": TICK, "arguments": [], "environment": {}, "max_events": 10}
    args = structure(wire, ObserveNativeCallsArgs).unwrap()
    launch = partial_result(args, {**facts, "interrupted": {"reason": "launch-failed"}})
    assert launch["process"] is None and launch["events"] == [] and launch["coverage"]["status"] == "partial"
    assert launch["limitations"][0].startswith("Partial: LLDB could not launch")
    exited = {**facts, "pid": 7, "lines": [{"type": "started", "pid": 7}, {"type": "finished", "outcome": "exited"}]}
    cleanup = partial_result(args, {**exited, "interrupted": {"reason": "cleanup-incomplete"}})
    assert cleanup["process"]["outcome"] == "exited" and cleanup["coverage"]["status"] == "partial"
    assert cleanup["interrupted"] == {"reason": "cleanup-incomplete"}
