"""JSON Schema derived from typed wire records: the one source of a tool's shapes.

A tool's arguments and its result are frozen attrs records (or plain types such
as `str`, `tuple[Row, ...]`, `str | None`). Their advertised schemas are a pure
function of those types and of the `wire` metadata on each field, so the schema,
the defaults and the CLI flags cannot disagree with the code that builds values.

Rules (an h11-style table would add nothing; they are few):
- `str int float bool None` map to their JSON types; `Literal[...]` to an enum
  (or `const` for one value); `X | None` to anyOf with null.
- `tuple[X, ...]` and `list[X]` to arrays; `Mapping[str, X]` to an object whose
  values are X; an attrs record to a closed object.
- In an input record a field is required when it has no default, and its default
  is advertised. In an output record every field is required, except fields marked
  `omit_none`, which are absent (not null) when None.
- An input field marked `absent` may be omitted, and omitting it differs from sending
  null (a partial update keeps what was there; null sets null): its default is the
  `ABSENT` marker, never advertised and never sent on.
- `Open` is the one untyped node: it must say what it holds (a description), so an
  untyped result cannot slip in unnoticed (see `untyped_nodes`).
"""

from __future__ import annotations

import enum
import types
import typing
from collections import abc
from collections.abc import Iterator, Mapping
from typing import Any, Literal, Union

import attrs

from rea.local_paths import LOCAL_PATH_PATTERN

SAFE_INT_MAX = 2**53 - 1


class Role(enum.Enum):
    INPUT = "input"
    OUTPUT = "output"


@attrs.frozen(kw_only=True)
class Wire:
    """Per-field wire facts: prose, constraints, and whether None (or `ABSENT`) means absent."""

    description: str = ""
    omit_none: bool = False
    absent: bool = False
    constraints: Mapping[str, Any] = attrs.field(factory=dict)
    # a literal schema for this field (used sparingly, for shapes types cannot say)
    schema: Mapping[str, Any] | None = None
    # the CLI may skip fields it cannot express as a flag
    cli: bool = True
    # an output key no Python parameter may carry (`as`); input records use `alias` instead
    key: str | None = None


class _Absent:
    """The default of an `absent` input field: the caller did not send it."""

    _instance: _Absent | None = None

    def __new__(cls) -> _Absent:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "ABSENT"

    def __bool__(self) -> bool:
        return False


ABSENT: Any = _Absent()


def field(
    description: str = "",
    *,
    default: Any = attrs.NOTHING,
    factory: Any = None,
    omit_none: bool = False,
    absent: bool = False,
    schema: Mapping[str, Any] | None = None,
    cli: bool = True,
    alias: str | None = None,
    key: str | None = None,
    **constraints: Any,
) -> Any:
    """An attrs field carrying its wire facts; `constraints` are JSON Schema keywords
    (minimum, maximum, pattern, minLength, maxLength, minItems, maxItems, uniqueItems).
    `absent=True` makes an optional input whose omission is kept apart from null."""
    meta = {
        "wire": Wire(
            description=description,
            omit_none=omit_none,
            absent=absent,
            constraints=constraints,
            schema=schema,
            cli=cli,
            key=key,
        )
    }
    if absent:
        return attrs.field(default=ABSENT, metadata=meta, alias=alias)
    if factory is not None:
        return attrs.field(factory=factory, metadata=meta, alias=alias)
    if omit_none and default is attrs.NOTHING:
        default = None
    return attrs.field(default=default, metadata=meta, alias=alias)


def local_path(description: str, **options: Any) -> Any:
    """A host path argument: advertised and enforced by the one rule of `rea.local_paths` (the pattern refuses
    a relative path and control or bidirectional-override characters, and the refusal says which)."""
    return field(
        f"{description} (absolute)",
        pattern=LOCAL_PATH_PATTERN,
        minLength=1,
        maxLength=16384,
        **options,
    )


class _OpenMarker:
    """Typing marker for an untyped JSON node; use `Open` in annotations."""


Open = typing.Annotated[Any, _OpenMarker]
"""Any JSON value, for payloads that are open by contract (inline Evidence, a view's
selected item, provider parameters). Each use carries a field description."""


def wire_of(attribute: attrs.Attribute[Any]) -> Wire:
    found = attribute.metadata.get("wire")
    return found if isinstance(found, Wire) else Wire()


def wire_name(attribute: attrs.Attribute[Any]) -> str:
    """The JSON key: attrs' alias when set (for keys that are Python keywords), else the name."""
    key = wire_of(attribute).key
    if key is not None:
        return key
    alias = attribute.alias
    return alias if alias and alias != attribute.name.lstrip("_") else attribute.name


def _is_open(tp: Any) -> bool:
    return typing.get_origin(tp) is typing.Annotated and _OpenMarker in typing.get_args(tp)[1:]


def _strip_none(tp: Any) -> tuple[Any, bool]:
    """(type without None, whether None was a member)."""
    origin = typing.get_origin(tp)
    if origin in (Union, types.UnionType):
        members = [a for a in typing.get_args(tp) if a is not type(None)]
        has_none = len(members) != len(typing.get_args(tp))
        if len(members) == 1:
            return members[0], has_none
        return Union[tuple(members)], has_none  # noqa: UP007 (built at run time)
    return tp, False


