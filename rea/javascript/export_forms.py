"""CommonJS, TypeScript-emitted and UMD export forms, read from the tree-sitter tree.

TypeScript and Babel compile `export` to `Object.defineProperty(exports, "x", {get})`,
`exports.x = void 0` placeholders, `__exportStar(require("./y"), exports)` and an
`__esModule` marker; UMD wraps a factory whose return value is the module. Each form either
names its exports or leaves an explicit reason why the list is open (never a silent empty list).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable

    import tree_sitter as ts

MAX_OPEN = 64  # open-export reasons kept per file

_FUNCTIONS = ("function_expression", "function", "arrow_function")
_TARGETS = ("exports", "module.exports")
_CLOSED_VALUES = (
    "object",
    "function_expression",
    "function",
    "arrow_function",
    "class",
    "string",
    "number",
    "true",
    "false",
    "null",
    "template_string",
    "regex",
)


def _text(node: ts.Node | None) -> str:
    return "" if node is None or node.text is None else node.text.decode("utf-8", "replace")


def _compact(node: ts.Node | None) -> str:
    return re.sub(r"\s+", "", _text(node))


def _unwrap(node: ts.Node | None) -> ts.Node | None:
    while node is not None and node.type in ("parenthesized_expression", "unary_expression") and node.named_children:
        node = node.named_children[-1]
    return node


def _loc(node: ts.Node) -> dict[str, int]:
    return {"line": node.start_point.row + 1, "start": node.start_byte, "end": node.end_byte}


def opened(reason: str, node: ts.Node, **extra: Any) -> dict[str, Any]:
    return {"reason": reason, "line": node.start_point.row + 1, "start": node.start_byte, **extra}


def is_placeholder(value: ts.Node) -> bool:
    """`exports.a = exports.b = void 0`: TypeScript's hoisted declaration, not the export's value."""
    while value.type == "assignment_expression":
        right = value.child_by_field_name("right")
        if right is None:
            return False
        value = right
    return _compact(value) == "void0"


def _getter_target(desc: ts.Node) -> str | None:
    """`get: function () { return _nil.default; }` -> `_nil.default` (what the getter re-exports)."""
    for pair in desc.named_children:
        if pair.type == "pair" and _text(pair.child_by_field_name("key")).strip("'\"") == "get":
            fn = pair.child_by_field_name("value")
        elif pair.type == "method_definition" and _text(pair.child_by_field_name("name")) == "get":
            fn = pair
        else:
            continue
        body = fn.child_by_field_name("body") if fn is not None else None
        if body is not None and body.type != "statement_block":
            return _compact(body)[:128]
        for stmt in body.named_children if body is not None else ():
            if stmt.type == "return_statement" and stmt.named_children:
                return _compact(stmt.named_children[0])[:128]
    return None


def define_property(
    target: ts.Node, name: str | None, call: ts.Node, shape_of: Any, value_of: Any
) -> tuple[dict[str, Any] | None, dict[str, Any] | None, bool]:
    """(export, open reason, es-module marker) of `Object.defineProperty(exports, name, descriptor)`."""
    if _compact(target) not in _TARGETS:
        return None, None, False
    if name is None:
        return None, opened("computed-define-property", call), False
    if name == "__esModule":
        return None, None, True
    args = call.child_by_field_name("arguments")
    desc = args.named_children[2] if args is not None and len(args.named_children) > 2 else None
    shape: dict[str, Any] = {"type": "unknown"}
    if desc is not None and desc.type == "object":
        getter = _getter_target(desc)
        if getter is not None:
            shape = {"type": "unknown", "getter": getter}
        elif value_of(desc, "value") is not None:
            shape = shape_of(value_of(desc, "value"))
    return {"name": name, "form": "cjs-define-property", "shape": shape, **_loc(call)}, None, False


def star_export(call: ts.Node, string_of: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """`__exportStar(require("./y"), exports)`: every export of ./y, which this file does not list."""
    args = call.child_by_field_name("arguments")
    first = args.named_children[0] if args is not None and args.named_children else None
    spec = None
    if (
        first is not None
        and first.type == "call_expression"
        and _text(first.child_by_field_name("function")) == "require"
    ):
        inner = first.child_by_field_name("arguments")
        spec = string_of(inner.named_children[0]) if inner is not None and inner.named_children else None
    shape = {"type": "namespace", "from": spec}
    return (
        {"name": "*", "form": "cjs-star", "shape": shape, **_loc(call)},
        opened("star-re-export", call, **({"specifier": spec} if spec is not None else {})),
    )


def assigned_value_open(rhs: ts.Node) -> dict[str, Any] | None:
    """`module.exports = factory()` / `= require("./y")` / `= x`: its members are not enumerable statically."""
    return None if rhs.type in _CLOSED_VALUES else opened("module-exports-assigned-value", rhs, value=rhs.type)


def umd_factory(root: ts.Node) -> tuple[ts.Node, ts.Node] | None:
    """(wrapper, factory) of `(function (root, factory) {...})(this, function () {...})`."""
    for stmt in root.named_children:
        node = _unwrap(stmt.named_children[0]) if stmt.type == "expression_statement" and stmt.named_children else None
        if node is None or node.type != "call_expression":
            continue
        callee = _unwrap(node.child_by_field_name("function"))
        args = node.child_by_field_name("arguments")
        if callee is not None and callee.type in _FUNCTIONS and args is not None and args.named_children:
            last = _unwrap(args.named_children[-1])
            if last is not None and last.type in _FUNCTIONS:
                return callee, last
    return None


def _returned(factory: ts.Node) -> ts.Node | None:
    body = factory.child_by_field_name("body")
    if body is None:
        return None
    if body.type != "statement_block":
        return _unwrap(body)
    value = next(
        (s.named_children[0] for s in body.named_children if s.type == "return_statement" and s.named_children), None
    )
    value = _unwrap(value)
    if value is not None and value.type == "identifier":  # `var X = {...}; return X;`
        name = _text(value)
        for stmt in body.named_children:
            if (
                stmt.type in ("function_declaration", "class_declaration")
                and _text(stmt.child_by_field_name("name")) == name
            ):
                return stmt
            for decl in stmt.named_children if stmt.type in ("variable_declaration", "lexical_declaration") else ():
                if _text(decl.child_by_field_name("name")) == name and decl.child_by_field_name("value") is not None:
                    return _unwrap(decl.child_by_field_name("value"))
    return value


def umd_exports(
    root: ts.Node,
    shape_of: Callable[[ts.Node | None], dict[str, Any]],
    keys_of: Callable[[ts.Node], list[str]],
    value_of: Callable[[ts.Node, str], ts.Node | None],
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], tuple[int, int] | None]:
    """Exports of a UMD module's factory (its returned object's keys, or its returned function or class as
    the default), open reasons, and the wrapper's byte range (whose `module.exports = factory()` it replaces)."""
    found = umd_factory(root)
    if found is None:
        return [], [], None
    wrapper, factory = found
    span = (wrapper.start_byte, wrapper.end_byte)
    params = factory.child_by_field_name("parameters")
    if params is not None and "exports" in {_text(p) for p in params.named_children}:
        return [], [], None  # `function (exports) { exports.x = ... }`: the assignments name the exports
    value = _returned(factory)
    if value is None:
        return [], [opened("umd-factory-returns-nothing-static", factory)], span
    if value.type == "object":
        body = factory.child_by_field_name("body")
        top = top_level_values(body) if body is not None and body.type == "statement_block" else {}

        def member(k: str) -> dict[str, Any]:
            named = value_of(value, k)
            return shape_of(declared(top, named) if named is not None else None)

        exports = [{"name": k, "form": "umd", "shape": member(k), **_loc(value)} for k in keys_of(value)]
        exports.append({"name": "default", "form": "umd", "shape": shape_of(value), **_loc(value)})
        return exports, [], span
    shape = shape_of(value)
    if shape["type"] == "unknown":
        return [], [opened("umd-factory-returns-value", value, value=value.type)], span
    return [{"name": "default", "form": "umd", "shape": shape, **_loc(value)}], [], span


