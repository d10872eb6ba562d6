"""Real headless Chromium and a loopback HTTP site for the browser-facing tests.

The passive tools attach to a browser the caller started, so these fixtures start it the
way a user would (plain subprocess, not REA's own launcher): Debian's Chromium, headless,
a private profile, `--remote-debugging-port=0` on 127.0.0.1, the port read back from
`DevToolsActivePort`. Teardown kills the group and asserts nothing of it is left.
"""

from __future__ import annotations

import functools
import http.server
import os
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest

from effects import chromium as chromium_module
from effects.chromium import HEADLESS_ARGS, find_chromium

CHROMIUM = find_chromium()
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="no Chromium on this host (scripts/setup installs it)")


class Browser:
    """A caller-started Chromium: its endpoint, its process group, its profile."""

    def __init__(self, extra: tuple[str, ...] = (), url: str = "about:blank") -> None:
        assert CHROMIUM is not None
        self.profile = tempfile.mkdtemp(prefix="rea-test-chromium-")
        self.process = subprocess.Popen(
            [CHROMIUM, *HEADLESS_ARGS, f"--user-data-dir={self.profile}", *extra, url],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
        self.port = self._wait_port()
        self.endpoint = f"http://127.0.0.1:{self.port}"

    def _wait_port(self) -> int:
        port_file = Path(self.profile) / "DevToolsActivePort"
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if port_file.exists():
                first = port_file.read_text().splitlines()[:1]
                if first and first[0].isdigit():
                    return int(first[0])
            if self.process.poll() is not None:
                raise RuntimeError(f"chromium exited with {self.process.returncode}")
            time.sleep(0.05)
        raise RuntimeError("chromium did not open its debugging port within 30 s")

    def group_members(self) -> list[int]:
        alive = []
        for proc in psutil.process_iter(["pid"]):
            try:
                if os.getpgid(proc.pid) == self.process.pid and proc.status() != psutil.STATUS_ZOMBIE:
                    alive.append(proc.pid)
            except (ProcessLookupError, psutil.Error):
                continue
        return alive

    def close(self) -> None:
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait(timeout=10)
        deadline = time.monotonic() + 5
        while self.group_members() and time.monotonic() < deadline:
            time.sleep(0.05)
        import shutil

        shutil.rmtree(self.profile, ignore_errors=True)
        assert not self.group_members(), "the test's Chromium left processes behind"


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """One caller-started headless Chromium per test module."""
    if CHROMIUM is None:
        pytest.skip("no Chromium on this host (scripts/setup installs it)")
    b = Browser()
    try:
        yield b
    finally:
        b.close()


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's name
        pass


class Site:
    """A loopback HTTP server over a directory the test writes; `url(path)` names a page."""

    def __init__(self, root: Path) -> None:
        self.root = root
        handler = functools.partial(_Quiet, directory=str(root))
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.origin = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def write(self, path: str, text: str | bytes) -> str:
        target = self.root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(text if isinstance(text, bytes) else text.encode())
        return self.url(path)

    def url(self, path: str) -> str:
        return f"{self.origin}/{path.lstrip('/')}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Site]:
    s = Site(tmp_path / "site")
    s.root.mkdir(exist_ok=True)
    try:
        yield s
    finally:
        s.close()


@pytest.fixture
def owned(monkeypatch: pytest.MonkeyPatch) -> list[chromium_module.OwnedChromium]:
    """Every OwnedChromium the handler starts, kept so the test can check it is gone."""
    started: list[chromium_module.OwnedChromium] = []
    original = chromium_module.OwnedChromium.start

    async def start(self: chromium_module.OwnedChromium, *a: Any, **k: Any) -> Any:
        started.append(self)
        got = await original(self, *a, **k)
        assert self.process is not None
        self.launched = (self.process.pid, self.profile)  # type: ignore[attr-defined]
        return got

    monkeypatch.setattr(chromium_module.OwnedChromium, "start", start)
    return started


def _gone(chromium: chromium_module.OwnedChromium) -> None:
    pid, profile = chromium.launched  # type: ignore[attr-defined]
    assert chromium.process is None and not os.path.exists(profile)
    alive = []
    for proc in psutil.process_iter(["pid"]):
        try:
            if os.getpgid(proc.pid) == pid and proc.status() != psutil.STATUS_ZOMBIE:
                alive.append(proc.pid)
        except (ProcessLookupError, psutil.Error):
            continue
    assert alive == []
