"""JSON Schema node builders with no dependencies of their own.

They sit below both the catalog and the records it advertises, so a record that owns
its wire shape (the Evidence envelope in `rea.evidence`) can declare its schema beside
its parser without importing the catalog that imports it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def string(description: str, **extra: Any) -> dict[str, Any]:
    return {"type": "string", "description": description, **extra}


def nullable(schema: Mapping[str, Any]) -> dict[str, Any]:
    return {"anyOf": [dict(schema), {"type": "null"}]}


def obj(
    properties: Mapping[str, Any], required: tuple[str, ...] = (), *, closed: bool = True, **extra: Any
) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": dict(properties)}
    if required:
        schema["required"] = list(required)
    if closed:
        schema["additionalProperties"] = False
    schema.update(extra)
    return schema


def array(items: Mapping[str, Any], **extra: Any) -> dict[str, Any]:
    return {"type": "array", "items": dict(items), **extra}
