"""The web family's script tools against real headless Chromium, a loopback site serving an esbuild bundle
with its source map and a hand-written module graph.

Ground truth: the files the test wrote, esbuild's own map decoded by @jridgewell/trace-mapping under Node,
and the page's navigation history read by the test's own DevTools session (REA must leave it as it was).
"""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

import anyio
import pytest
from returns.result import Failure, Success

from artifact_fixtures import call
from chromium_fixtures import browser, needs_chromium, site  # noqa: F401 - fixtures
from support import clean_env, rea_command
from test_artifact_mcp import error, evidence
from test_mcp_e2e import connect
from web_fixtures import close_page, history, open_page
from web_scripts_fixtures import ENTRY, all_mappings, write_app

pytestmark = [needs_chromium, pytest.mark.slow]


def _ok(tool: str, args: dict) -> dict:
    reply, _ = call(tool, args)
    assert isinstance(reply, Success), reply
    return reply.unwrap()


def _err(tool: str, args: dict) -> dict:
    reply, _ = call(tool, args)
    assert isinstance(reply, Failure), reply
    return dict(reply.failure().record())


@pytest.fixture
def bundle_app(browser, site):  # noqa: F811 - fixtures
    url = write_app(site)
    tid = open_page(browser.endpoint, url, "bundle")
    try:
        yield tid, url
    finally:
        close_page(browser.endpoint, tid)


def _by_url(result: dict) -> dict[str, dict]:
    return {n["url"]: n for n in result["observations"]["chunks"]["nodes"]}


def test_analyze_web_bundle_reports_the_module_graph_and_leaves_the_page(browser, site, bundle_app) -> None:  # noqa: F811
    tid, url = bundle_app
    before = history(browser.endpoint, tid)
    got = _ok(
        "analyze_web_bundle",
        {
            "cdp_endpoint": browser.endpoint,
            "target_id": tid,
            "observation_ms": 0,
            "fetch_source_maps": True,
            "source_map_fetch_approved": True,
        },
    )
    assert history(browser.endpoint, tid) == before
    r = got["normalized_result"]
    nodes = _by_url(r)
    assert set(nodes) == {
        site.url(p) for p in ("vendor.js", "app.js", "entry.js", "lib/util.js", "lib/more.js", "lazy.js")
    }
    # each chunk's identity is the served file's bytes
    for name in ("app.js", "entry.js", "lib/util.js"):
        data = (site.root / name).read_bytes()
        assert nodes[site.url(name)]["artifact_sha256"] == hashlib.sha256(data).hexdigest()
        assert nodes[site.url(name)]["bytes"] == len(data)
    entry_key = nodes[site.url("entry.js")]["script_key"]
    edges = {(e["kind"], e["specifier"], e["resolved_url"]) for e in r["observations"]["chunks"]["edges"]}
    assert ("static_import", "./lib/util.js", site.url("lib/util.js")) in edges
    assert ("static_import", "./lib/more.js", site.url("lib/more.js")) in edges
    assert ("dynamic_import", "./lazy.js", site.url("lazy.js")) in edges
    # the computed import is not an edge (its specifier is not literal)
    assert not any("la'" in e[1] for e in edges)
    util_edge = next(e for e in r["observations"]["chunks"]["edges"] if e["specifier"] == "./lib/util.js")
    assert util_edge["from_script_key"] == entry_key and util_edge["location"]["line"] == 1
    routes = {f["value"] for f in r["observations"]["routes"]}
    assert {"/users/:id", "/settings"} <= routes
    endpoints = {(f["value"], f["mechanism"]) for f in r["observations"]["endpoints"]}
    assert ("/api/items", "call:fetch") in endpoints  # query and fragment removed
    assert ("/api/orders", "call:x.open") in endpoints
    (tool,) = r["observations"]["webmcp_declarations"]
    assert tool["name"] == "search" and tool["schema_property_names"] == ["limit", "query"]
    assert tool["trust"] == "page-declared-untrusted"
    line = next(i for i, text in enumerate(ENTRY.splitlines(), 1) if "registerTool" in text)
    assert tool["location"] == {
        "script_key": entry_key,
        "line": line,
        "column": ENTRY.splitlines()[line - 1].index("document"),
    }
    assert any(i["value"] == "webpack" and i["kind"] == "bundle_runtime" for i in r["inferences"])
    # the source map: fetched from the page's origin, decoded like trace-mapping decodes it
    maps = r["observations"]["source_maps"]
    assert maps["status"] == "partial" and maps["requested"] == maps["processed"] == 2
    by_script = {i["script_key"]: i for i in maps["items"]}
    vendor = by_script[nodes[site.url("vendor.js")]["script_key"]]
    assert vendor["status"] == "policy_filtered" and vendor["artifact"] is None
    item = by_script[nodes[site.url("app.js")]["script_key"]]
    assert item["declared_url"] == "app.js.map" and item["status"] == "included"
    text = (site.root / "app.js.map").read_text()
    assert item["artifact"]["sha256"] == hashlib.sha256(text.encode()).hexdigest()
    truth = all_mappings(site.root / "app.js.map")
    ours = [
        [m["generated_line"], m["generated_column"], m["original_line"], m["original_column"]] for m in item["mappings"]
    ]
    assert ours == [[t[0], t[1], t[3], t[4]] for t in truth]
    sources = {s["source"] for s in item["original_sources"]}
    assert any(s.endswith("/src/util/helper.js") for s in sources)
    helper = next(s for s in item["original_sources"] if s["source"].endswith("/src/util/helper.js"))
    assert helper["artifact"]["text"] == (site.root.parent / "src/util/helper.js").read_text()
    assert any(e["specifier"] == "./util/helper.js" for e in item["original_module_edges"])
    assert r["completeness"]["status"] == "partial" and r["completeness"]["parse_failures"] == 0
    assert r["unknowns"] == [
        {
            "dimension": "source_maps",
            "reason": "One or more requested source maps were unavailable or incomplete",
            "affected_script_keys": [vendor["script_key"]],
        }
    ]


