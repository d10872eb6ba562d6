"""Bundled-module recovery on bundles built here by the real webpack (production, numeric module ids),
webpack 4, browserify, rollup and vite from npm: module tables, dependencies between bundled modules, chunks, and module
boundaries recovered from source-map mappings."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from effects.calls import Connection
from javascript_fixtures import SOURCES, analyze, call, keyed, node, npm_installed, write_tree
from scripted import CTX


def webpack(npm: Path, src: Path, out: Path, *flags: str) -> Path:
    subprocess.run(
        [str(npm / ".bin" / "webpack"), "--mode", "production", "--entry", "./src/main.js", "-o", str(out), *flags],
        cwd=src,
        check=True,
        capture_output=True,
        timeout=300,
    )
    return out


def bundled(result, bundle=None):
    return {
        n["label"]: n
        for n in result["graph"]["nodes"]
        if n["subkind"] == "bundled-module" and (bundle is None or n["bundle"] == bundle)
    }


@pytest.mark.slow
def test_production_webpack_module_table_is_recovered_with_and_without_a_map(npm_tree, tmp_path):
    src = write_tree(tmp_path / "shop", SOURCES)
    plain = analyze(webpack(npm_tree, src, tmp_path / "plain"))["normalized_result"]
    mods = bundled(plain, "main.js")
    assert mods and all(n["recovered_by"] == "webpack-module-table" and n["module_id"].isdigit() for n in mods.values())
    assert all("path" not in n for n in mods.values())  # numeric ids, no map: names are not claimed
    # cart requires tax: an edge between two bundled modules, by module id; the entry requires cart
    requires = [e for e in keyed(plain, "imports") if e["kind"] == "bundled-require"]
    inner = [e for e in requires if e["source_node_id"].startswith("bundled-module:")]
    assert len(inner) == 1 and inner[0]["basis"] == "webpack-module-id" and inner[0]["target_node_id"] in mods
    assert any(
        e["source_node_id"] == "module:main.js" and e["target_node_id"] == inner[0]["source_node_id"] for e in requires
    )
    # the lazy chunk is another file; the entry's dynamic import reaches its module through the chunk's table
    lazy = [e for e in keyed(plain, "imports") if e["kind"] == "bundled-dynamic-import"]
    assert len(lazy) == 1 and lazy[0]["basis"] == "webpack-module-id-sibling-chunk"
    chunk_module = node(plain, lazy[0]["target_node_id"])
    assert chunk_module["bundle"] != "main.js"
    assert sorted(e["name"] for e in chunk_module["exports"]) == ["LAZY", "run"]
    for n in mods.values():  # every module's location is its byte range in the bundle
        text = (tmp_path / "plain" / "main.js").read_bytes()[n["location"]["start"] : n["location"]["end"]]
        assert text.startswith(n["module_id"].encode() + b":")

    mapped = analyze(webpack(npm_tree, src, tmp_path / "mapped", "--devtool", "source-map"))["normalized_result"]
    named = {n["path"]: n for n in bundled(mapped).values()}
    assert {"src/cart.js", "src/tax.js", "src/lazy.js"} <= set(named), sorted(named)
    assert keyed(mapped, "maps_to", named["src/tax.js"]["node_id"], "source:src/tax.js")
    tax_id = named["src/tax.js"]["label"]
    assert any(
        e["source_node_id"] == named["src/cart.js"]["label"] and e["target_node_id"] == tax_id
        for e in keyed(mapped, "imports")
    )


@pytest.mark.slow
def test_rollup_boundaries_come_from_the_source_map(npm_tree, tmp_path):
    src = write_tree(
        tmp_path / "lib",
        {
            "src/index.js": "import { area } from './shapes/circle.js';\nimport { sum } from './math.js';\n"
            "export const total = (rs) => sum(rs.map(area));\n",
            "src/shapes/circle.js": "export const area = (r) => Math.PI * r * r;\n",
            "src/math.js": "export function sum(xs) { return xs.reduce((a, b) => a + b, 0); }\n"
            "export function unused() { return 0; }\n",
        },
    )
    out = tmp_path / "dist"
    subprocess.run(
        [str(npm_tree / ".bin" / "rollup"), "src/index.js", "--format", "es", "--sourcemap", "-o", str(out / "lib.js")],
        cwd=src,
        check=True,
        capture_output=True,
        timeout=120,
    )
    conn = Connection(ctx=CTX)
    app = analyze(out, conn)
    r = app["normalized_result"]
    mods = {n["path"]: n for n in bundled(r, "lib.js").values()}
    assert set(mods) == {"../lib/src/index.js", "../lib/src/shapes/circle.js", "../lib/src/math.js"}, sorted(mods)
    assert all(n["recovered_by"] == "source-map-mappings" and n["segments"] > 0 for n in mods.values())
    text = (out / "lib.js").read_text().splitlines()
    circle = mods["../lib/src/shapes/circle.js"]
    assert "Math.PI" in text[circle["location"]["line"] - 1]
    # the bundle's own source-map sources against the shipped modules: all matched
    cmp = call(conn, "compare_source_to_bundle", {"application_evidence_id": app["evidence_id"]}).unwrap()
    own = cmp["normalized_result"]
    assert own["summary"]["removed"] == 0 and own["summary"]["unchanged"] == len(own["items"]) > 0
    # the reference tree against the bundle
    cmp = call(
        conn,
        "compare_source_to_bundle",
        {"application_evidence_id": app["evidence_id"], "reference": analyze(src, conn)},
    ).unwrap()["normalized_result"]
    mapped = {i["source_path"] for i in cmp["items"] if i["status"] in ("unchanged", "modified")}
    assert mapped == {"src/index.js", "src/shapes/circle.js", "src/math.js"}


@pytest.mark.slow
def test_vite_build_is_detected_and_its_modules_recovered(npm_tree, tmp_path):
    src = write_tree(
        tmp_path / "web",
        {
            "index.html": '<!doctype html><html><body><script type="module" src="/src/main.js"></script></body></html>\n',
            "src/main.js": "import { greet } from './greet.js';\ndocument.body.textContent = greet('x');\n"
            "import('./lazy.js').then((m) => m.run());\n",
            "src/greet.js": "export function greet(n) { return 'hello ' + n; }\n",
            "src/lazy.js": "export function run() { console.log('lazy'); }\n",
        },
    )
    vite = str(npm_tree / ".bin" / "vite")
    subprocess.run(
        [vite, "build", "--sourcemap", "--outDir", str(tmp_path / "mapped")],
        cwd=src,
        check=True,
        capture_output=True,
        timeout=300,
    )
    r = analyze(tmp_path / "mapped")["normalized_result"]
    entry = next(n for n in r["graph"]["nodes"] if n["subkind"] == "module" and n["path"].startswith("assets/index-"))
    assert entry["bundlers"] == ["vite"]
    paths = {n["path"] for n in bundled(r, entry["path"]).values()}
    assert {"../../web/src/main.js", "../../web/src/greet.js"} <= paths, paths
    assert keyed(r, "loads", "html:index.html", entry["label"])
    # the entry's lazy import lands in the lazy chunk's own map: one build, two maps
    lazy = [e for e in keyed(r, "imports", "source:../../web/src/main.js") if e["specifier"] == "./lazy.js"]
    assert [(e["target_node_id"], e["basis"]) for e in lazy] == [("source:../../web/src/lazy.js", "source-map-sibling")]

    subprocess.run(
        [vite, "build", "--outDir", str(tmp_path / "plain")], cwd=src, check=True, capture_output=True, timeout=300
    )
    r = analyze(tmp_path / "plain")["normalized_result"]
    assert not bundled(r)
    assert any(u["kind"] == "bundle-boundaries-not-recoverable" for u in r["unknowns"])


@pytest.mark.slow
def test_two_production_builds_compare_by_original_source_not_module_id(npm_tree, tmp_path):
    conn = Connection(ctx=CTX)
    old = write_tree(tmp_path / "v1", SOURCES)
    new = write_tree(
        tmp_path / "v2",
        {**SOURCES, "src/tax.js": "exports.apply = (x) => Math.round(x * 1.25 + 0.5);\nexports.rate = 1.25;\n"},
    )
    left = analyze(webpack(npm_tree, old, tmp_path / "out1", "--devtool", "source-map"), conn)
    right = analyze(webpack(npm_tree, new, tmp_path / "out2", "--devtool", "source-map"), conn)
    cmp = call(
        conn,
        "compare_application_versions",
        {"left_evidence_id": left["evidence_id"], "right_evidence_id": right["evidence_id"]},
    ).unwrap()
    result = cmp["normalized_result"]
    bundled_items = [i for i in result["items"] if i["category"] == "bundled_modules"]
    changed = {i["key"]: i for i in bundled_items if i["status"] == "changed"}
    assert list(changed) == ["src/tax.js"], bundled_items
    assert changed["src/tax.js"]["left"]["generated_bytes"] < changed["src/tax.js"]["right"]["generated_bytes"]
    assert changed["src/tax.js"]["dimensions"] == ["content"]
    counts = result["categories"]["bundled_modules"]["counts"]
    assert counts["unchanged"] >= 2  # cart and lazy: same source, whatever their module ids


def test_shadowed_require_names_and_an_inline_runtime(tmp_path):
    """The shape terser gives webpack 5 output (written here to pin two edge cases): the runtime is an
    immediately invoked `function t(s){...}(967)`, and a nested function rebinding the module's require
    name (`function inner(t){return t(1)}`) does not make `1` a dependency."""
    bundle = (
        "(()=>{var o={967:(o,r,t)=>{const s=t(170);function inner(t){return t(1)}o.exports=()=>s.x+inner(Math.abs)},"
        "170:(o,r)=>{r.x=2},1:o=>{o.exports=1}},r={};const t=function t(s){var e=r[s];if(void 0!==e)return e.exports;"
        "var n=r[s]={exports:{}};return o[s](n,n.exports,t),n.exports}(967);console.log(t())})();\n"
        "/* __webpack_require__ */\n"
    )
    write_tree(tmp_path / "out", {"main.js": bundle})
    r = analyze(tmp_path / "out")["normalized_result"]
    requires = sorted(
        (e["source_node_id"], e["target_node_id"]) for e in keyed(r, "imports") if e["kind"] == "bundled-require"
    )
    assert requires == [
        ("bundled-module:main.js#967", "bundled-module:main.js#170"),
        ("module:main.js", "bundled-module:main.js#967"),
    ]


def test_a_dispatch_table_inside_a_module_is_not_a_module(tmp_path):
    bundle = (
        "(()=>{var o={12:(e,t,n)=>{const ops={1:(a)=>a+1,2:(a)=>a*2};e.exports=ops},"
        "34:(e,t,n)=>{e.exports=n(12)}},r={};function n(s){var e=r[s];if(void 0!==e)return e.exports;"
        "var t=r[s]={exports:{}};return o[s](t,t.exports,n),t.exports}n.m=o;n(34)})();\n/* __webpack_require__ */\n"
    )
    write_tree(tmp_path / "out", {"main.js": bundle})
    r = analyze(tmp_path / "out")["normalized_result"]
    assert sorted(n["module_id"] for n in bundled(r).values()) == ["12", "34"]
    assert keyed(r, "imports", "bundled-module:main.js#34", "bundled-module:main.js#12")
    assert keyed(r, "imports", "module:main.js", "bundled-module:main.js#34")


@pytest.mark.slow
def test_browserify_dependency_maps_become_bundled_edges(npm_tree, tmp_path):
    src = write_tree(
        tmp_path / "shop",
        {k: v for k, v in SOURCES.items() if k != "src/lazy.js"}
        | {"src/main.js": "const cart = require('./cart.js');\nconsole.log(cart.total([1, 2]));\n"},
    )
    out = tmp_path / "dist"
    out.mkdir()
    subprocess.run(
        [str(npm_tree / ".bin" / "browserify"), "src/main.js", "-o", str(out / "bundle.js")],
        cwd=src,
        check=True,
        capture_output=True,
        timeout=120,
    )
    r = analyze(out)["normalized_result"]
    assert node(r, "module:bundle.js")["bundlers"] == ["browserify"]
    mods = bundled(r, "bundle.js")
    assert len(mods) == 3 and {n["recovered_by"] for n in mods.values()} == {"browserify-module-table"}
    inner = {(e["source_node_id"], e["specifier"]): e for e in keyed(r, "imports") if e["kind"] == "bundled-require"}
    tax = next(e for (source, spec), e in inner.items() if spec == "./tax.js")
    assert (
        tax["basis"] == "browserify-dependency-map" and tax["target_node_id"] in mods and tax["source_node_id"] in mods
    )
    entry = [e for (source, _), e in inner.items() if source == "module:bundle.js"]
    assert len(entry) == 1 and entry[0]["target_node_id"] in mods  # the bundle's entry list names main.js's module
    assert not [u for u in r["unknowns"] if u["kind"] == "unresolved-import"]  # requires inside modules are mapped


@pytest.mark.slow
def test_a_minified_bundle_keeps_its_module_structure_in_the_maps_embedded_sources(npm_tree, tmp_path):
    src = write_tree(
        tmp_path / "app",
        {
            "src/main.js": "import { helper } from './util/helper.js';\nimport ms from 'ms';\nimport fs from 'node:fs';\n"
            "console.log(helper(ms('1h')), fs.existsSync('x'));\n",
            "src/util/helper.js": "export function helper(x) { return { value: x }; }\nexport const NAME = 'h';\n",
        },
    )
    shutil.copytree(npm_tree / "ms", src / "node_modules" / "ms")
    out = tmp_path / "dist"
    subprocess.run(
        [
            str(npm_tree / ".bin" / "esbuild"),
            "src/main.js",
            "--bundle",
            "--minify",
            "--sourcemap",
            "--platform=node",
            f"--outfile={out / 'app.js'}",
        ],
        check=True,
        capture_output=True,
        cwd=src,
    )
    r = analyze(out)["normalized_result"]
    assert node(r, "source-map:app.js.map")["sources_parsed"] == 3
    main, helper = "source:../app/src/main.js", "source:../app/src/util/helper.js"
    found = {(e["target_node_id"], e["basis"]) for e in keyed(r, "imports", main)}
    assert (helper, "relative") in found and ("builtin:fs", "node-scheme") in found
    assert ("source:../app/node_modules/ms/index.js", "package-main") in found  # node_modules beside the sources
    assert sorted(e["name"] for e in node(r, helper)["exports"]) == ["NAME", "helper"]
    # the bundle's code itself is one minified file: the structure came from the map
    assert not [e for e in keyed(r, "imports") if e["source_node_id"] == "module:app.js" and e["basis"] == "relative"]


def test_a_null_source_keeps_the_mappings_aligned(tmp_path):
    from rea.javascript.sourcemap import encode_vlq

    # two segments: generated column 0 from source 0 (null), column 10 from source 1 (b.js)
    mappings = encode_vlq([0, 0, 0, 0]) + "," + encode_vlq([10, 1, 0, 0])
    write_tree(
        tmp_path / "out",
        {
            "out.js": "var a=1;  var b=2;\n//# sourceMappingURL=out.js.map\n",
            "out.js.map": json.dumps(
                {
                    "version": 3,
                    "sources": [None, "b.js"],
                    "sourcesContent": [None, "export const b = 2;\n"],
                    "mappings": mappings,
                }
            ),
        },
    )
    r = analyze(tmp_path / "out")["normalized_result"]
    mods = bundled(r, "out.js")
    assert [n["path"] for n in mods.values()] == ["b.js"]  # source 1 is b.js, not shifted onto the null
    assert node(r, "source:b.js")["exports"][0]["name"] == "b"


def test_a_maps_packages_resolve_wherever_the_build_kept_its_node_modules(tmp_path):
    """Sources as a build elsewhere recorded them: the package is found as the one `node_modules/<name>` among
    the map's sources, and a package that shipped a single file is that file."""
    sources = ["../../src/a.js", "../../../../ci/node_modules/ms/index.js", "../../../../ci/node_modules/one/lib/x.js"]
    contents = [
        "import ms from 'ms';\nimport one from 'one';\nimport gone from 'gone';\n",
        "module.exports = 1;\n",
        "module.exports = 2;\n",
    ]
    write_tree(
        tmp_path / "out",
        {"app.js.map": json.dumps({"version": 3, "sources": sources, "sourcesContent": contents, "mappings": ""})},
    )
    r = analyze(tmp_path / "out")["normalized_result"]
    found = {e["specifier"]: (e["target_node_id"], e["basis"]) for e in keyed(r, "imports", "source:../../src/a.js")}
    assert found["ms"] == ("source:../../../../ci/node_modules/ms/index.js", "source-map-package")
    assert found["one"] == ("source:../../../../ci/node_modules/one/lib/x.js", "source-map-package")
    (gone,) = [u for u in r["unknowns"] if u["kind"] == "unresolved-original-import"]
    assert gone["specifier"] == "gone" and gone["reason"] == "package-not-found"


