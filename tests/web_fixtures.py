"""Pages for the web family's tests: opened by the test (as a user would), read back by the test's own CDP.

The test opens a tab with `PUT /json/new?URL` on the caller-started browser, waits for its load,
and reads navigation history with its own DevTools session, so REA's passivity is checked by
something other than REA.
"""

from __future__ import annotations

import json
import time
import urllib.request
from typing import Any

import anyio
from returns.result import Failure, Success

from artifact_fixtures import call
from effects import cdp
from rea.loopback import parse_endpoint


def _json(url: str, method: str = "GET") -> Any:
    with urllib.request.urlopen(urllib.request.Request(url, method=method), timeout=10) as reply:
        return json.load(reply)


def targets(endpoint: str) -> list[dict[str, Any]]:
    return list(_json(endpoint + "/json/list"))


def open_page(endpoint: str, url: str, title: str | None = None, settle_s: float = 0.3) -> str:
    """A new tab at `url`; returns its target id once its title (when given) shows it loaded."""
    created = _json(f"{endpoint}/json/new?{url}", method="PUT")
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        row = next((t for t in targets(endpoint) if t["id"] == created["id"]), None)
        if row is not None and row["url"] == url and (title is None or row["title"] == title):
            time.sleep(settle_s)
            return str(created["id"])
        time.sleep(0.05)
    raise AssertionError(f"page {url} did not load")


def close_page(endpoint: str, target_id: str) -> None:
    with urllib.request.urlopen(f"{endpoint}/json/close/{target_id}", timeout=10):
        pass


def history(endpoint: str, target_id: str) -> dict[str, Any]:
    """The tab's navigation history, read by the test's own DevTools session."""

    async def read() -> dict[str, Any]:
        ep = parse_endpoint(endpoint).unwrap()
        session = (await cdp.attach(ep, target_id, "test")).unwrap()
        try:
            return (await session.send("Page.getNavigationHistory")).unwrap()
        finally:
            await session.close()

    return anyio.run(read)


def _ok(tool: str, args: dict) -> dict:
    reply, _ = call(tool, args)
    assert isinstance(reply, Success), reply
    return reply.unwrap()


def _err(tool: str, args: dict) -> dict:
    reply, _ = call(tool, args)
    assert isinstance(reply, Failure), reply
    return dict(reply.failure().record())
