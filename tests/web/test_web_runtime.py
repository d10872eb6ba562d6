"""WebMCP discovery, screenshots, listeners, execution coverage and session timelines on real Chromium.

The WebMCP browser is started with `--enable-blink-features=WebMCP` (Chromium 156's
document.modelContext); ground truth is what the test page registers, the PNG decoded by
the stdlib's zlib (an independent reader), and listener lines counted in the page source.
"""

from __future__ import annotations

import json
import struct
import subprocess
import zlib
from collections.abc import Iterator

import anyio
import pytest
from returns.result import Failure, Success

from artifact_fixtures import call
from chromium_fixtures import CHROMIUM, Browser, needs_chromium
from mcp_client import connect, evidence
from support import clean_env, rea_command
from web_fixtures import close_page, history, open_page

pytestmark = needs_chromium


@pytest.fixture(scope="module")
def webmcp() -> Iterator[Browser]:
    if CHROMIUM is None:
        pytest.skip("no Chromium")
    b = Browser(extra=("--enable-blink-features=WebMCP",))
    try:
        yield b
    finally:
        b.close()


def deep_schema(levels: int) -> str:
    schema = '{"type": "string"}'
    for _ in range(levels):
        schema = f'{{"type": "object", "properties": {{"n": {schema}}}}}'
    return schema


WEBMCP_PAGE = f"""<!doctype html><title>tools</title>
<form toolname="search" tooldescription="Search the catalog"><input name=q required></form>
<script>
document.modelContext.registerTool({{
  name: 'add_to_cart', description: 'Add an item to the cart',
  inputSchema: {{type: 'object', properties: {{sku: {{type: 'string'}}, qty: {{type: 'integer'}}}}, required: ['sku']}},
  annotations: {{readOnlyHint: true}},
  execute: async () => {{ window.invoked = (window.invoked || 0) + 1; return {{content: []}}; }},
}});
document.modelContext.registerTool({{
  name: 'deep', description: 'A schema 100 levels deep', inputSchema: {deep_schema(100)},
  execute: async () => ({{content: []}}),
}});
</script>"""

LISTENER_PAGE = """<!doctype html><title>listeners</title><button id=run>Run</button>
<script src=handlers.js></script>"""
HANDLERS_JS = """const run = document.getElementById('run');
run.addEventListener('click', function onRun() { fetch('/ping.json'); });
run.addEventListener('keydown', () => {}, {capture: true, passive: true, once: true});
"""
EXECUTION_JS = """function hot() { return 1; }
function cold() { return 2; }
let calls = 0;
setInterval(() => { hot(); calls += 1; if (calls < 4) fetch('/ping.json'); }, 50);
"""


def _ok(tool: str, args: dict) -> dict:
    reply, _ = call(tool, args)
    assert isinstance(reply, Success), reply
    return reply.unwrap()["normalized_result"]


def _err(tool: str, args: dict) -> dict:
    reply, _ = call(tool, args)
    assert isinstance(reply, Failure), reply
    return dict(reply.failure().record())


def test_discover_webmcp_tools_lists_what_the_page_registered(webmcp, site) -> None:  # noqa: F811
    url = site.write("tools.html", WEBMCP_PAGE)
    tid = open_page(webmcp.endpoint, url, "tools")
    try:
        before = history(webmcp.endpoint, tid)
        r = _ok("discover_webmcp_tools", {"cdp_endpoint": webmcp.endpoint, "target_id": tid, "observation_ms": 200})
        assert history(webmcp.endpoint, tid) == before
    finally:
        close_page(webmcp.endpoint, tid)
    assert r["status"] == "available" and r["tools"]["total"] == 3
    tools = {t["name"]: t for t in r["tools"]["items"]}
    assert set(tools) == {"add_to_cart", "search", "deep"}
    assert all(t["trust"] == "page-declared-untrusted" and t["owner_origin"] == site.origin for t in tools.values())
    cart = tools["add_to_cart"]
    assert cart["declaration_kind"] == "imperative" and cart["annotations"]["read_only"] is True
    assert cart["input_schema"] == {
        "type": "object",
        "properties": {"sku": {"type": "string"}, "qty": {"type": "integer"}},
        "required": ["sku"],
    }
    assert cart["registration_source"]["url"] == url and cart["input_schema_sha256"]
    search = tools["search"]
    assert search["declaration_kind"] == "declarative" and search["input_schema_summary"]["top_level_properties"] == [
        "q"
    ]
    deep = tools["deep"]  # 100 levels: summarized within the bounds' walk, never inlined
    assert deep["input_schema"] is None and deep["input_schema_summary"]["exceeded"] == ["depth"]
    assert deep["input_schema_summary"]["max_depth"] == 21  # stopped one past max_schema_depth 20
    assert "webmcp_tools" in r["completeness"]["truncated_sections"]


