"""The owned worker driven in-process: startup notices, lineage, stop verification."""

import os
import subprocess
import time
from pathlib import Path

import anyio
import pytest

from effects.native import engine

pytestmark = pytest.mark.slow
SOURCE = Path(__file__).parents[1] / "fixtures" / "sample.c"


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


def _worker(tmp_path: Path) -> engine.AngrWorker:
    """An angr worker (not started) for the fixture program compiled by gcc."""
    binary = tmp_path / "sample"
    subprocess.run(["gcc", "-O0", "-o", str(binary), str(SOURCE)], check=True)
    return engine.AngrWorker(str(binary), {"id": "angr", "name": "angr", "version": "x"}, 120_000)


async def report(phase, message):
    pass


def test_an_engine_question_starts_the_worker_without_loader_facts_until_a_snapshot_asks(tmp_path):
    async def main():
        worker = _worker(tmp_path)
        try:
            hello = await worker.request("hello", {}, report)
            deferred = dict(worker.loader_facts or {})
            pid = worker.process.pid
            facts = await worker.ensure_started(report)
            return hello.unwrap(), deferred, pid, facts.unwrap(), worker.process.pid
        finally:
            await worker.stop()

    hello, deferred, pid, facts, same = anyio.run(main)
    assert (
        hello["pid"] == pid and deferred == {"deferred": True} and pid == same
    )  # the same worker, asked for its facts later
    assert facts["architecture"] == "x86_64" and facts["sections"] and "deferred" not in facts


def test_a_prestarted_worker_is_the_one_that_answers_and_a_snapshot_gets_its_facts(tmp_path):
    """prestart sends the load without waiting (angr's import overlaps the caller's next step); the next
    question awaits that load instead of starting another worker, and facts asked later are completed."""

    async def main():
        worker = _worker(tmp_path)
        try:
            started = time.monotonic()
            await worker.prestart()
            returned_after = time.monotonic() - started
            pid = worker.process.pid
            await worker.prestart()  # already running: nothing new
            hello = await worker.request("hello", {}, report)
            facts = await worker.ensure_started(report)
            return returned_after, pid, hello.unwrap(), facts.unwrap(), worker.process.pid
        finally:
            await worker.stop()

    returned_after, pid, hello, facts, same = anyio.run(main)
    assert returned_after < 1.0  # it did not wait for angr's import (1.5 s and more)
    assert hello["pid"] == pid == same and facts["architecture"] == "x86_64" and "deferred" not in facts


def test_a_worker_over_the_memory_ceiling_is_stopped_with_resource_constraint(tmp_path):
    from mcp_client import connect, err, ok

    binary = tmp_path / "sample"
    subprocess.run(["gcc", "-O0", "-o", str(binary), str(SOURCE)], check=True)

    async def main():
        # importing angr alone takes well over 64 MiB: the ceiling stops the worker during startup
        async with connect(REA_CACHE_DIR=str(tmp_path / "cache"), REA_NATIVE_MEMORY_LIMIT_MIB="64") as s:
            ok(await s.call_tool("open_binary", {"path": str(binary)}))
            reply = await s.call_tool("list_segments", {})
            session = ok(await s.call_tool("binary_session", {}))
            return reply, session

    reply, session = anyio.run(main)
    error = err(reply, "resource_constraint")
    assert error["details"]["limit_mib"] == 64 and error["details"]["observed_mib"] > 64
    assert (
        "REA_NATIVE_MEMORY_LIMIT_MIB" in error["message"]
        and "REA_NATIVE_MEMORY_LIMIT_MIB" in error["remediation"]["action"]
    )
    assert session["target"] is not None  # the session survives the stopped worker


def test_the_memory_ceiling_setting_is_validated():
    from support import clean_env, rea_command

    for value in ("0", "abc", "63"):
        proc = subprocess.run(
            [*rea_command(), "mcp"],
            env=clean_env(REA_NATIVE_MEMORY_LIMIT_MIB=value),
            input="",
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert proc.returncode == 2 and "REA_NATIVE_MEMORY_LIMIT_MIB" in proc.stderr, (value, proc.stderr)
