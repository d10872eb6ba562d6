"""Per-file semantic facts for the semantic companion graph, read from the tree-sitter tree.

One query (run in C) captures functions, calls, declarations, assignments, returns, imports and
string literals of the first MAX_SEMANTIC_BYTES of a file; each capture becomes plain data: where
it is, which function encloses it, and the values it uses as `refs` (a literal, a name in a scope,
a call's result, a property read, a function). The pure core (rea.javascript.semantic_graph)
resolves names and builds the relations. Nothing here runs code: `eval` and `Function` are
recorded as dynamic calls.
"""

from __future__ import annotations

import hashlib
import re
from functools import lru_cache
from operator import itemgetter
from typing import TYPE_CHECKING, Any

from rea.collector import collector_paused

if TYPE_CHECKING:
    import tree_sitter as ts

MAX_SEMANTIC_BYTES = 1024 * 1024  # of each file (a larger file is read up to here: partial, and says so)
MAX_ITEMS = 20_000  # facts of each kind kept per file
MAX_REFS = 8  # values one expression is taken to use
MAX_REF_DEPTH = 4
MAX_FINGERPRINT_BYTES = 65_536  # a larger function's normalized syntax is not hashed (partial fingerprint)
MAX_LITERAL = 512

_FUNCTIONS = (
    "function_declaration",
    "generator_function_declaration",
    "function_expression",
    "function",
    "generator_function",
    "arrow_function",
    "method_definition",
)
_CAPTURES = (
    *((t, "fn") for t in _FUNCTIONS),
    ("call_expression", "call"),
    ("new_expression", "call"),
    ("variable_declarator", "decl"),
    ("assignment_expression", "assign"),
    ("return_statement", "ret"),
    ("import_statement", "imp"),
    ("string", "str"),
    ("template_string", "str"),
)
_CONTROL = (
    "if_statement",
    "for_statement",
    "for_in_statement",
    "while_statement",
    "do_statement",
    "switch_statement",
    "try_statement",
    "ternary_expression",
    "catch_clause",
)
_CONTROL_NEEDLES = tuple(f"({c}" for c in _CONTROL)  # how each appears in a function's s-expression
# one scan counting them all: each needle opens with the only "(" it holds and none is a prefix of another, so
# no two occurrences overlap and the count is the sum of the needles' str.count (a law in the tests)
_CONTROL_ANY = re.compile("|".join(map(re.escape, _CONTROL_NEEDLES)))
_EFFECTS = (
    (
        "network",
        re.compile(r"^(fetch|XMLHttpRequest|WebSocket|EventSource|axios(\..*)?|https?\.(request|get)|net\.connect)$"),
    ),
    ("timer", re.compile(r"^(setTimeout|setInterval|setImmediate)$")),
    ("event", re.compile(r"\.(on|once|addEventListener|emit)$")),
    ("child-process", re.compile(r"^(child_process\.|cp\.)?(spawn|exec|execFile|fork|execSync|spawnSync)$")),
    ("promise", re.compile(r"(^Promise$|\.then$|\.catch$)")),
)
_DYNAMIC = frozenset(
    ("eval", "Function", "window.eval", "globalThis.eval", "vm.runInThisContext", "vm.runInNewContext")
)


@lru_cache(maxsize=4)
def _query(language: ts.Language) -> ts.Query:
    import tree_sitter as ts

    kinds = [(t, c) for t, c in _CAPTURES if language.id_for_node_kind(t, True) is not None]  # per grammar
    return ts.Query(language, "\n".join(f"({t}) @{c}" for t, c in kinds))


def _text(node: ts.Node | None) -> str:
    text = None if node is None else node.text  # each access of .text copies the node's bytes
    return "" if text is None else text.decode("utf-8", "replace")


def _compact(node: ts.Node | None, cap: int = 128) -> str:
    """The node's text without whitespace (str.split's whitespace is the regex's \\s: Py_UNICODE_ISSPACE)."""
    return "".join(_text(node).split())[:cap]


def _range(node: ts.Node) -> list[int]:
    """[start line, start column, end line, end column, start byte, end byte] (lines from 1)."""
    (row, column), (end_row, end_column) = node.start_point, node.end_point  # each access builds a Point
    return [row + 1, column, end_row + 1, end_column, node.start_byte, node.end_byte]


_STRING_PARTS = ("string_fragment", "escape_sequence")