def test_discover_webmcp_tools_without_the_domain_is_unavailable(browser, site) -> None:  # noqa: F811
    url = site.write("plain.html", "<title>plain</title>")
    tid = open_page(browser.endpoint, url, "plain")
    try:
        r = _ok("discover_webmcp_tools", {"cdp_endpoint": browser.endpoint, "target_id": tid})
    finally:
        close_page(browser.endpoint, tid)
    # Chromium 156 without the blink feature still has the domain but no page tools
    assert r["tools"]["total"] == 0 and r["tools"]["items"] == []


def _png_pixels(data: bytes) -> tuple[int, int, bytes]:
    """Width, height and the inflated scanlines, read by zlib (independent of REA)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width, height = 8, b"", 0, 0
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        body = data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            width, height = struct.unpack(">II", body[:8])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    return width, height, zlib.decompress(idat)


def test_capture_web_screenshot_is_a_content_addressed_png(browser, site) -> None:  # noqa: F811
    import base64
    import hashlib

    url = site.write("red.html", "<title>red</title><style>html,body{margin:0;background:#ff0000}</style>")
    tid = open_page(browser.endpoint, url, "red")
    try:
        before = history(browser.endpoint, tid)
        r = _ok(
            "capture_web_screenshot",
            {"cdp_endpoint": browser.endpoint, "target_id": tid, "approved": True, "screenshot_approved": True},
        )
        assert history(browser.endpoint, tid) == before
        small = _err(
            "capture_web_screenshot",
            {
                "cdp_endpoint": browser.endpoint,
                "target_id": tid,
                "approved": True,
                "screenshot_approved": True,
                "maximum_image_bytes": 10,
            },
        )
    finally:
        close_page(browser.endpoint, tid)
    art = r["artifact"]
    data = base64.b64decode(art["data_base64"])
    assert art["sha256"] == hashlib.sha256(data).hexdigest() == art["uri"].rsplit("/", 1)[1]
    assert art["bytes"] == len(data)
    width, height, raw = _png_pixels(data)
    assert (width, height) == (r["viewport"]["width"], r["viewport"]["height"]) and width > 100
    assert raw[1:4] == b"\xff\x00\x00"  # first pixel of the first scanline (filter byte, then RGB)
    assert small["code"] == "resource_constraint" and small["details"]["reason"] == "payload_limit"


def test_inspect_web_event_listeners_finds_the_handlers_and_their_lines(browser, site) -> None:  # noqa: F811
    site.write("handlers.js", HANDLERS_JS)
    url = site.write("listeners.html", LISTENER_PAGE)
    tid = open_page(browser.endpoint, url, "listeners")
    base = {"cdp_endpoint": browser.endpoint, "target_id": tid}
    try:
        before = history(browser.endpoint, tid)
        r = _ok("inspect_web_event_listeners", {**base, "selector": "#run"})
        missing = _ok("inspect_web_event_listeners", {**base, "selector": "#absent"})
        bad = _err("inspect_web_event_listeners", {**base, "selector": "["})
        assert history(browser.endpoint, tid) == before
    finally:
        close_page(browser.endpoint, tid)
    by_type = {item["type"]: item for item in r["listeners"]}
    assert set(by_type) == {"click", "keydown"}
    lines = HANDLERS_JS.splitlines()
    click = by_type["click"]["location"]
    assert "'click'" in lines[click["line_number"]] and click["url"] == site.url("handlers.js")
    key = by_type["keydown"]
    assert (
        key["use_capture"] and key["passive"] and key["once"] and "'keydown'" in lines[key["location"]["line_number"]]
    )
    assert all(
        item["execution"] == "unknown" and item["location"]["source_association"] == "script_id"
        for item in r["listeners"]
    )
    assert r["sources"][0]["source"]["text"] == HANDLERS_JS and r["cleanup"] == "confirmed"
    assert r["selected_node"]["match"] == "found" and r["selected_node"]["backend_node_id"] >= 1
    assert missing["selected_node"] == {"selector": "#absent", "match": "not_found", "backend_node_id": None}
    assert missing["listeners"] == []
    assert bad["code"] == "invalid_request" and bad["details"]["field"] == "selector"


def test_observe_web_execution_counts_calls_and_requests(browser, site) -> None:  # noqa: F811
    site.write("ping.json", "{}")
    site.write("exec.js", EXECUTION_JS)
    url = site.write("exec.html", "<title>exec</title><script src=exec.js></script>")
    tid = open_page(browser.endpoint, url, "exec", settle_s=0)
    try:
        r = _ok("observe_web_execution", {"cdp_endpoint": browser.endpoint, "target_id": tid, "observation_ms": 600})
    finally:
        close_page(browser.endpoint, tid)
    assert r["coverage"]["state"] == "captured" and r["window"]["end_reason"] == "window_elapsed"
    script = next(s for s in r["coverage"]["scripts"] if s["reported_url"] == site.url("exec.js"))
    counts = {f["name"]: f["ranges"][0]["count"] for f in script["functions"]}
    assert counts["hot"] >= 3 and counts.get("cold", 0) == 0
    hot = next(f for f in script["functions"] if f["name"] == "hot")["ranges"][0]
    assert EXECUTION_JS[hot["start_offset"] : hot["end_offset"]] == "function hot() { return 1; }"
    assert all(rg["source_bounds"] == "verified" for f in script["functions"] for rg in f["ranges"])
    source = next(s for s in r["sources"] if s["script_id"] == script["script_id"])
    assert source["source"]["state"] == "captured" and source["source"]["text"] == EXECUTION_JS
    assert r["instrumentation"]["executes_selected_code"] is False


def test_observe_web_session_records_navigations(browser, site) -> None:  # noqa: F811
    _ok("list_browser_targets", {"cdp_endpoint": browser.endpoint})  # imports before the page's timers
    site.write(
        "second.html", "<title>second</title><script>setTimeout(() => history.pushState({}, '', '#tab'), 100)</script>"
    )
    url = site.write(
        "first.html", "<title>first</title><script>setTimeout(() => location.href = 'second.html', 600)</script>"
    )
    tid = open_page(browser.endpoint, url, "first", settle_s=0)
    try:
        r = _ok(
            "observe_web_session",
            {"cdp_endpoint": browser.endpoint, "target_id": tid, "approved": True, "observation_ms": 2500},
        )
    finally:
        close_page(browser.endpoint, tid)
    kinds = [e["type"] for e in r["timeline"]]
    assert "navigation_committed" in kinds and "same_document_navigation" in kinds and "lifecycle" in kinds
    committed = next(e for e in r["timeline"] if e["type"] == "navigation_committed")
    assert committed["url"] == site.url("second.html") and committed["destination_scope"] == "approved"
    assert r["target"]["final_url"] == site.url("second.html") + "#tab"
    assert [e["sequence"] for e in r["timeline"]] == list(range(1, len(kinds) + 1))


def test_runtime_tools_over_mcp_and_cli(webmcp, site) -> None:  # noqa: F811
    site.write("handlers.js", HANDLERS_JS)
    url = site.write(
        "both.html",
        WEBMCP_PAGE.replace("</script>", "</script><button id=run>Run</button><script src=handlers.js></script>"),
    )
    tid = open_page(webmcp.endpoint, url, "tools")
    base = {"cdp_endpoint": webmcp.endpoint, "target_id": tid}

    async def main() -> dict:
        async with connect() as s:
            return {
                "webmcp": await s.call_tool("discover_webmcp_tools", base),
                "shot": await s.call_tool(
                    "capture_web_screenshot", {**base, "approved": True, "screenshot_approved": True}
                ),
                "listeners": await s.call_tool("inspect_web_event_listeners", {**base, "selector": "#run"}),
                "execution": await s.call_tool("observe_web_execution", {**base, "observation_ms": 200}),
                "session": await s.call_tool("observe_web_session", {**base, "approved": True, "observation_ms": 200}),
                # the contract's shape: no approval flags; and an old client's false flags are ignored
                "bare": await s.call_tool("capture_web_screenshot", base),
                "unapproved": await s.call_tool(
                    "capture_web_screenshot", {**base, "approved": False, "screenshot_approved": False}
                ),
                "bare_session": await s.call_tool("observe_web_session", {**base, "observation_ms": 200}),
            }

    try:
        out = anyio.run(main)
        env = clean_env()
        runs = {
            name: subprocess.run(
                [*rea_command(), name, webmcp.endpoint, tid, *extra], capture_output=True, text=True, env=env
            )
            for name, extra in (
                ("discover-webmcp-tools", []),
                ("capture-web-screenshot", ["--json"]),
                ("inspect-web-event-listeners", ["#run"]),
                ("observe-web-execution", ["--observation-ms", "200"]),
                ("observe-web-session", ["--observation-ms", "200"]),
            )
        }
    finally:
        close_page(webmcp.endpoint, tid)
    assert evidence(out["webmcp"])["normalized_result"]["tools"]["total"] == 3
    assert evidence(out["shot"])["normalized_result"]["artifact"]["media_type"] == "image/png"
    assert {x["type"] for x in evidence(out["listeners"])["normalized_result"]["listeners"]} == {"click", "keydown"}
    assert evidence(out["execution"])["normalized_result"]["coverage"]["state"] == "captured"
    assert evidence(out["session"])["normalized_result"]["window"]["end_reason"] == "window_elapsed"
    for name in ("bare", "unapproved"):
        assert evidence(out[name])["normalized_result"]["artifact"]["media_type"] == "image/png"
    assert evidence(out["bare_session"])["normalized_result"]["window"]["end_reason"] == "window_elapsed"
    assert all(p.returncode == 0 for p in runs.values()), {k: p.stderr[-500:] for k, p in runs.items()}
    assert "imperative  add_to_cart" in runs["discover-webmcp-tools"].stdout
    shot = json.loads(runs["capture-web-screenshot"].stdout)["normalized_result"]
    assert shot["artifact"]["uri"].startswith("rea://web-screenshot/sha256/")
    assert "click at " + site.url("handlers.js") in runs["inspect-web-event-listeners"].stdout
