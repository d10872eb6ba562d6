"""A record whose reply keys keep an order older than its fields.

A result built as its wire record sends its fields in field order, which is the advertised schema's (the
catalog's bytes). For a few results REA sent the keys in another order before they were records; those
declare `__wire__ = sent_in((...))` so that making them records changes neither the schema nor the reply.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def sent_in(order: tuple[str, ...]) -> Callable[[Any], dict[str, object]]:
    """A `__wire__` that sends the record's fields in `order` (every field, each once)."""

    def wire(self: Any) -> dict[str, object]:
        from rea.wire.convert import to_wire  # convert reads __wire__, so it is imported when one is called

        return {key: to_wire(getattr(self, key)) for key in order}

    wire.order = order  # type: ignore[attr-defined]  # read by tests/core/test_wire.py: every field, each once
    return wire
