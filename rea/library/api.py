"""The public API as text: one line per public name with its signature, the stability snapshot's content.

docs/public/library-api.txt holds these lines as released; tests/test_library_api.py
fails when a name disappears or its signature changes until CHANGELOG.md says so and
the snapshot is rewritten.
"""

from __future__ import annotations

import inspect
from typing import Any

import attrs


_PLAIN = (str, int, float, bool, type(None))


def _default(value: Any) -> str:
    if value is attrs.NOTHING:
        return ""
    return f" = {value!r}" if isinstance(value, _PLAIN) else " = ..."


def _record(cls: type) -> str:
    fields = ", ".join(f"{a.name}: {a.type}{_default(a.default)}" for a in attrs.fields(cls))
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
