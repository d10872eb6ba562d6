"""capture_process_scenario with network_access loopback: the run's loopback traffic as protocol events, and
compare_process_captures on that dimension, on a real captured python3 script (no network: everything is on the
run's private lo).

Ground truth is the script's own: the exact bytes it sent and received on each socket (written to truth.json),
and iproute2's `ss -tin`, run inside the same namespace while the raw connection is open, for the kernel's own
byte counts of each endpoint (tcp_info bytes_received), a reader independent of the frames REA decodes. That
the observer leaves nothing behind is checked with psutil (no process running tap_main.py), the thread list
and this process's open descriptors."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import anyio
import psutil
import pytest

from artifact_fixtures import call
from effects.process_capture.launch import TAP_MAIN
from mcp_client import connect
from support import clean_env, rea_command

ROOT = Path(__file__).resolve().parents[2]
EXCHANGE = r"""
import json, os, socket, subprocess, threading
from http.server import BaseHTTPRequestHandler, HTTPServer
answer = os.environ.get("ANSWER", "pong!").encode()
sent = b"ping\x00\xff" * 3
truth = {}
listener = socket.socket(); listener.bind(("127.0.0.1", 0)); listener.listen()
client = socket.create_connection(listener.getsockname()); served, _ = listener.accept()
client.sendall(sent); got = b""
while len(got) < len(sent): got += served.recv(100)
served.sendall(answer); back = b""
while len(back) < len(answer): back += client.recv(100)
truth["tcp"] = {"sent": sent.hex(), "received": got.hex(), "answer": answer.hex(), "back": back.hex(),
                "client": client.getsockname()[1], "server": listener.getsockname()[1]}
truth["ss"] = subprocess.run(["/usr/bin/ss", "-tinH", "state", "established"], capture_output=True, text=True).stdout
client.close(); served.close(); listener.close()
class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_GET(self):
        body = b"hello " + answer
        self.send_response_only(200); self.send_header("Content-Length", str(len(body))); self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args): pass
