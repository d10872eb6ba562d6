"""Content-Security-Policy values a file sets, read without running it.

Three places a policy is written: a header set in code (`'Content-Security-Policy': [csp]` in an
Electron `onHeadersReceived` reply, `res.setHeader('Content-Security-Policy', csp)`,
`headers['Content-Security-Policy'] = csp`), a `<meta http-equiv="Content-Security-Policy">` tag,
and a policy built from literals (`["default-src 'self'", "script-src 'self'"].join('; ')`). The value
is evaluated only from literals: strings, templates without substitutions, arrays, `.join(sep)`,
`+` concatenation and a `const` of the same file naming one of these; anything else is recorded
with `value: null` and the reason, never guessed.

The search starts from bytes (the header name, a directive name) so a file without either costs
one scan; the syntax tree is entered only at those offsets.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import tree_sitter as ts

MAX_POLICIES = 64  # per file
MAX_VALUE = 4096  # characters of a policy kept
_DEPTH = 8  # nested expressions evaluated

_HEADER = re.compile(rb"content-security-policy(?:-report-only)?", re.I)
# a policy's first directive, at the start of a string literal
_DIRECTIVE = re.compile(
    rb"""["'`]\s*(?:default|script|style|img|connect|font|object|media|frame|worker|child|manifest|base|form)"""
    rb"""-(?:src|uri|action|ancestors)\b"""
)
_POLICY_TEXT = re.compile(
    r"^\s*(?:default|script|style|img|connect|font|object|media|frame|worker|child|manifest)-src\b"
)
_META = re.compile(rb"<meta\b[^>]*>", re.I)
_HTTP_EQUIV = re.compile(rb"""http-equiv\s*=\s*["']?\s*(content-security-policy(?:-report-only)?)""", re.I)
_CONTENT = re.compile(rb"""\bcontent\s*=\s*(?:"([^"]*)"|'([^']*)')""", re.I)


def might_hold(data: bytes) -> bool:
    """One byte scan: whether the file names the header or starts a literal with a policy directive."""
    return _HEADER.search(data) is not None or _DIRECTIVE.search(data) is not None


def meta_policies(data: bytes) -> list[dict[str, Any]]:
    """`<meta http-equiv="Content-Security-Policy" content="...">` tags of an HTML document."""
    out = []
    for m in _META.finditer(data):
        equiv = _HTTP_EQUIV.search(m.group(0))
        if equiv is None:
            continue
        content = _CONTENT.search(m.group(0))
        value = None if content is None else (content.group(1) or content.group(2) or b"").decode("utf-8", "replace")
        out.append(
            _policy(
                "meta",
                value,
                equiv.group(1).decode("ascii", "replace"),
                data.count(b"\n", 0, m.start()) + 1,
                m.start(),
                m.end(),
                None if content is not None else "meta tag without a content attribute",
            )
        )
    return out[:MAX_POLICIES]


def code_policies(root: ts.Node, data: bytes) -> list[dict[str, Any]]:
    """Policies a script sets: header names with the value beside them, then policy-shaped literals and joined
    arrays not already part of one (each recorded once, by the expression's byte range)."""
    found: dict[tuple[int, int], dict[str, Any]] = {}
    covered: list[tuple[int, int]] = []
    for m in _HEADER.finditer(data):
        key = _enclosing_string(root, m.start(), m.end())
        if key is None:
            continue
        value_node, form = _header_value(key)
        if value_node is None:
            continue
        value, why = _evaluate(value_node, root, 0)
        header = _string_value(key) or m.group(0).decode("ascii", "replace")
        span = (value_node.start_byte, value_node.end_byte)
        covered.append(span)
        found.setdefault(span, _policy(form, value, header, *_where(value_node), why))
    for m in _DIRECTIVE.finditer(data):
        literal = _enclosing_string(root, m.start() + 1, m.end())
        if literal is None or any(a <= literal.start_byte < b for a, b in covered):
            continue
        whole = _joined_array(literal) or literal
        value, why = _evaluate(whole, root, 0)
        if value is None or not _POLICY_TEXT.match(value):
            continue
        span = (whole.start_byte, whole.end_byte)
        covered.append(span)
        form = "joined-array" if whole is not literal else "literal"
        found.setdefault(span, _policy(form, value, None, *_where(whole), why))
        if len(found) >= MAX_POLICIES:
            break
    return sorted(found.values(), key=lambda p: p["start"])[:MAX_POLICIES]


def _policy(
    form: str, value: str | None, header: str | None, line: int, start: int, end: int, why: str | None
) -> dict[str, Any]:
    out: dict[str, Any] = {"form": form, "value": None if value is None else value[:MAX_VALUE]}
    if header is not None:
        out["header"] = header
    if value is not None:
        out["directives"] = sorted({d.split()[0].lower() for d in value.split(";") if d.strip()})
        if len(value) > MAX_VALUE:
            out["value_truncated"] = True
    if why is not None:
        out["reason"] = why
    return {**out, "line": line, "start": start, "end": end}


def _where(node: ts.Node) -> tuple[int, int, int]:
    return node.start_point.row + 1, node.start_byte, node.end_byte


