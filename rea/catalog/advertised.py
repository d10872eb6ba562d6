"""The full profile's advertised input schema: the canonical schema with what only repeats itself left out.

Why: a host puts every listed tool's input schema into the model's context (about 70% of what the
catalog costs it), and the canonical schemas, derived from the typed argument records, repeat
themselves: capture_browser_scenario's eight step kinds each carry the same locator union and step id,
inspect_analysis_view's views the same paging fields, and every schema the same dialect URI. The
projection keeps every property, type, constraint, description and example, and drops only repetition:

- repeated subschemas are shared once under `$defs`, as the contract asks (spec/mcp-contracts.md,
  Schema advertisement). A subschema that occurs at least twice, whole or apart from its own annotations
  (description, default, examples, title), becomes one definition named after the first property it
  describes, and each occurrence a `{"$ref": ...}` keeping its own annotations beside the reference.
  Sharing is greedy, largest saving per reference first (references are the scarce resource), skips
  savings under MIN_SAVING bytes, and stops short of REFERENCE_EXPANSIONS: Pi 1.1.0 code-mode renders 32
  reference expansions per input and every later one as unknown, so an input that would need more keeps
  the rest inline;
- a `type` that a `const` or an `enum` beside it already implies (every listed value is of that type)
  is not served: the values say it;
- `$schema` is not served: MCP takes an input schema without one as JSON Schema 2020-12, the dialect
  the canonical schema declares;
- an object's default that is exactly what its properties' own defaults make is served once, beside
  those properties, not again on the object.

It is a projection, never a second source: the catalog row keeps the canonical schema, which the server
validates calls against, docs/public/product-catalog.json publishes and the compact profile starts
from. The result accepts exactly what the canonical schema accepts: a local reference means its
definition (2020-12 applies the annotations beside it too; a draft-07 reader that ignores them loses
prose, not validation), and defaults and the dialect keyword validate nothing. Inlining every
reference again gives back the canonical schema less the dropped keys (tests/core/test_advertised_schemas.py).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any

REFERENCE_EXPANSIONS = 32  # Pi 1.1.0 code-mode: reference expansions rendered per input
MIN_SAVING = 64  # bytes a definition must save to be worth a reference a model has to follow
ANNOTATIONS = ("description", "default", "examples", "title")
_ONE = ("items", "additionalProperties", "not", "contains", "if", "then", "else", "propertyNames")
_MANY = ("anyOf", "oneOf", "allOf", "prefixItems")
_NAMED = ("properties", "patternProperties", "dependentSchemas", "$defs")
_REF_PREFIX = "#/$defs/"


def _text(node: Any) -> str:
    return json.dumps(node, ensure_ascii=False, separators=(",", ":"))


def _each(node: Mapping[str, Any], hint: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """(name hint, subschema) for every subschema directly below `node`: a property is named after
    itself, anything else after the property it belongs to."""
    for key, value in node.items():
        if key in _NAMED and isinstance(value, dict):
            yield from ((name, sub) for name, sub in value.items() if isinstance(sub, dict))
        elif key in _MANY and isinstance(value, list):
            yield from ((hint, sub) for sub in value if isinstance(sub, dict))
        elif key in _ONE and isinstance(value, dict):
            yield hint, value


def _rebuilt(node: Mapping[str, Any], change: Callable[[dict[str, Any]], dict[str, Any]]) -> dict[str, Any]:
    """`node` with `change` applied to each subschema directly below it (data keywords untouched); the
    same object when no subschema changed, so unchanged subtrees keep their memoized text."""
    out: dict[str, Any] = {}
    changed = False

    def apply(sub: Any) -> Any:
        nonlocal changed
        if not isinstance(sub, dict):
            return sub
        new = change(sub)
        changed = changed or new is not sub
        return new

    for key, value in node.items():
        if key in _NAMED and isinstance(value, dict):
            out[key] = {name: apply(sub) for name, sub in value.items()}
        elif key in _MANY and isinstance(value, list):
            out[key] = [apply(sub) for sub in value]
        elif key in _ONE and isinstance(value, dict):
            out[key] = apply(value)
        else:
            out[key] = value
    return out if changed or not isinstance(node, dict) else node


def _body(node: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in node.items() if k not in ANNOTATIONS}


class _Texts:
    """Compact JSON text of subschemas, memoized by identity (the nodes are never mutated, and the memo
    holds them, so an id is never reused while it is cached)."""

    def __init__(self) -> None:
        self._memo: dict[int, tuple[Any, str]] = {}

    def __call__(self, node: dict[str, Any]) -> str:
        found = self._memo.get(id(node))
        if found is None:
            found = (node, _text(node))
            self._memo[id(node)] = found
        return found[1]

    def body(self, node: dict[str, Any]) -> str:
        return self(node) if not any(k in node for k in ANNOTATIONS) else _text(_body(node))


def _candidates(
    schema: Mapping[str, Any], definitions: Mapping[str, Any], text: _Texts
) -> dict[tuple[bool, str], list[tuple[str, dict[str, Any]]]]:
    """Every subschema below the root and below each definition, by its text: whole (True) and
    without its own annotations (False)."""
    found: dict[tuple[bool, str], list[tuple[str, dict[str, Any]]]] = {}

    def visit(node: Mapping[str, Any], hint: str) -> None:
        for name, sub in _each(node, hint):
            keys = set(sub) - set(ANNOTATIONS)
            if keys and keys != {"$ref"}:  # not a reference already
                annotated = len(keys) != len(sub)
                found.setdefault((False, text.body(sub)), []).append((name, _body(sub) if annotated else sub))
                if annotated:
                    found.setdefault((True, text(sub)), []).append((name, sub))
            visit(sub, name)

    visit(schema, "input")
    for name, definition in definitions.items():
        visit(definition, name)
    return found


def _saving(text: str, uses: int, name: str) -> int:
    reference = len(f'"$ref":"{_REF_PREFIX}{name}"')
    return (uses - 1) * len(text) - uses * reference - len(name) - 3


def _replaced(node: dict[str, Any], whole: bool, wanted: str, reference: str, text: _Texts) -> dict[str, Any]:
    def change(sub: dict[str, Any]) -> dict[str, Any]:
        if whole and text(sub) == wanted:
            return {"$ref": reference}
        if not whole and text.body(sub) == wanted:
            return {"$ref": reference, **{k: v for k, v in sub.items() if k in ANNOTATIONS}}
        if len(text(sub)) < len(wanted):  # too small to hold it
            return sub
        return _replaced(sub, whole, wanted, reference, text)

    return _rebuilt(node, change)


def _references(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(_REF_PREFIX):
            yield ref[len(_REF_PREFIX) :]
        for sub in (v for k, v in node.items() if k != "$defs" and k not in ("const", "enum", "default", "examples")):
            yield from _references(sub)
    elif isinstance(node, list):
        for sub in node:
            yield from _references(sub)


def expansions(schema: Mapping[str, Any]) -> int:
    """How many references a client that renders the schema in full expands (each use of a definition
    expands the references inside it again)."""
    definitions = schema.get("$defs", {})
    memo: dict[str, int] = {}

    def inside(name: str) -> int:
        if name not in memo:
            memo[name] = sum(1 + inside(inner) for inner in _references(definitions.get(name, {})))
        return memo[name]

    return sum(1 + inside(name) for name in _references(schema))


def _name(hint: str, taken: Mapping[str, Any]) -> str:
    base = re.sub(r"[^A-Za-z0-9_.-]", "_", hint) or "shared"
    name, n = base, 1
    while name in taken:
        n += 1
        name = f"{base}_{n}"
    return name


def _default_once(node: Mapping[str, Any]) -> dict[str, Any]:
    """`node` without an object default that its properties' own defaults already make, at any depth."""
    out = _rebuilt(node, _default_once)
    properties = out.get("properties")
    if isinstance(out.get("default"), dict) and isinstance(properties, dict):
        made = {name: sub["default"] for name, sub in properties.items() if isinstance(sub, dict) and "default" in sub}
        if out["default"] == made:
            return {k: v for k, v in out.items() if k != "default"}  # a new node: `out` may be the input
    return out