server = HTTPServer(("127.0.0.1", 0), Handler)
worker = threading.Thread(target=server.handle_request); worker.start()
port = server.server_address[1]
request = f"GET /hello?x=1 HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode()
c = socket.create_connection(("127.0.0.1", port)); c.sendall(request); response = b""
while not response.endswith(b"hello " + answer): response += c.recv(65536)
c.close(); worker.join(); server.server_close()
truth["http"] = {"request": request.hex(), "response": response.hex(), "port": port}
with open("truth.json", "w") as f: json.dump(truth, f)
print("done")
"""


def _scenario(work: Path, answer: str = "pong!", **extra) -> dict:
    script = work / "exchange.py"
    script.write_text(EXCHANGE)
    return {"approved": True, "executable": sys.executable, "arguments": ["-I", str(script)],
            "working_directory": str(work), "network_access": "loopback", "environment": {"ANSWER": answer},
            **extra}  # fmt: skip


def _sha(hexed: str) -> str:
    return hashlib.sha256(bytes.fromhex(hexed)).hexdigest()


def _observer_processes() -> list[int]:
    found = []
    for proc in psutil.process_iter(["cmdline"]):
        if TAP_MAIN in (proc.info["cmdline"] or []):
            found.append(proc.pid)
    return found


def _ss_received(ss: str, port: int) -> int:
    """tcp_info bytes_received of the local endpoint 127.0.0.1:port, as ss printed it."""
    blocks = re.split(r"\n(?=\S)", ss.strip())
    for block in blocks:
        local = block.split()[2]
        if local == f"127.0.0.1:{port}":
            return int(re.search(r"bytes_received:(\d+)", block).group(1))
    raise AssertionError(f"no endpoint {port} in {ss!r}")


def test_the_loopback_exchange_is_recorded_byte_for_byte_and_the_observer_leaves_nothing(tmp_path):
    fds = len(os.listdir("/proc/self/fd"))
    reply, _ = call("capture_process_scenario", _scenario(tmp_path))
    result = reply.unwrap()["normalized_result"]
    truth = json.loads((tmp_path / "truth.json").read_text())
    assert result["exit"]["code"] == 0 and "done" in "".join(f["data"] for f in result["frames"])
    assert not result["residual_unknowns"] and not result["truncated"], result["residual_unknowns"]
    events = result["protocol_events"]
    assert [e["sequence"] for e in events] == list(range(len(events)))
    raw = [e for e in events if e["connection"] == 0]
    tcp = truth["tcp"]
    assert {(e["client"], e["server"]) for e in raw} == {(f"127.0.0.1:{tcp['client']}", f"127.0.0.1:{tcp['server']}")}
    assert [(e["kind"], e["direction"]) for e in raw][:3] == [("connect", "received"), ("data", "received"),
                                                              ("data", "sent")]  # fmt: skip
    assert sorted((e["kind"], e["direction"]) for e in raw[3:]) == [("close", "received"), ("close", "sent")]
    received, answered = raw[1], raw[2]
    assert (
        (received["bytes"], received["sha256"])
        == (len(tcp["sent"]) // 2, _sha(tcp["sent"]))
        == (18, _sha(tcp["received"]))
    )
    assert received["data"] == "ping\x00\\xff" * 3  # the 0xff bytes escaped, the rest as text
    assert (answered["bytes"], answered["sha256"], answered["data"]) == (5, _sha(tcp["back"]), "pong!")
    # the kernel's own count of what each endpoint received (ss, inside the namespace) agrees
    assert _ss_received(truth["ss"], tcp["server"]) == received["bytes"]
    assert _ss_received(truth["ss"], tcp["client"]) == answered["bytes"]
    http = [e for e in events if e["connection"] == 1 and e["kind"] == "data"]
    request, response = http
    assert (request["protocol"], request["direction"], request["method"], request["path"]) == (
        "http", "request", "GET", "/hello?x=1")  # fmt: skip
    assert (request["sha256"], request["data"]) == (
        _sha(truth["http"]["request"]),
        bytes.fromhex(truth["http"]["request"]).decode(),
    )
    assert (response["protocol"], response["direction"], response["status"]) == ("http", "response", 200)
    assert response["sha256"] == _sha(truth["http"]["response"]) and response["data"].endswith("hello pong!")
    assert all(e["outcome"] == "observed" and e["at_ms"] >= 0 for e in events)
    journal = [j for j in result["event_journal"] if j["collection"] == "protocol_events"]
    assert sorted(j["index"] for j in journal) == list(range(len(events)))
    # nothing of the observer outlives the capture: no process, no reading thread, no descriptor
    assert _observer_processes() == []
    assert not [t for t in threading.enumerate() if t.name == "rea-loopback-tap"]
    assert len(os.listdir("/proc/self/fd")) == fds


def test_one_response_byte_changes_the_protocol_dimension_where_it_first_differs(tmp_path):
    runs, conn = [], None
    for answer in ("pong!", "pong!", "pong?"):
        reply, conn = call("capture_process_scenario", _scenario(tmp_path, answer), conn)
        runs.append(reply.unwrap()["evidence_id"])

    def compare(left: str, right: str) -> dict:
        reply, _ = call("compare_process_captures", {"left_evidence_id": left, "right_evidence_id": right}, conn)
        return reply.unwrap()["normalized_result"]

    same = compare(runs[0], runs[1])  # other ports each run: normalized away (the short `ss` may be sampled or not)
    assert (same["protocol"], same["terminal"], same["exit"]) == ("unchanged",) * 3, same
    assert same["first_divergence"].get("dimension") in (None, "process")
    changed = compare(runs[0], runs[2])
    assert changed["protocol"] == "changed" and changed["status"] == "changed"
    first = changed["first_divergence"]
    assert (first["dimension"], first["index"]) == ("protocol", 2)  # connect, what the client sent, then this
    assert (first["left"]["data"], first["right"]["data"]) == ("pong!", "pong?")
    assert first["left"]["client"] == "127.0.0.1:<port>" and first["left_at_ms"] is not None
    assert compare(runs[2], runs[0])["first_divergence"]["index"] == 2


def test_limits_make_the_protocol_dimension_partial_and_none_has_no_observer(tmp_path):
    reply, conn = call("capture_process_scenario", _scenario(tmp_path, limits={"protocol_events": 3}))
    limited = reply.unwrap()
    result = limited["normalized_result"]
    assert len(result["protocol_events"]) == 3 and result["truncated"]
    assert [u["scope"] for u in result["residual_unknowns"]] == ["protocol"]
    assert "past limits.protocol_events" in result["residual_unknowns"][0]["reason"]
    again, conn = call("capture_process_scenario", _scenario(tmp_path, limits={"protocol_events": 3}), conn)
    compared, _ = call("compare_process_captures", {"left_evidence_id": limited["evidence_id"],
                                                    "right_evidence_id": again.unwrap()["evidence_id"]}, conn)  # fmt: skip
    found = compared.unwrap()["normalized_result"]
    assert (found["protocol"], found["status"], found["first_divergence"]["status"]) == (
        "unknown",
        "truncated",
        "unknown",
    )
    # with no network there is no observer: the script cannot even connect, and nothing is missing
    reply, _ = call("capture_process_scenario", {**_scenario(tmp_path), "network_access": "none"})
    none = reply.unwrap()["normalized_result"]
    assert none["protocol_events"] == [] and none["exit"]["code"] != 0
    assert not [u for u in none["residual_unknowns"] if u["scope"] == "protocol"]
    assert any("With network_access none no interface is up" in line for line in none["limitations"])


SIX = """import socket
u = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM); u.bind(("::1", 0))
v = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM); v.sendto(b"hello-udp6", u.getsockname()[:2])
data, peer = u.recvfrom(100); u.sendto(b"back", peer); v.recv(10)
l = socket.socket(socket.AF_INET6); l.bind(("::1", 0)); l.listen()
c = socket.create_connection(l.getsockname()[:2]); d, _ = l.accept(); c.sendall(b"six"); d.recv(3)
print("ports", u.getsockname()[1], v.getsockname()[1], l.getsockname()[1], c.getsockname()[1]); c.close(); d.close()
"""


def test_ipv6_udp_datagrams_and_tcp_are_recorded(tmp_path):
    (tmp_path / "six.py").write_text(SIX)
    reply, _ = call("capture_process_scenario", {"approved": True, "executable": sys.executable,
                                                 "arguments": ["-I", str(tmp_path / "six.py")],
                                                 "working_directory": str(tmp_path), "network_access": "loopback"})  # fmt: skip
    result = reply.unwrap()["normalized_result"]
    text = "".join(f["data"] for f in result["frames"])
    receiver, sender, listener, connector = re.search(r"ports (\d+) (\d+) (\d+) (\d+)", text).groups()
    assert [(e["kind"], e["protocol"], e["direction"], e["client"], e["server"], e["data"], e["bytes"])
            for e in result["protocol_events"]] == [
        ("datagram", "udp", "received", f"[::1]:{sender}", f"[::1]:{receiver}", "hello-udp6", 10),
        ("datagram", "udp", "sent", f"[::1]:{sender}", f"[::1]:{receiver}", "back", 4),
        ("connect", "tcp", "received", f"[::1]:{connector}", f"[::1]:{listener}", "", 0),
        ("data", "tcp", "received", f"[::1]:{connector}", f"[::1]:{listener}", "six", 3),
        ("close", "tcp", "received", f"[::1]:{connector}", f"[::1]:{listener}", "", 0),
        ("close", "tcp", "sent", f"[::1]:{connector}", f"[::1]:{listener}", "", 0),
    ]  # fmt: skip
    assert not result["residual_unknowns"]


LOOP = "import socket\ns = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen()\nwhile True:\n    c = socket.create_connection(s.getsockname()); d, _ = s.accept(); c.sendall(b'tick'); d.recv(9); c.close(); d.close()\n"


@pytest.mark.slow
def test_a_cancelled_loopback_capture_leaves_no_process_and_no_observer_over_mcp(tmp_path):
    script = tmp_path / "loop.py"
    script.write_text(LOOP)
    marker = [sys.executable, "-I", str(script), f"marker{os.getpid()}"]
    args = {"approved": True, "executable": marker[0], "arguments": marker[1:], "working_directory": str(tmp_path),
            "network_access": "loopback", "timeout_ms": 120_000, "limits": {"protocol_events": 200}}  # fmt: skip

    async def main() -> int:
        async with connect() as s:
            async with anyio.create_task_group() as group:
                group.start_soon(s.call_tool, "capture_process_scenario", args)
                for _ in range(400):
                    found = [p for p in psutil.process_iter(["cmdline"]) if p.info["cmdline"] == marker]
                    if found:
                        break
                    await anyio.sleep(0.025)
                pid = found[0].pid
                await anyio.sleep(0.5)
                group.cancel_scope.cancel()
            return pid

    pid = anyio.run(main)
    for _ in range(200):
        if not psutil.pid_exists(pid):
            break
        anyio.run(anyio.sleep, 0.025)
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    assert _observer_processes() == []


def test_a_cancel_keeps_the_traffic_seen_until_then_in_the_partial_observation(tmp_path):
    from effects.calls import Connection, call_tool
    from scripted import CTX

    script = tmp_path / "loop.py"
    script.write_text(LOOP)
    conn = Connection(ctx=CTX)
    args = {"approved": True, "executable": sys.executable, "arguments": ["-I", str(script)],
            "working_directory": str(tmp_path), "network_access": "loopback", "limits": {"protocol_events": 50}}  # fmt: skip
    fds = len(os.listdir("/proc/self/fd"))

    async def main() -> bool:
        with anyio.move_on_after(1.5) as scope:
            await call_tool(conn, "capture_process_scenario", args, None)
        return scope.cancelled_caught

    assert anyio.run(main) is True
    failure = conn.cancelled_reply.failure()
    assert failure.code == "cancelled"
    kept = conn.session.evidence[failure.details["partial_observation"]["evidence_id"]].normalized_result
    assert kept["exit"]["reason"] == "cancelled" and kept["truncated"]
    ticks = [e for e in kept["protocol_events"] if e["kind"] == "data"]
    assert ticks and {e["data"] for e in ticks} == {"tick"} and len(kept["protocol_events"]) == 50
    assert _observer_processes() == [] and not [t for t in threading.enumerate() if t.name == "rea-loopback-tap"]
    assert len(os.listdir("/proc/self/fd")) == fds


def test_the_cli_records_loopback_traffic(tmp_path):
    env = clean_env(REA_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=str(ROOT))
    work = tmp_path / "w"
    work.mkdir()
    done = subprocess.run([*rea_command(), "call", "capture_process_scenario", "--json-args",
                           json.dumps(_scenario(work)), "--format", "json"],
                          capture_output=True, text=True, env=env, timeout=120)  # fmt: skip
    result = json.loads(done.stdout)["normalized_result"]
    truth = json.loads((work / "truth.json").read_text())
    digests = {e["sha256"] for e in result["protocol_events"]}
    assert {_sha(truth["tcp"]["sent"]), _sha(truth["tcp"]["back"]), _sha(truth["http"]["response"])} <= digests
    assert _observer_processes() == []


def test_an_observer_that_never_hands_over_its_socket_is_a_residual_unknown_not_silence():
    """The failure path of the observer step, with a real child that closes the channel without a socket (as a
    chain that fails before tap_main.py would): the protocol dimension says why it is open."""
    from effects.process_capture.loopback import Tap
    from rea.process_capture.protocol import protocol_gaps
    from rea.process_capture.records import CaptureLimits

    tap = Tap(CaptureLimits())
    subprocess.run(["/bin/sh", "-c", "exit 0"], pass_fds=tap.pass_fds(), check=True)
    tap.begin(0.0)
    traffic = tap.finish()
    assert traffic.events == () and traffic.observer_failure is not None
    assert protocol_gaps("loopback", traffic) == [f"the loopback observer did not start: {traffic.observer_failure}"]
    assert protocol_gaps("none", None) == [] and protocol_gaps("loopback", None) == [
        "loopback traffic was not observed"
    ]
    assert not [t for t in threading.enumerate() if t.name == "rea-loopback-tap"]
