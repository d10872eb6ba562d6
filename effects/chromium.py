"""An owned headless Chromium: private profile, loopback debugging port, verified gone.

Tools that launch a browser (capture_browser_scenario, capture_electron_scenario against
Chromium) start it here: its own session (so one signal reaches the renderer, GPU and
zygote children), a fresh profile directory, `--remote-debugging-address=127.0.0.1` and
port 0 (Chromium picks a free port and writes it to `DevToolsActivePort` in the profile).
`stop()` kills the group, proves no member is left and removes the profile; it is
registered with effects.owned so close_binary and exit run it too.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Sequence
from typing import Any

import anyio
import anyio.abc
from returns.result import Failure, Result, Success

from effects import process_group
from effects.owned import disown, own
from rea.browser_failures import browser_failure
from rea.errors import ReaError
from rea.loopback import Endpoint, parse_endpoint

# the Debian wrapper /usr/bin/chromium is a shell script; the real binary avoids its shell in the group
CANDIDATES = ("/usr/lib/chromium/chromium", "chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
STARTUP_TIMEOUT_S = 30.0
REAP_GRACE_S = 10.0
HEADLESS_ARGS = (
    "--headless=new",
    "--no-sandbox",  # root in a container has no user namespace for the sandbox
    "--disable-gpu",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--metrics-recording-only",
    "--password-store=basic",
    "--use-mock-keychain",
    "--remote-debugging-address=127.0.0.1",
    "--remote-debugging-port=0",
)


def find_chromium() -> str | None:
    """The first Chromium on this host, or None (REA_CHROMIUM names one explicitly)."""
    explicit = os.environ.get("REA_CHROMIUM")
    if explicit:
        return explicit if os.path.isabs(explicit) and os.access(explicit, os.X_OK) else None
    for name in CANDIDATES:
        found = name if os.path.isabs(name) and os.access(name, os.X_OK) else shutil.which(name)
        if found:
            return found
    return None


def unavailable(operation: str) -> ReaError:
    return ReaError(
        code="capability_unavailable",
        message=f"{operation} needs a Chromium to launch and none was found (looked for {', '.join(CANDIDATES)}).",
        details={"operation": operation, "reason": "browser_missing", "looked_for": list(CANDIDATES)},
        action="Install Debian's chromium (scripts/setup does) or set REA_CHROMIUM to an absolute Chromium path.",
    )


class OwnedChromium:
    """One headless Chromium REA started and will stop."""

    def __init__(self, operation: str) -> None:
        self.operation = operation
        self.process: anyio.abc.Process | None = None
        self.profile: str | None = None
        self.endpoint: Endpoint | None = None
        self.observation: dict[str, Any] | None = None

    async def start(
        self, extra_args: Sequence[str] = (), url: str = "about:blank", executable: str | None = None
    ) -> Result[Endpoint, ReaError]:
        """Launch `executable` (the caller's choice) or the host's Chromium; answer its loopback endpoint."""
        binary = executable or find_chromium()
        if binary is None:
            return Failure(unavailable(self.operation))
        self.profile = tempfile.mkdtemp(prefix="rea-chromium-")
        self.process = await anyio.open_process(
            [binary, *HEADLESS_ARGS, f"--user-data-dir={self.profile}", *extra_args, url],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        own(f"chromium {self.process.pid}", self.stop_now)
        self.observation = process_group.observe(self.process.pid)
        port_file = os.path.join(self.profile, "DevToolsActivePort")
        with anyio.move_on_after(STARTUP_TIMEOUT_S):
            while self.process.returncode is None:
                port = _read_port(port_file)
                if port is not None:
                    self.endpoint = parse_endpoint(f"http://127.0.0.1:{port}").unwrap()
                    return Success(self.endpoint)
                await anyio.sleep(0.05)
        code = self.process.returncode
        await self.stop()
        return Failure(
            browser_failure(
                self.operation,
                "endpoint_unreachable" if code is not None else "timeout",
                f"the Chromium REA started {'exited with status ' + str(code) if code is not None else 'did not open its debugging port'} "
                f"within {STARTUP_TIMEOUT_S:g} s",
                binary=binary,
            )
        )

    def observe(self) -> dict[str, Any]:
        if self.process is not None:
            self.observation = process_group.observe(self.process.pid)
        return self.observation or {
            "status": "unavailable",
            "observed_at": process_group.now(),
            "reason": "never started",
        }

    async def stop(self) -> list[str]:
        """Kill the browser's group, verify it is gone, remove the profile; answer what remains."""
        process, self.process, self.endpoint = self.process, None, None
        remaining = [] if process is None else await process_group.terminate(process)
        if process is not None and remaining:  # killed members can take a moment to leave under load
            with anyio.move_on_after(REAP_GRACE_S):
                while process_group.members(process.pid):
                    await anyio.sleep(0.05)
            remaining = [f"process {pid} (group {process.pid})" for pid in process_group.members(process.pid)]
        if process is not None:
            disown(f"chromium {process.pid}")
        if self.profile is not None:
            shutil.rmtree(self.profile, ignore_errors=True)
            if os.path.exists(self.profile):
                remaining.append(f"profile directory {self.profile}")
            else:
                self.profile = None
        return remaining

    def stop_now(self) -> None:
        """The synchronous stop effects.owned runs at close_binary and exit."""
        process = self.process
        if process is not None and process.returncode is None:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if self.profile is not None:
            shutil.rmtree(self.profile, ignore_errors=True)


def _read_port(path: str) -> int | None:
    try:
        with open(path, encoding="ascii") as f:
            first = f.readline().strip()
    except OSError:
        return None
    return int(first) if first.isdigit() else None
