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

from chromium_fixtures import needs_chromium
from mcp_client import connect, error, evidence
from support import clean_env, rea_command
from web_fixtures import _err, _ok, close_page, history, open_page
from web_scripts_fixtures import ENTRY, all_mappings, trace_mapping, write_app

pytestmark = [needs_chromium, pytest.mark.slow]


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
    served = ("vendor.js", "versioned.js?v=2", "app.js", "entry.js", "lib/util.js", "lib/more.js", "lazy.js")
    assert set(nodes) == {site.url(p) for p in served}
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
    # approval flags are accepted from older clients and ignored: no tool requires one (the contract)
    for flags in ({"fetch_source_maps": True}, {"source_capture_approved": False, "approved": False}):
        assert _ok("analyze_web_bundle", {**base, **flags})["operation"] == "analyze_web_bundle"
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


def test_analyze_web_bundle_and_export_over_mcp_and_cli(browser, site, bundle_app, tmp_path) -> None:  # noqa: F811
    tid, _ = bundle_app
    capture = _capture(browser, tid, tmp_path / "capture.json")

    async def main() -> dict:
        async with connect() as s:
            return {
                "bundle": await s.call_tool(
                    "analyze_web_bundle", {"cdp_endpoint": browser.endpoint, "target_id": tid, "observation_ms": 0}
                ),
                # an older client's approval flags that disagree with the options: accepted and ignored
                "flags": await s.call_tool(
                    "analyze_web_bundle",
                    {"cdp_endpoint": browser.endpoint, "target_id": tid, "observation_ms": 0}
                    | {"approved": False, "source_capture_approved": False, "source_map_fetch_approved": True},
                ),
                "remote": await s.call_tool(
                    "analyze_web_bundle", {"cdp_endpoint": "http://192.168.0.9:9222", "target_id": tid}
                ),
                "export": await s.call_tool(
                    "export_web_scripts", {"capture_path": str(capture), "output_directory": str(tmp_path / "mcp")}
                ),
                "relative": await s.call_tool("export_web_scripts", {"capture_path": "capture.json"}),
            }

    out = anyio.run(main)
    r = evidence(out["bundle"])["normalized_result"]
    assert site.url("entry.js") in _by_url(r)
    flagged = evidence(out["flags"])["normalized_result"]
    assert _by_url(flagged).keys() == _by_url(r).keys()
    assert flagged["observations"]["source_maps"]["status"] == r["observations"]["source_maps"]["status"]
    error(out["remote"], "invalid_request")
    exported = evidence(out["export"])["normalized_result"]
    assert (tmp_path / "mcp" / "manifest.json").is_file() and exported["manifest"]["path"].startswith(str(tmp_path))
    error(out["relative"], "invalid_request")
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
    cli_out = tmp_path / "cli"
    listed = subprocess.run(
        [*rea_command(), "export-web-scripts", str(capture), "--output-directory", str(cli_out)],
        capture_output=True,
        text=True,
        env=env,
    )
    assert listed.returncode == 0, listed.stderr
    port = site.origin.rsplit(":", 1)[1]
    assert f"scripts/http_127.0.0.1_{port}/entry.js <- {site.url('entry.js')}" in listed.stdout
    assert (cli_out / f"scripts/http_127.0.0.1_{port}/entry.js").read_bytes() == (site.root / "entry.js").read_bytes()