def _literal(node: ts.Node) -> str | None:
    if node.type == "string":
        count = node.named_child_count
        if count == 1:  # nearly every string: one fragment (or one escape)
            only = node.named_child(0)
            return _text(only) if only is not None and only.type in _STRING_PARTS else ""
        return "".join(_text(c) for c in node.named_children if c.type in _STRING_PARTS) if count else ""
    if node.type == "template_string" and not any(c.type == "template_substitution" for c in node.named_children):
        return _text(node)[1:-1]
    return None


class _File:
    """The facts of one file, with the function that encloses each position."""

    def __init__(self) -> None:
        self.functions: list[dict[str, Any]] = []
        self.spans: list[tuple[int, int, int]] = []  # (start, end, index) of functions, innermost last
        self.literals: list[dict[str, Any]] = []
        self.literal_at: dict[int, int] = {}
        self.calls: list[dict[str, Any]] = []
        self.call_at: dict[int, int] = {}
        self.fn_at: dict[int, int] = {}
        self.flows: list[dict[str, Any]] = []  # declarations, assignments, returns
        self.imports: list[dict[str, Any]] = []
        self.dynamic: list[dict[str, Any]] = []
        self.omitted = 0

    def scope(self, start: int) -> int:
        while self.spans and start >= self.spans[-1][1]:
            self.spans.pop()
        return self.spans[-1][2] if self.spans else -1

    def refs(self, node: ts.Node | None, depth: int = 0) -> list[list[Any]]:
        """The values an expression uses: ["lit", i], ["name", n], ["call", i], ["prop", n], ["fn", i]."""
        if node is None or depth > MAX_REF_DEPTH:
            return []
        t = node.type
        if t == "identifier":  # the most common
            return [["name", _text(node)]]
        if t in ("string", "template_string") and node.start_byte in self.literal_at:
            out: list[list[Any]] = [["lit", self.literal_at[node.start_byte]]]
            if t == "template_string":
                for sub in node.named_children:
                    out += self.refs(sub, depth + 1)
            return out[:MAX_REFS]
        if t in ("call_expression", "new_expression") and node.start_byte in self.call_at:
            return [["call", self.call_at[node.start_byte]]]
        if t == "member_expression":
            prop = node.child_by_field_name("property")
            return ([["prop", _text(prop)]] + self.refs(node.child_by_field_name("object"), depth + 1))[:MAX_REFS]
        if t in _FUNCTIONS:
            index = self.fn_at.get(node.start_byte)
            return [["fn", index]] if index is not None else []
        out = []
        for child in node.named_children:
            if child.type in ("statement_block", "formal_parameters"):
                continue
            out += self.refs(child, depth + 1)
            if len(out) >= MAX_REFS:
                break
        return out[:MAX_REFS]


def _params(fn: ts.Node) -> list[str | None]:
    single = fn.child_by_field_name("parameter")
    if single is not None:
        return [_text(single)]
    params = fn.child_by_field_name("parameters")
    out: list[str | None] = []
    for p in params.named_children if params is not None else ():
        if p.type == "identifier":
            out.append(_text(p))
        elif p.type in ("assignment_pattern", "required_parameter", "optional_parameter"):
            inner = p.child_by_field_name("left") or p.child_by_field_name("pattern")
            out.append(_text(inner) if inner is not None and inner.type == "identifier" else None)
        elif p.type == "rest_pattern" and p.named_children and p.named_children[0].type == "identifier":
            out.append(_text(p.named_children[0]))
        else:
            out.append(None)  # a destructuring pattern: its fields are not bound to one name
    return out


def _name(fn: ts.Node) -> str | None:
    name = fn.child_by_field_name("name")
    if name is not None:
        return _text(name)
    parent = fn.parent
    if parent is not None and parent.type == "variable_declarator":
        return _text(parent.child_by_field_name("name"))
    if parent is not None and parent.type == "pair":
        return _text(parent.child_by_field_name("key")).strip("'\"")
    if parent is not None and parent.type == "assignment_expression":
        return _compact(parent.child_by_field_name("left")).rsplit(".", 1)[-1]
    return None


def _is_async(fn: ts.Node, source: bytes) -> bool:
    """Whether the function's text starts with `async` (its source, of which only the head is decoded)."""
    start, end = fn.start_byte, fn.end_byte
    head = source[start : min(end, start + 64)].decode("utf-8", "replace").lstrip()
    if len(head) < 6 and end > start + 64:  # mostly whitespace, or cut inside a character: decode it all
        head = _text(fn).lstrip()
    return head.startswith("async")


