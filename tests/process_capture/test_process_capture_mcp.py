"""capture_process_scenario through the real MCP server and the `rea call` command line: a run, a compare, and a
`sleep` that a client cancel, a server exit or a SIGINT to the CLI ends, checked by pid and process group with
psutil (nothing of the group survives) and by the cache directory (no scratch is left)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import anyio
import psutil
import pytest

from mcp_client import connect
from support import clean_env, rea_command

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]


def _env(cache: Path) -> dict[str, str]:
    return {"REA_CACHE_DIR": str(cache), "PYTHONPATH": str(ROOT)}


def _find(argv: list[str]) -> psutil.Process | None:
    for proc in psutil.process_iter(["cmdline"]):
        if proc.info["cmdline"] == argv:
            return proc
    return None


def _alive_in_group(group: int) -> list[int]:
    found = []
    for proc in psutil.process_iter():
        try:
            if os.getpgid(proc.pid) == group and proc.status() != psutil.STATUS_ZOMBIE:
                found.append(proc.pid)
        except (ProcessLookupError, psutil.Error):
            continue
    return found


async def _wait_for(argv: list[str]) -> psutil.Process:
    for _ in range(400):
        proc = _find(argv)
        if proc is not None:
            return proc
        await anyio.sleep(0.025)
    raise AssertionError(f"{argv} never started")


def _wait_gone(pid: int, group: int) -> None:
    for _ in range(200):
        if not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
            if not _alive_in_group(group):
                return
        time.sleep(0.025)
    raise AssertionError(f"process {pid} (group {group}) survived: {_alive_in_group(group)}")


def _scratch(cache: Path) -> list[str]:
    base = cache / "process-capture"
    return sorted(os.listdir(base)) if base.exists() else []


async def _start_then_stop(s, tmp_path: Path, marker: list[str]) -> tuple[int, int]:
    """Start a long capture, wait for its process, then cancel the call; the (pid, group) it had."""
    args = {"approved": True, "executable": marker[0], "arguments": marker[1:], "working_directory": str(tmp_path),
            "timeout_ms": 120_000, "idle_timeout_ms": 120_000}  # fmt: skip
    async with anyio.create_task_group() as group:
        group.start_soon(s.call_tool, "capture_process_scenario", args)
        proc = await _wait_for(marker)
        seen = proc.pid, os.getpgid(proc.pid)
        group.cancel_scope.cancel()
    return seen


def test_capture_compare_and_a_client_cancel_over_mcp(tmp_path):
    cache = tmp_path / "cache"
    marker = ["/bin/sleep", f"1000.{os.getpid()}1"]

    async def main():
        async with connect(**_env(cache)) as s:
            seen = await _start_then_stop(s, tmp_path, marker)
            _wait_gone(*seen)  # gone while the server still runs: the cancel stopped it
            for _ in range(100):  # the partial capture is retained once the server has unwound the call
                state = (await s.call_tool("binary_session", {})).structured_content["result"]
                if state["ledger"]["records"] == 1:
                    break
                await anyio.sleep(0.05)
            assert state["ledger"]["records"] == 1, state["ledger"]
            args = {"approved": True, "executable": "/bin/sh", "working_directory": str(tmp_path),
                    "arguments": ["-c", "echo out; exit 4"]}  # fmt: skip
            left = await s.call_tool("capture_process_scenario", args)  # the server goes on after the cancel
            right = await s.call_tool("capture_process_scenario", {**args, "arguments": ["-c", "echo out; exit 5"]})
            ids = {"left_evidence_id": left.structured_content["evidence_id"],
                   "right_evidence_id": right.structured_content["evidence_id"]}  # fmt: skip
            compared = await s.call_tool("compare_process_captures", ids)
            return seen, left.structured_content, compared.structured_content

    (pid, pgid), left, compared = anyio.run(main)
    assert pid == pgid  # the capture led its own group
    _wait_gone(pid, pgid)
    assert left["normalized_result"]["exit"] == {"code": 4, "signal": None, "reason": "exited"}
    assert compared["normalized_result"]["exit"] == "changed"
    assert compared["evidence_links"] == [left["evidence_id"], compared["normalized_result"]["right_evidence_id"]]
    assert _scratch(cache) == []


def test_a_capture_abandoned_by_a_server_exit_leaves_nothing_running(tmp_path):
    cache = tmp_path / "cache"
    marker = ["/bin/sleep", f"1000.{os.getpid()}2"]

    async def main():
        async with connect(**_env(cache)) as s:
            async with anyio.create_task_group() as group:
                args = {"approved": True, "executable": marker[0], "arguments": marker[1:],
                        "working_directory": str(tmp_path), "timeout_ms": 120_000}  # fmt: skip
                group.start_soon(s.call_tool, "capture_process_scenario", args)
                proc = await _wait_for(marker)
                seen = proc.pid, os.getpgid(proc.pid)
                group.cancel_scope.cancel()  # then the client closes the pipe: the server exits
        return seen

    pid, pgid = anyio.run(main)
    _wait_gone(pid, pgid)
    for _ in range(100):
        if not _scratch(cache):
            break
        time.sleep(0.05)
    assert _scratch(cache) == []


def test_the_cli_runs_a_capture_and_a_sigint_stops_it_cleanly(tmp_path):
    cache = tmp_path / "cache"
    env = clean_env(**_env(cache))
    args = {"approved": True, "executable": "/bin/sh", "working_directory": str(tmp_path),
            "arguments": ["-c", "printf 'cli\\n' > out.txt; echo done; exit 6"], "filesystem_roots": [str(tmp_path)]}  # fmt: skip
    done = subprocess.run([*rea_command(), "call", "capture_process_scenario", "--json-args", json.dumps(args),
                           "--format", "json"], capture_output=True, text=True, env=env, timeout=120)  # fmt: skip
    reply = json.loads(done.stdout)
    result = reply["normalized_result"]
    assert result["exit"]["code"] == 6 and (tmp_path / "out.txt").read_text() == "cli\n"
    created = [e for e in result["filesystem_effects"] if e["status"] == "created"]
    assert [Path(e["path"]).name for e in created] == ["out.txt"]

    marker = ["/bin/sleep", f"1000.{os.getpid()}9"]
    long = {"approved": True, "executable": marker[0], "arguments": marker[1:], "working_directory": str(tmp_path)}
    cli = subprocess.Popen([*rea_command(), "call", "capture_process_scenario", "--json-args", json.dumps(long),
                            "--format", "json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)  # fmt: skip
    try:
        proc = anyio.run(_wait_for, marker)
        pid, pgid = proc.pid, os.getpgid(proc.pid)
        cli.send_signal(signal.SIGINT)
        out, _ = cli.communicate(timeout=60)
    finally:
        cli.kill()
    error = json.loads(out)["error"]
    assert error["code"] == "cancelled"
    assert error["details"]["partial_observation"]["evidence_id"].startswith("ev_")  # what it saw until the cancel
    _wait_gone(pid, pgid)
    assert _scratch(cache) == []
