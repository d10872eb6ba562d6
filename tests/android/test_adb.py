"""The adb device tools: every tool's unavailable paths for real, over MCP and the CLI, and the real
host protocol against a test-only adb server on loopback (tests/adb_fixtures.py).

No device can exist on this host (no emulator, no USB), so the fake server stands in for one: it
speaks the adb host protocol byte for byte (`host:version`, `host:devices-l`, `host:transport:`,
`shell:`, `exec:`, `sync:` RECV), and what it prints for each command is the form a real device
prints. The Debian `adb` client is checked independently: `adb devices -l` against the same fake
server lists what list_adb_devices reports.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import struct
import subprocess
import zlib

import anyio
import pytest

from adb_fixtures import FakeAdbServer, reserved_port
from mcp_client import connect
from rea.adb.contract import ROWS
from rea.catalog import BY_NAME
from support import clean_env, rea_command

pytestmark = pytest.mark.skipif(shutil.which("adb") is None, reason="needs Debian adb (scripts/setup test)")
SERIAL = "emulator-5554"
DEVICES = (
    "emulator-5554          device product:sdk_gphone64_x86_64 model:sdk_gphone64_x86_64 "
    "device:emu64xa transport_id:1\n"
    "0123456789ABCDEF       device usb:1-1 product:oriole model:Pixel_6 device:oriole transport_id:2\n"
    "192.168.1.20:5555      offline transport_id:3\n"
)


def _png(width: int, height: int) -> bytes:
    def chunk(tag: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + tag + body + struct.pack(">I", zlib.crc32(tag + body))

    raw = b"".join(b"\x00" + b"\x00\x00\x00" * width for _ in range(height))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


SHELL = {
    "getprop": (
        b"[ro.build.fingerprint]: [google/sdk_gphone64_x86_64/emu64xa:14/UE1A.230829.036/1:userdebug/dev-keys]\n"
        b"[ro.build.version.release]: [14]\n[ro.build.version.sdk]: [34]\n[ro.kernel.qemu]: [1]\n"
        b"[ro.product.cpu.abilist]: [x86_64,arm64-v8a]\n[ro.debuggable]: [1]\n[persist.sys.timezone]: [UTC]\n"
    ),
    "pm list packages -f -3": (
        b"package:/data/app/~~abc==/com.example.app-xyz==/base.apk=com.example.app\n"
        b"package:/data/app/~~d=e/org.a.b-1/base.apk=org.a.b\nWARNING: linker: odd\n"
    ),
    "ps -A": (
        b"USER           PID  PPID        VSZ    RSS WCHAN            ADDR S NAME\n"
        b"root             1     0   10932136  12532 do_epoll_wait       0 S init\n"
        b"u0_a123       4242   321   14700000 150000 do_epoll_wait       0 S com.example.app:remote worker\n"
    ),
    "settings get secure adb_enabled": b"1\n",
    "settings get global no_such_key": b"null\n",
    "wm size": b"Physical size: 1080x2400\nOverride size: 720x1600\n",
    "wm density": b"Physical density: 420\n",
    "ls -la /data/local/tmp": (
        b"total 24\ndrwxrwx--x  3 shell shell 4096 2024-05-01 10:00 .\ndrwxr-x--x  4 root  root  4096 2024-05-01 09:00 ..\n"
        b"-rw-rw-rw-  1 shell shell 1234 2024-05-01 10:01 app.db\nlrwxrwxrwx  1 shell shell    6 2024-05-01 10:02 l -> app.db\n"
    ),
    "ls -la /nope": b"ls: /nope: No such file or directory\n",
    "screencap -p": _png(3, 2),
    "am force-stop com.example.app": b"",
    "pm uninstall com.example.gone": b"Failure [DELETE_FAILED_INTERNAL_ERROR]\n",
}
FILES = {"/data/local/tmp/app.db": b"SQLite format 3\x00" + bytes(range(256)) * 300}


@pytest.fixture
def fake():
    server = FakeAdbServer(DEVICES, SHELL, FILES)
    yield server
    server.close()


def calls(plan, **env):
    async def main():
        out = {}
        async with connect(**env) as s:
            for name, tool, args in plan:
                r = await s.call_tool(tool, args)
                body = json.loads(r.content[0].text)
                out[name] = (True, body["error"]) if r.is_error else (False, r.structured_content)
        return out

    return anyio.run(main)


def rea(*args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([*rea_command(), *args], capture_output=True, text=True, env=clean_env(**env), timeout=300)


def _examples(tmp_path) -> list[tuple[str, str, dict]]:
    """Each tool's own contract example, its host paths pointed into tmp_path."""
    apk = tmp_path / "app.apk"
    apk.write_bytes(b"PK\x05\x06" + bytes(18))
    paths = {"output_directory": str(tmp_path), "local_path": str(apk), "apk_path": str(apk)}
    out = []
    for row in ROWS:
        args = {k: paths.get(k, v) for k, v in BY_NAME[row.name].input_schema["examples"][0].items()}
        out.append((row.name, row.name, args))
    return out


