"""The passive web tools against real headless Chromium and pages the tests serve on loopback.

Ground truth: the HTML the test wrote (counted by the stdlib's html.parser), the browser's own
`/json/list`, and navigation history read by the test's own DevTools session before and after
(REA must leave the page where it was). Storage values the page wrote must appear nowhere.
"""

from __future__ import annotations

import json
import socket
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import anyio
import pytest

from chromium_fixtures import Site, needs_chromium
from mcp_client import connect, error, evidence
from support import clean_env, rea_command
from web_fixtures import _err, _ok, close_page, history, open_page, targets

pytestmark = needs_chromium

SECRET = "s3cr3t-value-7f1d"
ITEMS = 40


def app_html(other_origin: str) -> str:
    items = "".join(f"<li class=i{i}>item {i}</li>" for i in range(ITEMS))
    return (
        "<!doctype html><html><head><title>app</title><link rel=mcp href=/mcp.json></head><body>"
        f"<h1 aria-label='Main heading'>Shop</h1><ul>{items}</ul><a href='/next?page=2'>next</a>"
        f"<button id=buy>Buy</button><script src=app.js></script><script src='{other_origin}/vendor.js'></script>"
        "</body></html>"
    )


APP_JS = f"""
localStorage.setItem('session_token', '{SECRET}');
sessionStorage.setItem('draft', '{SECRET}-draft');
document.cookie = 'sid={SECRET}-cookie';
let n = 0;
setInterval(() => {{ n += 1; console.log('tick', n); fetch('/data.json').then(r => r.json()); }}, 100);
"""
DATA = '{"items": [{"id": 1, "name": "x"}], "total": 1, "next": null}'


