"""Module resolution on trees written here: package.json `imports` maps (`#x`) and TypeScript
`paths`/`baseUrl` from tsconfig.json, analysed through the real tool; and the pure resolver alone."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from rea.javascript.resolve import Resolver
from test_javascript import analyze, edges, node, write_tree

IMPORTS_APP = {
    "package.json": json.dumps({"name": "imports-app", "type": "module", "imports": {
        "#config": "./src/config.js",
        "#utils/*": "./src/utils/*.js",
        "#utils/special/*": "./src/special/*.js",
        "#env": {"require": "./src/env.cjs", "import": "./src/env.mjs"},
        "#dep": "dep-pkg",
        "#fp": {"browser": "./src/browser.js", "node": "dep-pkg/fp", "default": "./src/nofp.js"},
        "#fs": "fs",
        "#scheme": "node:fs",
        "#ts/*": "./src/ts/*.js",
        "#gone": "./src/gone.js",
        "#nopkg": "absent-pkg",
        "#up": "../outside.js",
    }}),
    "src/index.js": "import c from '#config';\nimport u from '#utils/strings';\nimport s from '#utils/special/deep';\n"
                    "import e from '#env';\nimport d from '#dep';\nimport fp from '#fp';\nimport fs from '#fs';\n"
                    "import sc from '#scheme';\nimport t from '#ts/thing';\nimport g from '#gone';\nimport n from '#nopkg';\nimport x from '#nothing';\n"
                    "import up from '#up';\nimport bad from '#';\n",
    "src/cjs.cjs": "const e = require('#env');\n",
    "src/config.js": "export default 1;\n",
    "src/utils/strings.js": "export default 1;\n",
    "src/special/deep.js": "export default 1;\n",
    "src/env.cjs": "module.exports = 1;\n",
    "src/env.mjs": "export default 1;\n",
    "src/ts/thing.ts": "export default 1;\n",
    "src/browser.js": "export default 1;\n",
    "node_modules/dep-pkg/package.json": json.dumps({"name": "dep-pkg", "exports": {".": "./index.js", "./fp": "./fp.js"},
                                                     "imports": {"#own": "./lib/own.js"}}),
    "node_modules/dep-pkg/index.js": "import own from '#own';\nimport c from '#config';\nexport default own;\n",
    "node_modules/dep-pkg/fp.js": "export default 1;\n",
    "node_modules/dep-pkg/lib/own.js": "export default 1;\n",
    "packages/sub/package.json": json.dumps({"name": "sub"}),
    "packages/sub/a.js": "import c from '#config';\n",
}


def _imports(r):
    return {(e["from"], e["specifier"]): e for e in edges(r, "imports")}


def test_package_imports_maps(tmp_path):
    r = analyze(write_tree(tmp_path / "app", IMPORTS_APP))["normalized_result"]
    found = _imports(r)

    def check(importer, spec, target, basis):
        edge = found[(f"module:{importer}", spec)]
        assert (edge["to"], edge["basis"]) == (target, basis), edge
        return edge

    check("src/index.js", "#config", "module:src/config.js", "package-imports")
    check("src/index.js", "#utils/strings", "module:src/utils/strings.js", "package-imports")
    # the longest pattern prefix wins
    check("src/index.js", "#utils/special/deep", "module:src/special/deep.js", "package-imports")
    # conditions follow the import kind
    check("src/index.js", "#env", "module:src/env.mjs", "package-imports")
    check("src/cjs.cjs", "#env", "module:src/env.cjs", "package-imports")
    # a bare target resolves as a package from the package's directory; the inner basis stays visible
    dep = check("src/index.js", "#dep", "module:node_modules/dep-pkg/index.js", "package-imports")
    assert (dep["mapped"], dep["via"]) == ("dep-pkg", "package-exports")
    fp = check("src/index.js", "#fp", "module:node_modules/dep-pkg/fp.js", "package-imports")
    assert (fp["mapped"], fp["via"]) == ("dep-pkg/fp", "package-exports")
    check("src/index.js", "#fs", "builtin:fs", "package-imports")
    check("src/index.js", "#ts/thing", "module:src/ts/thing.ts", "package-imports")
    # a package's own map, not its importer's
    check("node_modules/dep-pkg/index.js", "#own", "module:node_modules/dep-pkg/lib/own.js", "package-imports")
    check("node_modules/dep-pkg/index.js", "#config", "unresolved:#config", "imports-not-defined")
    check("packages/sub/a.js", "#config", "unresolved:#config", "imports-not-defined")
    # failures keep their reason
    check("src/index.js", "#gone", "unresolved:#gone", "imports-target-missing")
    missing = check("src/index.js", "#nopkg", "unresolved:#nopkg", "imports-target-missing")
    assert missing["via"] == "package-not-found"
    check("src/index.js", "#nothing", "unresolved:#nothing", "imports-not-defined")
    check("src/index.js", "#up", "unresolved:#up", "imports-target-invalid")
    check("src/index.js", "#scheme", "unresolved:#scheme", "imports-target-invalid")  # a URL target, as Node says
    reasons = {u["node"]: u["reason"] for u in r["unknowns"] if u["kind"] == "unresolved-import"}
    assert reasons["unresolved:#gone"] == "imports-target-missing"
    assert node(r, "package:.")["has_imports"] is True


NODE_RESOLVE = """
import { createRequire } from 'node:module';
import { pathToFileURL, fileURLToPath } from 'node:url';
import path from 'node:path';
const [root, cases] = [process.argv[2], JSON.parse(process.argv[3])];
console.log(JSON.stringify(cases.map(([importer, spec, kind]) => {
  const file = path.join(root, importer);
  try {
    const r = kind === 'require' ? createRequire(file).resolve(spec) : import.meta.resolve(spec, pathToFileURL(file).href);
    return r.startsWith('file:') ? path.relative(root, fileURLToPath(r)) : path.isAbsolute(r) ? path.relative(root, r) : r;
  } catch (e) { return 'ERR ' + e.code; }
})));
"""
NODE_ERRORS = {"ERR ERR_PACKAGE_IMPORT_NOT_DEFINED": "imports-not-defined", "ERR ERR_INVALID_PACKAGE_TARGET":
               "imports-target-invalid", "ERR ERR_MODULE_NOT_FOUND": "imports-target-missing",
               "ERR ERR_INVALID_MODULE_SPECIFIER": "invalid-specifier"}


def test_package_imports_agree_with_node(tmp_path):
    """Node itself (import.meta.resolve, require.resolve) is the oracle for every `#` import of the tree."""
    if shutil.which("node") is None:
        pytest.skip("Node.js is not installed on this host")
    root = write_tree(tmp_path / "app", IMPORTS_APP)
    r = analyze(root)["normalized_result"]
    ours = [e for e in edges(r, "imports") if e["specifier"].startswith("#")]
    cases = [[e["from"].removeprefix("module:"), e["specifier"], "require" if e["kind"] == "require" else "import"]
             for e in ours]
    (tmp_path / "resolve.mjs").write_text(NODE_RESOLVE)
    done = subprocess.run(["node", "--experimental-import-meta-resolve", str(tmp_path / "resolve.mjs"), str(root),
                           json.dumps(cases)], capture_output=True, text=True, timeout=60, check=True)
    for edge, answer in zip(ours, json.loads(done.stdout), strict=True):
        if answer in NODE_ERRORS:
            assert edge["basis"] == NODE_ERRORS[answer], (edge, answer)
        elif answer.startswith("node:"):
            assert (edge["to"], edge["basis"]) == (f"builtin:{answer[5:]}", "package-imports"), (edge, answer)
        elif (root / answer).is_file():
            assert (edge["to"], edge["basis"]) == (f"module:{answer}", "package-imports"), (edge, answer)
        else:  # Node names a file that is absent: missing for us too, unless it is the `.js` of a TypeScript source
            assert edge["basis"] == "imports-target-missing" or edge["to"].endswith(".ts"), (edge, answer)
    assert len(ours) == 18


def test_resolver_imports_map_unit():
    files = ["package.json", "a/b.js", "lib/x.js", "node_modules/p/package.json", "node_modules/p/main.js"]
    packages = {"": {"imports": {"#x": "./lib/x.js", "#p": "p", "#*": "./lib/*.js"}},
                "node_modules/p": {"main": "main.js"}}
    resolver = Resolver(files, packages)
    assert resolver.resolve("a/b.js", "#x", "import") == ("module", "lib/x.js", "package-imports", (("mapped", "./lib/x.js"),))
    assert resolver.resolve("a/b.js", "#p", "require")[:3] == ("module", "node_modules/p/main.js", "package-imports")
    assert resolver.resolve("a/b.js", "#", "import")[2] == "invalid-specifier"
    assert resolver.resolve("a/b.js", "#q", "import")[2] == "imports-target-missing"
    # an omitted (oversized) map is said to be omitted, never read as absent
    omitted = Resolver(files, {"": {"imports": None, "imports_omitted": "larger than 16384 bytes"}})
    assert omitted.resolve("a/b.js", "#x", "import")[2] == "imports-omitted"

