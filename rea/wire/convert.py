"""The one strict converter between wire JSON and typed records.

Inbound: arguments already checked against the derived schema are structured
into the tool's argument record (cattrs, unknown keys rejected), which fills
every default from the one place it is written. Outbound: records become plain
JSON trees (`to_wire`), dropping `omit_none` fields that are None, `absent` fields
the caller did not send, and turning
tuples into lists, so canonical JSON and orjson see the same value.
"""

from __future__ import annotations

import functools
import types
import typing
from collections.abc import Mapping
from typing import Any

import attrs
import cattrs
from returns.result import Failure, Result, Success

from rea.errors import ReaError, invalid_request
from rea.wire.schema import ABSENT, wire_name, wire_of

CONVERTER = cattrs.Converter(forbid_extra_keys=True, prefer_attrib_converters=False)


def _null(value: Any, _: type) -> None:
    """A field typed `None` (a fact the contract fixes as null) takes null and nothing else."""
    if value is not None:
        raise ValueError(f"expected null, got {type(value).__name__}")
    return None


_SCALAR_TYPES = frozenset({str, int, float, bool, type(None)})


def _scalar_union(cls: Any) -> bool:
    return typing.get_origin(cls) in (typing.Union, types.UnionType) and set(typing.get_args(cls)) <= _SCALAR_TYPES


def _scalar(value: Any, cls: Any) -> Any:
    """A union of JSON scalars (`str | float | bool | None`) takes a value of one of them as it is."""
    allowed = typing.get_args(cls)
    if type(value) in allowed or (type(value) is int and float in allowed):
        return value
    raise ValueError(f"expected one of {', '.join(t.__name__ for t in allowed)}, got {type(value).__name__}")


CONVERTER.register_structure_hook(type(None), _null)
CONVERTER.register_structure_hook_func(_scalar_union, _scalar)


_SCALARS = (str, int, float, bool, type(None))
_EXACT_SCALARS = frozenset(_SCALARS)  # the common case, checked by exact type before isinstance


@functools.cache
def _plan(cls: type) -> tuple[tuple[str, str, bool], ...] | None:
    """(attribute, JSON key, omit when None) per field of a record class; None for anything else."""
    if not attrs.has(cls):
        return None
    return tuple((a.name, wire_name(a), wire_of(a).omit_none) for a in attrs.fields(cls))


@functools.cache
def _hooked(cls: type) -> bool:
    """Whether a type writes its own wire form (`__wire__`)."""
    return hasattr(cls, "__wire__")


def to_wire(value: Any) -> Any:
    """A JSON tree of a record, tuple, mapping or scalar. Scalars inside records and sequences are taken
    as they are without a call (results of thousands of small records stay cheap to send)."""
    kind = type(value)
    if kind in _EXACT_SCALARS or isinstance(value, _SCALARS):
        return value
    if kind is dict:
        return {k: v if type(v) in _EXACT_SCALARS else to_wire(v) for k, v in value.items()}
    if _hooked(kind):  # type: ignore[arg-type]
        return value.__wire__()
    plan = _plan(kind)  # type: ignore[arg-type]
    if plan is not None:
        out: dict[str, Any] = {}
        for name, key, omit_none in plan:
            item = getattr(value, name)
            if item is ABSENT or (item is None and omit_none):
                continue
            out[key] = item if type(item) in _EXACT_SCALARS else to_wire(item)
        return out
    if isinstance(value, (tuple, list)):
        return [v if type(v) in _EXACT_SCALARS else to_wire(v) for v in value]
    if isinstance(value, Mapping):
        return {k: v if type(v) in _EXACT_SCALARS else to_wire(v) for k, v in value.items()}
    return value


def structure(args: Mapping[str, Any], cls: type) -> Result[Any, ReaError]:
    """The argument record, or invalid_request naming the first field cattrs refused."""
    try:
        return Success(CONVERTER.structure(dict(args), cls))
    except (cattrs.BaseValidationError, cattrs.ForbiddenExtraKeysError, TypeError, ValueError) as exc:
        notes = cattrs.transform_error(exc) if isinstance(exc, cattrs.BaseValidationError) else [str(exc)]
        return Failure(
            invalid_request(
                f"arguments do not fit {cls.__name__}: {notes[0]}",
                field="arguments",
                accepted="arguments matching the advertised input schema",
            )
        )


def _number(value: Any, _: type) -> Any:
    """A JSON number as it is (the int 1000 stays the int it was sent or filled in as)."""
    if type(value) not in (int, float):
        raise ValueError(f"expected a number, got {type(value).__name__}")
    return value


# The gate of a @typed program (rea.workflows.typed_entry) structures arguments that `with_defaults` already
# filled: that second pass keeps each number as the JSON holds it, so `to_wire(args)` stays byte for byte the
# mapping (a float argument whose default is written as an int, such as max_compression_ratio's 1000, would
# otherwise come back as 1000.0).
EXACT = CONVERTER.copy()
EXACT.register_structure_hook(float, _number)


def restructure(filled: Mapping[str, Any], cls: type) -> Result[Any, ReaError]:
    """The argument record of arguments `with_defaults` filled, every value as the JSON holds it."""
    try:
        return Success(EXACT.structure(dict(filled), cls))
    except (cattrs.BaseValidationError, cattrs.ForbiddenExtraKeysError, TypeError, ValueError):
        return structure(filled, cls)  # the one wording of a refusal


def with_defaults(args: Mapping[str, Any], cls: type) -> Result[dict[str, Any], ReaError]:
    """The caller's arguments with every default filled in, as JSON (what programs read)."""
    return structure(args, cls).map(to_wire)
