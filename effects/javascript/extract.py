"""Per-file facts of a JavaScript application, extracted with tree-sitter.

This module does the byte work the pure core must not: it reads files, parses
JavaScript and TypeScript with tree-sitter (queries run in C), and scans HTML,
package.json and source maps. It returns plain JSON facts per file; what the
facts mean (resolution, roles, IPC pairing) is decided in `rea.javascript`.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # annotations only: the module itself is imported on the first parse
    import tree_sitter as ts


from rea.javascript import csp
from rea.javascript import export_forms as forms
from rea.javascript.manifests import package_facts, read_json, tsconfig_facts
from rea.javascript.sourcemap import source_runs, without_scheme
from rea.javascript.syntax_facts import (
    call_fact,
    export_facts,
    new_fact,
    node_location,
    node_text,
    object_keys,
    object_property,
    outside_mapped_requires,
    require_bindings,
    string_value,
    umd_facts,
    value_shape,
)
from rea.javascript.text_facts import MAX_PER_FILE, MAX_STRING, classify, html_facts, text_signals

PARSER_NAME = "tree-sitter"

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


# the grammars and parsers, for other families that parse JavaScript (the web family's captured scripts)
grammars = _grammars


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
    found = _Captures(root)
    for _pattern, caps in ts.QueryCursor(queries[language]).matches(root):
        found.take(caps)
    found.settle(data, facts)
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
            facts["imports"] = outside_mapped_requires(facts["imports"], table)
    return facts


Caps = dict[str, list["ts.Node"]]


class _Captures:
    """What one file's query matches collect, in match order. A match is handled by the first capture kind it
    holds, in the order of `_HANDLERS` (the order the query's patterns are tried in)."""

    def __init__(self, root: ts.Node) -> None:
        self.root = root
        self.imports: list[dict[str, Any]] = []
        self.exports: list[dict[str, Any]] = []
        self.calls: list[dict[str, Any]] = []
        self.news: list[dict[str, Any]] = []
        self.globals: set[str] = set()
        self.open: list[dict[str, Any]] = []
        self.es_module = False
        self.top: dict[str, ts.Node] | None = None  # the top-level declarations, read once when first needed
        self.omitted = 0

    def take(self, caps: Caps) -> None:
        for kind, handler in _HANDLERS:
            if kind in caps:
                handler(self, kind, caps)
                return

    def module_reference(self, kind: str, caps: Caps) -> None:
        """import, export ... from, require() and import(): an import entry (a re-export exports too)."""
        node = caps[kind][0]
        spec = string_value(caps["src"][0])
        if spec is None:
            return
        entry: dict[str, Any] = {
            "kind": {"reexport": "re-export", "dynamic": "dynamic-import"}.get(kind, kind),
            "specifier": spec,
            **node_location(node),
        }
        if kind == "import" and any(c.type == "type" for c in node.children):
            entry["type_only"] = True
        if len(self.imports) < 4 * MAX_PER_FILE:
            self.imports.append(entry)
        else:
            self.omitted += 1
        if kind == "reexport":
            before = len(self.exports)
            export_facts(node, self.exports)
            if len(self.exports) == before and any(c.type == "*" for c in node.children):  # export * from "y"
                self.exports.append(
                    {
                        "name": "*",
                        "form": "esm-star",
                        "shape": {"type": "namespace", "from": spec},
                        **node_location(node),
                    }
                )
                self.open.append(forms.opened("star-re-export", node, specifier=spec))

    def call(self, kind: str, caps: Caps) -> None:
        if len(self.calls) < 4 * MAX_PER_FILE:
            self.calls.append(call_fact(caps["call"][0], node_text(caps["prop"][0]), caps["args"][0]))
        else:
            self.omitted += 1

    def construction(self, kind: str, caps: Caps) -> None:
        if len(self.news) < MAX_PER_FILE:
            self.news.append(new_fact(caps["new"][0], node_text(caps["ctor"][0]), caps["args"][0]))

    def export(self, kind: str, caps: Caps) -> None:
        if caps["export"][0].child_by_field_name("source") is None:
            export_facts(caps["export"][0], self.exports)

    def assignment(self, kind: str, caps: Caps) -> None:
        """`module.exports = ...` and `exports.name = ...` (CommonJS exports)."""
        lhs = re.sub(r"\s+", "", node_text(caps["lhs"][0]))
        rhs = caps["rhs"][0]
        if lhs == "module.exports":
            self.module_exports(rhs, caps["assign"][0])
        elif lhs.startswith(("module.exports.", "exports.")) and lhs.count(".") == (
            2 if lhs.startswith("module") else 1
        ):
            placeholder = forms.is_placeholder(rhs)
            if rhs.type == "identifier":  # `exports.validate = validate;` (TypeScript): its declaration
                self.top = self.top if self.top is not None else forms.top_level_values(self.root)
                rhs = forms.declared(self.top, rhs)
            self.exports.append(
                {
                    "name": lhs.rsplit(".", 1)[1],
                    "form": "cjs",
                    "shape": value_shape(rhs),
                    **node_location(caps["assign"][0]),
                    **({"placeholder": True} if placeholder else {}),
                }
            )

    def module_exports(self, rhs: ts.Node, assign: ts.Node) -> None:
        if rhs.type == "object":
            for key in object_keys(rhs):
                self.exports.append(
                    {"name": key, "form": "cjs", "shape": value_shape(object_property(rhs, key)), **node_location(rhs)}
                )
        self.exports.append({"name": "default", "form": "cjs", "shape": value_shape(rhs), **node_location(assign)})
        reason = forms.assigned_value_open(rhs)
        if reason is not None:
            self.open.append(reason)

    def define(self, kind: str, caps: Caps) -> None:
        export, reason, marker = forms.define_property(
            caps["target"][0], string_value(caps["dname"][0]), caps["define"][0], value_shape, object_property
        )
        self.es_module = self.es_module or marker
        if export is not None:
            self.exports.append(export)
        if reason is not None:
            self.open.append(reason)

    def export_star(self, kind: str, caps: Caps) -> None:
        export, reason = forms.star_export(caps["exportstar"][0], string_value)
        self.exports.append(export)
        self.open.append(reason)

    def subscript_assignment(self, kind: str, caps: Caps) -> None:
        if re.sub(r"\s+", "", node_text(caps["sobj"][0])) in ("exports", "module.exports"):
            self.open.append(forms.opened("computed-export-assignment", caps["subassign"][0]))

    def global_reference(self, kind: str, caps: Caps) -> None:
        if len(self.globals) < MAX_PER_FILE:
            self.globals.add(node_text(caps["global"][0]))

    def settle(self, data: bytes, facts: dict[str, Any]) -> None:
        """The collected facts into `facts`: UMD wrappers read, getters linked, exports settled and bounded."""
        exports, open_ = umd_facts(self.root, data, self.exports, self.open)
        forms.link_getters(exports, require_bindings(self.imports, self.root))
        exports = forms.settle(exports)
        if open_:
            facts["exports_open"] = [{k: v for k, v in o.items() if k != "start"} for o in open_[: forms.MAX_OPEN]]
        if self.es_module:
            facts["es_module"] = True
        facts.update(
            imports=self.imports,
            exports=exports[: 4 * MAX_PER_FILE],
            calls=self.calls,
            constructions=self.news,
            globals=sorted(self.globals),
            omitted_facts=self.omitted + max(0, len(exports) - 4 * MAX_PER_FILE),
        )


# capture kind -> handler, in the order a match's kinds are tried
_HANDLERS: tuple[tuple[str, Callable[[_Captures, str, Caps], None]], ...] = (
    ("import", _Captures.module_reference),
    ("reexport", _Captures.module_reference),
    ("require", _Captures.module_reference),
    ("dynamic", _Captures.module_reference),
    ("call", _Captures.call),
    ("new", _Captures.construction),
    ("export", _Captures.export),
    ("assign", _Captures.assignment),
    ("define", _Captures.define),
    ("exportstar", _Captures.export_star),
    ("subassign", _Captures.subscript_assignment),
    ("globalref", _Captures.global_reference),
)


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
    doc = read_json(data)
    if not isinstance(doc, dict) or not isinstance(doc.get("sources", []), list):
        return {"parse": "failed", "error": "not a JSON source map"}
    sources = [s if isinstance(s, str) else None for s in doc.get("sources", [])]
    embedded = doc.get("sourcesContent")
    contents: list[Any] = embedded if isinstance(embedded, list) else []
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