def _cli_args(row, args: dict) -> list[str]:
    import attrs

    required = [f.name for f in attrs.fields(row.args) if f.default is attrs.NOTHING]
    required.sort(key=lambda n: n != "serial")
    return [row.name.replace("_", "-"), *(str(args[n]) for n in required)]


def test_there_are_the_reference_s_device_tools():
    names = {r.name for r in ROWS}
    assert len(names) == 23 and "inspect_adb_client" not in names
    for row in ROWS:
        contract = BY_NAME[row.name]
        assert contract.surface == "adb-provider" and {"launchesProcess", "mutatesSession"} <= contract.effects
        mutates = row.name in {
            "push_adb_file",
            "install_adb_package",
            "uninstall_adb_package",
            "start_adb_app",
            "start_adb_activity",
            "stop_adb_app",
        }
        assert ("mutatesDevice" in contract.effects) == mutates, row.name
        assert contract.mcp_annotations()["destructiveHint"] == mutates, row.name
        assert contract.mcp_annotations()["readOnlyHint"] is False


@pytest.mark.slow
def test_without_adb_every_tool_says_how_to_install_it(tmp_path):
    empty = tmp_path / "bin"
    empty.mkdir()
    out = calls(_examples(tmp_path), PATH=str(empty))
    for name, (is_error, body) in out.items():
        assert is_error and body["code"] == "capability_unavailable", (name, body)
        assert body["details"]["reason"] == "client_missing", name
        assert "scripts/setup test" in body["remediation"]["action"], name
    for row, (_, _, args) in zip(ROWS, _examples(tmp_path)):
        done = rea(*_cli_args(row, args), "--format", "json", PATH=str(empty))
        assert done.returncode == 1, (row.name, done.stdout, done.stderr)
        assert json.loads(done.stdout)["error"]["details"]["reason"] == "client_missing", row.name


@pytest.mark.slow
def test_no_device_attached_is_typed_unavailability_naming_it(tmp_path, fake):
    closed = reserved_port()  # bound, never listening: no adb server answers there
    try:
        port = closed.getsockname()[1]
        nothing = calls(_examples(tmp_path), ADB_SERVER_SOCKET=f"tcp:127.0.0.1:{port}")
        for name, (is_error, body) in nothing.items():
            assert is_error and body["code"] == "capability_unavailable", (name, body)
            assert body["details"] == {"provider": "adb", "reason": "no_device_attached", "server": f"127.0.0.1:{port}"}
            assert "adb devices -l" in body["remediation"]["action"]
        for row, (_, _, args) in zip(ROWS, _examples(tmp_path)):
            done = rea(*_cli_args(row, args), "--format", "json", ADB_SERVER_SOCKET=f"tcp:127.0.0.1:{port}")
            assert done.returncode == 1, row.name
            assert json.loads(done.stdout)["error"]["details"]["reason"] == "no_device_attached", row.name
    finally:
        closed.close()
    # a server that lists other devices: the serial is named with what is attached
    other = [(n, t, {**a, "serial": "R58M123"}) for n, t, a in _examples(tmp_path) if "serial" in a]
    other.append(("offline", "inspect_adb_device", {"serial": "192.168.1.20:5555"}))
    answered = calls(other, ADB_SERVER_SOCKET=fake.socket_spec)
    for name, (is_error, body) in answered.items():
        assert is_error and body["details"]["reason"] == "no_device_attached", (name, body)
    assert "emulator-5554 (device)" in answered["inspect_adb_device"][1]["message"]
    assert "is offline" in answered["offline"][1]["message"]
    assert not any(r.startswith("host:transport:R58M123") for r in fake.requests)  # refused before the device