def test_analyze_web_bundle_without_source_maps_and_within_limits(browser, site, bundle_app) -> None:  # noqa: F811
    tid, _ = bundle_app
    base = {"cdp_endpoint": browser.endpoint, "target_id": tid, "observation_ms": 0}
    r = _ok("analyze_web_bundle", base)["normalized_result"]
    assert r["observations"]["source_maps"]["status"] == "not_requested"
    assert r["completeness"]["status"] == "complete_within_limits" and r["unknowns"] == []
    tight = _ok("analyze_web_bundle", {**base, "analysis_limits": {"max_findings": 3}})["normalized_result"]
    kept = sum(len(tight["observations"][k]) for k in ("routes", "endpoints", "webmcp_declarations"))
    kept += len(tight["observations"]["chunks"]["edges"]) + len(tight["inferences"])
    assert kept == 3 and tight["completeness"]["dropped_findings"] > 0
    assert tight["completeness"]["status"] == "truncated"
    # a map past the byte budget is truncated, not half-read
    other = _ok(
        "analyze_web_bundle",
        {
            **base,
            "allowed_origins": [site.origin],
            "fetch_source_maps": True,
            "source_map_fetch_approved": True,
            "analysis_limits": {"max_source_map_bytes": 10, "max_total_source_map_bytes": 10},
        },
    )["normalized_result"]
    statuses = {i["declared_url"]: i["status"] for i in other["observations"]["source_maps"]["items"]}
    assert statuses == {"app.js.map": "truncated", "http://127.0.0.1:9/vendor.js.map": "policy_filtered"}
    assert other["observations"]["source_maps"]["status"] == "truncated"


def test_analyze_web_bundle_refusals(browser, bundle_app) -> None:  # noqa: F811
    tid, _ = bundle_app
    base = {"cdp_endpoint": browser.endpoint, "target_id": tid, "observation_ms": 0}
    remote = _err("analyze_web_bundle", {**base, "cdp_endpoint": "http://10.1.2.3:9222"})
    assert remote["code"] == "invalid_request" and remote["details"]["reason"] == "target_not_allowed"
    missing = _err("analyze_web_bundle", {**base, "target_id": "NO-SUCH-TARGET"})
    assert missing["code"] == "target_unavailable" and tid in missing["details"]["known_targets"]
    unapproved = _err("analyze_web_bundle", {**base, "fetch_source_maps": True})
    assert unapproved["code"] == "invalid_request" and unapproved["details"]["field"] == "source_map_fetch_approved"
    no_sources = _err("analyze_web_bundle", {**base, "include_script_sources": False})
    assert no_sources["details"]["field"] == "include_script_sources"


def test_analyze_web_bundle_on_a_page_that_navigates_away_is_target_changed(browser, site) -> None:  # noqa: F811
    _ok("list_browser_targets", {"cdp_endpoint": browser.endpoint})
    site.write("away.html", "<title>away</title>")
    url = site.write(
        "leaving.html", "<title>leaving</title><script>setTimeout(() => location.href = 'away.html', 1500)</script>"
    )
    tid = open_page(browser.endpoint, url, "leaving", settle_s=0)
    try:
        got = _err("analyze_web_bundle", {"cdp_endpoint": browser.endpoint, "target_id": tid, "observation_ms": 4000})
        assert got["code"] == "execution_failure" and got["details"]["reason"] == "target_changed"
    finally:
        close_page(browser.endpoint, tid)


def test_analyze_web_bundle_over_mcp_and_cli(browser, site, bundle_app) -> None:  # noqa: F811
    tid, _ = bundle_app

    async def main() -> dict:
        async with connect() as s:
            return {
                "bundle": await s.call_tool(
                    "analyze_web_bundle", {"cdp_endpoint": browser.endpoint, "target_id": tid, "observation_ms": 0}
                ),
                "remote": await s.call_tool(
                    "analyze_web_bundle", {"cdp_endpoint": "http://192.168.0.9:9222", "target_id": tid}
                ),
            }

    out = anyio.run(main)
    r = evidence(out["bundle"])["normalized_result"]
    assert site.url("entry.js") in _by_url(r)
    error(out["remote"], "invalid_request")
    env = clean_env()
    text = subprocess.run(
        [*rea_command(), "analyze-web-bundle", browser.endpoint, tid, "--observation-ms", "0", "--fetch-source-maps"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert text.returncode == 0, text.stderr
    assert f"edge static_import ./lib/util.js -> {site.url('lib/util.js')}" in text.stdout
    assert "webmcp search ['limit', 'query'] (page-declared-untrusted)" in text.stdout
    assert "source maps partial: 2/2 processed" in text.stdout
    as_json = subprocess.run(
        [*rea_command(), "analyze-web-bundle", browser.endpoint, tid, "--observation-ms", "0", "--json"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert as_json.returncode == 0, as_json.stderr
    assert json.loads(as_json.stdout)["operation"] == "analyze_web_bundle"


_ = Path
