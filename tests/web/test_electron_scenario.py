"""capture_electron_scenario against headless Chromium standing in for Electron.

No Electron binary can be installed from this host's registries; Chromium speaks the same DevTools
protocol and takes the application (here an HTML file) as its launch argument, so the owned launch,
window targeting, clicks, reloads, the page-error timeline, the process inventory and the cleanup
are tested for real. Main-process families (IPC, deep links) are asserted to be reported
unavailable, which is what a CDP-only runner can truthfully say.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import anyio
import pytest
from returns.result import Success

from artifact_fixtures import call
from chromium_fixtures import CHROMIUM, _gone, needs_chromium
from mcp_client import connect, error, evidence
from support import clean_env, rea_command

pytestmark = [needs_chromium, pytest.mark.slow]

APP = """<!doctype html><title>app</title>
<button id="run" onclick="document.getElementById('out').textContent = 'ran'; throw new Error('boom')">Run</button>
<p id="out"></p>"""


def _args(app: Path, actions: list[dict]) -> dict:
    return {"executable_path": CHROMIUM, "application_path": str(app), "actions": actions}


ACTIONS = [
    {"step_id": "run", "kind": "click", "selector": "#run"},
    {"step_id": "settle", "kind": "wait", "duration_ms": 50},
    {"step_id": "reload", "kind": "renderer-reload"},
    {"step_id": "link", "kind": "deep-link", "delivery": "open-url", "url": "example://open"},
    {"step_id": "after", "kind": "wait", "duration_ms": 1},
]


def test_an_owned_run_clicks_reloads_and_reports_what_cdp_cannot_see(tmp_path, owned) -> None:  # noqa: F811
    app = tmp_path / "index.html"
    app.write_text(APP)
    reply, _ = call("capture_electron_scenario", _args(app, ACTIONS))
    assert isinstance(reply, Success), reply
    r = reply.unwrap()["normalized_result"]
    assert [(a["step_id"], a["status"]) for a in r["actions"]] == [
        ("run", "completed"),
        ("settle", "completed"),
        ("reload", "completed"),
        ("link", "failed"),
        ("after", "cancelled"),
    ]
    assert "main-process hooks" in r["actions"][3]["error"]
    assert r["actions"][0]["target"] == r["windows"][0]["window_id"] and r["actions"][1]["window_index"] is None
    assert r["windows"][0]["url"] == app.as_uri()
    errors = [e for e in r["timeline"]["events"] if e["kind"] == "error"]
    assert [e["event"] for e in errors] == ["Error: boom"]  # the click's handler ran and threw
    assert [e["sequence"] for e in r["timeline"]["events"]] == list(range(1, r["timeline"]["observed"] + 1))
    assert {"browser", "renderer"} <= {p["type"] for p in r["processes"]["items"]}
    assert r["ipc"] == {"events": [], "observed": 0, "dropped": None}
    assert "ipc" in r["coverage"]["unavailable_event_families"] and r["coverage"]["status"] == "partial_attach"
    assert r["application"]["process_ownership"] == "provider-owned"
    assert len(owned) == 1
    _gone(owned[0])


def test_over_mcp_and_cli(tmp_path) -> None:
    app = tmp_path / "index.html"
    app.write_text(APP)
    args = _args(app, ACTIONS[:1])

    async def main() -> tuple:
        async with connect() as s:
            good = await s.call_tool("capture_electron_scenario", args)
            bad = await s.call_tool("capture_electron_scenario", {**args, "executable_path": "relative/electron"})
            return good, bad

    good, bad = anyio.run(main)
    assert evidence(good)["normalized_result"]["actions"][0]["status"] == "completed"
    error(bad, "invalid_request")
    cli = subprocess.run(
        [*rea_command(), "capture-electron-scenario", json.dumps(args)], capture_output=True, text=True, env=clean_env()
    )
    assert cli.returncode == 0, cli.stderr[-2000:]
    assert json.loads(cli.stdout)["normalized_result"]["windows"][0]["url"] == app.as_uri()