def _enclosing_string(root: ts.Node, start: int, end: int) -> ts.Node | None:
    node = root.descendant_for_byte_range(start, end)
    while node is not None and node.type not in ("string", "template_string"):
        if node.type in ("program", "statement_block"):
            return None
        node = node.parent
    return node


def _header_value(key: ts.Node) -> tuple[ts.Node | None, str]:
    """The value a header name is set to: an object pair's value, a call's next argument (setHeader, set,
    append, headers.set), or the right side of `x['Content-Security-Policy'] = value`."""
    parent = key.parent
    if parent is None:
        return None, ""
    if parent.type == "pair" and parent.child_by_field_name("key") == key:
        return parent.child_by_field_name("value"), "header"
    if parent.type == "arguments":
        named = parent.named_children
        at = next((i for i, c in enumerate(named) if c == key), -1)
        return (named[at + 1], "header") if 0 <= at < len(named) - 1 else (None, "")
    if parent.type == "subscript_expression" and parent.parent is not None:
        assign = parent.parent
        if assign.type == "assignment_expression" and assign.child_by_field_name("left") == parent:
            return assign.child_by_field_name("right"), "header"
    return None, ""


def _joined_array(literal: ts.Node) -> ts.Node | None:
    """`[..., literal, ...].join(sep)` around a literal: the call, else None."""
    array = literal.parent
    if array is None or array.type != "array":
        return None
    member = array.parent
    if member is None or member.type != "member_expression" or member.child_by_field_name("object") != array:
        return None
    prop = member.child_by_field_name("property")
    call = member.parent
    if prop is None or prop.text != b"join" or call is None or call.type != "call_expression":
        return None
    return call


def _string_value(node: ts.Node) -> str | None:
    if node.type == "string":
        return "".join(
            (c.text or b"").decode("utf-8", "replace")
            for c in node.named_children
            if c.type in ("string_fragment", "escape_sequence")
        )
    if node.type == "template_string" and not any(c.type == "template_substitution" for c in node.named_children):
        return (node.text or b"").decode("utf-8", "replace")[1:-1]
    return None


def _evaluate(node: ts.Node | None, root: ts.Node, depth: int) -> tuple[str | None, str | None]:
    """The string a literal expression makes, or None and why not."""
    if node is None or depth > _DEPTH:
        return None, "not evaluated (nested too deep)"
    text = _string_value(node)
    if text is not None:
        return text, None
    if node.type == "parenthesized_expression" and node.named_children:
        return _evaluate(node.named_children[0], root, depth + 1)
    if node.type == "array":
        parts = [_evaluate(c, root, depth + 1) for c in node.named_children]
        if any(p[0] is None for p in parts):
            return None, next(p[1] for p in parts if p[0] is None)
        return ", ".join(p[0] for p in parts if p[0] is not None), None  # header arrays are comma-joined
    operator = node.child_by_field_name("operator") if node.type == "binary_expression" else None
    if operator is not None and operator.type == "+":
        left = _evaluate(node.child_by_field_name("left"), root, depth + 1)
        right = _evaluate(node.child_by_field_name("right"), root, depth + 1)
        if left[0] is None or right[0] is None:
            return None, left[1] or right[1]
        return left[0] + right[0], None
    if node.type == "call_expression":
        return _evaluate_join(node, root, depth)
    if node.type == "identifier":
        declared = _const(root, (node.text or b"").decode("utf-8", "replace"), node.start_byte)
        if declared is None:
            return None, f"{(node.text or b'').decode('utf-8', 'replace')} is not a const of literals in this file"
        return _evaluate(declared, root, depth + 1)
    return None, f"a {node.type} is not a literal"


def _evaluate_join(call: ts.Node, root: ts.Node, depth: int) -> tuple[str | None, str | None]:
    member = call.child_by_field_name("function")
    args = call.child_by_field_name("arguments")
    if member is None or member.type != "member_expression" or args is None:
        return None, "a call is not a literal"
    prop = member.child_by_field_name("property")
    array = member.child_by_field_name("object")
    if prop is None or prop.text != b"join" or array is None:
        return None, "a call is not a literal"
    if array.type == "identifier":
        array = _const(root, (array.text or b"").decode("utf-8", "replace"), array.start_byte) or array
    if array.type != "array":
        return None, "join of something other than an array literal"
    sep = ","
    if args.named_children:
        got = _string_value(args.named_children[0])
        if got is None:
            return None, "join separator is not a literal"
        sep = got
    parts = [_evaluate(c, root, depth + 1) for c in array.named_children]
    if any(p[0] is None for p in parts):
        return None, next(p[1] for p in parts if p[0] is None)
    return sep.join(p[0] for p in parts if p[0] is not None), None


def _const(root: ts.Node, name: str, before: int) -> ts.Node | None:
    """The initializer of the last `const name = ...` declared before `before` in the file (any scope: a
    policy constant is declared once), else None."""
    pattern = re.compile(rb"\bconst\s+" + re.escape(name.encode()) + rb"\s*=")
    text = root.text or b""
    best = None
    for m in pattern.finditer(text, 0, before):
        best = m
    if best is None:
        return None
    start = best.start() + best.group(0).rindex(name.encode())
    node = root.descendant_for_byte_range(start, start + len(name.encode()))
    while node is not None and node.type != "variable_declarator":
        node = node.parent
    return None if node is None else node.child_by_field_name("value")