class _Count(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: dict[str, int] = {}

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.tags[tag] = self.tags.get(tag, 0) + 1


def _tags(html: str) -> dict[str, int]:
    parser = _Count()
    parser.feed(html)
    return parser.tags


@pytest.fixture
def other(tmp_path: Path):
    s = Site(tmp_path / "other")
    s.root.mkdir(exist_ok=True)
    s.write("vendor.js", "window.vendor = 1;")
    try:
        yield s
    finally:
        s.close()


@pytest.fixture
def app(browser, site, other):  # noqa: F811 - fixtures
    site.write("app.js", APP_JS)
    site.write("data.json", DATA)
    url = site.write("index.html", app_html(other.origin))
    tid = open_page(browser.endpoint, url, "app")
    try:
        yield tid, url
    finally:
        close_page(browser.endpoint, tid)


def test_list_browser_targets_matches_the_browser_and_filters_by_origin(browser, app, site) -> None:  # noqa: F811
    tid, url = app
    truth = targets(browser.endpoint)
    result = _ok("list_browser_targets", {"cdp_endpoint": browser.endpoint})["normalized_result"]
    pages = {t["id"] for t in truth if t["type"] == "page"}
    assert {t["target_id"] for t in result["targets"]} == pages
    assert result["excluded"]["non_page"] == len(truth) - len(pages)
    assert result["browser"]["product"].startswith(("Chrome/", "HeadlessChrome/"))
    scoped = _ok("list_browser_targets", {"cdp_endpoint": browser.endpoint, "allowed_origins": [site.origin + "/"]})
    kept = scoped["normalized_result"]
    assert [t["target_id"] for t in kept["targets"]] == [tid]
    assert kept["targets"][0]["origin"] == site.origin and kept["targets"][0]["url"] == url
    # the fixture's first tab is about:blank: not an http(s) page under a filter
    assert kept["excluded"]["unsupported_url"] >= 1


def test_inspect_web_page_reports_the_page_and_leaves_it_as_it_was(browser, app, site, other) -> None:  # noqa: F811
    tid, url = app
    before = history(browser.endpoint, tid)
    args = {
        "cdp_endpoint": browser.endpoint,
        "target_id": tid,
        "observation_ms": 800,
        "include_json_body_shapes": True,
        "include_storage_keys": True,
        "include_storage_fingerprints": True,
        "include_script_sources": True,
        "include_console_text": True,
        "include_accessibility_text": True,
    }
    record = _ok("inspect_web_page", args)
    r = record["normalized_result"]
    assert history(browser.endpoint, tid) == before
    assert next(t for t in targets(browser.endpoint) if t["id"] == tid)["url"] == url
    tags = _tags(app_html(other.origin))
    names = [n["node_name"] for n in r["dom"]["nodes"]]
    assert names.count("LI") == tags["li"] == ITEMS and names.count("SCRIPT") == tags["script"]
    assert r["dom"]["total_nodes"] == len(r["dom"]["nodes"])
    # scoped to the page's own origin: the other origin's script is excluded and counted
    assert [s["url"] for s in r["scripts"]["items"]] == [site.url("app.js")]
    script = r["scripts"]["items"][0]
    assert script["source"]["included"] and script["source"]["artifact"]["text"] == APP_JS
    assert script["resource_reconciliation"]["status"] == "exact"
    assert {"section": "scripts", "reason": "disallowed_origin", "count": 1} in r["completeness"]["excluded"]
    assert "scripts" in r["completeness"]["policy_filtered_sections"]
    # the attach window saw the page's polling, with the JSON shape and no values
    polled = [q for q in r["network"]["requests"] if q["url"] == site.url("data.json")]
    assert len(polled) >= 3 and all(q["method"] == "GET" for q in polled)
    shaped = [q for q in polled if q["body_shapes"]["response"] is not None]
    assert shaped and {p["path"] for p in shaped[0]["body_shapes"]["response"]["properties"]} == {
        "/items",
        "/items/*/id",
        "/items/*/name",
        "/total",
        "/next",
    }
    ticks = [
        e
        for e in r["console"]["events"]
        if e["text_capture"]["values"][:1] == [{"argument_index": 0, "type": "string", "text": "tick"}]
    ]
    assert len(ticks) >= 3 and all(e["url"] == site.url("app.js") for e in ticks)
    storage = r["storage"]
    assert storage["origin"] == site.origin and storage["values_redacted"] is True
    assert storage["local_storage_keys"] == ["session_token"] and storage["session_storage_keys"] == ["draft"]
    scopes = sorted(f["scope"] for f in storage["content_fingerprints"])
    assert scopes == ["cookie", "local_storage", "session_storage"]
    assert SECRET not in json.dumps({k: v for k, v in r.items() if k != "scripts"})
    assert r["target"]["target_id"] == tid and r["frames"][0]["url"] == url
    ax_names = {n["name"] for n in r["accessibility"]["nodes"]}
    assert "Main heading" in ax_names and "Buy" in ax_names
    hints = r["metadata"]["agent_hints"]
    assert hints == [
        {
            "mechanism": "dom_link_rel",
            "declaration": "<link rel=mcp>",
            "url": site.url("mcp.json"),
            "trust": "page-declared-untrusted",
        }
    ]
    assert {"attribute": "href", "url": site.url("next?page=2"), "destination_scope": "approved"}.items() <= next(
        u for u in r["metadata"]["dom_urls"] if u["attribute"] == "href" and "next" in (u["url"] or "")
    ).items()


def test_inspect_web_page_withholds_what_was_not_approved(browser, app, site, other) -> None:  # noqa: F811
    tid, _ = app
    args = {
        "cdp_endpoint": browser.endpoint,
        "target_id": tid,
        "observation_ms": 300,
        "allowed_origins": [site.origin, other.origin],
    }
    r = _ok("inspect_web_page", args)["normalized_result"]
    assert sorted(s["url"] for s in r["scripts"]["items"]) == sorted([site.url("app.js"), other.url("vendor.js")])
    assert all(s["source"] == {"included": False, "reason": "not_approved"} for s in r["scripts"]["items"])
    assert r["storage"]["local_storage_keys"] == [] and r["storage"]["content_fingerprints"] == []
    assert all(n["name"] is None for n in r["accessibility"]["nodes"])
    assert r["accessibility"]["text_capture"]["status"] == "not_approved"
    assert all(
        e["text_capture"] == {"status": "not_approved", "values": [], "retained_bytes": 0}
        for e in r["console"]["events"]
    )
    assert all(q["body_shapes"]["status"] == "not_approved" for q in r["network"]["requests"])
    assert {"storage_keys", "script_sources", "console_text"} <= set(r["completeness"]["policy_filtered_sections"])
    assert SECRET not in json.dumps(r)


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_inspect_web_page_refusals(browser, app, site, tmp_path) -> None:  # noqa: F811
    tid, _ = app
    base = {"cdp_endpoint": browser.endpoint, "target_id": tid, "observation_ms": 0}
    remote = _err("inspect_web_page", {**base, "cdp_endpoint": "http://10.1.2.3:9222"})
    # refused from the string: an attempted connection would have ended as endpoint_unreachable (as below)
    assert remote["code"] == "invalid_request" and remote["details"]["reason"] == "target_not_allowed"
    silent = _err("inspect_web_page", {**base, "cdp_endpoint": f"http://127.0.0.1:{_closed_port()}"})
    assert silent["code"] == "provider_unavailable" and silent["details"]["reason"] == "endpoint_unreachable"
    unknown = _err("inspect_web_page", {**base, "target_id": "NO-SUCH-TARGET"})
    assert unknown["code"] == "target_unavailable" and tid in unknown["details"]["known_targets"]
    outside = _err("inspect_web_page", {**base, "allowed_origins": ["https://elsewhere.example"]})
    assert outside["code"] == "permission_required" and outside["details"]["reason"] == "target_not_allowed"
    prints = _err("inspect_web_page", {**base, "include_storage_fingerprints": True})
    assert prints["code"] == "invalid_request" and prints["details"]["field"] == "include_storage_fingerprints"
    path = _err("inspect_web_page", {**base, "allowed_origins": ["https://app.example/path"]})
    assert path["code"] == "invalid_request" and path["details"]["field"] == "allowed_origins"


def test_a_page_that_navigates_away_mid_inspection_is_target_changed(browser, site) -> None:  # noqa: F811
    _ok("list_browser_targets", {"cdp_endpoint": browser.endpoint})  # imports done before the page's timer runs
    site.write("away.html", "<title>away</title>")
    url = site.write(
        "leaving.html", "<title>leaving</title><script>setTimeout(() => location.href = 'away.html', 1500)</script>"
    )
    tid = open_page(browser.endpoint, url, "leaving", settle_s=0)
    try:
        got = _err("inspect_web_page", {"cdp_endpoint": browser.endpoint, "target_id": tid, "observation_ms": 4000})
        assert got["code"] == "execution_failure" and got["details"]["reason"] == "target_changed"
    finally:
        close_page(browser.endpoint, tid)


def test_web_tools_over_mcp_and_cli(browser, app, site) -> None:  # noqa: F811
    tid, url = app

    async def main() -> dict:
        async with connect() as s:
            return {
                "list": await s.call_tool("list_browser_targets", {"cdp_endpoint": browser.endpoint}),
                "page": await s.call_tool("inspect_web_page", {"cdp_endpoint": browser.endpoint, "target_id": tid}),
                "remote": await s.call_tool("list_browser_targets", {"cdp_endpoint": "http://192.168.0.9:9222"}),
            }

    out = anyio.run(main)
    assert tid in {t["target_id"] for t in evidence(out["list"])["normalized_result"]["targets"]}
    page = evidence(out["page"])["normalized_result"]
    assert page["target"]["url"] == url and page["dom"]["total_nodes"] > ITEMS
    error(out["remote"], "invalid_request")
    env = clean_env()
    listed = subprocess.run(
        [*rea_command(), "list-browser-targets", browser.endpoint, "--json"], capture_output=True, text=True, env=env
    )
    assert listed.returncode == 0, listed.stderr
    assert tid in {t["target_id"] for t in json.loads(listed.stdout)["normalized_result"]["targets"]}
    text = subprocess.run(
        [
            *rea_command(),
            "inspect-web-page",
            browser.endpoint,
            tid,
            "--include-storage-keys",
            "--observation-ms",
            "300",
        ],
        capture_output=True,
        text=True,
        env=env,
    )
    assert text.returncode == 0, text.stderr
    assert f"script {site.url('app.js')}" in text.stdout and "session_token" not in text.stdout
    assert "local keys 1" in text.stdout and SECRET not in text.stdout
