"""A record whose reply keys keep an order older than its fields.

A result built as its wire record sends its fields in field order, which is the advertised schema's (the
catalog's bytes). For a few results REA sent the keys in another order before they were records; those
declare `__wire__ = sent_in((...))` so that making them records changes neither the schema nor the reply.
The artifact inventory's graph records use it too, one call per member: hence the fast path for scalars.
"""

from __future__ import annotations

import functools
import operator
import types
import typing
from collections.abc import Callable
from typing import Any, Literal

_SCALARS = frozenset({str, int, float, bool, type(None)})


def sent_in(order: tuple[str, ...]) -> Callable[[Any], dict[str, object]]:
    """A `__wire__` that sends the record's fields in `order` (every field, each once), each as to_wire sends
    it. The fields are read in one attrgetter call and those declared as JSON scalars sent as read, so only
    the others (a nested record, a tuple) cost a to_wire call: an inventory of thousands of members stays in
    its time budget (tests/benchmarks/bench_artifacts.py)."""
    get = operator.attrgetter(*order)
    read = get if len(order) > 1 else lambda self: (get(self),)  # one name: attrgetter gives the bare value
    plans: dict[type, tuple[str, ...]] = {}  # per record class: the fields of `order` that are not scalars

    def wire(self: Any) -> dict[str, object]:
        kind = type(self)
        nested = plans.get(kind)
        if nested is None:
            nested = plans[kind] = _not_scalar(kind, order)
        out: dict[str, object] = dict(zip(order, read(self), strict=True))
        for key in nested:
            value = out[key]
            if type(value) is tuple:
                out[key] = [v if type(v) in _SCALARS else _converter()(v) for v in value]
            elif type(value) not in _SCALARS:
                out[key] = _converter()(value)
        return out

    wire.order = order  # type: ignore[attr-defined]  # read by tests/core/test_wire.py: every field, each once
    return wire


@functools.cache
def _converter() -> Callable[[Any], Any]:
    """to_wire, imported on first use: records declare sent_in without loading the converter (and cattrs)."""
    from rea.wire.convert import to_wire

    return to_wire


def _not_scalar(cls: type, order: tuple[str, ...]) -> tuple[str, ...]:
    """The fields of `order` whose declared type may hold more than a JSON scalar."""
    hints = typing.get_type_hints(cls)
    return tuple(name for name in order if not _scalar_type(hints[name]))


def _scalar_type(hint: Any) -> bool:
    """A JSON scalar type, a Literal of scalars, or a union of those (`str | None`)."""
    origin = typing.get_origin(hint)
    if origin is Literal:
        return True
    if origin in (typing.Union, types.UnionType):
        return all(_scalar_type(arg) for arg in typing.get_args(hint))
    return hint in _SCALARS
