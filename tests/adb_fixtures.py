"""A test-only adb server on loopback, speaking the real adb host protocol.

It stands in for a device that cannot exist on this host (no emulator, no USB): it answers
`host:version`, `host:devices-l`, `host:transport:SERIAL`, then `shell:CMD` / `exec:CMD`
with the text a device printed for CMD (recorded below from real Android 14 output forms),
and `sync:` RECV of files it holds and SEND into them. Unknown commands answer what a device's shell says.
The server runs in a thread of the test process and listens until `close()`.
"""

from __future__ import annotations

import hashlib
import socket
import struct
import threading
from collections.abc import Mapping


def _counted(text: bytes) -> bytes:
    return b"OKAY" + b"%04x" % len(text) + text


class FakeAdbServer:
    def __init__(
        self,
        devices: str,
        shell: Mapping[str, bytes] | None = None,
        files: Mapping[str, bytes] | None = None,
        version: int = 41,
    ) -> None:
        self.devices = devices.encode()
        self.shell = dict(shell or {})
        self.files = dict(files or {})
        self.version = version
        self.requests: list[str] = []
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    @property
    def socket_spec(self) -> str:
        return f"tcp:127.0.0.1:{self.port}"

    def close(self) -> None:
        self.sock.close()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._client, args=(conn,), daemon=True).start()

    @staticmethod
    def _read(conn: socket.socket, n: int) -> bytes:
        data = b""
        while len(data) < n:
            chunk = conn.recv(n - len(data))
            if not chunk:
                raise EOFError
            data += chunk
        return data

    def _request(self, conn: socket.socket) -> str:
        return self._read(conn, int(self._read(conn, 4), 16)).decode()

    def _client(self, conn: socket.socket) -> None:
        try:
            with conn:
                self._dispatch(conn)
        except (EOFError, OSError):
            pass

    def _dispatch(self, conn: socket.socket) -> None:
        req = self._request(conn)
        self.requests.append(req)
        if req == "host:version":
            conn.sendall(_counted(b"%04x" % self.version))
        elif req == "host:devices-l":
            conn.sendall(_counted(self.devices))
        elif req.startswith("host:transport:"):
            serial = req.split(":", 2)[2]
            if serial.encode() not in self.devices:
                message = f"device '{serial}' not found".encode()
                conn.sendall(b"FAIL" + b"%04x" % len(message) + message)
                return
            conn.sendall(b"OKAY")
            self._device(conn, self._request(conn))
        else:
            message = b"unknown host service"
            conn.sendall(b"FAIL" + b"%04x" % len(message) + message)

    def _device(self, conn: socket.socket, service: str) -> None:
        self.requests.append(service)
        if service == "sync:":
            conn.sendall(b"OKAY")
            self._sync(conn)
            return
        kind, _, command = service.partition(":")
        conn.sendall(b"OKAY")
        conn.sendall(self.shell.get(command) or self._computed(command))

    def _computed(self, command: str) -> bytes:
        """What toybox prints for the commands whose answer depends on the files pushed so far."""
        words = command.split()
        if words[:1] == ["sha256sum"] and words[1] in self.files:
            return f"{hashlib.sha256(self.files[words[1]]).hexdigest()}  {words[1]}\n".encode()
        if words[:2] == ["[", "-e"]:
            return b"present\n" if words[2] in self.files else b"absent\n"
        return f"/system/bin/sh: {words[0] if words else ''}: inaccessible or not found\n".encode()

    def _sync(self, conn: socket.socket) -> None:
        head = self._read(conn, 8)
        path = self._read(conn, struct.unpack("<I", head[4:])[0]).decode()
        if head[:4] == b"SEND":  # `path,mode`, then DATA chunks until DONE
            data = b""
            while (chunk := self._read(conn, 8))[:4] == b"DATA":
                data += self._read(conn, struct.unpack("<I", chunk[4:])[0])
            self.files[path.rsplit(",", 1)[0]] = data
            conn.sendall(b"OKAY" + struct.pack("<I", 0))
            return
        if head[:4] != b"RECV":
            return
        data = self.files.get(path)
        if data is None:
            message = b"No such file or directory"
            conn.sendall(b"FAIL" + struct.pack("<I", len(message)) + message)
            return
        for at in range(0, len(data), 65536):
            chunk = data[at : at + 65536]
            conn.sendall(b"DATA" + struct.pack("<I", len(chunk)) + chunk)
        conn.sendall(b"DONE" + struct.pack("<I", 0))


def reserved_port() -> socket.socket:
    """A loopback port bound but not listening: a connection to it is refused, deterministically."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    return sock