def test_embedded_sources_past_their_budget_are_counted_and_make_coverage_partial(tmp_path):
    sources, contents = ["a.js", "b.js"], ["import './b.js';\n", "export const b = 1;\n" * 50]
    write_tree(
        tmp_path / "out",
        {"app.js.map": json.dumps({"version": 3, "sources": sources, "sourcesContent": contents, "mappings": ""})},
    )
    r = analyze(tmp_path / "out", limits={"max_original_source_bytes": 100})["normalized_result"]
    assert node(r, "source-map:app.js.map")["sources_parsed"] == 1
    assert r["coverage"]["status"] == "partial" and "max_original_source_bytes" in r["coverage"]["limits_reached"]
    assert any(u["kind"] == "original-sources-not-parsed" and u["count"] == 1 for u in r["unknowns"])
    off = analyze(tmp_path / "out", limits={"max_original_source_bytes": 0})["normalized_result"]
    assert "sources_parsed" not in node(off, "source-map:app.js.map") and off["coverage"]["status"] == "complete"


def test_export_shapes_compare_across_two_shipped_bundles_through_their_maps(tmp_path):
    conn = Connection(ctx=CTX)
    sides = []
    for version, members in (("v1", "get, set"), ("v2", "get, set, clear")):
        content = "export const store = { " + ", ".join(f"{m.strip()}() {{}}" for m in members.split(",")) + " };\n"
        write_tree(
            tmp_path / version,
            {
                "app.js.map": json.dumps(
                    {
                        "version": 3,
                        "sources": ["webpack://app/./src/store.js"],
                        "sourcesContent": [content],
                        "mappings": "",
                    }
                )
            },
        )
        sides.append(analyze(tmp_path / version, conn)["evidence_id"])
    cmp = call(
        conn,
        "compare_javascript_export_shapes",
        {
            "left_evidence_id": sides[0],
            "right_evidence_id": sides[1],
            "left_module_path": "src/store.js",
            "right_module_path": "src/store.js",
            "left_export_name": "store",
            "right_export_name": "store",
        },
    ).unwrap()
    r = cmp["normalized_result"]
    assert r["status"] == "changed" and [(c["path"], c["status"]) for c in r["changes"]] == [("/clear", "added")], r
    assert r["summary"]["added"] == 1 and r["left"]["selected_node_id"] == r["right"]["selected_node_id"]


