"""list_javascript_runtime_targets and observe_javascript_runtime against a real Node (`node --inspect`).

Each test starts the Node on this machine with `--inspect=127.0.0.1:0` running a script it
writes, reads the port from Node's "Debugger listening on ws://..." line, and kills the
process group at the end, asserting nothing of it is left. Ground truth is Node's own:
its `/json/list` read with urllib, and `require.cache` written by the script itself.
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import threading
import time

import anyio
import psutil
import pytest
from returns.result import Failure, Success

from effects import cdp
from effects.calls import Connection
from javascript_fixtures import Node, call
from scripted import CTX
from support import clean_env, rea_command

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="no node on this host")

APP = """
const fs = require('fs');
const a = require('./lib/a.js');
let n = 0;
setInterval(() => { n += 1; console.log('tick', n, a.name); debugger; }, 40);
setTimeout(() => {
  globalThis.late = require('./lib/late.js');
  fs.writeFileSync(process.argv[2], JSON.stringify(Object.keys(require.cache)));
}, 250);
"""
CRASH = """
console.log('starting');
setTimeout(() => { throw new Error('boom-uncaught'); }, 200);
setInterval(() => {}, 1000);
"""


@pytest.fixture
def node_app(tmp_path):
    n = Node(tmp_path / "app", APP)
    try:
        yield n
    finally:
        n.close()


def observe(conn, node: Node, **args):
    return call(
        conn,
        "observe_javascript_runtime",
        {"inspector_endpoint": node.endpoint, "target_id": node.target_id, **args},
    )


def test_list_matches_node_own_answer(node_app):
    r = call(Connection(ctx=CTX), "list_javascript_runtime_targets", {"inspector_endpoint": node_app.endpoint})
    assert isinstance(r, Success), r
    got = r.unwrap()["normalized_result"]
    assert [t["target_id"] for t in got["targets"]] == [t["id"] for t in node_app.targets]
    (target,) = got["targets"]
    assert target["location"] == {
        "kind": "unresolved",
        "reported_url": node_app.targets[0]["url"],
        "reason": "unverifiable-file-location",
    }
    assert got["runtime"]["product"].startswith("node.js/v") and target["protocol_type"] == "node"


def test_observation_lists_loaded_modules_console_and_never_evaluates(node_app, monkeypatch):
    sent: list[str] = []
    original = cdp.CdpSession.send

    async def spy(self, method, params=None, **kw):
        sent.append(method)
        return await original(self, method, params, **kw)

    monkeypatch.setattr(cdp.CdpSession, "send", spy)
    # attach after Node has required late.js and written its require.cache: both modules hold a live
    # function, so the attach replays them; racing the require made this test fail under CI load
    give_up = time.monotonic() + 60
    while not node_app.cache.exists() and time.monotonic() < give_up:
        time.sleep(0.05)
    r = observe(Connection(ctx=CTX), node_app, observation_ms=900, runtime_kind="node")
    assert isinstance(r, Success), r
    got = r.unwrap()["normalized_result"]
    truth = set(json.loads(node_app.cache.read_text()))  # Node's own require.cache, written by the script
    assert truth <= set(got["modules_loaded"]) and any(p.endswith("late.js") for p in truth)
    assert {s["location"]["kind"] for s in got["scripts"]["items"]} >= {"file", "builtin"}
    ticks = [c for c in got["console"] if c["text"].startswith("tick ")]
    assert len(ticks) >= 5  # the `debugger;` statement in the loop did not stop the runtime
    assert any(c["level"] == "warning" and c["text"] == "late loaded" for c in got["console"])
    assert set(sent) == {
        "Runtime.enable",
        "Debugger.enable",
        "Debugger.setSkipAllPauses",
        "Debugger.disable",
        "Runtime.disable",
    }
    assert got["capture"]["status"] == "complete" and not got["capture"]["runtime_exited"]
    assert got["target"]["runtime_kind_authority"] == "caller-declared-unverified"
    assert node_app.process.poll() is None  # still running after the detach


def test_uncaught_exception_is_observed(tmp_path):
    node = Node(tmp_path / "crash", CRASH)
    try:
        r = observe(Connection(ctx=CTX), node, observation_ms=1200)
        got = r.unwrap()["normalized_result"]
        assert any("boom-uncaught" in e["text"] for e in got["exceptions"]), got["exceptions"]
    finally:
        node.close()


def test_runtime_that_exits_mid_observation_is_a_partial_answer(node_app):
    killer = threading.Thread(target=node_app.kill_once_attached, daemon=True)
    killer.start()
    r = observe(Connection(ctx=CTX), node_app, observation_ms=10_000)
    killer.join(timeout=30)
    assert isinstance(r, Success), r
    got = r.unwrap()["normalized_result"]
    assert got["capture"]["status"] == "partial" and got["capture"]["runtime_exited"]
    # the window ended when the runtime went away (0.3 s after it attached), not at its 10 s end; the elapsed time the
    # observation itself reports is the witness (wall-clock would race a loaded host)
    assert got["capture"]["elapsed_ms"] < 8_000
    assert any("closed the connection" in u for u in got["unknowns"])
    assert got["modules_loaded"]  # what was seen before the exit is kept
    assert not psutil.pid_exists(node_app.process.pid)


@pytest.mark.parametrize(
    "endpoint",
    ["http://10.1.2.3:9229", "http://example.com:9229", "ws://192.168.0.1:9229/x", "http://127.0.0.1.nip.io:9229"],
)
def test_non_loopback_endpoint_is_refused_before_connecting(endpoint, monkeypatch):
    def no_socket(*a, **k):
        raise AssertionError("a connection was attempted")

    monkeypatch.setattr(socket, "create_connection", no_socket)
    for tool, extra in (("list_javascript_runtime_targets", {}), ("observe_javascript_runtime", {"target_id": "x"})):
        r = call(Connection(ctx=CTX), tool, {"inspector_endpoint": endpoint, **extra})
        assert isinstance(r, Failure) and r.failure().code == "invalid_request"
        assert r.failure().details["reason"] == "target_not_allowed"
        assert r.failure().details["field"] == "inspector_endpoint"


def test_unknown_target_and_closed_port(node_app):
    r = call(
        Connection(ctx=CTX),
        "observe_javascript_runtime",
        {"inspector_endpoint": node_app.endpoint, "target_id": "no-such-target"},
    )
    assert isinstance(r, Failure) and r.failure().code == "target_unavailable"
    assert r.failure().details["known_targets"] == [node_app.target_id]
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        closed = s.getsockname()[1]
    r = call(
        Connection(ctx=CTX), "list_javascript_runtime_targets", {"inspector_endpoint": f"http://127.0.0.1:{closed}"}
    )
    assert isinstance(r, Failure) and r.failure().code == "provider_unavailable"


@pytest.mark.slow
def test_runtime_tools_over_mcp_and_cli(node_app, tmp_path):
    from mcp_client import connect, error, evidence

    async def main():
        async with connect(TMPDIR=str(tmp_path)) as s:
            listed = await s.call_tool("list_javascript_runtime_targets", {"inspector_endpoint": node_app.endpoint})
            seen = await s.call_tool(
                "observe_javascript_runtime",
                {"inspector_endpoint": node_app.endpoint, "target_id": node_app.target_id, "observation_ms": 300},
            )
            bad = await s.call_tool("list_javascript_runtime_targets", {"inspector_endpoint": "http://10.0.0.1:9229"})
            return listed, seen, bad

    listed, seen, bad = anyio.run(main)
    assert evidence(listed)["normalized_result"]["targets"][0]["target_id"] == node_app.target_id
    assert evidence(seen)["normalized_result"]["modules_loaded"]
    error(bad, "invalid_request")
    env = clean_env()
    as_json = subprocess.run(
        [*rea_command(), "list-javascript-runtime-targets", node_app.endpoint, "--json"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert as_json.returncode == 0, as_json.stderr
    assert json.loads(as_json.stdout)["normalized_result"]["total"] == 1
    as_text = subprocess.run(
        [
            *rea_command(),
            "observe-javascript-runtime",
            node_app.endpoint,
            node_app.target_id,
            "--observation-ms",
            "300",
        ],
        capture_output=True,
        text=True,
        env=env,
    )
    assert as_text.returncode == 0, as_text.stderr
    assert "module " in as_text.stdout and "/app/app.js" in as_text.stdout, as_text.stdout[:600]
