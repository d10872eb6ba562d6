"""A bundled web app for the script tools: esbuild (the real bundler, from the JavaScript fixtures' npm tree)
writes an ES module bundle with its source map, the test writes a hand-made module graph beside it, and a
loopback server serves both. Ground truth: the files the test wrote, and @jridgewell/trace-mapping (the
decoder 6.x uses) run by Node over the same map."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from support import npm_fixture

JS_FIXTURES = Path(__file__).parent / "fixtures" / "javascript"

MAIN = """import { helper } from './util/helper.js';
const routes = [{ path: '/users/:id' }, { path: '/settings' }];
export function start() {
  fetch('/api/items?page=2#top').then((r) => r.json());
  return helper(routes.length);
}
start();
"""
HELPER = "export function helper(n) {\n  return { value: n * 2 };\n}\n"
ENTRY = """import { util } from './lib/util.js';
export * from './lib/more.js';
const later = import('./lazy.js');
const computed = import(['./la', 'zy.js'].join(''));
if (document.modelContext) {
  document.modelContext.registerTool({ name: 'search', description: 'Find items', inputSchema: { type: 'object', properties: { query: { type: 'string' }, limit: { type: 'number' } } }, execute: () => ({}) });
}
const x = new XMLHttpRequest(); x.open('POST', '/api/orders'); util();
"""
UTIL = "export function util() { return 'μ𝄞'; }\n"
MORE = "export const more = 1;\n"
LAZY = "export const lazy = true;\n"
# its map is declared on a port nothing serves and no policy allows: never fetched
VENDOR = (
    "var __webpack_require__ = function (id) { return id; }; window.vendor = __webpack_require__(1);\n"
    "//# sourceMappingURL=http://127.0.0.1:9/vendor.js.map\n"
)


def build_bundle(out: Path) -> Path:
    """dist/app.js and dist/app.js.map from src/ by the real esbuild; returns the source tree."""
    src = out.parent / "src"
    (src / "util").mkdir(parents=True, exist_ok=True)
    (src / "main.js").write_text(MAIN)
    (src / "util" / "helper.js").write_text(HELPER)
    esbuild = npm_fixture(JS_FIXTURES) / ".bin" / "esbuild"
    subprocess.run(
        [str(esbuild), str(src / "main.js"), "--bundle", "--format=esm", "--sourcemap", f"--outfile={out / 'app.js'}"],
        check=True,
        capture_output=True,
        cwd=src,
    )
    return src


def write_app(site: Any) -> str:
    """The app's pages and scripts on the site; returns the page URL."""
    build_bundle(site.root)
    for name, text in (
        ("entry.js", ENTRY),
        ("lib/util.js", UTIL),
        ("lib/more.js", MORE),
        ("lazy.js", LAZY),
        ("vendor.js", VENDOR),
        ("versioned.js", "window.versioned = 2;\n"),
    ):
        site.write(name, text)
    return site.write(
        "index.html",
        "<!doctype html><title>bundle</title><script src=vendor.js></script><script src='versioned.js?v=2'></script>"
        "<script type=module src=app.js></script><script type=module src=entry.js></script><p>ok</p>",
    )


def trace_mapping(map_path: Path, map_url: str, points: list[tuple[int, int]]) -> list[dict[str, Any]]:
    """originalPositionFor of each (line, column) by @jridgewell/trace-mapping under Node (the independent
    reader), the map's sources resolved against `map_url`."""
    script = (
        "const { TraceMap, originalPositionFor } = require('@jridgewell/trace-mapping');"
        "const fs = require('fs');"
        f"const map = new TraceMap(fs.readFileSync({json.dumps(str(map_path))}, 'utf8'), {json.dumps(map_url)});"
        f"const points = {json.dumps(points)};"
        "process.stdout.write(JSON.stringify(points.map(([line, column]) => originalPositionFor(map, { line, column }))));"
    )
    done = subprocess.run(
        ["node", "-e", script], capture_output=True, text=True, check=True, cwd=npm_fixture(JS_FIXTURES)
    )
    return list(json.loads(done.stdout))


def all_mappings(map_path: Path) -> list[list[Any]]:
    """Every mapping [generatedLine, generatedColumn, source, originalLine, originalColumn] by trace-mapping."""
    script = (
        "const { TraceMap, eachMapping } = require('@jridgewell/trace-mapping');"
        "const fs = require('fs');"
        f"const map = new TraceMap(fs.readFileSync({json.dumps(str(map_path))}, 'utf8'), 'http://x/app.js.map');"
        "const out = []; eachMapping(map, (m) => { if (m.source !== null) "
        "out.push([m.generatedLine, m.generatedColumn, m.source, m.originalLine, m.originalColumn]); });"
        "process.stdout.write(JSON.stringify(out));"
    )
    done = subprocess.run(
        ["node", "-e", script], capture_output=True, text=True, check=True, cwd=npm_fixture(JS_FIXTURES)
    )
    return list(json.loads(done.stdout))
