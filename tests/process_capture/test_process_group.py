"""Owned process groups end whole: a child that outlives its leader is stopped and waited for."""

from __future__ import annotations

import os
import subprocess
import sys

import anyio
import psutil

from effects.process_group import members, terminate

# the leader exits on TERM at once; its child ignores TERM, so only the group KILL ends it
SCRIPT = """
import os, signal, subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c",
    "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); print('ready', flush=True); time.sleep(60)"],
    stdout=subprocess.PIPE)
child.stdout.readline()
print(child.pid, flush=True)
time.sleep(60)
"""


def test_a_child_ignoring_term_is_killed_and_verified_gone() -> None:
    async def main() -> tuple[list[str], int, int]:
        process = await anyio.open_process(
            [sys.executable, "-c", SCRIPT], stdout=subprocess.PIPE, start_new_session=True
        )
        assert process.stdout is not None
        line = b""
        while not line.endswith(b"\n"):
            line += await process.stdout.receive(1)
        child = int(line)
        assert os.getpgid(child) == process.pid
        remaining = await terminate(process)
        return remaining, child, process.pid

    remaining, child, group = anyio.run(main)
    assert remaining == []
    assert not members(group)
    assert not psutil.pid_exists(child) or psutil.Process(child).status() == psutil.STATUS_ZOMBIE
