"""The owned worker driven in-process: startup notices, lineage, stop verification."""

import os
import subprocess
from pathlib import Path

import anyio
import pytest

from effects.native import engine

pytestmark = pytest.mark.slow
SOURCE = Path(__file__).parent / "fixtures" / "sample.c"


def test_waiting_notices_lineage_and_verified_stop(tmp_path, monkeypatch):
    binary = tmp_path / "sample"
    subprocess.run(["gcc", "-O0", "-o", str(binary), str(SOURCE)], check=True)
    monkeypatch.setattr(engine, "WAIT_NOTICE_S", 0.2)  # the real interval is 10 s; startup takes about 1.5 s
    notices = []

    async def report(phase, message):
        notices.append((phase, message))

    async def main():
        worker = engine.AngrWorker(str(binary), {"id": "angr", "name": "angr", "version": "x"}, 120_000)
        loaded = await worker.ensure_started(report)
        observation = worker.observe()
        pid = worker.process.pid
        remaining = await worker.stop()
        return loaded, observation, pid, remaining

    loaded, observation, pid, remaining = anyio.run(main)
    assert loaded.unwrap()["architecture"] == "x86_64"
    waiting = [m for p, m in notices if p == "waiting for angr startup"]
    assert waiting and all("s elapsed" in m for m in waiting)
    assert observation["status"] == "verified" and observation["launcher_pid"] == pid
    assert observation["process_group_id"] == pid and observation["launcher_parent_pid"] == os.getpid()
    assert remaining == []
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