def _fingerprint(fn: ts.Node, is_async: bool, literals: list[str], callees: list[str]) -> dict[str, Any]:
    big = fn.end_byte - fn.start_byte > MAX_FINGERPRINT_BYTES
    shape = "" if big else str(fn)  # the s-expression: node kinds and fields, never identifier text
    control = len(_CONTROL_ANY.findall(shape))
    effects = sorted(set().union(*map(_effects_of, callees)) | ({"async"} if is_async else set()))
    return {
        "status": "partial" if big else "complete",
        "normalized_ast_sha256": _repr_digest(shape),
        "control_flow_sha256": _repr_digest(control),
        "literal_set_sha256": _repr_digest(sorted(set(literals))),
        "effects": effects,
    }


def _repr_digest(value: Any) -> str:
    """The fingerprint components' digest: SHA-256 of the value's repr."""
    return hashlib.sha256(repr(value).encode()).hexdigest()


@lru_cache(maxsize=4096)
def _effects_of(callee: str) -> frozenset[str]:
    """The effect families a callee's text names (a bundle calls the same few names thousands of times)."""
    return frozenset(name for name, pattern in _EFFECTS if pattern.search(callee))


@collector_paused()
def semantic_facts(root: ts.Node, language: ts.Language, source: bytes) -> dict[str, Any]:
    """The semantic facts of one parsed file (`source`, the bytes the tree was parsed from; up to
    MAX_SEMANTIC_BYTES). Allocation-heavy and acyclic: built with the cyclic collector paused."""
    import tree_sitter as ts

    size = len(source)
    cursor = ts.QueryCursor(_query(language))
    cursor.set_byte_range(0, min(size, MAX_SEMANTIC_BYTES))
    caps = cursor.captures(root)
    f = _File()
    order = sorted(
        ((n.start_byte, -n.end_byte, kind, n) for kind, nodes in caps.items() for n in nodes),
        key=itemgetter(0, 1),
    )
    for start, _neg, kind, node in order:  # literals and calls first, so refs can name them
        if kind == "str" and len(f.literals) < MAX_ITEMS:
            value = _literal(node)
            if value is not None:
                f.literal_at[start] = len(f.literals)
                f.literals.append({"value": value[:MAX_LITERAL], "range": _range(node), "scope": -1})
        elif kind == "call" and len(f.calls) < MAX_ITEMS:
            f.call_at[start] = len(f.calls)
            f.calls.append({"range": _range(node)})
        elif kind == "fn" and len(f.fn_at) < MAX_ITEMS and start not in f.fn_at:
            f.fn_at[start] = len(f.fn_at)
    _scoped(f, order, source)
    return {
        "functions": f.functions,
        "literals": f.literals,
        "calls": f.calls,
        "flows": f.flows,
        "imports": f.imports,
        "dynamic": f.dynamic,
        "truncated": size > MAX_SEMANTIC_BYTES or f.omitted > 0,
        "bytes": min(size, MAX_SEMANTIC_BYTES),
        "omitted": f.omitted,
    }


def _scoped(f: _File, order: list[tuple[int, int, str, ts.Node]], source: bytes) -> None:
    """Second pass in position order: each fact gets its enclosing function and its values."""
    for start, _neg, kind, node in order:
        scope = f.scope(start)
        if kind == "fn":
            if f.fn_at.get(start) != len(f.functions):
                f.omitted += 1
                continue
            index = len(f.functions)
            f.functions.append(
                {
                    "index": index,
                    "name": _name(node),
                    "params": _params(node),
                    "range": _range(node),
                    "scope": scope,
                    "async": _is_async(node, source),
                    "node": node,
                }
            )
            f.spans.append((start, node.end_byte, index))
            body = node.child_by_field_name("body")
            if node.type == "arrow_function" and body is not None and body.type != "statement_block":
                f.flows.append({"kind": "return", "scope": index, "range": _range(body), "refs": f.refs(body)})
        elif kind == "str" and start in f.literal_at:
            f.literals[f.literal_at[start]]["scope"] = scope
        elif kind == "call" and start in f.call_at:
            _call(f, node, f.calls[f.call_at[start]], scope)
        elif kind == "decl":
            name, value = node.child_by_field_name("name"), node.child_by_field_name("value")
            if name is not None and name.type == "object_pattern" and value is not None:
                _destructured_require(f, name, value, node)
            if name is not None and name.type == "identifier" and value is not None:
                f.flows.append(
                    {
                        "kind": "define",
                        "name": _text(name),
                        "scope": scope,
                        "range": _range(node),
                        "refs": f.refs(value),
                        **_required(value),
                    }
                )
        elif kind == "assign":
            _assign(f, node, scope)
        elif kind == "ret" and node.named_children:
            f.flows.append(
                {"kind": "return", "scope": scope, "range": _range(node), "refs": f.refs(node.named_children[0])}
            )
        elif kind == "imp":
            _import(f, node)
    callees: dict[int, list[str]] = {}
    values: dict[int, list[str]] = {}
    for c in f.calls:
        callees.setdefault(c.get("scope", -1), []).append(c.get("callee", ""))
    for lit in f.literals:
        values.setdefault(lit["scope"], []).append(lit["value"])
    for fn in f.functions:
        fn["fingerprint"] = _fingerprint(
            fn.pop("node"), fn["async"], values.get(fn["index"], []), callees.get(fn["index"], [])
        )