WEBPACK4 = Path(__file__).parents[1] / "fixtures" / "javascript-webpack4"


@pytest.fixture(scope="session")
def webpack4() -> Path:
    npm_installed(WEBPACK4)
    return WEBPACK4


@pytest.mark.slow
def test_webpack4_module_arrays_chunks_and_entry(webpack4, tmp_path):
    """webpack 4 (older Electron apps): modules in an array (`!function(e){...}([function ...])`), the entry run
    by `o(o.s = 0)`, chunks pushed to `webpackJsonp`, exports declared by `d(exports, name, getter)`."""
    src = write_tree(tmp_path / "shop", SOURCES)
    env = {**os.environ, "NODE_OPTIONS": "--openssl-legacy-provider"}
    for out, extra in (("plain", []), ("mapped", ["map"])):
        subprocess.run(
            ["node", str(webpack4 / "build.js"), str(src), str(tmp_path / out), *extra],
            check=True,
            capture_output=True,
            timeout=300,
            env=env,
        )
    r = analyze(tmp_path / "plain")["normalized_result"]
    assert node(r, "module:main.js")["bundlers"] == ["webpack"]
    mods = bundled(r, "main.js")
    assert sorted(n["module_id"] for n in mods.values()) == ["0", "1", "2"]
    requires = {
        (e["source_node_id"], e["target_node_id"]) for e in keyed(r, "imports") if e["kind"] == "bundled-require"
    }
    assert ("module:main.js", "bundled-module:main.js#0") in requires  # o(o.s = 0)
    assert ("bundled-module:main.js#1", "bundled-module:main.js#2") in requires  # cart requires tax
    (lazy,) = [e for e in keyed(r, "imports") if e["kind"] == "bundled-dynamic-import"]
    assert lazy["basis"] == "webpack-module-id-sibling-chunk"
    assert sorted(x["name"] for x in node(r, lazy["target_node_id"])["exports"]) == ["LAZY", "run"]
    named = {n["path"] for n in bundled(analyze(tmp_path / "mapped")["normalized_result"]).values()}
    assert {"src/main.js", "src/cart.js", "src/tax.js", "src/lazy.js"} <= named, named
