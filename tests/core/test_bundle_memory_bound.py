"""The CLI bundle reader's memory bound (issue 30, item 9).

A bundle file larger than the import bound (512 MiB) is refused with the canonical `truncated`
error, decided from its size before any byte is read: the file here is sparse (600 MiB that take
no disk), and the command's peak resident set, measured by the kernel for the child
(getrusage(RUSAGE_CHILDREN) in a wrapper process, so no other child of the test run counts), stays
far below the file's size. A FIFO in place of a bundle is refused without being opened (an open
would block forever).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from support import clean_env, rea_command

LIMIT = 512 * 1024 * 1024
MEASURE = (
    "import resource, subprocess, sys\n"
    "run = subprocess.run(sys.argv[1:], capture_output=True, text=True, timeout=120)\n"
    "print(run.returncode)\n"
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"  # KiB on Linux
    "sys.stdout.write(run.stdout)\n"
)


def _inspect(path) -> tuple[int, int, dict]:
    args = json.dumps({"path": str(path), "detail": "summary"})
    out = subprocess.run(
        [sys.executable, "-c", MEASURE, *rea_command(), "inspect-evidence-bundle", args, "--json"],
        capture_output=True,
        text=True,
        timeout=180,
        env=clean_env(),
    )
    code, peak_kib, body = out.stdout.split("\n", 2)
    return int(code), int(peak_kib) * 1024, json.loads(body)


def test_a_bundle_past_the_bound_is_refused_from_its_size(tmp_path):
    huge = tmp_path / "huge.json"
    with open(huge, "wb") as handle:
        handle.truncate(600 * 1024 * 1024)  # sparse: its size is real, its blocks are not
    code, peak, body = _inspect(huge)
    assert code == 1
    error = body["error"]
    assert error["code"] == "truncated"
    assert error["details"] == {"path": str(huge), "bytes": 600 * 1024 * 1024, "limit": LIMIT}
    assert peak < 300 * 1024 * 1024, peak  # reading it would have needed 600 MiB resident


def test_a_fifo_is_refused_without_being_opened(tmp_path):
    fifo = tmp_path / "bundle.json"
    os.mkfifo(fifo)
    code, _peak, body = _inspect(fifo)
    assert code != 0 and body["error"]["code"] == "invalid_request"
    assert "not a regular file" in body["error"]["message"]
