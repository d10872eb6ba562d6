"""The adb host protocol on loopback: REA's own client of a running adb server (it never starts one).

Requests are `%04x`-prefixed strings answered OKAY/FAIL (rea.adb.devices frames them);
`host:transport:SERIAL` switches a connection to one device, whose `shell:`/`exec:` service
streams until the device closes it, and `sync:` speaks RECV/SEND in 8-byte headers. Every
socket is bounded by the exchange's deadline and every read by its byte limit.
"""

from __future__ import annotations

import hashlib
import os
import socket
import struct
import time
from typing import Any

import anyio
from returns.result import Failure, Result, Success

from effects.progress import Progress
from rea.adb.devices import no_server, request, server_endpoint
from rea.adb.effects import AdbExchange, AdbStep
from rea.errors import ReaError

SYNC_CHUNK = 64 * 1024


class ProtocolError(Exception):
    """The server or device said FAIL, or closed early: the message is what it said."""


class Connection:
    def __init__(self, host: str, port: int, deadline: float) -> None:
        self.deadline = deadline
        self.sock = socket.create_connection((host, port), timeout=self._left())

    def _left(self) -> float:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the exchange's deadline passed")
        return left

    def send(self, data: bytes) -> None:
        self.sock.settimeout(self._left())
        self.sock.sendall(data)

    def read(self, n: int) -> bytes:
        chunks, got = [], 0
        while got < n:
            self.sock.settimeout(self._left())
            chunk = self.sock.recv(n - got)
            if not chunk:
                raise ProtocolError(f"the connection closed after {got} of {n} bytes")
            chunks.append(chunk)
            got += len(chunk)
        return b"".join(chunks)

    def status(self) -> None:
        said = self.read(4)
        if said == b"OKAY":
            return
        if said == b"FAIL":
            raise ProtocolError(self.read(int(self.read(4), 16)).decode("utf-8", "replace"))
        raise ProtocolError(f"unexpected reply {said!r}")

    def ask(self, payload: str) -> None:
        self.send(request(payload))
        self.status()

    def counted(self) -> bytes:
        return self.read(int(self.read(4), 16))

    def stream(self, limit: int) -> tuple[bytes, bool]:
        """Everything until the device closes the service, up to `limit` bytes (True when cut)."""
        chunks: list[bytes] = []
        got = 0
        while True:
            self.sock.settimeout(self._left())
            chunk = self.sock.recv(65536)
            if not chunk:
                return b"".join(chunks), False
            chunks.append(chunk[: limit - got])
            got += len(chunk)
            if got > limit:
                return b"".join(chunks), True

    def close(self) -> None:
        self.sock.close()


def _transport(host: str, port: int, deadline: float, serial: str) -> Connection:
    conn = Connection(host, port, deadline)
    conn.ask(f"host:transport:{serial}")
    return conn


def _new_file(path: str) -> int:
    return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)


def _to_file(path: str, chunks: Any) -> dict[str, Any]:
    """Stream into a new file (never an existing one); a failed transfer leaves no partial file."""
    digest, size = hashlib.sha256(), 0
    fd = _new_file(path)
    try:
        with os.fdopen(fd, "wb") as handle:
            for chunk in chunks:
                handle.write(chunk)
                digest.update(chunk)
                size += len(chunk)
    except BaseException:
        os.unlink(path)
        raise
    return {"bytes": size, "sha256": digest.hexdigest(), "local_path": path}


def _service(conn: Connection, step: AdbStep) -> Any:
    conn.ask(step.service)
    data, cut = conn.stream(step.max_bytes)
    if step.local_path is None:
        return {"data": data, "cut": cut}
    if cut:
        raise ProtocolError(f"{step.service} sent more than {step.max_bytes} bytes")
    return {**_to_file(step.local_path, [data]), "data_head": data[:64]}


def _recv_chunks(conn: Connection, limit: int) -> Any:
    got = 0
    while True:
        head = conn.read(8)
        tag, length = head[:4], struct.unpack("<I", head[4:])[0]
        if tag == b"DONE":
            return
        if tag == b"FAIL":
            raise ProtocolError(conn.read(length).decode("utf-8", "replace"))
        if tag != b"DATA" or length > SYNC_CHUNK:
            raise ProtocolError(f"unexpected sync reply {tag!r}")
        got += length
        if got > limit:
            raise ProtocolError(f"the file is larger than {limit} bytes")
        yield conn.read(length)