def _capture(browser, tid: str, path: Path, **extra) -> Path:  # noqa: F811
    """A saved inspect_web_page capture (complete Evidence) of the page."""
    got = _ok(
        "inspect_web_page",
        {
            "cdp_endpoint": browser.endpoint,
            "target_id": tid,
            "observation_ms": 0,
            "include_script_sources": True,
            **extra,
        },
    )
    path.write_text(json.dumps(got))
    return path


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_export_web_scripts_publishes_what_the_capture_retained(browser, site, bundle_app, tmp_path) -> None:  # noqa: F811
    tid, _ = bundle_app
    capture = _capture(browser, tid, tmp_path / "capture.json")
    out = tmp_path / "exported"
    got = _ok("export_web_scripts", {"capture_path": str(capture), "output_directory": str(out)})
    r = got["normalized_result"]
    assert r["output_directory"] == str(out) and r["capture_kind"] == "page-inspection"
    assert r["capture_sha256"] == hashlib.sha256(capture.read_bytes()).hexdigest()
    assert r["source_evidence_id"] == json.loads(capture.read_text())["evidence_id"]
    files = _tree(out)
    assert r["manifest"] == {
        "path": str(out / "manifest.json"),
        "sha256": hashlib.sha256(files["manifest.json"]).hexdigest(),
        "bytes": len(files["manifest.json"]),
    }
    manifest = json.loads(files["manifest.json"])
    assert manifest["scripts"] == r["scripts"] and "manifest" not in manifest
    port = site.origin.rsplit(":", 1)[1]
    by_url = {s["url"]: s["content"] for s in r["scripts"]}
    # each exported file is byte for byte what the server sent, at its URL's path
    for name in ("app.js", "entry.js", "lib/util.js", "lib/more.js", "lazy.js", "vendor.js"):
        content = by_url[site.url(name)]
        assert content["layout"] == "url-path"
        assert content["relative_path"] == f"scripts/http_127.0.0.1_{port}/{name}"
        assert files[content["relative_path"]] == (site.root / name).read_bytes()
        assert content["sha256"] == hashlib.sha256((site.root / name).read_bytes()).hexdigest()
    versioned = by_url[site.url("versioned.js?v=2")]
    assert versioned["layout"] == "isolated" and versioned["layout_reason"] == "query-or-fragment"
    assert files[versioned["relative_path"]] == (site.root / "versioned.js").read_bytes()
    assert set(files) == {"manifest.json", *(c["relative_path"] for c in by_url.values())}
    assert r["analysis_input"] == {"input_path": str(out / "scripts"), "format": "directory"}
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".rea-web-scripts-")]  # no staging left
    # an existing directory is refused before anything is written; omitted, REA picks a fresh one
    again = _err("export_web_scripts", {"capture_path": str(capture), "output_directory": str(out)})
    assert again["code"] == "invalid_request" and again["details"]["field"] == "output_directory"
    fresh = _ok("export_web_scripts", {"capture_path": str(capture)})["normalized_result"]
    assert fresh["output_directory"] != str(out) and _tree(Path(fresh["output_directory"])) == files | {
        "manifest.json": Path(fresh["manifest"]["path"]).read_bytes()
    }


def test_export_web_scripts_lists_what_was_not_captured_and_refuses_other_json(browser, bundle_app, tmp_path) -> None:  # noqa: F811
    tid, _ = bundle_app
    bare = tmp_path / "bare.json"
    got = _ok("inspect_web_page", {"cdp_endpoint": browser.endpoint, "target_id": tid, "observation_ms": 0})
    bare.write_text(json.dumps(got["normalized_result"]))  # the normalized result alone is a capture too
    r = _ok("export_web_scripts", {"capture_path": str(bare), "output_directory": str(tmp_path / "o")})[
        "normalized_result"
    ]
    assert r["scripts"] and all(
        s["content"]
        == {
            "state": "unavailable",
            "reason": "not_approved",
            "message": "The capture did not retain this script's source (not_approved).",
        }
        for s in r["scripts"]
    )
    assert r["analysis_input"] is None and r["source_evidence_id"] is None
    assert _tree(tmp_path / "o") == {"manifest.json": Path(r["manifest"]["path"]).read_bytes()}
    (tmp_path / "other.json").write_text(json.dumps({"hello": 1}))
    other = _err("export_web_scripts", {"capture_path": str(tmp_path / "other.json")})
    assert other["code"] == "invalid_request" and other["details"]["field"] == "capture_path"
    (tmp_path / "broken.json").write_text("{")
    assert _err("export_web_scripts", {"capture_path": str(tmp_path / "broken.json")})["code"] == "invalid_request"
    # a capture whose text no longer hashes to its digest exports nothing for that script
    capture = _capture(browser, tid, tmp_path / "c.json")
    doc = json.loads(capture.read_text())
    doc["normalized_result"]["scripts"]["items"][0]["source"]["artifact"]["text"] += "tampered"
    capture.write_text(json.dumps(doc))
    tampered = _ok("export_web_scripts", {"capture_path": str(capture)})["normalized_result"]
    assert tampered["scripts"][0]["content"]["reason"] == "artifact-digest-mismatch"


def _exported(browser, site, tid: str, tmp_path: Path) -> tuple[Path, dict[str, int]]:  # noqa: F811
    capture = _capture(browser, tid, tmp_path / "capture.json")
    r = _ok("export_web_scripts", {"capture_path": str(capture), "output_directory": str(tmp_path / "out")})
    return tmp_path / "out" / "manifest.json", {s["url"]: i for i, s in enumerate(r["normalized_result"]["scripts"])}


