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
from typing import Any

from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only: the module itself is imported on the first parse
    import tree_sitter as ts


from rea.javascript.sourcemap import source_runs, without_scheme
from rea.javascript import csp
from rea.javascript import export_forms as forms
from rea.javascript.manifests import package_facts, read_json, tsconfig_facts
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
            spec = string_value(caps["src"][0])
            if spec is None:
                continue
            entry: dict[str, Any] = {
                "kind": {"reexport": "re-export", "dynamic": "dynamic-import"}.get(kind, kind),
                "specifier": spec,
                **node_location(node),
            }
            if kind == "import" and any(c.type == "type" for c in node.children):
                entry["type_only"] = True
            if len(imports) < 4 * MAX_PER_FILE:
                imports.append(entry)
            else:
                omitted += 1
            if kind == "reexport":
                before = len(exports)
                export_facts(node, exports)
                if len(exports) == before and any(c.type == "*" for c in node.children):  # export * from "y"
                    exports.append(
                        {
                            "name": "*",
                            "form": "esm-star",
                            "shape": {"type": "namespace", "from": spec},
                            **node_location(node),
                        }
                    )
                    open_.append(forms.opened("star-re-export", node, specifier=spec))
        elif "call" in caps:
            if len(calls) < 4 * MAX_PER_FILE:
                calls.append(call_fact(caps["call"][0], node_text(caps["prop"][0]), caps["args"][0]))
            else:
                omitted += 1
        elif "new" in caps:
            if len(news) < MAX_PER_FILE:
                news.append(new_fact(caps["new"][0], node_text(caps["ctor"][0]), caps["args"][0]))
        elif "export" in caps:
            if caps["export"][0].child_by_field_name("source") is None:
                export_facts(caps["export"][0], exports)
        elif "assign" in caps:
            lhs = re.sub(r"\s+", "", node_text(caps["lhs"][0]))
            rhs = caps["rhs"][0]
            if lhs == "module.exports":
                if rhs.type == "object":
                    for key in object_keys(rhs):
                        exports.append(
                            {
                                "name": key,
                                "form": "cjs",
                                "shape": value_shape(object_property(rhs, key)),
                                **node_location(rhs),
                            }
                        )
                exports.append(
                    {"name": "default", "form": "cjs", "shape": value_shape(rhs), **node_location(caps["assign"][0])}
                )
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
                        "shape": value_shape(rhs),
                        **node_location(caps["assign"][0]),
                        **({"placeholder": True} if placeholder else {}),
                    }
                )
        elif "define" in caps:
            export, reason, marker = forms.define_property(
                caps["target"][0], string_value(caps["dname"][0]), caps["define"][0], value_shape, object_property
            )
            es_module = es_module or marker
            if export is not None:
                exports.append(export)
            if reason is not None:
                open_.append(reason)
        elif "exportstar" in caps:
            export, reason = forms.star_export(caps["exportstar"][0], string_value)
            exports.append(export)
            open_.append(reason)
        elif "subassign" in caps:
            if re.sub(r"\s+", "", node_text(caps["sobj"][0])) in ("exports", "module.exports"):
                open_.append(forms.opened("computed-export-assignment", caps["subassign"][0]))
        elif "globalref" in caps and len(globals_) < MAX_PER_FILE:
            globals_.add(node_text(caps["global"][0]))
    exports, open_ = umd_facts(root, data, exports, open_)
    forms.link_getters(exports, require_bindings(imports, root))
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
            facts["imports"] = outside_mapped_requires(facts["imports"], table)
    return facts


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