def _pull(conn: Connection, step: AdbStep) -> Any:
    conn.ask("sync:")
    path = (step.device_path or "").encode()
    conn.send(b"RECV" + struct.pack("<I", len(path)) + path)
    assert step.local_path is not None
    return _to_file(step.local_path, _recv_chunks(conn, step.max_bytes))


def _push(conn: Connection, step: AdbStep) -> Any:
    conn.ask("sync:")
    spec = f"{step.device_path},{0o644}".encode()
    conn.send(b"SEND" + struct.pack("<I", len(spec)) + spec)
    assert step.local_path is not None
    with open(step.local_path, "rb") as handle:
        while chunk := handle.read(SYNC_CHUNK):
            conn.send(b"DATA" + struct.pack("<I", len(chunk)) + chunk)
    conn.send(b"DONE" + struct.pack("<I", int(time.time())))
    head = conn.read(8)
    if head[:4] == b"FAIL":
        raise ProtocolError(conn.read(struct.unpack("<I", head[4:])[0]).decode("utf-8", "replace"))
    if head[:4] != b"OKAY":
        raise ProtocolError(f"unexpected sync reply {head[:4]!r}")
    return {"pushed": True}


STEPS = {"service": _service, "pull": _pull, "push": _push}


def _step(host: str, port: int, deadline: float, serial: str, step: AdbStep) -> Any:
    if step.kind == "mkdir":
        assert step.local_path is not None
        os.mkdir(step.local_path)
        return {"local_path": step.local_path}
    conn = _transport(host, port, deadline, serial)
    try:
        return STEPS[step.kind](conn, step)
    finally:
        conn.close()


def _exchange(effect: AdbExchange) -> Result[Any, ReaError]:
    return server_endpoint(os.environ).bind(lambda found: _exchange_with(effect, found[0], found[1]))


def _exchange_with(effect: AdbExchange, host: str, port: int) -> Result[Any, ReaError]:
    """The server's version and devices, then each step, each on its own connection within one deadline."""
    deadline = time.monotonic() + effect.deadline_ms / 1000
    try:
        conn = Connection(host, port, deadline)
    except OSError as exc:  # refused, unreachable, or the deadline
        return Failure(no_server(host, port, exc.strerror or type(exc).__name__))
    try:
        conn.ask("host:version")
        version = int(conn.counted(), 16)
        conn.close()
        conn = Connection(host, port, deadline)
        conn.ask("host:devices-l")
        listed = conn.counted().decode("utf-8", "replace")
        conn.close()
        outputs = [_step(host, port, deadline, effect.serial or "", s) for s in effect.steps]
    except TimeoutError:
        return Failure(_timeout(effect))
    except FileExistsError as exc:
        return Failure(_exists(exc.filename))
    except FileNotFoundError as exc:
        return Failure(_no_directory(exc.filename))
    except (ProtocolError, OSError, ValueError) as exc:
        return Failure(_device_failed(host, port, effect, str(exc)))
    finally:
        conn.close()
    server = {"host": host, "port": port, "version": version}
    return Success({"server": server, "devices": listed, "outputs": outputs})


def _timeout(effect: AdbExchange) -> ReaError:
    return ReaError(
        code="provider_timeout",
        message=f"The adb exchange did not finish within {effect.deadline_ms} ms; its connections were closed.",
        details={"provider": "adb", "deadline_ms": effect.deadline_ms},
    )


def _exists(path: str) -> ReaError:
    return ReaError(
        code="invalid_request",
        message=f"{path} already exists; REA never overwrites a local file.",
        details={"field": "output_directory", "accepted": "a directory that does not yet hold the file"},
    )


def _no_directory(path: str) -> ReaError:
    return ReaError(
        code="invalid_request",
        message=f"{os.path.dirname(path)} is not an existing directory.",
        details={"field": "output_directory", "accepted": "an existing local directory"},
    )


def _device_failed(host: str, port: int, effect: AdbExchange, said: str) -> ReaError:
    if "not found" in said and effect.serial and effect.serial in said:
        return ReaError(
            code="capability_unavailable",
            message=f"No device is attached as {effect.serial}: the adb server at {host}:{port} said {said!r}.",
            details={"provider": "adb", "reason": "no_device_attached", "serial": effect.serial},
            action="Attach the device (adb devices -l lists it as `device`), then call again.",
        )
    return ReaError(
        code="execution_failure",
        message=f"The adb exchange with {host}:{port} failed: {said}",
        details={"provider": "adb", "serial": effect.serial},
    )


async def _handle(effect: AdbExchange, progress: Progress) -> Result[Any, ReaError]:
    return await anyio.to_thread.run_sync(_exchange, effect)


HANDLERS = {AdbExchange: _handle}
