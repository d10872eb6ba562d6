"""Bundle module tables (webpack, rspack, browserify), read from the tree the file was already parsed into.

Production bundles keep their modules in an object keyed by numeric id
(`{726: (e, t, n) => {...}}`, or a chunk's `push([[ids], {...}])`); development
bundles key the same table by path. Each module's third parameter is its
`__webpack_require__`, so `n(726)` inside it is a dependency on module 726, and
`n.d(t, {name: () => ...})` declares its exports. Browserify keeps
`{1: [function (require, module, exports) {...}, {"./util": 2}], ...}`: each
module's dependency map names the specifier and the id it resolves to. The
queries run in C; Python only groups their captures by byte range.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # annotations only: tree-sitter is imported on the first parse
    import tree_sitter as ts

MAX_MODULES = 20_000  # per bundle file; later modules are counted as omitted
MAX_PER_MODULE = 256  # requires / exports kept per module

_QUERY = """
(pair key: [(number) (string)] @key value: [(arrow_function) (function_expression)
  (parenthesized_expression [(arrow_function) (function_expression)])] @fn) @pair
(call_expression function: (identifier) @callee arguments: (arguments . [(number) (string)] .) @args) @call
(call_expression function: (identifier) @callee arguments: (arguments . (comment) . (string) .) @args) @call
(call_expression function: (function_expression) @callee arguments: (arguments . [(number) (string)] .) @args) @call
(call_expression function: (member_expression object: (_) @obj property: (property_identifier) @prop
  (#match? @prop "^(bind|e|d)$")) arguments: (arguments) @margs) @member
(assignment_expression left: (member_expression object: (identifier) @req property: (property_identifier) @m
  (#eq? @m "m")) right: (identifier) @table)
(array . [(function_expression) (arrow_function)]) @array
(call_expression function: (identifier) @callee arguments: (arguments . (assignment_expression
  right: (number) @entry_id) .)) @entrycall
"""
_BROWSERIFY_QUERY = """
(pair key: [(number) (string) (property_identifier)] @key
  value: (array . [(function_expression) (arrow_function)] @fn . (object) @deps .)) @pair
"""
_EVAL_REQUIRE = re.compile(rb"""__webpack_require__\(/\*![^*]*\*/\s*\\?["']([^"'\\]+)\\?["']\)""")


@lru_cache(maxsize=8)
def _query(language: Any, text: str = _QUERY) -> Any:
    import tree_sitter as ts

    return ts.Query(language, text)


def _text(node: ts.Node) -> str:
    """A node's source text (strict UTF-8: a file that is not fails its parse, as it always has)."""
    return (node.text or b"").decode()


def _parent(node: ts.Node) -> ts.Node:
    """The node holding a table entry (an entry is always inside its object or array)."""
    return node.parent or node


def _key(node: ts.Node) -> str | None:
    text = (node.text or b"").decode("utf-8", "replace")
    if node.type == "number":
        return text if text.isdigit() else None
    if node.type == "property_identifier":  # a browserify module exposed by name (`-r`), unquoted when minified
        return text
    return text[1:-1] if len(text) >= 2 else None


def _args(node: Any) -> list[Any]:
    return [c for c in node.named_children if c.type != "comment"]


def _unwrap(fn: Any) -> Any:
    """`(function (module, exports, require) {...})`: the function inside development builds' parentheses."""
    if fn.type == "parenthesized_expression":
        return next((c for c in fn.named_children if c.type in ("arrow_function", "function_expression")), fn)
    return fn


def _params(fn: Any) -> list[str]:
    fn = _unwrap(fn)
    single = fn.child_by_field_name("parameter")
    if single is not None:
        return [single.text.decode()]
    params = fn.child_by_field_name("parameters")
    return [p.text.decode() for p in params.named_children if p.type == "identifier"] if params is not None else []


_FUNCTIONS = (
    "function_expression",
    "arrow_function",
    "function_declaration",
    "method_definition",
    "generator_function",
    "generator_function_declaration",
)


def _binds(function: Any, name: str) -> bool:
    """Whether a function rebinds `name`: a parameter, or a declaration among its body's statements."""
    params = function.child_by_field_name("parameters") or function.child_by_field_name("parameter")
    if params is not None and (
        params.text.decode() == name
        or any(p.text.decode() == name for p in params.named_children if p.type == "identifier")
    ):
        return True
    body = function.child_by_field_name("body")
    for statement in body.named_children if body is not None and body.type == "statement_block" else ():
        if statement.type in ("function_declaration", "generator_function_declaration", "class_declaration"):
            declared = statement.child_by_field_name("name")
            if declared is not None and declared.text.decode() == name:
                return True
        elif statement.type in ("variable_declaration", "lexical_declaration"):
            for declarator in statement.named_children:
                declared = declarator.child_by_field_name("name")
                if declared is not None and declared.type == "identifier" and declared.text.decode() == name:
                    return True
    return False


def _shadowed(call: Any, name: str, module_fn: Any) -> bool:
    """Minifiers reuse one-letter names: `n(5)` inside a nested function that rebinds `n` is not a require."""
    node = call.parent
    while node is not None and node.id != module_fn.id:
        if node.type in _FUNCTIONS and _binds(node, name):
            return True
        node = node.parent
    return False


def _array_table(array: Any) -> list[tuple[str, Any]]:
    """(index, function) of a webpack 4 module array: the bootstrap's argument `!function(e){...}([...])` or a
    chunk's `push([[ids], [...]])`; holes (`[, , function ...]`) keep the indices."""
    parent = array.parent
    call = parent.parent if parent is not None and parent.type == "arguments" else None
    if call is None and parent is not None and parent.type == "array":  # push([[ids], [modules]])
        outer = parent.parent
        call = outer.parent if outer is not None and outer.type == "arguments" else None
        if call is None or not (call.child_by_field_name("function") or array).text.endswith(b".push"):
            return []
    elif (
        call is None
        or call.type != "call_expression"
        or _unwrap(call.child_by_field_name("function")).type not in ("function_expression", "arrow_function")
    ):
        return []
    out, index = [], 0
    for child in array.children:
        if child.type == ",":
            index += 1
        elif child.type in ("function_expression", "arrow_function"):
            if len(_params(child)) > 3:
                return []
            out.append((str(index), child))
        elif child.is_named and child.type != "comment":
            return []  # not only functions: not a module array
    return out


def _record(pair: Any, key: str) -> dict[str, Any]:
    """A table module: its id and the byte and line range of its table entry."""
    return {
        "id": key,
        "start": pair.start_byte,
        "end": pair.end_byte,
        "line": pair.start_point[0] + 1,
        "column": pair.start_point[1],
        "end_line": pair.end_point[0] + 1,
        "end_column": pair.end_point[1],
        "requires": [],
        "async": [],
        "exports": [],
        "chunk_loads": [],
    }


def _outermost(modules: list[dict[str, Any]]) -> list[int]:
    """Indices of the modules in byte order, dropping any that lies inside an earlier one: an id-keyed object
    of functions inside a module is that module's code, not more modules."""
    order, end = [], -1
    for i in sorted(range(len(modules)), key=lambda i: modules[i]["start"]):
        if modules[i]["start"] >= end:
            order.append(i)
            end = modules[i]["end"]
    return order


def module_table(
    root: Any, language: Any, data: bytes, bundlers: tuple[str, ...] = ("webpack",)
) -> dict[str, Any] | None:
    """The module table of a webpack, rspack or browserify bundle, or None when the file has none."""
    if "browserify" in bundlers:
        return browserify_table(root, language)
    return webpack_table(root, language, data)


def browserify_table(root: Any, language: Any) -> dict[str, Any] | None:
    import tree_sitter as ts

    tables: dict[int, list[tuple[Any, Any, Any]]] = {}
    for _pattern, caps in ts.QueryCursor(_query(language, _BROWSERIFY_QUERY)).matches(root):
        pair = caps["pair"][0]
        tables.setdefault(_parent(pair).id, []).append((pair, caps["key"][0], caps["deps"][0]))
    modules: list[dict[str, Any]] = []
    entry: list[str] = []
    omitted = 0
    for pairs in tables.values():
        obj = pairs[0][0].parent
        if len(pairs) != sum(1 for c in obj.named_children if c.type != "comment"):
            continue
        args = [c for c in obj.parent.named_children if c.type != "comment"] if obj.parent.type == "arguments" else []
        if len(args) >= 3 and args[0].id == obj.id and args[2].type == "array":  # (table, cache, [entry ids])
            entry += [k for k in (_key(e) for e in args[2].named_children if e.type in ("number", "string")) if k]
        for pair, key_node, deps in pairs:
            key = _key(key_node)
            if key is None:
                continue
            if len(modules) >= MAX_MODULES:
                omitted += 1
                continue
            module = _record(pair, key)
            specifiers: dict[str, str] = {}
            for dep in deps.named_children:
                spec, target = dep.child_by_field_name("key"), dep.child_by_field_name("value")
                if spec is None or target is None or target.type not in ("number", "string"):
                    continue  # `false`: a dependency the bundle ignores (browser field)
                spec_text = _key(spec) if spec.type == "string" else spec.text.decode()
                target_id = _key(target)
                if spec_text and target_id and len(module["requires"]) < MAX_PER_MODULE:
                    module["requires"].append(target_id)
                    specifiers.setdefault(target_id, spec_text)
            module["specifiers"] = specifiers
            modules.append(module)
    if not modules:
        return None
    return {
        "format": "browserify-module-table",
        "modules": [modules[i] for i in _outermost(modules)],
        "entry_requires": entry,
        "entry_async": [],
        "modules_omitted": omitted,
    }


Call = tuple["ts.Node", "ts.Node", "ts.Node"]
Member = tuple["ts.Node", "ts.Node", "ts.Node", "ts.Node"]


class _WebpackCaptures:
    """What the webpack query finds, grouped by kind: id-keyed objects of functions (by the object's node id),
    calls with one id argument, `n.bind/n.e/n.d` member calls, the runtime's `require.m = table`, webpack 4
    module arrays and its `o(o.s = 0)` entry call."""

    def __init__(self) -> None:
        self.tables: dict[int, list[tuple[ts.Node, ts.Node, ts.Node]]] = {}
        self.calls: list[Call] = []
        self.members: list[Member] = []
        self.runtime_require: str | None = None
        self.arrays: list[ts.Node] = []
        self.entry_calls: list[tuple[str, str]] = []  # webpack 4 starts its entry with `o(o.s = 0)`

    def take(self, caps: dict[str, list[ts.Node]]) -> None:
        if "pair" in caps:
            pair = caps["pair"][0]
            self.tables.setdefault(_parent(pair).id, []).append((pair, caps["key"][0], caps["fn"][0]))
        elif "call" in caps:
            self.calls.append((caps["call"][0], caps["callee"][0], caps["args"][0]))
        elif "member" in caps:
            self.members.append((caps["member"][0], caps["obj"][0], caps["prop"][0], caps["margs"][0]))
        elif "table" in caps:
            self.runtime_require = _text(caps["req"][0])
        elif "array" in caps:
            self.arrays.append(caps["array"][0])
        elif "entrycall" in caps:
            self.entry_calls.append((_text(caps["callee"][0]), _text(caps["entry_id"][0])))


class _Modules:
    """The table's modules with, index-aligned, the name each module's require parameter has (None: it has
    none) and its function; `owner` finds the module whose entry holds a node."""

    def __init__(self) -> None:
        self.modules: list[dict[str, Any]] = []
        self.requires: list[str | None] = []
        self.fns: list[ts.Node] = []
        self.omitted = 0
        self.starts: list[int] = []

    def add(self, entry: ts.Node, key: str, fn: ts.Node) -> None:
        if len(self.modules) >= MAX_MODULES:
            self.omitted += 1
            return
        names = _params(fn)
        self.modules.append(_record(entry, key))
        self.requires.append(names[2] if len(names) == 3 else None)
        self.fns.append(_unwrap(fn))

    def in_byte_order(self) -> None:
        order = _outermost(self.modules)
        self.modules = [self.modules[i] for i in order]
        self.requires = [self.requires[i] for i in order]
        self.fns = [self.fns[i] for i in order]
        self.starts = [m["start"] for m in self.modules]

    def owner(self, node: ts.Node) -> int | None:
        i = bisect_right(self.starts, node.start_byte) - 1
        return i if i >= 0 and node.end_byte <= self.modules[i]["end"] else None


def _add(bucket: list[Any], value: str | None) -> None:
    """Once per bucket, up to MAX_PER_MODULE (an export key `_key` cannot read is kept as None, as read)."""
    if value not in bucket and len(bucket) < MAX_PER_MODULE:
        bucket.append(value)


def _export_getters(obj: ts.Node) -> bool:
    """Whether an object is the export getters of `n.d(exports, {...})`, not a module table."""
    args = obj.parent
    call = args.parent if args is not None and args.type == "arguments" else None
    function = call.child_by_field_name("function") if call is not None else None
    return function is not None and (function.text or b"").endswith(b".d")


def _object_modules(found: _Modules, pairs: list[tuple[ts.Node, ts.Node, ts.Node]]) -> None:
    """The modules of one id-keyed object of functions, when it is a module table."""
    obj = _parent(pairs[0][0])
    if len(pairs) != sum(1 for c in obj.named_children if c.type != "comment"):
        return  # an object mixing other members is not a module table
    if _export_getters(obj):
        return
    keys = [_key(k) for _, k, _ in pairs]
    present = [k for k in keys if k is not None]
    if len(present) != len(keys) or not any(k.isdigit() or "/" in k for k in present):
        return
    if any(len(_params(fn)) > 3 for _, _, fn in pairs):
        return
    for (pair, _, fn), key in zip(pairs, present):
        found.add(pair, key, fn)


def _direct_requires(found: _Modules, calls: list[Call]) -> list[tuple[str, str]]:
    """`n(726)` inside a module whose require parameter is `n` (and not rebound on the way) is a dependency;
    the calls outside every module are returned as (callee name, id) for the runtime's own entry."""
    id_type = "number" if any(m["id"].isdigit() for m in found.modules) else "string"
    outside: list[tuple[str, str]] = []
    for call, callee, args in calls:
        values = _args(args)
        if len(values) != 1 or values[0].type != id_type:
            continue
        named = callee.child_by_field_name("name") if callee.type == "function_expression" else callee
        name = _text(named) if named is not None else ""  # `function t(s){...}(967)`: a minified runtime
        target, i = _key(values[0]), found.owner(call)  # running the entry module
        if target is None:
            continue
        if i is not None and name == found.requires[i]:
            if not _shadowed(call, name, found.fns[i]):
                _add(found.modules[i]["requires"], target)
        elif i is None:
            outside.append((name, target))
    return outside


def _entry(found: _Modules, got: _WebpackCaptures, outside: list[tuple[str, str]]) -> tuple[list[str], str | None]:
    """The ids the runtime requires at the top level, and the runtime's require: named by `require.m = table`,
    else the callee of the top-level calls that name the table's ids most often."""
    known_ids = {m["id"] for m in found.modules}
    runtime_require = got.runtime_require
    if runtime_require is None:
        counts: dict[str, int] = {}
        for name, target in outside:
            if target in known_ids:
                counts[name] = counts.get(name, 0) + 1
        runtime_require = max(sorted(counts), key=counts.__getitem__) if counts else None
    entry: list[str] = []
    for name, target in outside:
        if name == runtime_require:
            _add(entry, target)
    for name, target in got.entry_calls:
        if target in known_ids and (runtime_require is None or name == runtime_require):
            _add(entry, target)
    return entry, runtime_require


def _member_calls(found: _Modules, members: list[Member], runtime_require: str | None) -> list[str]:
    """`n.bind(n, 5)` (an async require), `n.e(3)` (a chunk load) and `n.d(t, {...})` / `n.d(t, "name", get)`
    (exports); returns the async requires made outside every module."""
    entry_async: list[str] = []
    for call, obj, prop, args in members:
        values, i = _args(args), found.owner(call)
        require = found.requires[i] if i is not None else runtime_require
        if require is None or _text(obj).split(".", 1)[0] != require:
            continue
        name = _text(prop)
        if name == "bind" and len(values) >= 2 and values[1].type in ("number", "string"):
            target = _key(values[1])
            if target is not None:
                _add(found.modules[i]["async"] if i is not None else entry_async, target)
        elif i is not None:
            _module_member(found.modules[i], name, values)
    return entry_async


def _module_member(module: dict[str, Any], name: str, values: list[ts.Node]) -> None:
    if name == "e" and len(values) == 1 and values[0].type in ("number", "string"):
        target = _key(values[0])
        if target is not None:
            _add(module["chunk_loads"], target)
    elif name == "d" and len(values) == 2 and values[1].type == "object":
        for member in values[1].named_children:
            key = member.child_by_field_name("key")
            if key is not None:
                _add(module["exports"], _key(key) if key.type == "string" else _text(key))
    elif name == "d" and len(values) == 3 and values[1].type == "string":  # webpack 4: d(exports, name, get)
        exported = _key(values[1])
        if exported:
            _add(module["exports"], exported)


def _eval_requires(modules: list[dict[str, Any]], data: bytes) -> None:
    """Development builds with devtool "eval" keep their requires inside eval strings."""
    for module in modules:
        if not module["requires"] and b"eval(" in data[module["start"] : module["end"]]:
            for m in _EVAL_REQUIRE.finditer(data, module["start"], module["end"]):
                _add(module["requires"], m.group(1).decode("utf-8", "replace"))


def webpack_table(root: ts.Node, language: ts.Language, data: bytes) -> dict[str, Any] | None:
    """The module table of a webpack/rspack bundle, or None when the file has none."""
    from tree_sitter import QueryCursor

    got = _WebpackCaptures()
    for _pattern, caps in QueryCursor(_query(language)).matches(root):
        got.take(caps)
    found = _Modules()
    for pairs in got.tables.values():
        _object_modules(found, pairs)
    for array in got.arrays:
        for key, fn in _array_table(array):
            found.add(fn, key, fn)
    if not found.modules:
        return None
    found.in_byte_order()
    outside = _direct_requires(found, got.calls)
    entry, runtime_require = _entry(found, got, outside)
    entry_async = _member_calls(found, got.members, runtime_require)
    _eval_requires(found.modules, data)
    return {
        "format": "webpack-module-table",
        "modules": found.modules,
        "entry_requires": entry,
        "entry_async": entry_async,
        "modules_omitted": found.omitted,
    }
