"""What tree-sitter nodes of JavaScript and TypeScript say, decided purely: string literals, object keys and
shapes, export forms, Electron and route calls, constructions, require bindings and UMD factories. The parse and
its queries run in the effect (effects.javascript.extract); these functions read the nodes it captured."""

from __future__ import annotations

import hashlib
import re
from bisect import bisect_right
from typing import TYPE_CHECKING, Any

from rea.javascript import export_forms as forms
from rea.javascript.text_facts import MAX_PER_FILE, MAX_STRING

if TYPE_CHECKING:  # annotations only: the nodes come from the effect's parse
    from collections.abc import Mapping

    import tree_sitter as ts


def node_text(node: ts.Node | None) -> str:
    if node is None or node.text is None:
        return ""
    return node.text.decode("utf-8", "replace")


def string_value(node: ts.Node | None) -> str | None:
    """The value of a string literal (or a template without substitutions), else None."""
    if node is None:
        return None
    if node.type == "string":
        return "".join(node_text(c) for c in node.named_children if c.type in ("string_fragment", "escape_sequence"))[
            :MAX_STRING
        ]
    if node.type == "template_string" and not any(c.type == "template_substitution" for c in node.named_children):
        return node_text(node)[1:-1][:MAX_STRING]
    return None


def text_digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def node_location(node: ts.Node) -> dict[str, int]:
    return {"line": node.start_point.row + 1, "start": node.start_byte, "end": node.end_byte}


def last_string(node: ts.Node | None) -> str | None:
    """The last string literal inside an expression: path.join(__dirname, 'preload.js') -> 'preload.js'."""
    if node is None:
        return None
    found = string_value(node)
    if found is not None:
        return found
    for child in reversed(node.named_children):
        inner = last_string(child)
        if inner is not None:
            return inner
    return None


def object_property(obj: ts.Node, name: str) -> ts.Node | None:
    if obj.type != "object":
        return None
    for pair in obj.named_children:
        if pair.type == "pair" and node_text(pair.child_by_field_name("key")).strip("'\"") == name:
            return pair.child_by_field_name("value")
        if pair.type == "method_definition" and node_text(pair.child_by_field_name("name")) == name:
            return pair
    return None


def object_keys(obj: ts.Node) -> list[str]:
    keys = []
    for child in obj.named_children:
        if child.type in ("pair", "method_definition"):
            key = child.child_by_field_name("key") or child.child_by_field_name("name")
            keys.append(node_text(key).strip("'\""))
        elif child.type == "shorthand_property_identifier":
            keys.append(node_text(child))
        elif child.type == "spread_element":
            keys.append("...")
    return keys[:MAX_PER_FILE]


def returned_keys(body: ts.Node | None, depth: int = 0) -> list[list[str] | None]:
    """Object-literal keys of each direct return (None for a return that is not an object literal)."""
    if body is None:
        return []
    if body.type == "object":
        return [object_keys(body)]
    if body.type == "parenthesized_expression" and body.named_children:
        return returned_keys(body.named_children[0], depth)
    if body.type != "statement_block" and depth == 0:
        return [None]
    out: list[list[str] | None] = []
    for child in body.named_children:
        if child.type == "return_statement":
            value = child.named_children[0] if child.named_children else None
            while value is not None and value.type == "parenthesized_expression" and value.named_children:
                value = value.named_children[0]
            out.append(object_keys(value) if value is not None and value.type == "object" else None)
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
            out.extend(returned_keys(child, depth + 1))
    return out[:32]


def value_shape(value: ts.Node | None) -> dict[str, Any]:
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
        returns = returned_keys(body)
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
                members.append(node_text(name))
        return {
            "type": "class",
            "members": members[:MAX_PER_FILE],
            **({"members_truncated": True} if len(members) > MAX_PER_FILE else {}),
        }
    if t == "object":
        return {
            "type": "object",
            "members": object_keys(value),
            **({"members_truncated": True} if len(value.named_children) > MAX_PER_FILE else {}),
        }
    if t in ("string", "number", "true", "false", "null", "template_string", "regex"):
        text = node_text(value)
        # the value (its first MAX_STRING characters) and the digest of all of it, always both: a comparison
        # then shows each side's value beside a digest that says whether they differ past the cut
        literal = {"type": "literal", "value": text[:MAX_STRING], "sha256": text_digest(text)}
        return {**literal, "value_truncated": True} if len(text) > MAX_STRING else literal
    return {"type": "unknown"}


