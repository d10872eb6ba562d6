"""Schema building blocks and the advertisement rules every schema must pass."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator, Mapping
from typing import Any

from rea.canonical_json import canonical_sha256
from rea.evidence import ENVELOPE
from rea.evidence import EVIDENCE_ID_PATTERN as EVIDENCE_ID_PATTERN
from rea.evidence import SHA256_PATTERN as SHA256_PATTERN

# the node builders live below the catalog (rea.json_schema); re-exported here, where tools have always found them
from rea.json_schema import array as array
from rea.json_schema import nullable as nullable
from rea.json_schema import obj as obj
from rea.json_schema import string as string

DIALECT = "https://json-schema.org/draft/2020-12/schema"
SAFE_INT_MAX = 2**53 - 1

UNKNOWN_ID_PATTERN = "^unk_[a-f0-9]{64}$"


def integer(description: str, minimum: int = 0, maximum: int = SAFE_INT_MAX, **extra: Any) -> dict[str, Any]:
    return {"type": "integer", "description": description, "minimum": minimum, "maximum": maximum, **extra}


def input_schema(
    properties: Mapping[str, Any],
    required: tuple[str, ...] = (),
    *,
    description: str | None = None,
    examples: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    schema = obj(properties, required)
    schema["$schema"] = DIALECT
    if description:
        schema["description"] = description
    if examples:
        schema["examples"] = examples
    return schema


CONTENT_ID_PREFIX = "urn:rea:schema:sha256:"
# Keywords whose value maps names (not keywords) to subschemas.
_NAMED_SUBSCHEMAS = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})
# Keywords whose value is instance data, where `$id` and `$ref` are ordinary keys.
_DATA_KEYWORDS = frozenset({"const", "enum", "default", "examples"})


def depends_on_base(node: Any, *, named: bool = False) -> bool:
    """True when the schema has an explicit `$id` or a reference that is not schema-local:
    its meaning depends on the base URI, which a new root `$id` would change."""
    if isinstance(node, list):
        return any(depends_on_base(v) for v in node)
    if not isinstance(node, dict):
        return False
    if not named:
        if isinstance(node.get("$id"), str):
            return True
        ref = node.get("$ref")
        if isinstance(ref, str) and not ref.startswith("#"):
            return True
    return any(
        depends_on_base(v, named=not named and k in _NAMED_SUBSCHEMAS)
        for k, v in node.items()
        if named or k not in _DATA_KEYWORDS
    )


def bind_id(schema: Mapping[str, Any]) -> dict[str, Any]:
    """A self-contained output schema with a `$id` bound to its own content (dialect included).

    Contract C50: an explicit `$id`, and any reference resolved against the base URI
    (a relative or external `$ref`, a nested `$id`), is preserved: such a schema keeps
    its identifiers untouched and gets no content-bound id. Only a stale content-bound
    id of our own is replaced."""
    current = schema.get("$id")
    body = {k: v for k, v in schema.items() if k != "$id"}
    stale = isinstance(current, str) and current.startswith(CONTENT_ID_PREFIX)
    if (current is not None and not stale) or depends_on_base(body):
        return {"$schema": DIALECT, **schema}
    body.setdefault("$schema", DIALECT)  # the declared dialect is part of the bound content
    return {**body, "$id": f"{CONTENT_ID_PREFIX}{canonical_sha256(body)}"}


def session_output(result: Mapping[str, Any]) -> dict[str, Any]:
    return bind_id(obj({"result": result}, ("result",)))


def _refs(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str):
            yield ref
        for value in node.values():
            yield from _refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from _refs(value)


def _definitions(schema: Mapping[str, Any]) -> dict[str, Any]:
    return {f"#/$defs/{k}": v for k, v in schema.get("$defs", {}).items()}


def advertisement_problems(schema: Mapping[str, Any]) -> list[str]:
    """Rules for advertised schemas: an object root, no root $ref or union,
    no reachable recursive reference."""
    problems = []
    if schema.get("type") != "object":
        problems.append("root is not type object")
    for key in ("$ref", "anyOf", "oneOf", "allOf"):
        if key in schema:
            problems.append(f"root carries {key}")
    defs = _definitions(schema)
    for ref in _refs(schema):
        if ref.startswith("#/$defs/") and ref not in defs:
            problems.append(f"unresolved reference {ref}")

    def visit(ref: str, stack: tuple[str, ...]) -> None:
        if ref in stack:
            problems.append(f"recursive reference {' -> '.join(stack + (ref,))}")
            return
        for inner in _refs(defs.get(ref, {})):
            visit(inner, stack + (ref,))

    for ref in set(_refs(schema)):
        visit(ref, ())
    return sorted(set(problems))


COMPACT_INPUT_BUDGET = 13_312
_ANNOTATION_KEYS = ("description", "examples", "default", "title")
_NAMED_KEYS = ("properties", "patternProperties", "$defs", "dependentSchemas")


def compact_input(schema: Mapping[str, Any]) -> dict[str, Any]:
    """The compact input profile: annotation prose dropped below the root (the root keeps its
    description, which states the accepted input groups) and schema-local references inlined, because
    Kimi Code expands them before the provider measures the schema. A schema whose validation structure
    alone still exceeds the budget is advertised reduced (`reduced_input`); the server validates every
    call against the canonical schema either way."""

    def strip(node: Any) -> Any:
        if isinstance(node, dict):
            return {k: named(v) if k in _NAMED_KEYS else strip(v) for k, v in node.items() if k not in _ANNOTATION_KEYS}
        if isinstance(node, list):
            return [strip(v) for v in node]
        return node

    def named(node: Any) -> Any:
        """A map of names to schemas: a property may be called `title` or `description`; only its schema is prose."""
        return {k: strip(v) for k, v in node.items()} if isinstance(node, dict) else strip(node)

    inlined = inline_refs(schema, COMPACT_INPUT_BUDGET)
    if inlined is None:
        return reduced_input(schema)
    body: dict[str, Any] = strip(inlined)
    if "description" in schema:
        body["description"] = schema["description"]
    return body if len(canonical(body)) <= COMPACT_INPUT_BUDGET else reduced_input(schema)


def _dereferenced(node: dict[str, Any], defs: Mapping[str, Any]) -> dict[str, Any] | None:
    """A `#/$defs/...` reference merged with its definition (its sibling keywords kept), or None when the
    node is not a schema-local reference."""
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/") and ref[8:] in defs:
        return {**defs[ref[8:]], **{k: v for k, v in node.items() if k != "$ref"}}
    return None


class _OverBudget(Exception):
    """Inlining passed the budget: stop before building the oversized presentation."""


def inline_refs(schema: Mapping[str, Any], budget: int) -> dict[str, Any] | None:
    """The schema with every `#/$defs/...` reference replaced by its definition (as a client that expands
    references sees it), or None once the expansion's text passes `budget` bytes (checked as it grows, so
    a schema that expands exponentially is never built)."""
    defs = dict(schema.get("$defs", {}))
    spent = [0]

    def expand(node: Any) -> Any:
        if isinstance(node, list):
            return [expand(v) for v in node]
        if not isinstance(node, dict):
            return node
        resolved = _dereferenced(node, defs)
        if resolved is not None:
            node = resolved
            spent[0] += len(canonical(node))
            if spent[0] > budget * 4:  # annotations are stripped afterwards; far past even that: give up
                raise _OverBudget
        return {k: expand(v) for k, v in node.items() if k != "$defs"}

    try:
        return expand(dict(schema)) if defs else dict(schema)
    except _OverBudget:
        return None


def _types(node: Any, defs: Mapping[str, Any]) -> dict[str, Any]:
    """One property reduced to its JSON types (union alternatives kept, references resolved, constants and
    small enumerations kept); nested validation detail is elided."""
    if not isinstance(node, dict):
        return {}
    resolved = _dereferenced(node, defs)
    if resolved is not None:
        return _types(resolved, defs)
    for key in ("anyOf", "oneOf"):
        if isinstance(node.get(key), list):
            alternatives: list[dict[str, Any]] = []
            for sub in node[key]:
                reduced = _types(sub, defs)
                if reduced not in alternatives:
                    alternatives.append(reduced)
            return {"anyOf": alternatives} if len(alternatives) > 1 else (alternatives[0] if alternatives else {})
    out: dict[str, Any] = {}
    for key in ("type", "const"):
        if key in node:
            out[key] = node[key]
    if isinstance(node.get("enum"), list) and len(canonical(node["enum"])) <= 512:
        out["enum"] = node["enum"]
    return out


def reduced_input(schema: Mapping[str, Any]) -> dict[str, Any]:
    """The reduced advertisement of a schema whose structure alone exceeds the compact budget: property
    names, their resolved types (with union alternatives), first-level guidance (each property's own
    description) and the root's required fields. Malformed nested input is refused by the canonical
    schema on the server with the typed error, so nothing is silently accepted."""
    defs = schema.get("$defs", {})
    properties = {}
    for name, sub in schema.get("properties", {}).items():
        reduced = _types(sub, defs)
        if isinstance(sub, dict) and isinstance(sub.get("description"), str):
            reduced["description"] = sub["description"]
        properties[name] = reduced
    body = {k: schema[k] for k in ("$schema", "type", "required", "additionalProperties") if k in schema}
    body["properties"] = properties
    if "description" in schema:
        body["description"] = schema["description"]
    if len(canonical(body)) > COMPACT_INPUT_BUDGET:  # the guidance itself is too long: names and types only
        body["properties"] = {n: {k: v for k, v in p.items() if k != "description"} for n, p in properties.items()}
    return body


def canonical(node: Any) -> str:
    return json.dumps(node, sort_keys=True, separators=(",", ":"))


def evidence_output(normalized_result: Mapping[str, Any] | None = None, operation: str | None = None) -> dict[str, Any]:
    """Output schema of a tool whose structuredContent is one Evidence v2 record: the envelope's own
    schema (`rea.evidence.ENVELOPE`), with the tool's result and, for an Evidence tool, its operation."""
    properties = {f.name: copy.deepcopy(dict(f.schema)) for f in ENVELOPE}
    if operation:
        properties["operation"] = {"const": operation}
    if normalized_result is not None:
        properties["normalized_result"] = dict(normalized_result)
    return bind_id(obj(properties, tuple(properties)))
