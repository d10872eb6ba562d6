"""Surgical edits of a JSON document's text: one member set or removed, every other byte kept.

The document is first parsed by `json` (so the text is known valid); a small walker then finds
the spans of an object's members with `JSONDecoder.raw_decode`. Edits are splices, so they can
be found in a JSONC file's blanked view (`rea.jsonc.blank`, same offsets) and applied to the
file itself with its comments. An insert goes after the last
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


# (start, end, replacement): one edit, found in a text's view and applied to the text itself
Splice = tuple[int, int, str]


def apply(text: str, splice: Splice) -> str:
    start, end, new = splice
    return text[:start] + new + text[end:]


def set_splice(text: str, obj: ObjectSpan, key: str, value: Any) -> Splice:
    """The edit making `obj[key] = value`: the old value's span replaced, or a member appended."""
    unit = _unit(text)
    found = obj.find(key)
    if found:
        member = found[-1]
        indent = _line_indent(text, member.key_start)
        return member.value_start, member.value_end, value_text(value, indent=indent, unit=unit)
    if obj.members:
        last = obj.members[-1]
        indent = _line_indent(text, last.key_start)
        sep = ", " if indent is None else ",\n" + indent
        member_text = f"{sep}{json.dumps(key, ensure_ascii=False)}: {value_text(value, indent=indent, unit=unit)}"
        return last.value_end, last.value_end, member_text
    outer = _line_indent(text, obj.start)
    return obj.start, obj.end, value_text({key: value}, indent=outer if outer is not None else "", unit=unit)


def remove_splice(obj: ObjectSpan, key: str) -> Splice:
    """The edit removing `obj[key]`: the inverse of the append `set_splice` makes."""
    index = next(i for i, m in enumerate(obj.members) if m.key == key)
    members = obj.members
    if len(members) == 1:
        return obj.start, obj.end, "{}"
    if index > 0:
        return members[index - 1].value_end, members[index].value_end, ""
    return members[0].key_start, members[1].key_start, ""