def test_trace_web_source_location_agrees_with_trace_mapping(browser, site, bundle_app, tmp_path) -> None:  # noqa: F811
    tid, _ = bundle_app
    manifest, index = _exported(browser, site, tid, tmp_path)
    map_path, map_url = site.root / "app.js.map", site.url("app.js.map")
    truth = all_mappings(map_path)
    points = sorted({(t[0], t[1]) for t in truth})[:40]
    expected = trace_mapping(map_path, map_url, points)
    base = {
        "manifest_path": str(manifest),
        "script_index": index[site.url("app.js")],
        "source_map": {"path": str(map_path), "url": map_url},
    }
    for (line, column), want in zip(points, expected):
        r = _ok("trace_web_source_location", {**base, "generated_position": {"line": line, "column": column}})[
            "normalized_result"
        ]
        assert r["lookup"]["matched_generated_position"] == {"line": line, "column": column}
        (match,) = r["matches"]
        assert match["state"] == "mapped"
        assert (match["resolved_url"], match["original_position"]["line"], match["original_position"]["column"]) == (
            want["source"],
            want["line"],
            want["column"],
        )
        assert match["original_position"]["content_position"] == "verified-in-embedded-text"
    helper = next(i for i, s in enumerate(json.loads(map_path.read_text())["sources"]) if s.endswith("helper.js"))
    r = _ok(
        "trace_web_source_location", {**base, "generated_position": {"line": points[-1][0], "column": points[-1][1]}}
    )["normalized_result"]
    assert r["source_map"]["sha256"] == hashlib.sha256(map_path.read_bytes()).hexdigest()
    assert r["source"]["sha256"] == hashlib.sha256((site.root / "app.js").read_bytes()).hexdigest()
    assert r["manifest"]["sha256"] == hashlib.sha256(manifest.read_bytes()).hexdigest()
    assert r["format"] == "regular" and r["source_authenticity"] == "unknown" and r["execution"] == "unknown"
    assert helper >= 0
    # the same map as one inline section of an indexed map answers the same, with its section path
    indexed = tmp_path / "indexed.map"
    indexed.write_text(
        json.dumps(
            {"version": 3, "sections": [{"offset": {"line": 0, "column": 0}, "map": json.loads(map_path.read_text())}]}
        )
    )
    line, column = points[-1]
    flat = _ok("trace_web_source_location", {**base, "generated_position": {"line": line, "column": column}})[
        "normalized_result"
    ]
    sectioned = _ok(
        "trace_web_source_location",
        {
            **base,
            "source_map": {"path": str(indexed), "url": map_url},
            "generated_position": {"line": line, "column": column},
        },
    )["normalized_result"]
    assert sectioned["format"] == "indexed" and sectioned["matches"][0]["section_path"] == [0]
    assert [{**m, "section_path": []} for m in sectioned["matches"]] == flat["matches"]
    # bad input: a position past its line, an unexported script, a changed file, a non-map
    past = _err("trace_web_source_location", {**base, "generated_position": {"line": 1, "column": 100_000}})
    assert past["code"] == "invalid_request" and past["details"]["field"] == "generated_position"
    far = _err(
        "trace_web_source_location", {**base, "script_index": 10_000, "generated_position": {"line": 1, "column": 0}}
    )
    assert far["details"]["field"] == "script_index"
    (tmp_path / "not-a-map.json").write_text('{"version": 2}')
    bad = _err(
        "trace_web_source_location",
        {
            **base,
            "source_map": {"path": str(tmp_path / "not-a-map.json"), "url": map_url},
            "generated_position": {"line": 1, "column": 0},
        },
    )
    assert bad["code"] == "invalid_request" and bad["details"]["field"] == "source_map.path"
    target = (
        manifest.parent / json.loads(manifest.read_text())["scripts"][base["script_index"]]["content"]["relative_path"]
    )
    target.write_bytes(target.read_bytes() + b"//")
    changed = _err("trace_web_source_location", {**base, "generated_position": {"line": 1, "column": 0}})
    assert changed["code"] == "artifact_integrity_mismatch"
    cli = subprocess.run(
        [
            *rea_command(),
            "trace-web-source-location",
            str(manifest),
            str(index[site.url("entry.js")]),
            str(map_path),
            map_url,
            "1",
            "0",
        ],
        capture_output=True,
        text=True,
        env=clean_env(),
    )
    assert cli.returncode == 0, cli.stderr