@pytest.mark.slow
def test_a_remote_adb_server_is_refused_before_connecting(tmp_path):
    for env in ({"ADB_SERVER_SOCKET": "tcp:10.1.2.3:5037"}, {"ANDROID_ADB_SERVER_ADDRESS": "example.com"}):
        out = calls([("d", "list_adb_devices", {}), ("p", "inspect_adb_device", {"serial": SERIAL})], **env)
        for is_error, body in out.values():
            assert (
                is_error
                and body["code"] == "configuration_invalid"
                and body["details"]["reason"] == ("target_not_allowed")
            )


@pytest.mark.slow
def test_read_only_tools_parse_a_device_s_real_output_forms(tmp_path, fake):
    out = calls(
        [
            ("devices", "list_adb_devices", {}),
            ("device", "inspect_adb_device", {"serial": SERIAL}),
            ("packages", "list_adb_packages", {"serial": SERIAL, "scope": "third_party"}),
            ("ps", "list_adb_processes", {"serial": SERIAL}),
            ("setting", "read_adb_setting", {"serial": SERIAL, "namespace": "secure", "key": "adb_enabled"}),
            ("null", "read_adb_setting", {"serial": SERIAL, "namespace": "global", "key": "no_such_key"}),
            ("display", "inspect_adb_display", {"serial": SERIAL}),
            ("ls", "list_adb_directory", {"serial": SERIAL, "device_path": "/data/local/tmp"}),
            ("absent", "list_adb_directory", {"serial": SERIAL, "device_path": "/nope"}),
            (
                "pull",
                "pull_adb_file",
                {"serial": SERIAL, "device_path": "/data/local/tmp/app.db", "output_directory": str(tmp_path)},
            ),
            (
                "again",
                "pull_adb_file",
                {"serial": SERIAL, "device_path": "/data/local/tmp/app.db", "output_directory": str(tmp_path)},
            ),
            ("screen", "capture_adb_screen", {"serial": SERIAL, "output_directory": str(tmp_path)}),
        ],
        ADB_SERVER_SOCKET=fake.socket_spec,
    )

    def ok(name):
        is_error, body = out[name]
        assert not is_error, body
        return body["normalized_result"]

    listed = ok("devices")
    # the Debian adb client, against the same server, lists the same serials and states
    said = subprocess.run(
        ["adb", "-P", str(fake.port), "devices", "-l"], capture_output=True, text=True, timeout=60
    ).stdout.splitlines()[1:]
    assert [(d["serial"], d["state"]) for d in listed["devices"]] == [tuple(x.split()[:2]) for x in said if x]
    first, usb, tcp = listed["devices"]
    assert (first["kind"], first["kind_basis"], first["transport_id"]) == ("emulator", "emulator_serial_prefix", 1)
    assert (usb["transport"], usb["kind"], usb["model"]) == ("usb", "physical", "Pixel_6")
    assert (tcp["transport"], tcp["kind"], tcp["state"]) == ("tcp", "unknown", "offline")
    assert listed["may_have_started_adb_server"] is False and listed["server"]["version"] == 41
    device = ok("device")
    names = [p["name"] for p in device["properties"]]
    assert "persist.sys.timezone" not in names and device["emulator_observed"] is True
    assert {"name": "ro.build.version.sdk", "value": "34"} in device["properties"]
    packages = ok("packages")
    assert packages["packages"][0] == {
        "package_name": "com.example.app",
        "base_apk_device_path": "/data/app/~~abc==/com.example.app-xyz==/base.apk",
    }
    assert packages["unparsed_lines"] == ["WARNING: linker: odd"] and packages["coverage"] == "partial"
    ps = ok("ps")["processes"]
    assert ps[1] == {
        "user": "u0_a123",
        "pid": 4242,
        "ppid": 321,
        "rss": 150000,
        "state": "S",
        "name": "com.example.app:remote worker",
    }
    assert ok("setting")["value"] == "1" and ok("null") == {**ok("null"), "value": None, "device_reported_null": True}
    display = ok("display")
    assert display["physical_size"] == {"width": 1080, "height": 2400} and display["override_density"] is None
    entries = ok("ls")["entries"]
    assert [e["name"] for e in entries] == ["app.db", "l"] and entries[1]["link_target"] == "app.db"
    assert entries[0]["bytes"] == 1234 and entries[0]["kind"] == "file"
    assert out["absent"][1]["code"] == "target_unavailable"
    pulled = ok("pull")
    data = FILES["/data/local/tmp/app.db"]
    assert (
        pulled["sha256"]
        == hashlib.sha256(data).hexdigest()
        == hashlib.sha256((tmp_path / "app.db").read_bytes()).hexdigest()
    )
    assert pulled["bytes"] == len(data)
    assert out["again"][0] and out["again"][1]["code"] == "invalid_request"  # never overwrites
    screen = ok("screen")
    assert (screen["width"], screen["height"]) == (3, 2) and screen["bytes"] == len(SHELL["screencap -p"])
    assert "shell:getprop" in fake.requests and "exec:screencap -p" in fake.requests
    # and the CLI: text and JSON
    text = rea("list-adb-packages", SERIAL, "--scope", "third_party", ADB_SERVER_SOCKET=fake.socket_spec)
    assert text.returncode == 0 and "com.example.app" in text.stdout and "coverage: partial" in text.stdout


