"""Export forms of shipped JavaScript: TypeScript's and Babel's CommonJS output, UMD, star re-exports;
and what the comparisons conclude from them (unknown, never changed, when a side is unknown).

The packages are written here in the shapes tsc, Babel and rollup emit (hand-written, not copied)."""

from __future__ import annotations

import json
import subprocess

from effects.calls import Connection
from javascript_fixtures import analyze, call, node, write_tree
from scripted import CTX
from support import clean_env, rea_command

INTEROP = "function _interopRequireDefault(obj) { return obj && obj.__esModule ? obj : { default: obj }; }\n"


def babel_package(regex: str) -> dict[str, str]:
    """uuid-9-like: dist/index.js re-exports each default through a getter."""
    index = ['"use strict";\n', 'Object.defineProperty(exports, "__esModule", {\n  value: true\n});\n']
    for name, module in (("NIL", "nil"), ("v4", "v4"), ("validate", "validate")):
        index.append(
            f'Object.defineProperty(exports, "{name}", {{\n  enumerable: true,\n  get: function () {{\n'
            f"    return _{module}.default;\n  }}\n}});\n"
        )
    for module in ("nil", "v4", "validate"):
        index.append(f'var _{module} = _interopRequireDefault(require("./{module}.js"));\n')
    index.append(INTEROP)
    head = '"use strict";\n\nObject.defineProperty(exports, "__esModule", {\n  value: true\n});\nexports.default = void 0;\n'
    return {
        "package.json": json.dumps({"name": "idlib", "version": "1.0.0", "main": "dist/index.js"}),
        "dist/index.js": "".join(index),
        "dist/nil.js": head + "var _default = '00000000-0000-0000-0000-000000000000';\nexports.default = _default;\n",
        "dist/regex.js": head + f"var _default = {regex};\nexports.default = _default;\n",
        "dist/v4.js": head + "function v4(options) {\n  return { random: options, version: 4 };\n}\n"
        "var _default = v4;\nexports.default = _default;\n",
        "dist/validate.js": head + 'var _regex = _interopRequireDefault(require("./regex.js"));\n'
        "function validate(uuid) {\n  return typeof uuid === 'string' && _regex.default.test(uuid);\n}\n"
        "var _default = validate;\nexports.default = _default;\n" + INTEROP,
    }


TSC = {
    "package.json": json.dumps({"name": "tsc-lib", "version": "2.0.0", "main": "lib/index.js"}),
    # tsc's helpers, its hoisted `void 0` placeholders, a star re-export and a getter re-export
    "lib/index.js": """"use strict";
var __createBinding = (this && this.__createBinding) || (Object.create ? (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    var desc = Object.getOwnPropertyDescriptor(m, k);
    if (!desc || ("get" in desc ? !m.__esModule : desc.writable || desc.configurable)) {
      desc = { enumerable: true, get: function() { return m[k]; } };
    }
    Object.defineProperty(o, k2, desc);
}) : (function(o, m, k, k2) { if (k2 === undefined) k2 = k; o[k2] = m[k]; }));
var __exportStar = (this && this.__exportStar) || function(m, exports) {
    for (var p in m) if (p !== "default" && !Object.prototype.hasOwnProperty.call(exports, p)) __createBinding(exports, m, p);
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.parse = exports.VERSION = void 0;
__exportStar(require("./types"), exports);
var util_1 = require("./util");
Object.defineProperty(exports, "stringify", { enumerable: true, get: function () { return util_1.stringify; } });
exports.VERSION = "2.0.0";
function parse(text) {
    return { text: text, ok: true };
}
exports.parse = parse;
""",
    "lib/types.js": '"use strict";\nObject.defineProperty(exports, "__esModule", { value: true });\n',
    "lib/util.js": '"use strict";\nObject.defineProperty(exports, "__esModule", { value: true });\n'
    "exports.stringify = void 0;\nfunction stringify(v) {\n    return { json: String(v) };\n}\n"
    "exports.stringify = stringify;\n",
    # rollup's UMD wrapper around a factory that returns the module object
    "umd/lib.umd.js": """(function (global, factory) {
  typeof exports === 'object' && typeof module !== 'undefined' ? module.exports = factory() :
  typeof define === 'function' && define.amd ? define(factory) :
  (global = typeof globalThis !== 'undefined' ? globalThis : global || self, global.Lib = factory());
})(this, (function () { 'use strict';
  function parse(s) { return { value: s }; }
  var Lib = { parse: parse, version: '1.2.3' };
  return Lib;
}));
""",
    "esm/index.mjs": "export * from './parts.mjs';\nexport const local = 1;\n",
    "esm/parts.mjs": "export function part() { return {}; }\n",
    "dyn/index.js": "const names = ['a', 'b'];\nfor (const n of names) exports[n] = () => n;\n",
    "dyn/factory.js": "module.exports = require('./impl')();\n",
}


def _exports(result, key):
    n = node(result, key)
    return {e["name"]: (e["form"], e["shape"]["type"]) for e in n.get("exports", ())}, n.get("exports_open", [])