def test_trace_web_module_imports_resolves_to_captured_scripts(browser, site, bundle_app, tmp_path) -> None:  # noqa: F811
    tid, _ = bundle_app
    manifest, index = _exported(browser, site, tid, tmp_path)
    base = {"manifest_path": str(manifest), "script_index": index[site.url("entry.js")]}
    r = _ok("trace_web_module_imports", base)["normalized_result"]
    assert r["importer"] == {"url": site.url("entry.js"), "basis": "reported-source-url"}
    assert r["parser"]["state"] == "parsed" and r["import_map"] is None
    rows = [(i["kind"], i["specifier"], i["resolution"]) for i in r["imports"]]
    assert rows == [
        ("static-import", "./lib/util.js", {"state": "resolved", "url": site.url("lib/util.js")}),
        ("re-export", "./lib/more.js", {"state": "resolved", "url": site.url("lib/more.js")}),
        ("dynamic-import", "./lazy.js", {"state": "resolved", "url": site.url("lazy.js")}),
        ("dynamic-import", None, {"state": "unknown", "reason": "computed-specifier"}),
    ]
    util = r["imports"][0]
    (candidate,) = util["captured_candidates"]
    assert candidate["script_index"] == index[site.url("lib/util.js")] and candidate["match"] == "exact-reported-url"
    # positions in UTF-16 units of the text the test wrote
    lines = ENTRY.split("\n")
    lazy = r["imports"][2]
    line = next(n for n, text in enumerate(lines, 1) if "import('./lazy.js')" in text)
    column = lines[line - 1].index("import(")
    assert lazy["start"] == {
        "offset": sum(len(t) + 1 for t in lines[: line - 1]) + column,
        "line": line,
        "column": column,
    }
    assert lazy["expression"] == "'./lazy.js'" and all(i["execution"] == "unknown" for i in r["imports"])
    # a bare specifier under an import map, scoped to the importer, and without one
    (tmp_path / "bare.js").write_text("")
    imap = tmp_path / "importmap.json"
    imap.write_text(
        json.dumps(
            {
                "imports": {"./lib/util.js": "./lib/more.js", "pkg/": "/vendor/pkg/"},
                "scopes": {"/nowhere/": {"./lazy.js": "/x.js"}},
            }
        )
    )
    mapped = _ok("trace_web_module_imports", {**base, "import_map": {"path": str(imap), "base_url": site.url("")}})[
        "normalized_result"
    ]
    assert mapped["imports"][0]["resolution"] == {"state": "resolved", "url": site.url("lib/more.js")}
    assert mapped["imports"][2]["resolution"] == {"state": "resolved", "url": site.url("lazy.js")}  # scope not ours
    assert mapped["import_map"]["sha256"] == hashlib.sha256(imap.read_bytes()).hexdigest()
    elsewhere = _ok("trace_web_module_imports", {**base, "importer_url": "https://cdn.example/app/entry.js"})[
        "normalized_result"
    ]
    assert elsewhere["imports"][0]["resolution"] == {"state": "resolved", "url": "https://cdn.example/app/lib/util.js"}
    assert elsewhere["imports"][0]["captured_candidates"] == []
    bad = _err("trace_web_module_imports", {**base, "importer_url": "file:///etc/passwd"})
    assert bad["details"]["field"] == "importer_url"

    async def main() -> dict:
        async with connect() as s:
            return {
                "imports": await s.call_tool("trace_web_module_imports", base),
                "location": await s.call_tool(
                    "trace_web_source_location",
                    {
                        "manifest_path": str(manifest),
                        "script_index": index[site.url("app.js")],
                        "source_map": {"path": str(site.root / "app.js.map"), "url": site.url("app.js.map")},
                        "generated_position": {"line": 2, "column": 0},
                    },
                ),
            }

    out = anyio.run(main)
    assert evidence(out["imports"])["normalized_result"]["imports"][0]["specifier"] == "./lib/util.js"
    assert evidence(out["location"])["normalized_result"]["matches"]
    cli = subprocess.run(
        [*rea_command(), "trace-web-module-imports", str(manifest), str(base["script_index"])],
        capture_output=True,
        text=True,
        env=clean_env(),
    )
    assert cli.returncode == 0, cli.stderr
    assert f"static-import ./lib/util.js -> resolved {site.url('lib/util.js')} (1 captured)" in cli.stdout
    assert "dynamic-import ['./la', 'zy.js'].join('') -> unknown computed-specifier (0 captured)" in cli.stdout