def export_facts(node: ts.Node, exports: list[dict[str, Any]]) -> None:
    default = any(c.type == "default" for c in node.children)
    declaration = node.child_by_field_name("declaration")
    value = node.child_by_field_name("value")
    loc = node_location(node)
    if default:
        exports.append({"name": "default", "form": "esm", "shape": value_shape(declaration or value), **loc})
        return
    if declaration is not None:
        if declaration.type in ("lexical_declaration", "variable_declaration"):
            for decl in declaration.named_children:
                if decl.type == "variable_declarator":
                    exports.append(
                        {
                            "name": node_text(decl.child_by_field_name("name")),
                            "form": "esm",
                            "shape": value_shape(decl.child_by_field_name("value")),
                            **loc,
                        }
                    )
        else:
            name = declaration.child_by_field_name("name")
            exports.append(
                {
                    "name": node_text(name) if name is not None else "?",
                    "form": "esm",
                    "shape": value_shape(declaration),
                    **loc,
                }
            )
        return
    for clause in node.named_children:
        if clause.type == "export_clause":
            for spec in clause.named_children:
                alias = spec.child_by_field_name("alias") or spec.child_by_field_name("name")
                exports.append({"name": node_text(alias), "form": "esm", "shape": {"type": "unknown"}, **loc})
        elif clause.type == "namespace_export":
            exports.append(
                {
                    "name": node_text(clause.named_children[-1]) if clause.named_children else "*",
                    "form": "esm",
                    "shape": {"type": "namespace"},
                    **loc,
                }
            )


def call_fact(call: ts.Node, prop: str, args: ts.Node) -> dict[str, Any]:
    fn = call.child_by_field_name("function")
    callee = node_text(fn.child_by_field_name("object")) if fn is not None else ""
    callee = re.sub(r"\s+", "", callee)[:128]
    values = [string_value(a) for a in args.named_children[:3]]
    fact: dict[str, Any] = {"callee": f"{callee}.{prop}", "args": values, **node_location(call)}
    if prop == "exposeInMainWorld" and len(args.named_children) > 1 and args.named_children[1].type == "object":
        fact["members"] = object_keys(args.named_children[1])
        if len(args.named_children[1].named_children) > MAX_PER_FILE:
            fact["members_truncated"] = True
    if prop == "registerSchemesAsPrivileged" and args.named_children:
        fact["args"] = [
            string_value(object_property(o, "scheme"))
            for o in args.named_children[0].named_children
            if o.type == "object"
        ][:16]
    if prop in ("loadFile", "loadURL", "fork") and values and values[0] is None and args.named_children:
        fact["args"] = [last_string(args.named_children[0])]
        fact["computed"] = True
    return fact


def new_fact(node: ts.Node, ctor: str, args: ts.Node) -> dict[str, Any]:
    first = args.named_children[0] if args.named_children else None
    fact: dict[str, Any] = {"constructor": ctor, **node_location(node)}
    if ctor in ("BrowserWindow", "BrowserView", "WebContentsView") and first is not None:
        prefs = object_property(first, "webPreferences")
        if prefs is not None:
            preload = object_property(prefs, "preload")
            fact["preload"] = last_string(preload)
            fact["preload_computed"] = preload is not None and string_value(preload) is None
            for flag in ("nodeIntegration", "contextIsolation", "sandbox", "webSecurity"):
                v = object_property(prefs, flag)
                if v is not None and v.type in ("true", "false"):
                    fact[flag] = v.type == "true"
    elif first is not None:
        fact["args"] = [string_value(first)]
    return fact


def require_bindings(imports: list[dict[str, Any]], root: ts.Node) -> dict[str, str]:
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
                out[node_text(name)] = imp["specifier"]
    return out


def umd_facts(
    root: ts.Node, data: bytes, exports: list[dict[str, Any]], open_: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """A UMD module's exports come from its factory; the wrapper's `module.exports = factory()` is its plumbing."""
    if b"define.amd" not in data and b"typeof define" not in data:
        return exports, open_
    found, reasons, span = forms.umd_exports(root, value_shape, object_keys, object_property)
    if span is None:
        return exports, open_

    def inside(item: Mapping[str, Any]) -> bool:
        start: int = item.get("start", -1)
        return span[0] <= start < span[1]

    kept = [e for e in exports if not (inside(e) and e["form"] == "cjs" and e["name"] == "default")]
    kept_open = [o for o in open_ if not (inside(o) and o["reason"] == "module-exports-assigned-value")]
    return kept + found, kept_open + reasons


def outside_mapped_requires(imports: list[dict[str, Any]], table: dict[str, Any]) -> list[dict[str, Any]]:
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