_JSON_TYPES: Mapping[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "null": lambda v: v is None,
}


def _implied(node: Mapping[str, Any]) -> bool:
    """Whether `node`'s `type` says nothing its `const` or `enum` does not: each value is of that type."""
    named = node.get("type")
    is_type = _JSON_TYPES.get(named) if isinstance(named, str) else None
    if is_type is None:
        return False
    if "const" in node:
        return is_type(node["const"])
    values = node.get("enum")
    return isinstance(values, list) and bool(values) and all(is_type(v) for v in values)


def _type_once(node: Mapping[str, Any]) -> dict[str, Any]:
    """`node` without a `type` its `const` or `enum` already implies, at any depth."""
    out = _rebuilt(node, _type_once)
    return {k: v for k, v in out.items() if k != "type"} if _implied(out) else out


def advertised_input(schema: Mapping[str, Any], budget: int = REFERENCE_EXPANSIONS) -> dict[str, Any]:
    """The full profile's tools/list input schema of a canonical input schema (module docstring)."""
    return shared_input(_type_once(_default_once({k: v for k, v in schema.items() if k != "$schema"})), budget)


def shared_input(schema: Mapping[str, Any], budget: int = REFERENCE_EXPANSIONS) -> dict[str, Any]:
    """`schema` with its repeated subschemas shared under `$defs`, within `budget` reference expansions."""
    current = {k: v for k, v in schema.items() if k != "$defs"}
    definitions: dict[str, Any] = dict(schema.get("$defs", {}))
    refused: set[tuple[bool, str]] = set()
    text = _Texts()
    while True:
        ranked = []
        for key, uses in _candidates(current, definitions, text).items():
            name = _name(uses[0][0], definitions)
            saving = _saving(key[1], len(uses), name)
            if len(uses) > 1 and saving >= MIN_SAVING and key not in refused:
                ranked.append((saving, key, name, uses[0][1], len(uses)))
        if not ranked:
            break
        _, key, name, first, _ = max(ranked, key=lambda r: r[0] / r[4])
        reference = _REF_PREFIX + name
        trial_defs = {k: _replaced(v, *key, reference, text) for k, v in definitions.items()}
        trial = _replaced(current, *key, reference, text)
        trial_defs[name] = first
        if expansions({**trial, "$defs": trial_defs}) > budget:
            refused.add(key)
            continue
        current, definitions = trial, trial_defs
    return {**current, "$defs": definitions} if definitions else current