@pytest.mark.slow
def test_push_checks_the_device_digest_and_refuses_to_overwrite(tmp_path, fake):
    local = tmp_path / "frida-server"
    local.write_bytes(bytes(range(256)) * 700)  # more than one 64 KiB sync chunk
    push = {"serial": SERIAL, "local_path": str(local), "device_path": "/data/local/tmp/frida-server"}
    out = calls(
        [
            ("first", "push_adb_file", push),
            ("again", "push_adb_file", push),
            ("replace", "push_adb_file", {**push, "overwrite": True}),
            ("stop", "stop_adb_app", {"serial": SERIAL, "package": "com.example.app"}),
            ("refused", "uninstall_adb_package", {"serial": SERIAL, "package": "com.example.gone"}),
        ],
        ADB_SERVER_SOCKET=fake.socket_spec,
    )
    first = out["first"][1]["normalized_result"]
    digest = hashlib.sha256(local.read_bytes()).hexdigest()
    assert fake.files["/data/local/tmp/frida-server"] == local.read_bytes()
    assert (first["sha256"], first["device_sha256"], first["device_digest_source"]) == (
        digest,
        digest,
        "device_sha256sum",
    )
    assert first["overwritten"] is False and first["bytes"] == local.stat().st_size
    assert out["again"][0] and out["again"][1]["details"]["field"] == "overwrite"
    assert out["replace"][1]["normalized_result"]["overwritten"] is True
    assert out["stop"][1]["normalized_result"]["package_name"] == "com.example.app"
    refused = out["refused"][1]
    assert (
        refused["code"] == "execution_failure"
        and "DELETE_FAILED_INTERNAL_ERROR" in refused["details"]["device_verdict"]
    )
