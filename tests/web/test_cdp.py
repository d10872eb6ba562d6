"""The shared DevTools boundary against real headless Chromium: discovery, attach, events, failures.

Ground truth is the browser's own HTTP answer (`/json/list` read with urllib here) and the
page the test serves; the owned launcher is checked by psutil, not by itself.
"""

from __future__ import annotations

import json
import os
import socket
import urllib.request

import anyio
import psutil
import pytest
from returns.result import Failure, Success

from chromium_fixtures import needs_chromium
from effects import cdp
from effects.chromium import OwnedChromium
from rea.loopback import parse_endpoint

pytestmark = needs_chromium


def _endpoint(url: str):
    return parse_endpoint(url).unwrap()


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_list_targets_matches_the_browser_own_answer(browser) -> None:
    with urllib.request.urlopen(browser.endpoint + "/json/list") as reply:
        truth = {t["id"] for t in json.load(reply)}
    got = anyio.run(cdp.list_targets, _endpoint(browser.endpoint), "list_browser_targets")
    assert isinstance(got, Success)
    assert {t["id"] for t in got.unwrap()} == truth and truth


def test_attach_sends_commands_and_delivers_events(browser, site) -> None:
    url = site.write("index.html", "<title>cdp</title><p id=x>hello</p>")

    async def run() -> tuple[str, list[str]]:
        page = next(
            t for t in (await cdp.list_targets(_endpoint(browser.endpoint), "t")).unwrap() if t["type"] == "page"
        )
        session = (await cdp.attach(_endpoint(browser.endpoint), page["id"], "t")).unwrap()
        loaded: list[str] = []
        done = anyio.Event()

        def on_frame(params: dict) -> None:
            loaded.append(params["frame"]["url"])
            done.set()

        fired = anyio.Event()  # the commit comes before the parse: read the DOM once the page has loaded
        try:
            session.on("Page.frameNavigated", on_frame)
            session.on("Page.loadEventFired", lambda _params: fired.set())
            assert isinstance(await session.send("Page.enable"), Success)
            assert isinstance(await session.send("Page.navigate", {"url": url}), Success)
            with anyio.fail_after(15):
                await done.wait()
                await fired.wait()
            doc = (await session.send("DOM.getDocument", {"depth": -1})).unwrap()
            return json.dumps(doc), loaded
        finally:
            await session.close()

    doc, loaded = anyio.run(run)
    assert loaded == [url]
    assert '"x"' in doc and "hello" in doc


def test_unknown_target_names_the_known_ones(browser) -> None:
    got = anyio.run(cdp.attach, _endpoint(browser.endpoint), "no-such-target", "inspect_web_page")
    assert isinstance(got, Failure)
    err = got.failure()
    assert err.code == "target_unavailable" and err.details["reason"] == "target_not_found"
    assert err.details["known_targets"]


def test_a_refused_command_is_a_protocol_error(browser) -> None:
    async def run():
        page = next(
            t for t in (await cdp.list_targets(_endpoint(browser.endpoint), "t")).unwrap() if t["type"] == "page"
        )
        session = (await cdp.attach(_endpoint(browser.endpoint), page["id"], "t")).unwrap()
        try:
            return await session.send("NoSuchDomain.method")
        finally:
            await session.close()

    err = anyio.run(run).failure()
    assert err.code == "execution_failure" and err.details["reason"] == "protocol_error"


def test_nothing_listening_is_endpoint_unreachable() -> None:
    got = anyio.run(cdp.list_targets, _endpoint(f"http://127.0.0.1:{_closed_port()}"), "list_browser_targets")
    err = got.failure()
    assert err.code == "provider_unavailable" and err.details["reason"] == "endpoint_unreachable"
    assert "remote-debugging-port" in (err.action or "")


def test_a_non_devtools_server_is_an_invalid_response(site) -> None:
    site.write("json/list", "<html>not devtools</html>")
    got = anyio.run(cdp.list_targets, _endpoint(site.origin), "list_browser_targets")
    assert got.failure().details["reason"] == "invalid_endpoint_response"


@pytest.mark.slow
def test_owned_chromium_is_verified_gone_and_its_profile_removed() -> None:
    async def run():
        owned = OwnedChromium("capture_browser_scenario")
        endpoint = (await owned.start()).unwrap()
        pid, profile = owned.process.pid, owned.profile
        version = (await cdp.browser_version(endpoint, "t")).unwrap()
        lineage = owned.observe()
        remaining = await owned.stop()
        return pid, profile, version, lineage, remaining

    pid, profile, version, lineage, remaining = anyio.run(run)
    assert "Chrome" in version["Browser"] or "Chromium" in version["Browser"]
    assert lineage["status"] == "verified" and lineage["process_group_id"] == pid and lineage["descendants"]
    assert remaining == []
    assert not os.path.exists(profile)
    for proc in psutil.process_iter(["pid"]):
        try:
            assert os.getpgid(proc.pid) != pid or proc.status() == psutil.STATUS_ZOMBIE
        except (ProcessLookupError, psutil.Error):
            continue
