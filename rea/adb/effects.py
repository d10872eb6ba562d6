"""The one effect of the adb device tools: an exchange with the adb server over its host protocol."""

from __future__ import annotations

from typing import Literal

import attrs

StepKind = Literal["service", "pull", "push", "mkdir"]


@attrs.frozen(kw_only=True)
class AdbStep:
    """One device request on its own transport connection.

    `service`: a `shell:` or `exec:` service; its output (up to `max_bytes`) is answered as
    bytes, or streamed into the new file `local_path` (answered as `{bytes, sha256}`).
    `pull` / `push`: the sync protocol's RECV / SEND of `device_path` to / from `local_path`
    (a pulled file is created new, never overwritten). `mkdir`: create the new local
    directory `local_path` (it must not exist yet)."""

    kind: StepKind = "service"
    service: str = ""
    device_path: str | None = None
    local_path: str | None = None
    max_bytes: int = 16 << 20


@attrs.frozen(kw_only=True)
class AdbExchange:
    """Ask the adb server (loopback only: ADB_SERVER_SOCKET, ANDROID_ADB_SERVER_PORT, else
    127.0.0.1:5037) for `host:version` and `host:devices-l`, then run `steps` on `serial`'s
    transport. Answers `{"server": {host, port, version}, "devices": text, "outputs": [...]}`;
    no server listening is capability_unavailable (REA never starts one)."""

    serial: str | None = None
    steps: tuple[AdbStep, ...] = ()
    deadline_ms: int = 120_000
