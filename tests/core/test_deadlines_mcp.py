"""First-query deadlines over a real stdio pipe: a slow provider start, for real.

`tests/fixtures/slow_worker` on PYTHONPATH delays the angr worker process itself (the
server's 10-second interval and its startup deadline are untouched), so a Python SDK
client with a progress token sees the waiting notifications, and a client whose
request deadline is shorter than the start times out and recovers as the contract's
recovery steps say: close_binary (cleanup complete), open_binary, retry.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import anyio
import psutil
import pytest

from mcp_client import connect, err, ok, run

pytestmark = pytest.mark.slow
ELAPSED = re.compile(r"(\d+)s elapsed")
SLOW_WORKER = str(Path(__file__).parents[1] / "fixtures" / "slow_worker")


def slow_env(tmp_path: Path, delay_s: float) -> dict[str, str]:
    return {
        "PYTHONPATH": os.pathsep.join([SLOW_WORKER, os.environ["PYTHONPATH"]]),
        "SLOW_WORKER_DELAY_S": str(delay_s),
        "REA_CACHE_DIR": str(tmp_path / "cache"),  # no snapshot to reuse: the query must start angr
    }


def workers_of(server_pid: int) -> list[psutil.Process]:
    found = []
    for proc in psutil.process_iter(["pid", "cmdline"]):
        cmdline = proc.info["cmdline"] or []
        if "effects.native.worker" in cmdline:
            try:
                if server_pid in {p.pid for p in proc.parents()}:
                    found.append(proc)
            except psutil.Error:
                continue
    return found


def test_waiting_notifications_every_ten_seconds_during_a_slow_start(tmp_path):
    async def main():
        seen = []

        async def on_progress(progress, total, message):
            seen.append((time.monotonic(), progress, total, message))

        async with connect(**slow_env(tmp_path, 21)) as s:
            ok(await s.call_tool("open_binary", {"path": "/usr/bin/true"}))
            started = time.monotonic()
            segments = await s.call_tool("list_segments", {}, read_timeout_seconds=120, progress_callback=on_progress)
            return started, segments, seen

    started, segments, seen = run(main)
    assert segments.is_error is False, segments.content[0].text
    waiting = [(at - started, message) for at, _, _, message in seen if message.startswith("waiting for angr startup")]
    assert len(waiting) >= 2, seen  # a 21 s start: the notices at 10 s and 20 s
    # the server's own clock, as each notice reports it (a client's receipt times jitter under load)
    elapsed = [int(ELAPSED.search(message).group(1)) for _, message in waiting]
    assert waiting[0][0] >= 10 and elapsed[0] >= 10  # never before the first interval
    gaps = [b - a for a, b in zip(elapsed, elapsed[1:])]
    assert all(10 <= gap < 20 for gap in gaps), elapsed  # every ten seconds: not faster, not one interval skipped
    numbers = [p for _, p, _, _ in seen]
    assert numbers == sorted(set(numbers)) and all(total is None for _, _, total, _ in seen)
    assert seen[-1][3].startswith("finished")


def test_close_then_open_recovers_after_a_client_timeout(tmp_path):
    from mcp.shared.exceptions import MCPError

    async def main():
        async with connect(**slow_env(tmp_path, 8)) as s:
            opened = ok(await s.call_tool("open_binary", {"path": "/usr/bin/true"}))
            timed_out = None
            try:
                await s.call_tool("list_segments", {}, read_timeout_seconds=2)
            except MCPError as exc:  # the client's own deadline, shorter than the start
                timed_out = exc
            state = ok(await s.call_tool("binary_session", {}))  # the binding is still selected
            closing = await s.call_tool("close_binary", {})
            reopened = ok(await s.call_tool("open_binary", {"path": "/usr/bin/true"}))
            retried = await s.call_tool("list_segments", {}, read_timeout_seconds=120)
            final = await s.call_tool("close_binary", {})
            await anyio.sleep(0.5)
            pids = {p.pid for p in psutil.Process().children(recursive=True)}
            server = next(p for p in psutil.Process().children() if p.pid in pids)
            return opened, timed_out, state, closing, reopened, retried, final, workers_of(server.pid)

    opened, timed_out, state, closing, reopened, retried, final, left = run(main)
    assert timed_out is not None and "timed out" in str(timed_out).lower()
    assert state["open"] is True and state["analysis_provider_binding"]["provider"]["id"] == "angr"
    assert closing.structured_content["closed"]["cleanup"] == {"status": "complete", "owned_resources": []}
    assert reopened["sha256"] == opened["sha256"]
    assert retried.is_error is False, retried.content[0].text
    assert retried.structured_content["normalized_result"]
    assert final.structured_content["closed"]["cleanup"]["status"] == "complete"
    assert left == []  # no worker of ours outlives the final close


def test_a_start_past_the_provider_deadline_is_a_typed_timeout(tmp_path):
    env = {**slow_env(tmp_path, 30), "REA_ANGR_STARTUP_TIMEOUT_MS": "3000"}

    async def main():
        async with connect(**env) as s:
            ok(await s.call_tool("open_binary", {"path": "/usr/bin/true"}))
            return await s.call_tool("list_segments", {}, read_timeout_seconds=60)

    body = err(run(main), "provider_timeout")
    assert body["details"]["phase"] == "startup" and body["details"]["timeout_ms"] == 3000