def _literal(values: tuple[Any, ...]) -> dict[str, Any]:
    kinds = {type(v) for v in values}
    json_type = {str: "string", int: "integer", bool: "boolean"}.get(next(iter(kinds))) if len(kinds) == 1 else None
    if len(values) == 1:
        return {"const": values[0], **({"type": json_type} if json_type else {})}
    return {**({"type": json_type} if json_type else {}), "enum": list(values)}


def schema_of(tp: Any, role: Role = Role.OUTPUT) -> dict[str, Any]:
    """The JSON Schema of a wire type."""
    if _is_open(tp):  # open by contract; a field's own description replaces this one
        return {"description": "Any JSON value (open by contract)"}
    if tp is Any:
        return {}
    if typing.get_origin(tp) is typing.Annotated:
        return schema_of(typing.get_args(tp)[0], role)
    if tp is type(None) or tp is None:
        return {"type": "null"}
    if tp is str:
        return {"type": "string"}
    if tp is bool:
        return {"type": "boolean"}
    if tp is int:
        return {"type": "integer", "minimum": -SAFE_INT_MAX, "maximum": SAFE_INT_MAX}
    if tp is float:
        return {"type": "number"}
    origin = typing.get_origin(tp)
    if origin is Literal:
        return _literal(typing.get_args(tp))
    if origin in (Union, types.UnionType):
        inner, has_none = _strip_none(tp)
        members = typing.get_args(inner) if typing.get_origin(inner) in (Union, types.UnionType) else (inner,)
        schemas = [schema_of(m, role) for m in members] + ([{"type": "null"}] if has_none else [])
        return schemas[0] if len(schemas) == 1 else {"anyOf": schemas}
    if origin in (tuple, list, abc.Sequence):
        args = typing.get_args(tp)
        item = args[0] if args else Any
        return {"type": "array", "items": schema_of(item, role)}
    if origin in (dict, abc.Mapping):
        args = typing.get_args(tp)
        value = args[1] if len(args) == 2 else Any
        return {"type": "object", "additionalProperties": schema_of(value, role)}
    if hasattr(tp, "__wire_schema__"):  # a shape typing cannot say (e.g. depth-keyed maps)
        return dict(tp.__wire_schema__(role))
    if attrs.has(tp):
        return record_schema(tp, role)
    raise TypeError(f"no wire schema for {tp!r}")


def _field_schema(attribute: attrs.Attribute[Any], tp: Any, role: Role) -> dict[str, Any]:
    meta = wire_of(attribute)
    if meta.schema is not None:
        body = dict(meta.schema)
    else:
        inner, has_none = _strip_none(tp)
        if meta.omit_none and has_none:
            body = schema_of(inner, role)
        else:
            body = schema_of(tp, role)
    if meta.constraints:
        target = body
        if "anyOf" in body and not meta.omit_none:  # constraints apply to the non-null member
            target = next((s for s in body["anyOf"] if s.get("type") != "null"), body)
        target.update(meta.constraints)
    if meta.description:
        body["description"] = meta.description
    default = attribute.default
    if role is Role.INPUT and default is not attrs.NOTHING and not meta.omit_none and not meta.absent:
        factory = getattr(default, "factory", None)  # an attrs Factory: its product is the default
        body["default"] = _json_default(factory() if callable(factory) else default)
    return body


def _json_default(value: Any) -> Any:
    from rea.wire.convert import to_wire

    return to_wire(value)


def _required(attribute: attrs.Attribute[Any], role: Role) -> bool:
    meta = wire_of(attribute)
    if role is Role.INPUT:
        return attribute.default is attrs.NOTHING
    return not meta.omit_none


def record_schema(cls: type, role: Role = Role.OUTPUT) -> dict[str, Any]:
    """A closed object schema of an attrs record."""
    hints = typing.get_type_hints(cls, include_extras=True)
    properties: dict[str, Any] = {}
    required: list[str] = []
    for attribute in attrs.fields(cls):
        name = wire_name(attribute)
        properties[name] = _field_schema(attribute, hints[attribute.name], role)
        if _required(attribute, role):
            required.append(name)
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    schema["additionalProperties"] = False
    return schema


def untyped_nodes(schema: Any, path: str = "") -> Iterator[str]:
    """JSON paths of nodes that accept anything without saying what: `{}` or a bare
    `{"type": "object"}` with no properties. An `Open` field with a description is allowed."""
    if isinstance(schema, dict):
        keys = set(schema) - {"description", "title", "examples", "default", "$comment"}
        if not keys and "description" not in schema:
            yield path or "/"
        if (
            schema.get("type") == "object"
            and "properties" not in schema
            and "additionalProperties" not in schema
            and "description" not in schema
        ):
            yield path or "/"
        for key, value in schema.items():
            if key in ("properties", "$defs"):
                for name, sub in value.items():
                    yield from untyped_nodes(sub, f"{path}/{name}")
            elif key in ("items", "additionalProperties") and isinstance(value, dict):
                yield from untyped_nodes(value, f"{path}/{key}")
            elif key in ("anyOf", "oneOf", "allOf"):
                for index, sub in enumerate(value):
                    yield from untyped_nodes(sub, f"{path}/{key}[{index}]")
