"""Surgical edits of a JSON document's text: one member set or removed, every other byte kept.

The document is first parsed by `json` (so the text is known valid); a small walker then finds
the spans of an object's members with `JSONDecoder.raw_decode`. An insert goes after the last
member in that member's layout (same line or its own line at the same indent), and a removal
deletes exactly the span an insert adds, so add-then-remove gives back the original bytes.
"""

from __future__ import annotations

import json
import re
from typing import Any

import attrs

_DECODER = json.JSONDecoder()
_WHITESPACE = re.compile(r"[ \t\n\r]*")


@attrs.frozen
class Member:
    key: str
    key_start: int
    value_start: int
    value_end: int


@attrs.frozen
class ObjectSpan:
    start: int  # the "{"
    end: int  # just after the "}"
    members: tuple[Member, ...]

    def find(self, key: str) -> list[Member]:
        return [m for m in self.members if m.key == key]


def _skip(text: str, index: int) -> int:
    match = _WHITESPACE.match(text, index)
    return match.end() if match else index


def object_at(text: str, start: int) -> ObjectSpan:
    """The members of the (already validated) object whose "{" is at `start`."""
    index = _skip(text, start + 1)
    members: list[Member] = []
    if text[index] == "}":
        return ObjectSpan(start, index + 1, ())
    while True:
        key, after_key = _DECODER.raw_decode(text, index)
        value_start = _skip(text, _skip(text, after_key) + 1)  # past the ":"
        _, value_end = _DECODER.raw_decode(text, value_start)
        members.append(Member(key, index, value_start, value_end))
        index = _skip(text, value_end)
        if text[index] == "}":
            return ObjectSpan(start, index + 1, tuple(members))
        index = _skip(text, index + 1)  # past the ","


def root(text: str) -> ObjectSpan:
    return object_at(text, _skip(text, 0))


def _line_indent(text: str, index: int) -> str | None:
    """The whitespace before `index` on its line, or None when something else precedes it there."""
    line_start = text.rfind("\n", 0, index) + 1
    prefix = text[line_start:index]
    return prefix if prefix.strip() == "" else None


def _unit(text: str) -> str:
    """The document's indent step: the first member's indent, else two spaces."""
    top = root(text)
    if top.members:
        indent = _line_indent(text, top.members[0].key_start)
        if indent:
            return indent
    return "  "


def value_text(value: Any, *, indent: str | None, unit: str) -> str:
    """`value` as JSON at a member whose line is indented by `indent` (None: all on one line)."""
    if indent is None:
        return json.dumps(value, ensure_ascii=False)
    return json.dumps(value, ensure_ascii=False, indent=unit).replace("\n", "\n" + indent)


def set_member(text: str, obj: ObjectSpan, key: str, value: Any) -> str:
    """The text with `obj[key] = value`: the old value's span replaced, or a member appended."""
    unit = _unit(text)
    found = obj.find(key)
    if found:
        member = found[-1]
        indent = _line_indent(text, member.key_start)
        new = value_text(value, indent=indent, unit=unit)
        return text[: member.value_start] + new + text[member.value_end :]
    if obj.members:
        last = obj.members[-1]
        indent = _line_indent(text, last.key_start)
        sep = ", " if indent is None else ",\n" + indent
        member_text = f"{sep}{json.dumps(key, ensure_ascii=False)}: {value_text(value, indent=indent, unit=unit)}"
        return text[: last.value_end] + member_text + text[last.value_end :]
    outer = _line_indent(text, obj.start)
    body = value_text({key: value}, indent=outer if outer is not None else "", unit=unit)
    return text[: obj.start] + body + text[obj.end :]


def remove_member(text: str, obj: ObjectSpan, key: str) -> str:
    """The text without `obj[key]`: the inverse of the append `set_member` makes."""
    index = next(i for i, m in enumerate(obj.members) if m.key == key)
    members = obj.members
    if len(members) == 1:
        return text[: obj.start] + "{}" + text[obj.end :]
    if index > 0:
        return text[: members[index - 1].value_end] + text[members[index].value_end :]
    return text[: members[0].key_start] + text[members[1].key_start :]