def settle(exports: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per export: a later assignment replaces an earlier one (CommonJS semantics) and a
    `void 0` placeholder yields to any real definition; `__esModule` is a marker, not an export."""
    by_key: dict[tuple[str, Any], dict[str, Any]] = {}
    for e in exports:
        if e["name"] == "__esModule":
            continue
        key = (e["name"], (e.get("shape") or {}).get("from"))
        earlier = by_key.get(key)
        if earlier is not None and e.get("placeholder") and not earlier.get("placeholder"):
            continue
        by_key[key] = e
    return [{k: v for k, v in e.items() if k != "placeholder"} for e in by_key.values()]


_GETTER = re.compile(r"^([A-Za-z_$][\w$]*)(?:\.([A-Za-z_$][\w$]*))?$")


def link_getters(exports: list[dict[str, Any]], bindings: dict[str, str]) -> None:
    """A getter returning `_v.default` (where `_v = require("./v1.js")`) re-exports ./v1.js's default:
    record which module and name, so a comparison can follow it instead of calling it unknown."""
    for e in exports:
        shape = e.get("shape") or {}
        m = _GETTER.match(shape.get("getter") or "")
        if m and m.group(1) in bindings:
            shape["reexports"] = {"specifier": bindings[m.group(1)], "name": m.group(2) or "*"}


def top_level_values(root: ts.Node) -> dict[str, ts.Node]:
    """Names a program declares at its top level -> the declaration or the value it is initialised to."""
    out: dict[str, ts.Node] = {}
    for stmt in root.named_children:
        if stmt.type in ("function_declaration", "class_declaration", "generator_function_declaration"):
            name = stmt.child_by_field_name("name")
            if name is not None:
                out[_text(name)] = stmt
        elif stmt.type in ("variable_declaration", "lexical_declaration"):
            for decl in stmt.named_children:
                value = decl.child_by_field_name("value") if decl.type == "variable_declarator" else None
                if value is not None:
                    out[_text(decl.child_by_field_name("name"))] = value
    return out


def declared(top: dict[str, ts.Node], name: ts.Node, hops: int = 4) -> ts.Node:
    """`exports.default = _default; var _default = v1; function v1() {}` -> the function (a few hops)."""
    node = name
    for _ in range(hops):
        if node.type != "identifier" or _text(node) not in top:
            break
        node = top[_text(node)]
    return node