def _required(value: ts.Node) -> dict[str, Any]:
    """`require("./m")` (possibly wrapped: `_interopRequireDefault(require("./m"))`) -> its specifier."""
    node = value
    for _ in range(3):
        if node.type != "call_expression":
            return {}
        args = node.child_by_field_name("arguments")
        first = args.named_children[0] if args is not None and args.named_children else None
        if _text(node.child_by_field_name("function")) == "require":
            spec = _literal(first) if first is not None else None
            return {"require": spec} if spec is not None else {}
        if first is None:
            return {}
        node = first
    return {}


def _call(f: _File, node: ts.Node, call: dict[str, Any], scope: int) -> None:
    callee = node.child_by_field_name("function") or node.child_by_field_name("constructor")
    args = node.child_by_field_name("arguments")
    arguments = args.named_children if args is not None else []  # a fresh list of nodes each time it is asked
    text = _compact(callee)
    callee_type = callee.type if callee is not None else None
    call.update(
        callee=text,
        scope=scope,
        new=node.type == "new_expression",
        args=[f.refs(a) for a in arguments[:16]],
    )
    if arguments:
        call["first"] = _literal(arguments[0])
    if callee is not None and callee_type == "member_expression":
        obj = callee.child_by_field_name("object")
        call["object"] = _compact(obj)
        call["property"] = _text(callee.child_by_field_name("property"))
        call["object_refs"] = f.refs(obj)
    if text in _DYNAMIC or (text == "setTimeout" and call.get("first") is not None):
        call["dynamic"] = "eval-or-generated-code"  # recorded (an unknown at its call site), never run
    elif callee is not None and callee_type not in ("identifier", "member_expression", "import"):
        call["dynamic"] = "dynamic-call"


def _assign(f: _File, node: ts.Node, scope: int) -> None:
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    if left is None or right is None:
        return
    refs = f.refs(right)
    if left.type == "identifier":
        f.flows.append({"kind": "write", "name": _text(left), "scope": scope, "range": _range(node), "refs": refs})
    elif left.type == "member_expression":
        f.flows.append(
            {
                "kind": "write-property",
                "property": _text(left.child_by_field_name("property")),
                "object": _compact(left.child_by_field_name("object")),
                "scope": scope,
                "range": _range(node),
                "refs": refs,
            }
        )
    elif left.type == "subscript_expression":
        f.dynamic.append(
            {"reason": "dynamic-property", "callee": _compact(left), "range": _range(node), "scope": scope}
        )


def _destructured_require(f: _File, pattern: ts.Node, value: ts.Node, node: ts.Node) -> None:
    """`const { send, get: fetchIt } = require("./net")`: module-level names bound to the module's exports."""
    spec = _required(value).get("require")
    if spec is None:
        return
    for part in pattern.named_children:
        if part.type == "shorthand_property_identifier_pattern":
            f.imports.append({"local": _text(part), "name": _text(part), "specifier": spec, "range": _range(node)})
        elif part.type == "pair_pattern":
            key, local = part.child_by_field_name("key"), part.child_by_field_name("value")
            if local is not None and local.type == "identifier":
                f.imports.append({"local": _text(local), "name": _text(key), "specifier": spec, "range": _range(node)})


def _import(f: _File, node: ts.Node) -> None:
    source = node.child_by_field_name("source")
    spec = _literal(source) if source is not None else None
    if spec is None:
        return
    for clause in node.named_children:
        if clause.type != "import_clause":
            continue
        for part in clause.named_children:
            if part.type == "identifier":
                f.imports.append({"local": _text(part), "name": "default", "specifier": spec, "range": _range(node)})
            elif part.type == "namespace_import":
                local = part.named_children[-1] if part.named_children else None
                f.imports.append({"local": _text(local), "name": "*", "specifier": spec, "range": _range(node)})
            elif part.type == "named_imports":
                for s in part.named_children:
                    name, alias = s.child_by_field_name("name"), s.child_by_field_name("alias")
                    f.imports.append(
                        {"local": _text(alias or name), "name": _text(name), "specifier": spec, "range": _range(node)}
                    )