def test_every_export_form_records_exports_or_an_explicit_unknown(tmp_path):
    r = analyze(write_tree(tmp_path / "t", TSC))["normalized_result"]
    names, open_ = _exports(r, "module:lib/index.js")
    assert names == {
        "VERSION": ("cjs", "literal"),
        "parse": ("cjs", "function"),  # `exports.parse = parse` is the declaration, not the void 0 placeholder
        "stringify": ("cjs-define-property", "unknown"),
        "*": ("cjs-star", "namespace"),
    }
    assert node(r, "module:lib/index.js")["es_module"] is True  # the marker, never an export named __esModule
    assert [(o["reason"], o.get("specifier")) for o in open_] == [("star-re-export", "./types")]
    assert _exports(r, "module:umd/lib.umd.js") == (
        {"parse": ("umd", "function"), "version": ("umd", "literal"), "default": ("umd", "object")},
        [],
    )
    names, open_ = _exports(r, "module:esm/index.mjs")
    assert names == {"*": ("esm-star", "namespace"), "local": ("esm", "literal")}
    assert open_[0]["specifier"] == "./parts.mjs"
    assert _exports(r, "module:dyn/index.js")[1][0]["reason"] == "computed-export-assignment"
    assert _exports(r, "module:dyn/factory.js")[1][0]["reason"] == "module-exports-assigned-value"
    unknown = {(u["kind"], u["path"]) for u in r["unknowns"] if u["kind"] == "exports-not-enumerated"}
    assert unknown == {
        ("exports-not-enumerated", p) for p in ("lib/index.js", "esm/index.mjs", "dyn/index.js", "dyn/factory.js")
    }
    r = analyze(write_tree(tmp_path / "b", babel_package("/^[0-9a-f-]{36}$/i")))["normalized_result"]
    names, open_ = _exports(r, "module:dist/index.js")
    assert names == {n: ("cjs-define-property", "unknown") for n in ("NIL", "v4", "validate")} and open_ == []
    getter = next(e for e in node(r, "module:dist/index.js")["exports"] if e["name"] == "v4")["shape"]
    assert getter == {
        "type": "unknown",
        "getter": "_v4.default",
        "reexports": {"specifier": "./v4.js", "name": "default"},
    }
    assert _exports(r, "module:dist/v4.js")[0] == {"default": ("cjs", "function")}  # through `_default = v4`


def test_comparisons_say_unknown_not_changed_and_follow_getter_reexports(tmp_path):
    conn = Connection(ctx=CTX)
    left = analyze(write_tree(tmp_path / "v1", babel_package("/^[0-9a-f-]{36}$/i")), conn)
    right_tree = babel_package("/^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[0-9a-f]{12}$/i")
    right_tree["dist/v4.js"] = right_tree["dist/v4.js"].replace("version: 4", "version: 4, rng: true")
    right_tree["dist/nil.js"] += "// rebuilt\n"
    right = analyze(write_tree(tmp_path / "v2", right_tree), conn)
    c = call(
        conn,
        "compare_application_versions",
        {"left_evidence_id": left["evidence_id"], "right_evidence_id": right["evidence_id"]},
    ).unwrap()["normalized_result"]
    statuses = {i["key"]: i["status"] for i in c["items"] if i["status"] != "unchanged"}
    # the getters are the same on both sides: unchanged; the regex literal and v4's returned keys changed
    assert statuses == {"dist/regex.js#default": "changed", "dist/v4.js#default": "changed"}
    assert c["content_only_changes"]["count"] == 3  # nil.js, regex.js and v4.js: bytes differ, counted once
    assert set(c["content_only_changes"]["sample_keys"]) == {"dist/nil.js", "dist/regex.js", "dist/v4.js"}
    regex = next(i for i in c["items"] if i["key"] == "dist/regex.js#default")
    assert regex["left"]["shape"]["value"].startswith("/^[0-9a-f-]") and regex["dimensions"] == ["properties"]
    shapes = call(
        conn,
        "compare_javascript_export_shapes",
        {
            "left_evidence_id": left["evidence_id"],
            "right_evidence_id": right["evidence_id"],
            "left_module_path": "dist/index.js",
            "left_export_name": "v4",
            "right_module_path": "dist/index.js",
            "right_export_name": "v4",
        },
    ).unwrap()["normalized_result"]
    # the getter is followed to v4.js's default, a function returning an object
    assert shapes["left"]["resolved_through"] == ["dist/v4.js#default"]
    assert shapes["status"] == "changed" and [(x["path"], x["status"]) for x in shapes["changes"]] == [
        ("/rng", "added")
    ]


def test_open_exports_make_absence_unknown(tmp_path):
    conn = Connection(ctx=CTX)
    left_tree = dict(TSC)
    right_tree = {**TSC, "lib/index.js": TSC["lib/index.js"] + "exports.extra = 1;\n"}
    left = analyze(write_tree(tmp_path / "l", left_tree), conn)
    right = analyze(write_tree(tmp_path / "r", right_tree), conn)
    c = call(
        conn,
        "compare_application_versions",
        {"left_evidence_id": left["evidence_id"], "right_evidence_id": right["evidence_id"]},
    ).unwrap()["normalized_result"]
    extra = next(i for i in c["items"] if i["key"] == "lib/index.js#extra")
    assert extra["status"] == "unknown"  # the left side's star re-export may have provided it
    shapes = call(
        conn,
        "compare_javascript_export_shapes",
        {
            "left_evidence_id": left["evidence_id"],
            "right_evidence_id": right["evidence_id"],
            "left_module_path": "lib/index.js",
            "left_export_name": "extra",
            "right_module_path": "lib/index.js",
            "right_export_name": "extra",
        },
    ).unwrap()["normalized_result"]
    assert shapes["status"] == "unknown" and "star-re-export" in shapes["coverage"]["reason"]


def test_cli_records_the_forms(tmp_path):
    root = write_tree(tmp_path / "t", TSC)
    proc = subprocess.run(
        [*rea_command(), "analyze-javascript-application", str(root), "--detail", "complete", "--json"],
        capture_output=True,
        text=True,
        env=clean_env(),
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    record = json.loads(proc.stdout)["normalized_result"]
    assert _exports(record, "module:umd/lib.umd.js")[0]["parse"] == ("umd", "function")
