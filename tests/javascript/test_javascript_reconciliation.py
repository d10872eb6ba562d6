"""reconcile_javascript_runtime on real captures: a Chromium file page (Electron's CDP endpoint; no Electron
binary exists on this host, Chromium serves the same protocol) and a real Node inspector.

Ground truth is independent of the tool: the files' own bytes (hashlib), the paths we wrote, and which
of them the page's HTML actually loads.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import anyio
import pytest

from chromium_fixtures import CHROMIUM, Browser, Site
from javascript_fixtures import Node
from mcp_client import connect
from support import clean_env, rea_command
from web_fixtures import open_page

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="needs Debian chromium (scripts/setup installs it)")

MAIN = 'const {BrowserWindow} = require("electron");\nnew BrowserWindow().loadFile("index.html");\n'
PAGE = "<title>p</title><script src='r.js'></script>"
RENDERER = "var r = 1;\n"
UNUSED = "var u = 2;\n"


def retained(reply: Any) -> dict[str, str]:
    return {"kind": "retained-evidence", "evidence_id": reply.structured_content["evidence_id"]}


def write_app(root: Path, renderer: str = RENDERER) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "package.json").write_text('{"name": "app", "main": "main.js"}')
    (root / "main.js").write_text(MAIN)
    (root / "index.html").write_text(PAGE)
    (root / "r.js").write_text(renderer)
    (root / "unused.js").write_text(UNUSED)
    return root


async def _page_capture(s: Any, endpoint: str, sources: bool = True) -> Any:
    listed = await s.call_tool("list_electron_targets", {"cdp_endpoint": endpoint})
    target = listed.structured_content["normalized_result"]["targets"][0]["target_id"]
    args = {"cdp_endpoint": endpoint, "target_id": target, "include_script_sources": sources}
    return await s.call_tool("inspect_electron_page", args)


async def _analyzed_and_captured(s: Any, root: Path, endpoint: str) -> tuple[Any, Any, dict[str, Any]]:
    app = await s.call_tool("analyze_javascript_application", {"input_path": str(root)})
    capture = await _page_capture(s, endpoint)
    return app, capture, {"role": "application", "analysis": retained(app)}


def _reconcile_args(layers: list[dict[str, Any]], captures: list[Any]) -> dict[str, Any]:
    return {"static_layers": layers, "runtime_observations": captures}


def _by_path(result: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {s["path"]: s for s in result["static_load_states"]}


def _items(result: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {i["entity_kind"]: i for i in result["reconciliations"]}


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Any:
    root = write_app(tmp_path_factory.mktemp("reconcile") / "app")
    browser = Browser(url=f"file://{root}/index.html")
    try:
        yield root, browser.endpoint
    finally:
        browser.close()


def _run(fn: Any) -> Any:
    return anyio.run(fn)


def test_a_page_capture_matches_the_files_it_loaded(page):
    root, endpoint = page

    async def go():
        async with connect() as s:
            app, capture, layer = await _analyzed_and_captured(s, root, endpoint)
            reply = await s.call_tool("reconcile_javascript_runtime", _reconcile_args([layer], [retained(capture)]))
            again = await s.call_tool("reconcile_javascript_runtime", _reconcile_args([layer], [retained(capture)]))
            return reply, again

    reply, again = _run(go)
    assert not reply.is_error, reply.content[0].text
    evidence = reply.structured_content
    result = evidence["normalized_result"]
    assert evidence["operation"] == "reconcile_javascript_runtime" and evidence["confidence"] == "inferred"
    assert again.structured_content["evidence_id"] == evidence["evidence_id"]  # deterministic
    items = _items(result)
    # the script CDP parsed has the bytes of r.js on disk, at the path the page names
    script = items["script"]
    assert (script["status"], script["basis"], script["reason"]) == (
        "matched",
        "content-and-location",
        "content-and-location-match",
    )
    edge = next(
        e
        for e in result["graph"]["edges"]
        if e["relation"] == "observed_as" and e["target_node_id"] == script["runtime_node_id"]
    )
    assert edge["evidence"]["artifact"]["sha256"] == hashlib.sha256((root / "r.js").read_bytes()).hexdigest()
    assert edge["evidence"]["state"] == "inferred" and edge["evidence"]["authority"] == "cross-layer-reconciliation"
    # the page itself: index.html, by location only (a target has no bytes)
    assert (items["target"]["status"], items["target"]["confidence"]) == ("matched", "medium")
    states = _by_path(result)
    assert states["r.js"]["status"] == "loaded" and states["index.html"]["status"] == "loaded"
    assert states["unused.js"]["status"] == "not-observed-in-capture"  # the page never loads it
    # main.js only runs in Electron's main process: a page capture cannot see it, so it is not "not observed"
    assert (states["main.js"]["status"], states["main.js"]["reason"]) == ("unknown", "layer-outside-runtime-scope")
    assert result["coverage"]["status"] == "complete-within-inputs"
    assert result["evidence_links"] == sorted(evidence["evidence_links"])


def test_bytes_that_differ_from_the_file_at_the_path_are_unmatched(page, tmp_path):
    root, endpoint = page
    other = write_app(tmp_path / "v2", renderer="var r = 2; // another build\n")

    async def go():
        async with connect() as s:
            app = await s.call_tool("analyze_javascript_application", {"input_path": str(other)})
            capture = await _page_capture(s, endpoint)
            mapping = {"kind": "file-root", "root": str(root), "artifact_prefix": ""}
            layer = {"role": "application", "analysis": retained(app), "runtime_mappings": [mapping]}
            return await s.call_tool("reconcile_javascript_runtime", _reconcile_args([layer], [retained(capture)]))

    result = _run(go).structured_content["normalized_result"]
    script = _items(result)["script"]
    assert (script["status"], script["reason"]) == ("unmatched", "captured-content-disagrees-with-static-location")
    assert script["basis"] == "operator-file-mapping" and script["candidate_static_count"] == 1
    assert not any(e["relation"] == "observed_as" and e["target_node_id"] == script["runtime_node_id"]
                   for e in result["graph"]["edges"])  # fmt: skip
    assert _by_path(result)["r.js"]["status"] != "loaded"


def test_two_layers_at_one_path_without_bytes_stay_ambiguous(page, tmp_path):
    root, endpoint = page
    cache = tmp_path / "cache"
    shutil.copytree(root, cache)

    async def go():
        async with connect() as s:
            app = await s.call_tool("analyze_javascript_application", {"input_path": str(root)})
            copy = await s.call_tool("analyze_javascript_application", {"input_path": str(cache)})
            capture = await _page_capture(s, endpoint, sources=False)
            layers = [
                {"role": "application", "analysis": retained(app)},
                {"role": "cache", "analysis": retained(copy),
                 "runtime_mappings": [{"kind": "file-root", "root": str(root)}]},
            ]  # fmt: skip
            return await s.call_tool("reconcile_javascript_runtime", _reconcile_args(layers, [retained(capture)]))

    result = _run(go).structured_content["normalized_result"]
    script = _items(result)["script"]
    assert (script["status"], script["reason"], script["static_node_id"]) == (
        "ambiguous",
        "ambiguous-static-candidates",
        None,
    )
    assert script["candidate_static_count"] == 2
    assert {c["static_layer_id"] for c in script["candidate_static_nodes"]} == {
        x["layer_id"] for x in result["static_layers"]
    }


def test_a_capture_outside_every_layer_is_unknown_not_absent(page, tmp_path):
    _, endpoint = page
    elsewhere = write_app(tmp_path / "elsewhere")

    async def go():
        async with connect() as s:
            app = await s.call_tool("analyze_javascript_application", {"input_path": str(elsewhere)})
            capture = await _page_capture(s, endpoint)
            layer = {"role": "application", "analysis": retained(app)}
            return await s.call_tool("reconcile_javascript_runtime", _reconcile_args([layer], [retained(capture)]))

    result = _run(go).structured_content["normalized_result"]
    # the captured r.js has the same bytes as elsewhere/r.js: a unique content match, location unmapped
    assert _items(result)["script"]["reason"] == "unique-content-match"
    assert (_items(result)["target"]["status"], _items(result)["target"]["reason"]) == (
        "unknown",
        "no-authorized-location-mapping",
    )
    assert {s["status"] for p, s in _by_path(result).items() if p != "r.js"} == {"unknown"}


def test_a_node_inspector_capture_matches_by_location(tmp_path):
    root = tmp_path / "node"
    node = Node(root, "const a = require('./lib/a');\nsetInterval(() => a.get(), 50);\n")
    (root / "package.json").write_text('{"name": "n", "main": "app.js"}')
    try:

        async def go():
            async with connect() as s:
                app = await s.call_tool("analyze_javascript_application", {"input_path": str(root)})
                observed = await s.call_tool(
                    "observe_javascript_runtime",
                    {"inspector_endpoint": node.endpoint, "target_id": node.target_id, "observation_ms": 200},
                )
                layer = {"role": "application", "analysis": retained(app)}
                args = _reconcile_args([layer], [retained(observed)])
                return await s.call_tool("reconcile_javascript_runtime", args)

        reply = _run(go)
    finally:
        node.close()
    assert not reply.is_error, reply.content[0].text
    result = reply.structured_content["normalized_result"]
    assert result["runtime_captures"][0]["kind"] == "v8-inspector"
    states = _by_path(result)
    assert states["app.js"]["status"] == "loaded" and states["lib/a.js"]["status"] == "loaded"
    # V8 never gives source bytes to a passive attach: location only, medium confidence
    matched = [i for i in result["reconciliations"] if i["status"] == "matched" and i["entity_kind"] == "script"]
    assert matched and {(i["basis"], i["confidence"]) for i in matched} == {("artifact-path", "medium")}
    # an attach cannot see later loads: an unloaded file is unknown, never "not observed"
    assert states["lib/late.js"]["status"] == "unknown"
    assert result["coverage"]["status"] == "partial"


def test_a_browser_page_matches_through_a_url_prefix_mapping(tmp_path):
    """A served page's scripts are URLs: only a url-prefix mapping puts them in the tree (dist/)."""
    dist = tmp_path / "app" / "dist"
    dist.mkdir(parents=True)
    (dist / "main.js").write_text("window.main = 1;\n")
    (dist / "lazy.js").write_text("window.lazy = 1;\n")
    site, browser = Site(tmp_path / "site"), Browser()
    try:
        site.write("assets/main.js", (dist / "main.js").read_text())
        url = site.write("index.html", "<title>w</title><script src='assets/main.js'></script>")
        target = open_page(browser.endpoint, url, "w")
        prefix = url.rsplit("/", 1)[0] + "/assets/"

        async def go():
            async with connect() as s:
                app = await s.call_tool("analyze_javascript_application", {"input_path": str(tmp_path / "app")})
                page = {"cdp_endpoint": browser.endpoint, "target_id": target, "include_script_sources": True}
                capture = await s.call_tool("inspect_web_page", {**page, "observation_ms": 0})
                bare = {"role": "application", "analysis": retained(app)}
                mapped = {
                    **bare,
                    "runtime_mappings": [{"kind": "url-prefix", "prefix": prefix, "artifact_prefix": "dist"}],
                }
                args = [_reconcile_args([layer], [retained(capture)]) for layer in (bare, mapped)]
                return [await s.call_tool("reconcile_javascript_runtime", a) for a in args]

        unmapped, mapped = _run(go)
    finally:
        browser.close()
        site.close()
    assert not mapped.is_error, mapped.content[0].text
    result = mapped.structured_content["normalized_result"]
    assert result["runtime_captures"][0]["kind"] == "browser"
    script = _items(result)["script"]
    assert (script["status"], script["basis"]) == ("matched", "content-and-location")
    states = _by_path(result)
    assert states["dist/main.js"]["status"] == "loaded"
    assert states["dist/lazy.js"]["status"] == "not-observed-in-capture"
    # without the mapping the bytes still match, but no path is claimed for the rest
    plain = unmapped.structured_content["normalized_result"]
    assert _items(plain)["script"]["reason"] == "unique-content-match"
    assert _by_path(plain)["dist/lazy.js"]["status"] == "unknown"


