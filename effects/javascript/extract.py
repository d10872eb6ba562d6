"""Per-file facts of a JavaScript application, extracted with tree-sitter.

This module does the byte work the pure core must not: it reads files, parses
JavaScript and TypeScript with tree-sitter (queries run in C), and scans HTML,
package.json and source maps. It returns plain JSON facts per file; what the
facts mean (resolution, roles, IPC pairing) is decided in `rea.javascript`.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from bisect import bisect_right
from typing import Any

from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only: the module itself is imported on the first parse
    import tree_sitter as ts

import orjson

from rea import jsonc
from rea.javascript.sourcemap import source_runs, without_scheme
from rea.text import printable
from effects.javascript import csp
from effects.javascript import export_forms as forms

PARSER_NAME = "tree-sitter"

MAX_STRING = 512  # characters kept of any literal
MAX_PER_FILE = 256  # facts of one kind kept per file (the rest are counted as omitted)
MAX_RUNS = 100_000  # source runs kept per source map (module switches in generated order)
MAX_ORIGINAL_BYTES = 64 * 1024 * 1024  # embedded original sources parsed per source map
# The semantic companion's per-file facts; REA_JAVASCRIPT_SEMANTIC=off leaves them out (the benchmark's baseline)
SEMANTIC = os.environ.get("REA_JAVASCRIPT_SEMANTIC", "on") != "off"

# Member calls whose property names matter: Electron IPC and windows, protocols, routes.
_CALL_PROPS = (
    "handle|handleOnce|on|once|invoke|send|sendSync|sendTo|postMessage|exposeInMainWorld|loadFile|loadURL|"
    "fork|registerFileProtocol|registerStringProtocol|registerBufferProtocol|registerHttpProtocol|"
    "registerStreamProtocol|registerSchemesAsPrivileged|setAsDefaultProtocolClient|"
    "get|post|put|patch|delete|del|all|use|route|head|options"
)
_QUERY_TEXT = f"""
(import_statement source: (string) @src) @import
(export_statement source: (string) @src) @reexport
(call_expression function: (identifier) @fn (#eq? @fn "require") arguments: (arguments . (string) @src)) @require
(call_expression function: (import) arguments: (arguments . (string) @src)) @dynamic
(call_expression function: (member_expression property: (property_identifier) @prop (#match? @prop "^({_CALL_PROPS})$")) arguments: (arguments) @args) @call
(new_expression constructor: (identifier) @ctor (#match? @ctor "^(BrowserWindow|BrowserView|WebContentsView|Worker|SharedWorker|URL|WebSocket)$") arguments: (arguments) @args) @new
(export_statement) @export
(assignment_expression left: (member_expression) @lhs right: (_) @rhs) @assign
(member_expression object: (identifier) @win (#match? @win "^(window|globalThis)$") property: (property_identifier) @global) @globalref
(call_expression function: (member_expression object: (identifier) @dpo (#eq? @dpo "Object") property: (property_identifier) @dpp (#eq? @dpp "defineProperty")) arguments: (arguments . (_) @target . (_) @dname)) @define
(call_expression function: [(identifier) @star (member_expression property: (property_identifier) @star)] (#match? @star "^(__exportStar|_exportStar|__export)$") arguments: (arguments) @args) @exportstar
(assignment_expression left: (subscript_expression object: (_) @sobj) right: (_)) @subassign
"""


@lru_cache(maxsize=1)
def _grammars() -> Any:
    """tree-sitter, its grammars, parsers and queries: built on the first parse, never at startup
    (they cost ~70 ms and an MCP server that never sees JavaScript should not pay it)."""
    import tree_sitter as ts
    import tree_sitter_javascript as tsj
    import tree_sitter_typescript as tst

    languages = {
        "javascript": ts.Language(tsj.language()),
        "typescript": ts.Language(tst.language_typescript()),
        "tsx": ts.Language(tst.language_tsx()),
    }
    return (
        ts,
        {name: ts.Query(lang, _QUERY_TEXT) for name, lang in languages.items()},
        {name: ts.Query(lang, "(ERROR) @e (MISSING) @m") for name, lang in languages.items()},
        {name: ts.Parser(lang) for name, lang in languages.items()},
    )


_URL = re.compile(rb"""\b(?:https?|wss?|file)://[^\s'"`<>()\\]{1,512}""")
_MAPPING_URL = re.compile(rb"""[#@]\s*sourceMappingURL=([^\s'"*]+)""")
_SCRIPT = re.compile(rb"""<script\b([^>]*)>""", re.I)
_SRC = re.compile(rb"""\bsrc\s*=\s*["']([^"']+)["']""", re.I)
_WEBPACK_KEY = re.compile(rb"""/\*{3}/ \s*["']([^"']+)["']\s*:""")
_ESBUILD_MARK = re.compile(rb"""^// ((?:[\w@.\-]+/)*[\w@.\-]+\.(?:[cm]?[jt]sx?|json|vue|svelte))\n""", re.M)
_BROWSERIFY_PRELUDE = (b'"function"==typeof require&&require', b'typeof require=="function"&&require')
_BUNDLERS = (
    ("rspack", (b"__rspack_", b"rspackChunk")),
    (
        "webpack",
        (b"__webpack_require__", b"webpackChunk", b"__webpack_modules__", b"webpackJsonp", b"l:!1,exports:{}"),
    ),  # webpack 4: its chunk global, its minified bootstrap
    ("esbuild", (b"__commonJS(", b"__toESM(", b"__esm(")),
    ("vite", (b"__vitePreload", b"__vite__mapDeps", b"/@vite/client", b'supports("modulepreload")')),
    ("rollup", (b"rollup", b"Rollup")),
)


# the grammars and parsers, for other families that parse JavaScript (the web family's captured scripts)
grammars = _grammars


def _text(node: ts.Node | None) -> str:
    if node is None or node.text is None:
        return ""
    return node.text.decode("utf-8", "replace")


def _string(node: ts.Node | None) -> str | None:
    """The value of a string literal (or a template without substitutions), else None."""
    if node is None:
        return None
    if node.type == "string":
        return "".join(_text(c) for c in node.named_children if c.type in ("string_fragment", "escape_sequence"))[
            :MAX_STRING
        ]
    if node.type == "template_string" and not any(c.type == "template_substitution" for c in node.named_children):
        return _text(node)[1:-1][:MAX_STRING]
    return None


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _loc(node: ts.Node) -> dict[str, int]:
    return {"line": node.start_point.row + 1, "start": node.start_byte, "end": node.end_byte}


def _last_string(node: ts.Node | None) -> str | None:
    """The last string literal inside an expression: path.join(__dirname, 'preload.js') -> 'preload.js'."""
    if node is None:
        return None
    found = _string(node)
    if found is not None:
        return found
    for child in reversed(node.named_children):
        inner = _last_string(child)
        if inner is not None:
            return inner
    return None


def _property(obj: ts.Node, name: str) -> ts.Node | None:
    if obj.type != "object":
        return None
    for pair in obj.named_children:
        if pair.type == "pair" and _text(pair.child_by_field_name("key")).strip("'\"") == name:
            return pair.child_by_field_name("value")
        if pair.type == "method_definition" and _text(pair.child_by_field_name("name")) == name:
            return pair
    return None


def _keys(obj: ts.Node) -> list[str]:
    keys = []
    for child in obj.named_children:
        if child.type in ("pair", "method_definition"):
            key = child.child_by_field_name("key") or child.child_by_field_name("name")
            keys.append(_text(key).strip("'\""))
        elif child.type == "shorthand_property_identifier":
            keys.append(_text(child))
        elif child.type == "spread_element":
            keys.append("...")
    return keys[:MAX_PER_FILE]


def _returns(body: ts.Node | None, depth: int = 0) -> list[list[str] | None]:
    """Object-literal keys of each direct return (None for a return that is not an object literal)."""
    if body is None:
        return []
    if body.type == "object":
        return [_keys(body)]
    if body.type == "parenthesized_expression" and body.named_children:
        return _returns(body.named_children[0], depth)
    if body.type != "statement_block" and depth == 0:
        return [None]
    out: list[list[str] | None] = []
    for child in body.named_children:
        if child.type == "return_statement":
            value = child.named_children[0] if child.named_children else None
            while value is not None and value.type == "parenthesized_expression" and value.named_children:
                value = value.named_children[0]
            out.append(_keys(value) if value is not None and value.type == "object" else None)
        elif (
            child.type
            in (
                "if_statement",
                "statement_block",
                "else_clause",
                "try_statement",
                "switch_statement",
                "switch_case",
                "switch_body",
                "for_statement",
                "while_statement",
                "catch_clause",
                "finally_clause",
            )
            and depth < 8
        ):
            out.extend(_returns(child, depth + 1))
    return out[:32]


def _shape(value: ts.Node | None) -> dict[str, Any]:
    if value is None:
        return {"type": "unknown"}
    t = value.type
    if t in (
        "function_declaration",
        "function_expression",
        "function",
        "arrow_function",
        "generator_function_declaration",
        "method_definition",
    ):
        body = value.child_by_field_name("body")
        returns = _returns(body)
        return {
            "type": "function",
            "returns": returns if body is not None else None,
            **({"returns_truncated": True} if len(returns) >= 32 else {}),
        }
    if t in ("class_declaration", "class", "abstract_class_declaration"):
        body = value.child_by_field_name("body")
        members = []
        for m in body.named_children if body is not None else []:
            name = m.child_by_field_name("name") or m.child_by_field_name("property")
            if name is not None:
                members.append(_text(name))
        return {
            "type": "class",
            "members": members[:MAX_PER_FILE],
            **({"members_truncated": True} if len(members) > MAX_PER_FILE else {}),
        }
    if t == "object":
        return {
            "type": "object",
            "members": _keys(value),
            **({"members_truncated": True} if len(value.named_children) > MAX_PER_FILE else {}),
        }
    if t in ("string", "number", "true", "false", "null", "template_string", "regex"):
        text = _text(value)
        # the value (its first MAX_STRING characters) and the digest of all of it, always both: a comparison
        # then shows each side's value beside a digest that says whether they differ past the cut
        literal = {"type": "literal", "value": text[:MAX_STRING], "sha256": _sha(text)}
        return {**literal, "value_truncated": True} if len(text) > MAX_STRING else literal
    return {"type": "unknown"}


def _export_facts(node: ts.Node, exports: list[dict[str, Any]]) -> None:
    default = any(c.type == "default" for c in node.children)
    declaration = node.child_by_field_name("declaration")
    value = node.child_by_field_name("value")
    loc = _loc(node)
    if default:
        exports.append({"name": "default", "form": "esm", "shape": _shape(declaration or value), **loc})
        return
    if declaration is not None:
        if declaration.type in ("lexical_declaration", "variable_declaration"):
            for decl in declaration.named_children:
                if decl.type == "variable_declarator":
                    exports.append(
                        {
                            "name": _text(decl.child_by_field_name("name")),
                            "form": "esm",
                            "shape": _shape(decl.child_by_field_name("value")),
                            **loc,
                        }
                    )
        else:
            name = declaration.child_by_field_name("name")
            exports.append(
                {"name": _text(name) if name is not None else "?", "form": "esm", "shape": _shape(declaration), **loc}
            )
        return
    for clause in node.named_children:
        if clause.type == "export_clause":
            for spec in clause.named_children:
                alias = spec.child_by_field_name("alias") or spec.child_by_field_name("name")
                exports.append({"name": _text(alias), "form": "esm", "shape": {"type": "unknown"}, **loc})
        elif clause.type == "namespace_export":
            exports.append(
                {
                    "name": _text(clause.named_children[-1]) if clause.named_children else "*",
                    "form": "esm",
                    "shape": {"type": "namespace"},
                    **loc,
                }
            )


def _call_fact(call: ts.Node, prop: str, args: ts.Node) -> dict[str, Any]:
    fn = call.child_by_field_name("function")
    callee = _text(fn.child_by_field_name("object")) if fn is not None else ""
    callee = re.sub(r"\s+", "", callee)[:128]
    values = [_string(a) for a in args.named_children[:3]]
    fact: dict[str, Any] = {"callee": f"{callee}.{prop}", "args": values, **_loc(call)}
    if prop == "exposeInMainWorld" and len(args.named_children) > 1 and args.named_children[1].type == "object":
        fact["members"] = _keys(args.named_children[1])
        if len(args.named_children[1].named_children) > MAX_PER_FILE:
            fact["members_truncated"] = True
    if prop == "registerSchemesAsPrivileged" and args.named_children:
        fact["args"] = [
            _string(_property(o, "scheme")) for o in args.named_children[0].named_children if o.type == "object"
        ][:16]
    if prop in ("loadFile", "loadURL", "fork") and values and values[0] is None and args.named_children:
        fact["args"] = [_last_string(args.named_children[0])]
        fact["computed"] = True
    return fact


def _new_fact(node: ts.Node, ctor: str, args: ts.Node) -> dict[str, Any]:
    first = args.named_children[0] if args.named_children else None
    fact: dict[str, Any] = {"constructor": ctor, **_loc(node)}
    if ctor in ("BrowserWindow", "BrowserView", "WebContentsView") and first is not None:
        prefs = _property(first, "webPreferences")
        if prefs is not None:
            preload = _property(prefs, "preload")
            fact["preload"] = _last_string(preload)
            fact["preload_computed"] = preload is not None and _string(preload) is None
            for flag in ("nodeIntegration", "contextIsolation", "sandbox", "webSecurity"):
                v = _property(prefs, flag)
                if v is not None and v.type in ("true", "false"):
                    fact[flag] = v.type == "true"
    elif first is not None:
        fact["args"] = [_string(first)]
    return fact


def javascript_facts(
    data: bytes, language: str, max_ast_nodes: int, module_table: tuple[str, ...] = (), semantic: bool = False
) -> dict[str, Any]:
    """Imports, exports, calls and constructions of one file; with `module_table` (the bundlers detected), the
    bundle's module table too (read from the same tree)."""
    ts, queries, error_queries, parsers = _grammars()
    tree = parsers[language].parse(data)
    root = tree.root_node
    nodes = root.descendant_count
    facts: dict[str, Any] = {"ast_nodes": nodes}
    if nodes > max_ast_nodes:
        facts["parse"] = "omitted"
        facts["omitted_reason"] = "max_ast_nodes"
        return facts
    errors = len(ts.QueryCursor(error_queries[language]).captures(root).get("e", [])) if root.has_error else 0
    facts["parse"] = "recovered" if root.has_error else "ok"
    facts["syntax_errors"] = errors
    imports: list[dict[str, Any]] = []
    exports: list[dict[str, Any]] = []
    calls: list[dict[str, Any]] = []
    news: list[dict[str, Any]] = []
    globals_: set[str] = set()
    open_: list[dict[str, Any]] = []
    es_module = False
    top: dict[str, ts.Node] | None = None
    omitted = 0
    for _pattern, caps in ts.QueryCursor(queries[language]).matches(root):
        if "import" in caps or "reexport" in caps or "require" in caps or "dynamic" in caps:
            kind = next(k for k in ("import", "reexport", "require", "dynamic") if k in caps)
            node = caps[kind][0]
            spec = _string(caps["src"][0])
            if spec is None:
                continue
            entry: dict[str, Any] = {
                "kind": {"reexport": "re-export", "dynamic": "dynamic-import"}.get(kind, kind),
                "specifier": spec,
                **_loc(node),
            }
            if kind == "import" and any(c.type == "type" for c in node.children):
                entry["type_only"] = True
            if len(imports) < 4 * MAX_PER_FILE:
                imports.append(entry)
            else:
                omitted += 1
            if kind == "reexport":
                before = len(exports)
                _export_facts(node, exports)
                if len(exports) == before and any(c.type == "*" for c in node.children):  # export * from "y"
                    exports.append(
                        {"name": "*", "form": "esm-star", "shape": {"type": "namespace", "from": spec}, **_loc(node)}
                    )
                    open_.append(forms.opened("star-re-export", node, specifier=spec))
        elif "call" in caps:
            if len(calls) < 4 * MAX_PER_FILE:
                calls.append(_call_fact(caps["call"][0], _text(caps["prop"][0]), caps["args"][0]))
            else:
                omitted += 1
        elif "new" in caps:
            if len(news) < MAX_PER_FILE:
                news.append(_new_fact(caps["new"][0], _text(caps["ctor"][0]), caps["args"][0]))
        elif "export" in caps:
            if caps["export"][0].child_by_field_name("source") is None:
                _export_facts(caps["export"][0], exports)
        elif "assign" in caps:
            lhs = re.sub(r"\s+", "", _text(caps["lhs"][0]))
            rhs = caps["rhs"][0]
            if lhs == "module.exports":
                if rhs.type == "object":
                    for key in _keys(rhs):
                        exports.append({"name": key, "form": "cjs", "shape": _shape(_property(rhs, key)), **_loc(rhs)})
                exports.append({"name": "default", "form": "cjs", "shape": _shape(rhs), **_loc(caps["assign"][0])})
                reason = forms.assigned_value_open(rhs)
                if reason is not None:
                    open_.append(reason)
            elif lhs.startswith(("module.exports.", "exports.")) and lhs.count(".") == (
                2 if lhs.startswith("module") else 1
            ):
                placeholder = forms.is_placeholder(rhs)
                if rhs.type == "identifier":  # `exports.validate = validate;` (TypeScript): its declaration
                    top = top if top is not None else forms.top_level_values(root)
                    rhs = forms.declared(top, rhs)
                exports.append(
                    {
                        "name": lhs.rsplit(".", 1)[1],
                        "form": "cjs",
                        "shape": _shape(rhs),
                        **_loc(caps["assign"][0]),
                        **({"placeholder": True} if placeholder else {}),
                    }
                )
        elif "define" in caps:
            export, reason, marker = forms.define_property(
                caps["target"][0], _string(caps["dname"][0]), caps["define"][0], _shape, _property
            )
            es_module = es_module or marker
            if export is not None:
                exports.append(export)
            if reason is not None:
                open_.append(reason)
        elif "exportstar" in caps:
            export, reason = forms.star_export(caps["exportstar"][0], _string)
            exports.append(export)
            open_.append(reason)
        elif "subassign" in caps:
            if re.sub(r"\s+", "", _text(caps["sobj"][0])) in ("exports", "module.exports"):
                open_.append(forms.opened("computed-export-assignment", caps["subassign"][0]))
        elif "globalref" in caps and len(globals_) < MAX_PER_FILE:
            globals_.add(_text(caps["global"][0]))
    exports, open_ = _umd(root, data, exports, open_)
    forms.link_getters(exports, _require_bindings(imports, root))
    exports = forms.settle(exports)
    if open_:
        facts["exports_open"] = [{k: v for k, v in o.items() if k != "start"} for o in open_[: forms.MAX_OPEN]]
    if es_module:
        facts["es_module"] = True
    facts.update(
        imports=imports,
        exports=exports[: 4 * MAX_PER_FILE],
        calls=calls,
        constructions=news,
        globals=sorted(globals_),
        omitted_facts=omitted + max(0, len(exports) - 4 * MAX_PER_FILE),
    )
    if csp.might_hold(data):
        policies = csp.code_policies(root, data)
        if policies:
            facts["csp"] = policies
    if semantic:
        from effects.javascript.semantic_facts import semantic_facts

        facts["semantic"] = semantic_facts(root, parsers[language].language, data)
    if module_table:
        from effects.javascript.module_tables import module_table as read_table

        table = read_table(root, parsers[language].language, data, module_table)
        if table is not None:
            facts["bundle_table"] = table
            facts["imports"] = _outside_mapped_requires(facts["imports"], table)
    return facts


def _require_bindings(imports: list[dict[str, Any]], root: ts.Node) -> dict[str, str]:
    """`var _v = _interopRequireDefault(require("./v1.js"))` -> {"_v": "./v1.js"}: what a getter re-exports."""
    out: dict[str, str] = {}
    for imp in imports:
        if imp["kind"] != "require":
            continue
        node = root.descendant_for_byte_range(imp["start"], imp["end"])
        for _ in range(5):
            if node is None or node.type == "variable_declarator":
                break
            node = node.parent
        if node is not None and node.type == "variable_declarator":
            name = node.child_by_field_name("name")
            if name is not None and name.type == "identifier":
                out[_text(name)] = imp["specifier"]
    return out


def _umd(
    root: ts.Node, data: bytes, exports: list[dict[str, Any]], open_: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """A UMD module's exports come from its factory; the wrapper's `module.exports = factory()` is its plumbing."""
    if b"define.amd" not in data and b"typeof define" not in data:
        return exports, open_
    found, reasons, span = forms.umd_exports(root, _shape, _keys, _property)
    if span is None:
        return exports, open_
    inside = lambda item: span[0] <= item.get("start", -1) < span[1]  # noqa: E731
    kept = [e for e in exports if not (inside(e) and e["form"] == "cjs" and e["name"] == "default")]
    kept_open = [o for o in open_ if not (inside(o) and o["reason"] == "module-exports-assigned-value")]
    return kept + found, kept_open + reasons


def _outside_mapped_requires(imports: list[dict[str, Any]], table: dict[str, Any]) -> list[dict[str, Any]]:
    """A browserify module's `require("./util")` is resolved by its dependency map (a bundled-module edge),
    not against the files beside the bundle."""
    mapped = [(m["start"], m["end"], set(m["specifiers"].values())) for m in table["modules"] if m.get("specifiers")]
    if not mapped:
        return imports
    starts = [m[0] for m in mapped]
    kept = []
    for imp in imports:
        i = bisect_right(starts, imp["start"]) - 1
        if not (i >= 0 and imp["start"] < mapped[i][1] and imp["specifier"] in mapped[i][2]):
            kept.append(imp)
    return kept


def text_signals(data: bytes) -> dict[str, Any]:
    """Byte-level signals of any text file: URLs, sourceMappingURL, bundler runtime and bundled modules."""
    out: dict[str, Any] = {}
    urls = []
    for m in _URL.finditer(data):
        if len(urls) >= MAX_PER_FILE:
            out["urls_omitted"] = out.get("urls_omitted", 0) + 1
            continue
        urls.append({"url": m.group(0).decode("utf-8", "replace")[:MAX_STRING], "start": m.start()})
    if urls:
        out["urls"] = urls
    mapping = None
    for m in _MAPPING_URL.finditer(data):
        mapping = m
    if mapping is not None:
        value = mapping.group(1).decode("utf-8", "replace")
        out["source_mapping_url"] = "inline" if value.startswith("data:") else value[:MAX_STRING]
    bundlers = [name for name, marks in _BUNDLERS if any(mark in data for mark in marks)]
    if "rollup" in bundlers and not data.lstrip().startswith((b"/*", b"//")):
        bundlers.remove("rollup")  # only a header banner names rollup
    if "rspack" in bundlers and "webpack" in bundlers:
        bundlers.remove("webpack")
    if b"MODULE_NOT_FOUND" in data and any(mark in data for mark in _BROWSERIFY_PRELUDE):
        bundlers.append("browserify")  # its prelude: a require that falls back to the host's `require`
    if bundlers:
        out["bundlers"] = bundlers
        recovered = []
        pattern = (
            _WEBPACK_KEY if bundlers[0] in ("webpack", "rspack") else _ESBUILD_MARK if "esbuild" in bundlers else None
        )
        if pattern is not None:
            seen = set()
            for m in pattern.finditer(data):
                name = m.group(1).decode("utf-8", "replace")[:MAX_STRING]
                if name in seen:
                    continue
                seen.add(name)
                if len(recovered) < 4 * MAX_PER_FILE:
                    recovered.append({"path": name, "start": m.start()})
            if recovered:
                out["bundled_modules"] = recovered
    return out


def html_facts(data: bytes) -> dict[str, Any]:
    scripts, inline = [], 0
    for m in _SCRIPT.finditer(data):
        attrs = m.group(1)
        src = _SRC.search(attrs)
        if src is None:
            inline += 1
        elif len(scripts) < MAX_PER_FILE:
            scripts.append(
                {
                    "src": src.group(1).decode("utf-8", "replace")[:MAX_STRING],
                    "module": b"module" in attrs.lower(),
                    "start": m.start(),
                    "line": data.count(b"\n", 0, m.start()) + 1,
                }
            )
    policies = csp.meta_policies(data)
    return {"scripts": scripts, "inline_scripts": inline, **({"csp": policies} if policies else {})}


def _json(data: bytes) -> Any:
    """orjson, else the standard library: JavaScript strings may hold lone surrogates (`"\\ud800"` in a
    map's sourcesContent), which JSON allows as escapes and orjson refuses."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        pass
    try:
        return _printable_strings(json.loads(data))
    except (ValueError, RecursionError):
        return None


def _printable_strings(value: Any) -> Any:
    """A document the standard library parsed, with any lone surrogate percent-escaped (`rea.text`), except in
    a map's sourcesContent, which is source text (hashed and parsed as bytes) rather than a name."""
    if isinstance(value, str):
        return printable(value)
    if isinstance(value, list):
        return [_printable_strings(v) for v in value]
    if isinstance(value, dict):
        return {printable(k): v if k == "sourcesContent" else _printable_strings(v) for k, v in value.items()}
    return value


MAX_MAP_BYTES = 16384  # an exports, imports or paths map larger than this is omitted (and says so)


def _bounded(out: dict[str, Any], key: str, value: Any) -> None:
    """Keep a resolution map whole or not at all: half a map would resolve wrongly without saying so."""
    if len(orjson.dumps(value)) <= MAX_MAP_BYTES:
        out[key] = value
    else:
        out[key] = None
        out[f"{key}_omitted"] = f"larger than {MAX_MAP_BYTES} bytes"


def package_facts(data: bytes) -> dict[str, Any]:
    doc = _json(data)
    if not isinstance(doc, dict):
        return {"parse": "failed", "error": "package.json is not a JSON object"}
    out: dict[str, Any] = {"parse": "ok"}
    for key in ("name", "version", "main", "module", "browser", "type", "types"):
        if isinstance(doc.get(key), str):
            out[key] = doc[key][:MAX_STRING]
    for key in ("exports", "imports"):
        if key in doc:
            _bounded(out, key, doc[key])
    if isinstance(doc.get("bin"), (str, dict)):
        out["bin"] = (
            doc["bin"] if isinstance(doc["bin"], str) else {str(k): str(v) for k, v in list(doc["bin"].items())[:64]}
        )
    for key in ("dependencies", "devDependencies", "optionalDependencies", "peerDependencies"):
        deps = doc.get(key)
        if isinstance(deps, dict):
            out[key] = {str(k): str(v)[:128] for k, v in list(deps.items())[:1024]}
    return out


def tsconfig_facts(data: bytes) -> dict[str, Any]:
    """What module resolution needs from a tsconfig/jsconfig (read as JSONC, as TypeScript does): `extends`,
    `compilerOptions.baseUrl` and `compilerOptions.paths`. Bad JSONC raises, and becomes a parse failure."""
    doc = orjson.loads(jsonc.to_json(data.decode("utf-8-sig")))
    if not isinstance(doc, dict):
        return {"parse": "failed", "error": "the config is not a JSON object"}
    out: dict[str, Any] = {"parse": "ok"}
    refs = doc.get("extends")
    refs = (
        [refs] if isinstance(refs, str) else [r for r in refs if isinstance(r, str)] if isinstance(refs, list) else []
    )
    if refs:
        out["extends"] = [r[:MAX_STRING] for r in refs[:16]]
    options = doc.get("compilerOptions") if isinstance(doc.get("compilerOptions"), dict) else {}
    if isinstance(options.get("baseUrl"), str):
        out["base_url"] = options["baseUrl"][:MAX_STRING]
    if isinstance(options.get("paths"), dict):
        _bounded(
            out,
            "paths",
            {str(k): [t for t in v if isinstance(t, str)] for k, v in options["paths"].items() if isinstance(v, list)},
        )
    return out


def _original_facts(content: str, path: str, max_ast_nodes: int) -> dict[str, Any] | None:
    """The module structure of one embedded original source: its imports and exports (its calls are not taken:
    the bundle's own code already carries the IPC, URLs and windows, and would count twice)."""
    kind = classify(path.split("?", 1)[0])
    if kind not in ("javascript", "typescript", "tsx"):
        return None
    facts = javascript_facts(content.encode("utf-8", "surrogatepass"), kind, max_ast_nodes)
    keep = {"parse": facts["parse"]}
    if facts.get("imports"):
        keep["imports"] = [
            {k: i[k] for k in ("kind", "specifier", "line", "type_only") if k in i} for i in facts["imports"]
        ]
    if facts.get("exports"):
        keep["exports"] = [{k: e[k] for k in ("name", "form", "shape", "line") if k in e} for e in facts["exports"]]
    return keep


def source_map_facts(
    data: bytes, max_sources: int, max_ast_nodes: int = 2_000_000, max_content_bytes: int = MAX_ORIGINAL_BYTES
) -> dict[str, Any]:
    """Sources (index-aligned with the mappings: a null source stays, as path None), their embedded content's
    digest and, for JavaScript and TypeScript sources, their imports and exports, parsed up to
    `max_content_bytes` per map."""
    doc = _json(data)
    if not isinstance(doc, dict) or not isinstance(doc.get("sources", []), list):
        return {"parse": "failed", "error": "not a JSON source map"}
    sources = [s if isinstance(s, str) else None for s in doc.get("sources", [])]
    contents = doc.get("sourcesContent") if isinstance(doc.get("sourcesContent"), list) else []
    listed, budget, unparsed = [], max_content_bytes, 0
    for i, name in enumerate(sources[:max_sources]):
        content = contents[i] if i < len(contents) and isinstance(contents[i], str) else None
        entry: dict[str, Any] = {
            "path": name[:MAX_STRING] if name is not None else None,
            "content": hashlib.sha256(content.encode("utf-8", "surrogatepass")).hexdigest()
            if content is not None
            else None,
        }
        if content is not None and name is not None and max_content_bytes > 0:  # 0: not asked for
            if len(content) <= budget:
                original = _original_facts(content, without_scheme(name), max_ast_nodes)
                if original is not None:
                    entry["original"] = original
                    budget -= len(content)
            else:
                unparsed += 1
        listed.append(entry)
    out: dict[str, Any] = {
        "parse": "ok",
        "version": doc.get("version"),
        "file": doc.get("file") if isinstance(doc.get("file"), str) else None,
        "source_root": doc.get("sourceRoot") if isinstance(doc.get("sourceRoot"), str) else None,
        "sources": listed,
        "sources_omitted": max(0, len(sources) - max_sources),
    }
    if unparsed:
        out["contents_not_parsed"] = unparsed
    if isinstance(doc.get("mappings"), str) and sources:
        decoded = source_runs(doc["mappings"], len(doc.get("sources", ())), MAX_RUNS)
        out["runs"] = [list(r) for r in decoded.runs]
        out["runs_truncated"] = decoded.truncated
        out["invalid_segments"] = decoded.invalid
        for i, entry in enumerate(out["sources"]):
            entry["segments"] = decoded.segments[i]
    elif isinstance(doc.get("sections"), list):
        out["indexed"] = True  # an index map: its sections are not decoded
    return out


_CONFIG = re.compile(r"(?:ts|js)config(?:\.[^/]+)?\.json")  # tsconfig.json, tsconfig.base.json, jsconfig.json


def classify(path: str) -> str:
    """What a file is, by name: the pure core gets this label with the file's size."""
    lower = path.lower()
    base = lower.rsplit("/", 1)[-1]
    if base == "package.json":
        return "package-json"
    if _CONFIG.fullmatch(base):
        return "tsconfig"
    if lower.endswith((".js", ".mjs", ".cjs", ".jsx")):
        return "javascript"
    if lower.endswith((".d.ts", ".d.mts", ".d.cts")):
        return "type-declaration"
    if lower.endswith((".ts", ".mts", ".cts")):
        return "typescript"
    if lower.endswith(".tsx"):
        return "tsx"
    if lower.endswith((".html", ".htm")):
        return "html"
    if lower.endswith(".map"):
        return "source-map"
    if lower.endswith(".asar"):
        return "asar"
    if lower.endswith(".node"):
        return "native-addon"
    if lower.endswith(".json"):
        return "json"
    return "asset"


def file_facts(
    data: bytes, kind: str, max_ast_nodes: int, max_sources: int, max_original_bytes: int = MAX_ORIGINAL_BYTES
) -> dict[str, Any]:
    """Facts of one file's bytes; never raises for bad content (parse status says what happened)."""
    facts: dict[str, Any] = {"sha256": hashlib.sha256(data).hexdigest()}
    if b"\x00" in data[:8192]:
        facts.update(parse="failed", error="binary content (NUL bytes) in a text file")
        return facts
    try:
        if kind in ("javascript", "typescript", "tsx"):
            signals = text_signals(data)
            table = tuple(b for b in signals.get("bundlers", ()) if b in ("webpack", "rspack", "browserify"))
            facts.update(javascript_facts(data, kind, max_ast_nodes, module_table=table, semantic=SEMANTIC))
            if "bundle_table" in facts:
                signals.pop("bundled_modules", None)  # the table supersedes the path-comment scan
            facts.update(signals)
        elif kind == "html":
            facts.update(parse="ok", **html_facts(data))
            facts.update({k: v for k, v in text_signals(data).items() if k.startswith("url")})
        elif kind == "package-json":
            facts.update(package_facts(data))
        elif kind == "source-map":
            facts.update(source_map_facts(data, max_sources, max_ast_nodes, max_original_bytes))
        elif kind == "tsconfig":
            facts.update(tsconfig_facts(data))
    except (ValueError, RecursionError, UnicodeError) as exc:
        facts.update(parse="failed", error=f"{type(exc).__name__}: {exc}"[:MAX_STRING])
    return facts
