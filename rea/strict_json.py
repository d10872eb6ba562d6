"""Strict readers of parsed JSON values: each returns the value it was asked for or raises Reject naming the
JSON path and what was wrong. They never repair or coerce (rea.evidence's strict parse is built from them)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any


class Reject(Exception):
    """A value the strict reader refuses, at its JSON path (the caller turns it into its own error)."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(message)
        self.path = path
        self.message = message


def read_object(
    value: Any, path: str, allowed: frozenset[str] | set[str], required: Sequence[str]
) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise Reject(path, f"expected an object, got {json_kind(value)}")
    unknown = sorted(set(value) - set(allowed))
    if unknown:
        raise Reject(
            f"{path}.{unknown[0]}", f"unsupported field {unknown[0]!r}; accepted fields: {', '.join(sorted(allowed))}"
        )
    for name in required:
        if name not in value:
            raise Reject(f"{path}.{name}", f"required field {name!r} is missing")
    return value


def json_kind(value: Any) -> str:
    return {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}.get(
        type(value), "number" if isinstance(value, (int, float)) else type(value).__name__
    )


def read_string(value: Any, path: str, *, nonempty: bool = True, pattern: re.Pattern[str] | None = None) -> str:
    if not isinstance(value, str) or (nonempty and not value):
        raise Reject(path, f"expected a {'non-empty ' if nonempty else ''}string, got {json_kind(value)}")
    if pattern is not None and not pattern.match(value):
        raise Reject(path, f"{value!r} does not match {pattern.pattern}")
    return value


def read_enum(value: Any, path: str, allowed: Sequence[str]) -> str:
    if value not in allowed or not isinstance(value, str):
        raise Reject(path, f"{value!r} is not one of {', '.join(allowed)}")
    return value


def read_int(value: Any, path: str, minimum: int = 0) -> int:
    if type(value) is not int or value < minimum:
        raise Reject(path, f"expected an integer >= {minimum}, got {value!r}")
    return value


def read_strings(
    value: Any, path: str, pattern: re.Pattern[str] | None = None, nonempty: bool = False
) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise Reject(path, f"expected an array, got {json_kind(value)}")
    return tuple(read_string(v, f"{path}[{i}]", nonempty=nonempty, pattern=pattern) for i, v in enumerate(value))


def read_open_object(value: Any, path: str) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise Reject(path, f"expected an object, got {json_kind(value)}")
    return value
