"""The REA entry written into, or removed from, one config document's text.

JSON and JSONC go through `json_edit` as splices found in the document's view (the text
itself, or for JSONC its offset-keeping blanked form) and applied to the text, so every other
byte, comments included, is kept; TOML through tomlkit, which keeps comments, order and
layout. Each function returns the new text or why it refuses.
"""

from __future__ import annotations

import json

import attrs
import tomlkit
import tomlkit.items

from rea import jsonc
from rea.registrations import JSONC_FORMATS, SERVER_KEY, SERVERS_KEY, entry_value, snippet
from rea.setup import json_edit


@attrs.frozen
class _Json:
    """A JSON(C) document: its text and the view its spans are read from (same offsets)."""

    text: str
    view: str

    @classmethod
    def of(cls, fmt: str, text: str) -> _Json:
        return cls(text, jsonc.blank(text) if fmt in JSONC_FORMATS else text)

    def edit(self, splice: json_edit.Splice) -> _Json:
        return _Json(json_edit.apply(self.text, splice), json_edit.apply(self.view, splice))

    def servers(self, fmt: str) -> json_edit.ObjectSpan | None:
        return _object_member(self.view, json_edit.root(self.view), SERVERS_KEY[fmt])

    def entry(self, fmt: str) -> json_edit.ObjectSpan | None:
        servers = self.servers(fmt)
        return _object_member(self.view, servers, SERVER_KEY) if servers is not None else None


def fresh_text(fmt: str, command: tuple[str, ...]) -> str:
    """A whole new config holding only the REA entry."""
    if fmt == "toml":
        return snippet(fmt, command)
    return json.dumps({SERVERS_KEY[fmt]: {SERVER_KEY: entry_value(fmt, command)}}, ensure_ascii=False, indent=2) + "\n"


def set_entry(fmt: str, text: str, command: tuple[str, ...]) -> str:
    """`text` with REA's entry launching `command`; an existing entry keeps its other keys (env, ...)."""
    return _toml_set(text, command) if fmt == "toml" else _json_set(fmt, _Json.of(fmt, text), command)


def remove_entry(fmt: str, text: str) -> str:
    """`text` without REA's entry."""
    if fmt == "toml":
        document = tomlkit.parse(text)
        servers = document[SERVERS_KEY[fmt]]
        assert isinstance(servers, dict)
        del servers[SERVER_KEY]
        if not servers and isinstance(servers, tomlkit.items.Table) and servers.is_super_table():
            del document[SERVERS_KEY[fmt]]  # the table existed only as REA's parent header
        return tomlkit.dumps(document)
    doc = _Json.of(fmt, text)
    servers = doc.servers(fmt)
    assert servers is not None
    return doc.edit(json_edit.remove_splice(servers, SERVER_KEY)).text


def duplicate_key(fmt: str, text: str) -> str | None:
    """A JSON key REA would edit that appears twice (parsers disagree on which wins), else None."""
    if fmt == "toml":
        return None  # TOML forbids duplicate keys; tomllib has already refused them
    doc = _Json.of(fmt, text)
    key = SERVERS_KEY[fmt]
    if len(json_edit.root(doc.view).find(key)) > 1:
        return key
    servers = doc.servers(fmt)
    if servers is not None and len(servers.find(SERVER_KEY)) > 1:
        return f"{key}.{SERVER_KEY}"
    entry = doc.entry(fmt)
    for field in ("command", "args"):
        if entry is not None and len(entry.find(field)) > 1:
            return f"{key}.{SERVER_KEY}.{field}"
    return None


def _object_member(text: str, obj: json_edit.ObjectSpan, key: str) -> json_edit.ObjectSpan | None:
    """The object `obj[key]` (the last one, as `json` reads it); None when absent or not an object."""
    found = obj.find(key)
    if not found or text[found[-1].value_start] != "{":
        return None
    return json_edit.object_at(text, found[-1].value_start)


def _json_set(fmt: str, doc: _Json, command: tuple[str, ...]) -> str:
    value = entry_value(fmt, command)
    servers = doc.servers(fmt)
    if servers is None:
        top = json_edit.root(doc.view)
        return doc.edit(json_edit.set_splice(doc.view, top, SERVERS_KEY[fmt], {SERVER_KEY: value})).text
    if doc.entry(fmt) is None:
        return doc.edit(json_edit.set_splice(doc.view, servers, SERVER_KEY, value)).text
    for field in ("command", "args"):
        current = doc.entry(fmt)
        assert current is not None
        doc = doc.edit(json_edit.set_splice(doc.view, current, field, value[field]))
    return doc.text


def _toml_set(text: str, command: tuple[str, ...]) -> str:
    document = tomlkit.parse(text)
    key = SERVERS_KEY["toml"]
    value = entry_value("toml", command)
    if key not in document:
        document[key] = tomlkit.table(is_super_table=True)
    servers = document[key]
    assert isinstance(servers, dict)
    if SERVER_KEY in servers:
        entry = servers[SERVER_KEY]
        entry["command"], entry["args"] = value["command"], value["args"]
        return tomlkit.dumps(document)
    table = tomlkit.table()
    table["command"], table["args"] = value["command"], value["args"]
    table.add(tomlkit.nl())
    servers[SERVER_KEY] = table
    return tomlkit.dumps(document)