def _sealed(**fields: Any) -> dict[str, Any]:
    from rea.evidence import Provider, create_evidence

    built = create_evidence(
        provider=Provider(id="rea-cdp-electron", name="x", version="1"),
        authority="external-service",
        **fields,
    )
    return built.unwrap().to_json()


def test_inconsistent_or_wrong_inputs_are_refused(page):
    root, endpoint = page

    async def go():
        async with connect() as s:
            app, capture, layer = await _analyzed_and_captured(s, root, endpoint)
            page_result = capture.structured_content["normalized_result"]
            lying = _sealed(operation="inspect_electron_page", parameters={"target_id": "another"},
                            normalized_result=page_result)  # fmt: skip
            tampered = {**capture.structured_content, "limitations": ["changed"]}
            calls = {
                "two applications": _reconcile_args([layer, layer], [retained(capture)]),
                "not a capture": _reconcile_args([layer], [retained(app)]),
                "same capture twice": _reconcile_args([layer], [retained(capture), retained(capture)]),
                "lying parameters": _reconcile_args([layer], [lying]),
                "tampered": _reconcile_args([layer], [tampered]),
                "capture as a layer": _reconcile_args([{"role": "application", "analysis": retained(capture)}],
                                                      [retained(capture)]),
                "relative root": _reconcile_args(
                    [{**layer, "runtime_mappings": [{"kind": "file-root", "root": "app"}]}], [retained(capture)]
                ),
                "credentials in a prefix": _reconcile_args(
                    [{**layer, "runtime_mappings": [{"kind": "url-prefix", "prefix": "https://u:p@x.test/"}]}],
                    [retained(capture)],
                ),
            }  # fmt: skip
            return {name: await s.call_tool("reconcile_javascript_runtime", args) for name, args in calls.items()}

    replies = _run(go)
    errors = {}
    for name, reply in replies.items():
        assert reply.is_error, name
        errors[name] = json.loads(reply.content[0].text)["error"]
    print({n: (e["code"], e["message"]) for n, e in errors.items()})
    assert {e["code"] for n, e in errors.items() if n != "tampered"} == {"invalid_request"}
    assert "changed after it was made" in errors["tampered"]["message"]
    assert "target_id" in errors["lying parameters"]["message"]
    assert "application" in errors["two applications"]["message"]
    assert errors["relative root"]["details"]["field"] == "static_layers[0].runtime_mappings[0].root"


def test_cli_analyzes_and_reconciles_a_saved_capture(page, tmp_path):
    root, endpoint = page

    async def go():
        async with connect() as s:
            return await _page_capture(s, endpoint)

    saved = tmp_path / "page.json"
    saved.write_text(json.dumps(_run(go).structured_content))
    cmd = [*rea_command(), "reconcile-javascript-runtime", "--application", str(root), "--runtime-evidence", str(saved)]
    text = subprocess.run(cmd, capture_output=True, text=True, env=clean_env(), timeout=300)
    assert text.returncode == 0, text.stderr
    assert "script matched" in text.stdout and "not-observed-in-capture  unused.js" in text.stdout
    as_json = subprocess.run([*cmd, "--json"], capture_output=True, text=True, env=clean_env(), timeout=300)
    result = json.loads(as_json.stdout)["normalized_result"]
    assert _by_path(result)["r.js"]["status"] == "loaded"
    missing = subprocess.run(cmd[:-1] + [str(tmp_path / "absent.json")], capture_output=True, text=True,
                             env=clean_env(), timeout=300)  # fmt: skip
    assert missing.returncode == 2 and "absent.json" in missing.stdout
