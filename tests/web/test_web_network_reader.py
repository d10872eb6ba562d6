"""The mitmproxy flow reader is an owned child: past its deadline or on cancel it is killed with its group, verified gone."""

from __future__ import annotations

import os

import anyio
import pytest
from returns.result import Failure

from effects.progress import Progress
from effects.web_network import runtime
from rea.web_network.model import ReadCapture


def _hanging_python(tmp_path):
    """An 'interpreter' that records its pid and its child's, then hangs (as a reader stuck on hostile input)."""
    script = tmp_path / "python3"
    script.write_text(f"#!/bin/sh\necho $$ > {tmp_path}/pids\nsleep 600 &\necho $! >> {tmp_path}/pids\nwait\n")
    script.chmod(0o755)
    (tmp_path / "dump.flows").write_bytes(b"0:~")
    return script


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
        with open(f"/proc/{pid}/stat") as stat:  # a zombie awaiting its reaper is gone too
            return stat.read().split()[2] == "Z"
    except (ProcessLookupError, FileNotFoundError):  # reaped between the two looks
        return True


def _pids(tmp_path):
    text = (tmp_path / "pids").read_text() if (tmp_path / "pids").exists() else ""
    return [int(p) for p in text.split()]


async def _started(tmp_path) -> list[int]:
    """Both pids of the fake reader, once it has written them (a loaded CI machine can take seconds)."""
    with anyio.fail_after(30):
        while len(pids := _pids(tmp_path)) < 2:
            await anyio.sleep(0.05)
    return pids


def test_reader_past_its_deadline_is_killed(tmp_path, monkeypatch):
    monkeypatch.setenv("REA_MITMPROXY_PYTHON", str(_hanging_python(tmp_path)))
    effect = ReadCapture(path=str(tmp_path / "dump.flows"), format="mitmproxy", timeout_ms=3000)
    got = anyio.run(runtime.read_capture, effect, Progress(None))
    assert isinstance(got, Failure) and got.failure().code == "resource_constraint"
    assert got.failure().details["limit"] == "timeout_ms"
    pids = _pids(tmp_path)
    assert pids, "the fake reader never started within its 3 s deadline"
    assert all(_gone(pid) for pid in pids) and not runtime._RUNNING


def test_cancelled_reader_is_killed(tmp_path, monkeypatch):
    monkeypatch.setenv("REA_MITMPROXY_PYTHON", str(_hanging_python(tmp_path)))
    effect = ReadCapture(path=str(tmp_path / "dump.flows"), format="mitmproxy")

    async def main():
        async with anyio.create_task_group() as group:

            async def read():
                await runtime.read_capture(effect, Progress(None))
                pytest.fail("the hanging reader answered")

            group.start_soon(read)
            pids = await _started(tmp_path)
            group.cancel_scope.cancel()
        return pids

    pids = anyio.run(main)
    assert len(pids) == 2 and all(_gone(pid) for pid in pids) and not runtime._RUNNING
