"""The public API as text: one line per public name with its signature, the stability snapshot's content.

docs/public/library-api.txt holds these lines as released; tests/core/test_library_api.py
fails when a name disappears or its signature changes until CHANGELOG.md says so and
the snapshot is rewritten.
"""

from __future__ import annotations

import inspect
import types
import typing
from typing import Any, Literal

import attrs

_PLAIN = (str, int, float, bool, type(None))


def _default(value: Any) -> str:
    if value is attrs.NOTHING:
        return ""
    return f" = {value!r}" if isinstance(value, _PLAIN) else " = ..."


def type_text(hint: Any) -> str:
    """A resolved annotation as stable text: `str | None`, `tuple[Change, ...]`, `Literal['a']` (resolution
    drops `Annotated`, so an open payload reads `Any`)."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is Any:
        return "Any"
    if hint is type(None) or hint is None:
        return "None"
    if hint is Ellipsis:
        return "..."
    if origin in (typing.Union, types.UnionType):
        return " | ".join(type_text(a) for a in args)
    if origin is Literal:
        return f"Literal[{', '.join(repr(a) for a in args)}]"
    if origin is not None:
        return f"{getattr(origin, '__qualname__', str(origin))}[{', '.join(type_text(a) for a in args)}]"
    return getattr(hint, "__qualname__", str(hint))


def _record(cls: type) -> str:
    """Fields by resolved type, so the text does not depend on whether anything resolved them before."""
    resolved = attrs.resolve_types(cls)
    fields = ", ".join(f"{a.name}: {type_text(a.type)}{_default(a.default)}" for a in attrs.fields(resolved))
    return f"record {cls.__module__}.{cls.__qualname__}({fields})"


def describe(value: Any) -> str:
    """A name's stable description: records by their fields, functions by their signature, aliases by their text."""
    if isinstance(value, type) and attrs.has(value):
        return _record(value)
    if inspect.isfunction(value):
        return f"function {value.__module__}.{value.__qualname__}{inspect.signature(value)}"
    return f"alias {value}"


def public_signatures() -> dict[str, str]:
    """Every name of `rea.__all__` -> its description."""
    import rea

    return {name: describe(getattr(rea, name)) for name in rea.__all__}


def snapshot_text(signatures: dict[str, str]) -> str:
    return "".join(f"{name}: {text}\n" for name, text in sorted(signatures.items()))


def parse_snapshot(text: str) -> dict[str, str]:
    return dict(line.split(": ", 1) for line in text.splitlines() if line.strip())
