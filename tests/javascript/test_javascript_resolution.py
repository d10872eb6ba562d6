"""Module resolution on trees written here: package.json `imports` maps (`#x`) and TypeScript
`paths`/`baseUrl` from tsconfig.json, analysed through the real tool; and the pure resolver alone."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from javascript_fixtures import IMPORTS_APP, analyze, keyed, node, write_tree
from rea.javascript import tsconfig
from rea.javascript.ids import node_id as jid
from rea.javascript.resolve import Resolver


def _imports(r):
    return {(e["source_node_id"], e["specifier"]): e for e in keyed(r, "imports")}


def test_package_imports_maps(tmp_path):
    r = analyze(write_tree(tmp_path / "app", IMPORTS_APP))["normalized_result"]
    found = _imports(r)

    def check(importer, spec, target, basis):
        edge = found[(f"module:{importer}", spec)]
        assert (edge["target_node_id"], edge["basis"]) == (target, basis), edge
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
    assert reasons[jid("unresolved:#gone")] == "imports-target-missing"  # unknowns name their node by wire id
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
NODE_ERRORS = {
    "ERR ERR_PACKAGE_IMPORT_NOT_DEFINED": "imports-not-defined",
    "ERR ERR_INVALID_PACKAGE_TARGET": "imports-target-invalid",
    "ERR ERR_MODULE_NOT_FOUND": "imports-target-missing",
    "ERR ERR_INVALID_MODULE_SPECIFIER": "invalid-specifier",
}


def test_package_imports_agree_with_node(tmp_path):
    """Node itself (import.meta.resolve, require.resolve) is the oracle for every `#` import of the tree."""
    if shutil.which("node") is None:
        pytest.skip("Node.js is not installed on this host")
    root = write_tree(tmp_path / "app", IMPORTS_APP)
    r = analyze(root)["normalized_result"]
    ours = [e for e in keyed(r, "imports") if e["specifier"].startswith("#")]
    cases = [
        [e["source_node_id"].removeprefix("module:"), e["specifier"], "require" if e["kind"] == "require" else "import"]
        for e in ours
    ]
    (tmp_path / "resolve.mjs").write_text(NODE_RESOLVE)
    done = subprocess.run(
        ["node", "--experimental-import-meta-resolve", str(tmp_path / "resolve.mjs"), str(root), json.dumps(cases)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    for edge, answer in zip(ours, json.loads(done.stdout), strict=True):
        if answer in NODE_ERRORS:
            assert edge["basis"] == NODE_ERRORS[answer], (edge, answer)
        elif answer.startswith("node:"):
            assert (edge["target_node_id"], edge["basis"]) == (f"builtin:{answer[5:]}", "package-imports"), (
                edge,
                answer,
            )
        elif (root / answer).is_file():
            assert (edge["target_node_id"], edge["basis"]) == (f"module:{answer}", "package-imports"), (edge, answer)
        else:  # Node names a file that is absent: missing for us too, unless it is the `.js` of a TypeScript source
            assert edge["basis"] == "imports-target-missing" or edge["target_node_id"].endswith(".ts"), (edge, answer)
    assert len(ours) == 18


def test_resolver_imports_map_unit():
    files = ["package.json", "a/b.js", "lib/x.js", "node_modules/p/package.json", "node_modules/p/main.js"]
    packages = {
        "": {"imports": {"#x": "./lib/x.js", "#p": "p", "#*": "./lib/*.js"}},
        "node_modules/p": {"main": "main.js"},
    }
    resolver = Resolver(files, packages)
    assert resolver.resolve("a/b.js", "#x", "import") == (
        "module",
        "lib/x.js",
        "package-imports",
        (("mapped", "./lib/x.js"),),
    )
    assert resolver.resolve("a/b.js", "#p", "require")[:3] == ("module", "node_modules/p/main.js", "package-imports")
    assert resolver.resolve("a/b.js", "#", "import")[2] == "invalid-specifier"
    assert resolver.resolve("a/b.js", "#q", "import")[2] == "imports-target-missing"
    # an omitted (oversized) map is said to be omitted, never read as absent
    omitted = Resolver(files, {"": {"imports": None, "imports_omitted": "larger than 16384 bytes"}})
    assert omitted.resolve("a/b.js", "#x", "import")[2] == "imports-omitted"


TS_APP = {
    "package.json": json.dumps({"name": "ts-app", "type": "module"}),
    "tsconfig.json": """{
  // the project: settings come from a base config in another directory
  "extends": ["@tsconfig/strictest/tsconfig.json", "./configs/tsconfig.base.json", "@tsconfig/absent"],
  /* a URL is not a comment: "https://example.com//x" */
  "compilerOptions": {
    "outDir": "dist",
    "sourceRoot": "https://example.com/src//x", // still a string
  },
  "include": ["src/**/*",],
}
""",
    "configs/tsconfig.base.json": """{
  "compilerOptions": {
    "baseUrl": "../src", // relative to this config, not the one extending it
    "paths": {
      "@app/*": ["app/*"],
      "@app/special/*": ["special/*"],
      "@shared": ["missing/shared", "lib/shared/index"], /* the first target does not exist */
      "@gone/*": ["nowhere/*",],
    },
  },
}
""",
    "node_modules/@tsconfig/strictest/tsconfig.json": '{"compilerOptions": {"strict": true, "baseUrl": "."}}\n',
    "src/main.ts": "import { a } from '@app/feature/a';\nimport { b } from '@app/feature/b.js';\n"
    "import s from '@shared';\nimport sp from '@app/special/one';\nimport u from 'utils/strings';\n"
    "import g from '@gone/thing';\nimport d from '@gone/dep';\nimport fs from 'fs';\n"
    "import left from 'left-pad';\nimport nope from 'not-installed';\n",
    "src/app/feature/a.ts": "export const a = 1;\n",
    "src/app/feature/b.ts": "export const b = 1;\n",
    "src/special/one.ts": "export default 1;\n",
    "src/lib/shared/index.ts": "export default 1;\n",
    "src/utils/strings.ts": "export default 1;\n",
    "node_modules/@gone/dep/index.js": "module.exports = 1;\n",
    "node_modules/left-pad/index.js": "module.exports = 1;\nrequire('@app/feature/a');\n",
    # a second project: a jsconfig without baseUrl, so paths are relative to the jsconfig itself
    "packages/web/jsconfig.json": '{"compilerOptions": {"paths": {"~/*": ["./src/*"]}}}\n',
    "packages/web/src/index.js": "import util from '~/util';\nimport a from '@app/feature/a';\n",
    "packages/web/src/util.js": "export default 1;\n",
    # a config that does not parse is a parse failure; it still governs its directory, with nothing in it
    "packages/broken/tsconfig.json": '{"compilerOptions": {"paths": {"@app/*": [ }}\n',
    "packages/broken/a.ts": "import a from '@app/feature/a';\n",
}


def test_typescript_paths_and_base_url(tmp_path):
    r = analyze(write_tree(tmp_path / "ts", TS_APP))["normalized_result"]
    found = _imports(r)

    def check(importer, spec, target, basis, **detail):
        edge = found[(f"module:{importer}", spec)]
        assert (edge["target_node_id"], edge["basis"]) == (target, basis), edge
        assert {k: edge.get(k) for k in detail} == detail, edge

    main = "src/main.ts"
    check(
        main, "@app/feature/a", "module:src/app/feature/a.ts", "tsconfig-paths", config="tsconfig.json", alias="@app/*"
    )
    # `.js` names the `.ts` source through an alias too
    check(main, "@app/feature/b.js", "module:src/app/feature/b.ts", "tsconfig-paths", alias="@app/*")
    # an exact alias; its targets are tried in order
    check(main, "@shared", "module:src/lib/shared/index.ts", "tsconfig-paths", alias="@shared")
    # the longest pattern prefix wins
    check(main, "@app/special/one", "module:src/special/one.ts", "tsconfig-paths", alias="@app/special/*")
    # baseUrl (from the base config, relative to it) without a matching path
    check(main, "utils/strings", "module:src/utils/strings.ts", "tsconfig-base-url", config="tsconfig.json")
    # a matched alias whose targets are absent falls through to node_modules, else says so
    check(main, "@gone/dep", "module:node_modules/@gone/dep/index.js", "package-main")
    check(main, "@gone/thing", "unresolved:@gone/thing", "tsconfig-paths-target-missing", alias="@gone/*")
    check(main, "fs", "builtin:fs", "builtin-name")
    check(main, "left-pad", "module:node_modules/left-pad/index.js", "package-main")
    check(main, "not-installed", "unresolved:not-installed", "package-not-found")
    # node_modules files are governed by no config
    check("node_modules/left-pad/index.js", "@app/feature/a", "unresolved:@app/feature/a", "package-not-found")
    # the nearest config governs: the jsconfig's own paths, relative to it; the root's aliases do not apply
    check(
        "packages/web/src/index.js",
        "~/util",
        "module:packages/web/src/util.js",
        "tsconfig-paths",
        config="packages/web/jsconfig.json",
    )
    check("packages/web/src/index.js", "@app/feature/a", "unresolved:@app/feature/a", "package-not-found")
    check("packages/broken/a.ts", "@app/feature/a", "unresolved:@app/feature/a", "package-not-found")
    # config nodes: counts, not maps; extends edges; the unfollowed extends is an unknown
    root = node(r, "tsconfig:tsconfig.json")
    assert root["governs"] is True and root["paths"] == 0 and "base_url" not in root
    assert root["effective"] == {"base_url": "src", "paths": 4, "paths_from": "configs/tsconfig.base.json"}
    assert keyed(r, "loads", "tsconfig:tsconfig.json", "tsconfig:configs/tsconfig.base.json")[0]["kind"] == "extends"
    assert keyed(r, "loads", "tsconfig:tsconfig.json", "tsconfig:node_modules/@tsconfig/strictest/tsconfig.json")
    assert {(u["reference"], u["reason"]) for u in r["unknowns"] if u["kind"] == "tsconfig-extends-not-followed"} == {
        ("@tsconfig/absent", "not-found")
    }
    assert node(r, "tsconfig:configs/tsconfig.base.json")["paths"] == 4
    assert "governs" not in node(r, "tsconfig:configs/tsconfig.base.json")
    assert [f["path"] for f in r["parse_failures"]] == ["packages/broken/tsconfig.json"]
    assert node(r, "tsconfig:packages/broken/tsconfig.json")["parse"] == "failed"
    assert r["statistics"]["files_by_kind"]["tsconfig"] == 5


def _config(**fact):
    return {"parse": "ok", **fact}


def test_compiler_paths_inherit_cut_and_govern():
    configs = {
        "a/tsconfig.json": _config(extends=["../base/tsconfig.base.json"], paths={"x": ["./x"]}),
        "base/tsconfig.base.json": _config(base_url="./root", paths={"old/*": ["*"]}),
        "c/tsconfig.json": _config(extends=["./tsconfig.c2"]),  # TypeScript adds .json
        "c/tsconfig.c2.json": _config(extends=["./tsconfig.json"], base_url="."),
        **{f"d/tsconfig.{i}.json": _config(extends=[f"./tsconfig.{i + 1}.json"]) for i in range(12)},
        "d/tsconfig.12.json": _config(base_url="deep"),
        "e/tsconfig.json": _config(),
        "e/jsconfig.json": _config(),
    }
    files = frozenset(configs)
    a = tsconfig.compiler_paths("a/tsconfig.json", configs, files)
    # the child's paths replace the base's, and are relative to the inherited baseUrl (relative to the base)
    assert (a.base_url, dict(a.paths), a.paths_base, a.paths_from, a.truncated) == (
        "base/root",
        {"x": ("./x",)},
        "base/root",
        "a/tsconfig.json",
        None,
    )
    c = tsconfig.compiler_paths("c/tsconfig.json", configs, files)
    assert (c.base_url, c.truncated) == ("c", "cycle")
    d = tsconfig.compiler_paths("d/tsconfig.0.json", configs, files)
    assert (d.base_url, d.truncated) == (None, "max-depth")
    assert tsconfig.governing_config("a/src/deep/x.ts", configs) == "a/tsconfig.json"
    assert tsconfig.governing_config("e/x.js", configs) == "e/tsconfig.json"
    assert tsconfig.governing_config("a/node_modules/p/x.js", configs) is None
    assert tsconfig.governing_config("z/x.js", configs) is None


def test_resolver_typescript_paths_unit():
    files = ["src/a.ts", "src/ab.ts", "lib/exact.js", "src/index.ts"]
    compiler = tsconfig.CompilerPaths(
        config="tsconfig.json",
        base_url=None,
        paths={"@a/*": ["src/*"], "@a/b": ["lib/exact.js"], "*": ["src/*"]},
        paths_base="",
        paths_from="tsconfig.json",
        truncated=None,
    )
    resolver = Resolver(files, {}, lambda importer: compiler)
    # an exact key beats any pattern; a longer prefix beats `*`
    assert resolver.resolve("src/index.ts", "@a/b", "import")[1:] == (
        "lib/exact.js",
        "tsconfig-paths",
        (("config", "tsconfig.json"), ("alias", "@a/b")),
    )
    assert resolver.resolve("src/index.ts", "@a/ab", "import")[1:3] == ("src/ab.ts", "tsconfig-paths")
    assert resolver.resolve("src/index.ts", "a.js", "import")[1:3] == ("src/a.ts", "tsconfig-paths")
    # builtins are answered before paths
    assert resolver.resolve("src/index.ts", "fs", "import")[:3] == ("builtin", "fs", "builtin-name")
    assert resolver.resolve("src/index.ts", "zzz", "import")[2] == "tsconfig-paths-target-missing"


ENHANCED_RESOLVE = """
const { ResolverFactory, CachedInputFileSystem } = require(process.argv[2] + '/enhanced-resolve');
const fs = require('fs'); const path = require('path');
const [root, cases] = [process.argv[3], JSON.parse(process.argv[4])];
console.log(JSON.stringify(cases.map(([config, importer, spec]) => {
  const resolver = ResolverFactory.createResolver({
    fileSystem: new CachedInputFileSystem(fs, 4000), useSyncFileSystemCalls: true,
    extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json'], extensionAlias: { '.js': ['.js', '.ts', '.tsx'] },
    conditionNames: ['import', 'node', 'default'], tsconfig: { configFile: path.join(root, config) },
  });
  try { return path.relative(root, resolver.resolveSync({}, path.dirname(path.join(root, importer)), spec)); }
  catch (e) { return null; }
})));
"""


@pytest.mark.slow
def test_typescript_paths_agree_with_enhanced_resolve(npm_tree, tmp_path):
    """webpack's resolver (enhanced-resolve, with its tsconfig `paths` support) as a second opinion on every
    bare import of the TypeScript projects (it refuses a config whose extends is missing, so that one goes)."""
    files = {**TS_APP, "tsconfig.json": TS_APP["tsconfig.json"].replace(', "@tsconfig/absent"', "")}
    root = write_tree(tmp_path / "ts", files)
    r = analyze(root)["normalized_result"]
    ours = [
        e
        for e in keyed(r, "imports")
        if not e["specifier"].startswith(".")
        and e["target_node_id"] != "builtin:fs"
        and e["source_node_id"] in ("module:src/main.ts", "module:packages/web/src/index.js")
    ]
    cases = [
        [
            "packages/web/jsconfig.json" if "web" in e["source_node_id"] else "tsconfig.json",
            e["source_node_id"].removeprefix("module:"),
            e["specifier"],
        ]
        for e in ours
    ]
    (tmp_path / "resolve.js").write_text(ENHANCED_RESOLVE)
    done = subprocess.run(
        ["node", str(tmp_path / "resolve.js"), str(npm_tree), str(root), json.dumps(cases)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    answers = json.loads(done.stdout)
    assert [e["target_node_id"] for e in ours] == [
        f"module:{a}" if a else f"unresolved:{e['specifier']}" for e, a in zip(ours, answers)
    ]
    assert len(ours) == 11


def test_package_dev_configs_in_node_modules_add_no_unknowns(tmp_path):
    r = analyze(
        write_tree(
            tmp_path / "app",
            {
                "index.js": "require('dep');\n",
                "node_modules/dep/index.js": "module.exports = 1;\n",
                "node_modules/dep/tsconfig.json": '{\n  // a package ships its dev config\n  "extends": "@ljharb/tsconfig",\n}\n',
            },
        )
    )["normalized_result"]
    assert node(r, "tsconfig:node_modules/dep/tsconfig.json")["extends"] == ["@ljharb/tsconfig"]
    assert "governs" not in node(r, "tsconfig:node_modules/dep/tsconfig.json")
    assert not [u for u in r["unknowns"] if u["kind"].startswith("tsconfig")]
    assert r["coverage"]["status"] == "complete"


def test_a_node_modules_directory_analysed_itself_resolves_its_top_level_packages(npm_tree, tmp_path):
    """Pointing REA at node_modules: its top-level directories are the packages, nested node_modules still
    come first."""
    root = tmp_path / "node_modules"
    shutil.copytree(npm_tree / "ms", root / "ms")
    shutil.copytree(npm_tree / "uuid", root / "uuid")
    write_tree(
        root / "consumer",
        {
            "package.json": json.dumps({"name": "consumer", "main": "index.js"}),
            "index.js": "require('ms');\nrequire('uuid');\n",
            "node_modules/ms/package.json": json.dumps({"name": "ms", "main": "own.js"}),
            "node_modules/ms/own.js": "module.exports = 1;\n",
        },
    )
    r = analyze(root)["normalized_result"]
    found = {e["specifier"]: (e["target_node_id"], e["basis"]) for e in keyed(r, "imports", "module:consumer/index.js")}
    assert found["ms"] == ("module:consumer/node_modules/ms/own.js", "package-main")
    assert found["uuid"] == ("module:uuid/dist/index.js", "package-exports")
