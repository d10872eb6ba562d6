"""Which adb server REA may ask, what `host:devices-l` says is attached, and whether a serial is.

The server endpoint is decided from the environment strings alone (adb's own variables),
before any connection: only a loopback literal is accepted, so a remote adb server is
refused without a packet sent. Framing of the host protocol (`%04x` length-prefixed
requests, OKAY/FAIL replies) is pure too.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping

from returns.result import Failure, Result, Success

from rea.adb.records import Device
from rea.errors import ReaError

DEFAULT_PORT = 5037
ACCEPTED = "tcp:127.0.0.1:PORT (or another 127.0.0.0/8 address, ::1, localhost)"
START_SERVER = (
    "Attach a device or start an emulator, make sure `adb devices -l` lists it as `device` (it starts the "
    "adb server), then call again."
)


def request(payload: str) -> bytes:
    """One host-protocol request: its length as four hex digits, then the payload."""
    data = payload.encode()
    if len(data) > 0xFFFF:
        raise ValueError("an adb request is at most 65535 bytes")
    return b"%04x" % len(data) + data


def _loopback(host: str) -> str | None:
    if host == "localhost":
        return "127.0.0.1"
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return None
    return str(address) if address.is_loopback else None


def _refused(variable: str, value: str, why: str) -> ReaError:
    return ReaError(
        code="configuration_invalid",
        message=f"{variable}={value!r} is refused before any connection: {why}. REA asks only a loopback adb server.",
        details={"field": variable, "reason": "target_not_allowed", "accepted": ACCEPTED},
        action=f"Unset {variable} or point it at a loopback adb server ({ACCEPTED}), then restart REA.",
    )


def server_endpoint(env: Mapping[str, str]) -> Result[tuple[str, int], ReaError]:
    """adb's ADB_SERVER_SOCKET (tcp:HOST:PORT), else ANDROID_ADB_SERVER_ADDRESS/_PORT, else 127.0.0.1:5037."""
    socket_spec = env.get("ADB_SERVER_SOCKET")
    if socket_spec:
        found = re.fullmatch(r"tcp:(\[[^\]]+\]|[^:]+):(\d{1,5})", socket_spec)
        if found is None:
            return Failure(_refused("ADB_SERVER_SOCKET", socket_spec, "it is not tcp:HOST:PORT"))
        host, port = found.group(1), int(found.group(2))
        variable = "ADB_SERVER_SOCKET"
    else:
        host = env.get("ANDROID_ADB_SERVER_ADDRESS") or "127.0.0.1"
        raw_port = env.get("ANDROID_ADB_SERVER_PORT") or str(DEFAULT_PORT)
        if not (raw_port.isascii() and raw_port.isdigit()):
            return Failure(_refused("ANDROID_ADB_SERVER_PORT", raw_port, "it is not a port number"))
        port, variable = int(raw_port), "ANDROID_ADB_SERVER_ADDRESS"
    address = _loopback(host)
    if address is None:
        return Failure(_refused(variable, host, "it is not a loopback address"))
    if not 0 < port < 65536:
        return Failure(_refused(variable, str(port), "the port is out of range"))
    return Success((address, port))


def no_server(host: str, port: int, why: str) -> ReaError:
    return ReaError(
        code="capability_unavailable",
        message=f"No device is attached: no adb server answers at {host}:{port} ({why}), and REA never starts one.",
        details={"provider": "adb", "reason": "no_device_attached", "server": f"{host}:{port}"},
        action=START_SERVER,
    )


def _kind(serial: str, transport: str) -> tuple[str, str]:
    if serial.startswith("emulator-"):
        return "emulator", "emulator_serial_prefix"
    if transport == "usb":
        return "physical", "usb_transport"
    return "unknown", "none"


def device_row(line: str) -> Device | None:
    """One `host:devices-l` line: `SERIAL STATE [usb:X] [product:P] [model:M] [device:D] [transport_id:N]`."""
    parts = line.split()
    if len(parts) < 2:
        return None
    serial, state, rest = parts[0], parts[1], parts[2:]
    facts = dict(p.split(":", 1) for p in rest if ":" in p)
    transport = "usb" if "usb" in facts else "tcp" if re.search(r":\d+$", serial) else "unknown"
    kind, basis = _kind(serial, transport)
    transport_id = facts.get("transport_id", "")
    return Device(
        serial=serial,
        state=state,
        transport=transport,  # type: ignore[arg-type]
        product=facts.get("product"),
        model=facts.get("model"),
        device=facts.get("device"),
        transport_id=int(transport_id)
        if transport_id.isascii() and transport_id.isdigit() and int(transport_id) > 0
        else None,
        kind=kind,  # type: ignore[arg-type]
        kind_basis=basis,  # type: ignore[arg-type]
    )


def devices(text: str) -> tuple[Device, ...]:
    rows = (device_row(line) for line in text.splitlines() if line.strip())
    return tuple(row for row in rows if row is not None)


def attached(rows: tuple[Device, ...], serial: str, server: str) -> Result[Device, ReaError]:
    """The serial's row when it is attached and online; typed unavailability naming what is attached."""
    found = next((d for d in rows if d.serial == serial), None)
    listed = ", ".join(f"{d.serial} ({d.state})" for d in rows) or "none"
    if found is not None and found.state == "device":
        return Success(found)
    why = "is not attached" if found is None else f"is {found.state}, not online"
    return Failure(
        ReaError(
            code="capability_unavailable",
            message=f"No device is attached as {serial}: it {why} (the adb server at {server} lists: {listed}).",
            details={"provider": "adb", "reason": "no_device_attached", "serial": serial, "attached": listed},
            action=START_SERVER,
        )
    )
