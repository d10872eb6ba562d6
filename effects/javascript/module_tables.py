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
from typing import Any

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


def _key(node: Any) -> str | None:
    text = node.text.decode("utf-8", "replace")
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
        tables.setdefault(pair.parent.id, []).append((pair, caps["key"][0], caps["deps"][0]))
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


def webpack_table(root: Any, language: Any, data: bytes) -> dict[str, Any] | None:
    """The module table of a webpack/rspack bundle, or None when the file has none."""
    import tree_sitter as ts

    tables: dict[int, list[tuple[Any, Any, Any]]] = {}
    calls, members, runtime_require = [], [], None
    arrays: list[Any] = []
    entry_calls: list[tuple[str, str]] = []  # webpack 4 starts its entry with `o(o.s = 0)`
    for _pattern, caps in ts.QueryCursor(_query(language)).matches(root):
        if "pair" in caps:
            pair = caps["pair"][0]
            tables.setdefault(pair.parent.id, []).append((pair, caps["key"][0], caps["fn"][0]))
        elif "call" in caps:
            calls.append((caps["call"][0], caps["callee"][0], caps["args"][0]))
        elif "member" in caps:
            members.append((caps["member"][0], caps["obj"][0], caps["prop"][0], caps["margs"][0]))
        elif "table" in caps:
            runtime_require = caps["req"][0].text.decode()
        elif "array" in caps:
            arrays.append(caps["array"][0])
        elif "entrycall" in caps:
            entry_calls.append((caps["callee"][0].text.decode(), caps["entry_id"][0].text.decode()))
    modules: list[dict[str, Any]] = []
    requires: list[str | None] = []
    fns: list[Any] = []
    omitted = 0
    for pairs in tables.values():
        obj = pairs[0][0].parent
        if len(pairs) != sum(1 for c in obj.named_children if c.type != "comment"):
            continue  # an object mixing other members is not a module table
        if (
            obj.parent is not None
            and obj.parent.type == "arguments"
            and obj.parent.parent is not None
            and obj.parent.parent.child_by_field_name("function") is not None
            and obj.parent.parent.child_by_field_name("function").text.endswith(b".d")
        ):
            continue  # the export getters of n.d(exports, {...})
        keys = [_key(k) for _, k, _ in pairs]
        params = [_params(fn) for _, _, fn in pairs]
        if (
            any(k is None for k in keys)
            or not any(k.isdigit() or "/" in k for k in keys)
            or any(len(p) > 3 for p in params)
        ):
            continue
        for (pair, _, fn), key, names in zip(pairs, keys, params):
            if len(modules) >= MAX_MODULES:
                omitted += 1
                continue
            modules.append(_record(pair, key))
            requires.append(names[2] if len(names) == 3 else None)
            fns.append(_unwrap(fn))
    for array in arrays:
        for key, fn in _array_table(array):
            if len(modules) >= MAX_MODULES:
                omitted += 1
                continue
            names = _params(fn)
            modules.append(_record(fn, key))
            requires.append(names[2] if len(names) == 3 else None)
            fns.append(fn)
    if not modules:
        return None
    order = _outermost(modules)
    modules = [modules[i] for i in order]
    requires = [requires[i] for i in order]
    fns = [fns[i] for i in order]
    starts = [m["start"] for m in modules]
    entry: list[str] = []

    def owner(node: Any) -> int | None:
        i = bisect_right(starts, node.start_byte) - 1
        return i if i >= 0 and node.end_byte <= modules[i]["end"] else None

    def add(bucket: list[str], value: str) -> None:
        if value not in bucket and len(bucket) < MAX_PER_MODULE:
            bucket.append(value)

    id_type = "number" if any(m["id"].isdigit() for m in modules) else "string"
    outside: list[tuple[str, str]] = []
    for call, callee, args in calls:
        values = _args(args)
        if len(values) != 1 or values[0].type != id_type:
            continue
        named = callee.child_by_field_name("name") if callee.type == "function_expression" else callee
        name = named.text.decode() if named is not None else ""  # `function t(s){...}(967)`: a minified runtime
        target, i = _key(values[0]), owner(call)  # running the entry module
        if target is None:
            continue
        if i is not None and name == requires[i]:
            if not _shadowed(call, name, fns[i]):
                add(modules[i]["requires"], target)
        elif i is None:
            outside.append((name, target))
    known_ids = {m["id"] for m in modules}
    if runtime_require is None:  # no `require.m = table`: the runtime's require is the callee of top-level calls
        counts: dict[str, int] = {}  # naming the table's ids most often
        for name, target in outside:
            if target in known_ids:
                counts[name] = counts.get(name, 0) + 1
        runtime_require = max(sorted(counts), key=counts.__getitem__) if counts else None
    for name, target in outside:
        if name == runtime_require:
            add(entry, target)
    for name, target in entry_calls:
        if target in known_ids and (runtime_require is None or name == runtime_require):
            add(entry, target)
    entry_async: list[str] = []
    for call, obj, prop, args in members:
        values, i = _args(args), owner(call)
        require = requires[i] if i is not None else runtime_require
        if require is None or obj.text.decode().split(".", 1)[0] != require:
            continue
        name = prop.text.decode()
        if name == "bind" and len(values) >= 2 and values[1].type in ("number", "string"):
            target = _key(values[1])
            if target is not None:
                add(modules[i]["async"] if i is not None else entry_async, target)
        elif i is None:
            continue
        elif name == "e" and len(values) == 1 and values[0].type in ("number", "string"):
            target = _key(values[0])
            if target is not None:
                add(modules[i]["chunk_loads"], target)
        elif name == "d" and len(values) == 2 and values[1].type == "object":
            for member in values[1].named_children:
                key = member.child_by_field_name("key")
                if key is not None:
                    add(modules[i]["exports"], _key(key) if key.type == "string" else key.text.decode())
        elif name == "d" and len(values) == 3 and values[1].type == "string":  # webpack 4: d(exports, name, get)
            exported = _key(values[1])
            if exported:
                add(modules[i]["exports"], exported)
    for module in modules:  # development builds with devtool "eval" keep their requires inside eval strings
        if not module["requires"] and b"eval(" in data[module["start"] : module["end"]]:
            for m in _EVAL_REQUIRE.finditer(data, module["start"], module["end"]):
                add(module["requires"], m.group(1).decode("utf-8", "replace"))
    return {
        "format": "webpack-module-table",
        "modules": modules,
        "entry_requires": entry,
        "entry_async": entry_async,
        "modules_omitted": omitted,
    }
