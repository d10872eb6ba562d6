"""list_electron_targets and inspect_electron_page over CDP, tested against headless Debian Chromium.

A real Electron binary cannot be installed from this machine's registries (npm's `electron`
package downloads its binary from GitHub at install time; Debian ships none), so these tests
drive Chromium, which serves the same DevTools protocol Electron embeds, with a local
file:// page laid out like an Electron renderer (index.html, a renderer script, a
stylesheet) opened through a symlinked directory. Ground truth is the files on disk and
Chromium's own `/json/list`; what an Electron main process adds (its own targets, IPC) is
not exercised here.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import urllib.request

import anyio
import pytest
from returns.result import Failure, Success

from chromium_fixtures import Browser, needs_chromium
from effects.calls import Connection
from javascript_fixtures import call
from scripted import CTX
from support import clean_env, rea_command

pytestmark = needs_chromium

PAGE = """<!doctype html><html><head><title>Renderer</title><link rel="stylesheet" href="style.css">
<script src="renderer.js"></script></head>
<body><div id="app" data-token="s3cr3t-value" class="main">hello private text</div></body></html>
"""
RENDERER = "window.addEventListener('load', () => { document.title = 'Renderer loaded'; });\n"


@pytest.fixture
def electron_like(tmp_path, site):
    real = tmp_path / "resources" / "app"
    real.mkdir(parents=True)
    (real / "index.html").write_text(PAGE)
    (real / "renderer.js").write_text(RENDERER)
    (real / "style.css").write_text("body { color: red; }\n")
    link = tmp_path / "linked-app"
    link.symlink_to(real)
    web = site.write("remote.html", "<title>remote</title>")
    b = Browser(url=f"file://{link}/index.html")
    # a second, non-file page (headless Chromium takes one URL on its command line)
    urllib.request.urlopen(urllib.request.Request(f"{b.endpoint}/json/new?{web}", method="PUT")).close()
    try:
        yield b, real
    finally:
        b.close()


def _file_page(b: Browser) -> str:
    with urllib.request.urlopen(b.endpoint + "/json/list") as reply:
        return next(t["id"] for t in json.load(reply) if t["url"].startswith("file://"))


def test_list_shows_only_file_pages_with_canonical_paths(electron_like):
    b, real = electron_like
    with urllib.request.urlopen(b.endpoint + "/json/list") as reply:
        truth = json.load(reply)
    r = call(Connection(ctx=CTX), "list_electron_targets", {"cdp_endpoint": b.endpoint})
    assert isinstance(r, Success), r
    got = r.unwrap()["normalized_result"]
    files = [t for t in truth if t["type"] == "page" and t["url"].startswith("file://")]
    assert [t["target_id"] for t in got["targets"]] == [t["id"] for t in files]
    assert got["targets"][0]["file_path"] == str(real / "index.html")  # symlink resolved
    assert got["excluded"]["unsupported_url"] == sum(
        1 for t in truth if t["type"] == "page" and not t["url"].startswith("file://")
    )
    assert got["excluded"]["non_page"] == sum(1 for t in truth if t["type"] != "page")
    assert got["browser"]["product"].startswith(("Chrome", "HeadlessChrome", "Chromium"))


def test_inspection_reads_structure_scripts_and_resources_never_values(electron_like):
    b, real = electron_like
    target = _file_page(b)
    r = call(
        Connection(ctx=CTX),
        "inspect_electron_page",
        {"cdp_endpoint": b.endpoint, "target_id": target, "observation_ms": 300, "include_script_sources": True},
    )
    assert isinstance(r, Success), r
    got = r.unwrap()["normalized_result"]
    assert got["frames"][0]["file_path"].endswith("/index.html") and got["frames"][0]["parent_frame_id"] is None
    div = next(n for n in got["dom"]["nodes"] if n["node_name"] == "DIV")
    assert div["attribute_names"] == ["id", "data-token", "class"]
    text = json.dumps(got)
    assert "s3cr3t-value" not in text and "hello private text" not in text  # structure only
    (script,) = [s for s in got["scripts"]["items"] if s["file_path"].endswith("renderer.js")]
    source = script["source"]
    assert source["included"] and source["artifact"]["text"] == RENDERER
    assert source["artifact"]["sha256"] == hashlib.sha256((real / "renderer.js").read_bytes()).hexdigest()
    kinds = {(x["type"], os.path.basename(x["file_path"])) for x in got["resources"]}
    assert {("Stylesheet", "style.css"), ("Script", "renderer.js")} <= kinds
    assert got["completeness"]["status"] in ("complete_within_window", "policy_filtered")
    assert got["capture_window"]["started_at"] <= got["capture_window"]["ended_at"]


def test_a_non_file_page_and_a_missing_target_are_refused(electron_like):
    b, _ = electron_like
    with urllib.request.urlopen(b.endpoint + "/json/list") as reply:
        web = next(t["id"] for t in json.load(reply) if t["url"].startswith("http"))
    r = call(Connection(ctx=CTX), "inspect_electron_page", {"cdp_endpoint": b.endpoint, "target_id": web})
    assert isinstance(r, Failure) and r.failure().details["reason"] == "target_not_allowed"
    r = call(Connection(ctx=CTX), "inspect_electron_page", {"cdp_endpoint": b.endpoint, "target_id": "gone"})
    assert isinstance(r, Failure) and r.failure().code == "target_unavailable"
    r = call(Connection(ctx=CTX), "list_electron_targets", {"cdp_endpoint": "http://192.168.1.10:9223"})
    assert isinstance(r, Failure) and r.failure().details["reason"] == "target_not_allowed"


@pytest.mark.slow
def test_electron_tools_over_mcp_and_cli(electron_like, tmp_path):
    from mcp_client import connect, evidence

    b, _ = electron_like
    target = _file_page(b)

    async def main():
        async with connect(TMPDIR=str(tmp_path)) as s:
            listed = await s.call_tool("list_electron_targets", {"cdp_endpoint": b.endpoint})
            page = await s.call_tool("inspect_electron_page", {"cdp_endpoint": b.endpoint, "target_id": target})
            return listed, page

    listed, page = anyio.run(main)
    assert evidence(listed)["normalized_result"]["targets"][0]["target_id"] == target
    assert evidence(page)["normalized_result"]["scripts"]["items"][0]["source"]["included"] is False
    env = clean_env()
    as_json = subprocess.run(
        [*rea_command(), "list-electron-targets", b.endpoint, "--json"], capture_output=True, text=True, env=env
    )
    assert as_json.returncode == 0 and json.loads(as_json.stdout)["normalized_result"]["targets"]
    as_text = subprocess.run(
        [*rea_command(), "inspect-electron-page", b.endpoint, target], capture_output=True, text=True, env=env
    )
    assert as_text.returncode == 0 and "renderer.js" in as_text.stdout, as_text.stderr
