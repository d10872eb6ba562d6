"""The REA entry written into, or removed from, one config document's text.

JSON goes through `json_edit` (every other byte kept); TOML through tomlkit, which keeps
comments, order and layout. Each function returns the new text or why it refuses.
"""

from __future__ import annotations

import json
from typing import Any

import tomlkit
import tomlkit.items

from rea.registrations import SERVER_KEY, SERVERS_KEY, snippet
from rea.setup import json_edit


def entry_value(command: tuple[str, ...]) -> dict[str, Any]:
    return {"command": command[0], "args": list(command[1:])}


def fresh_text(fmt: str, command: tuple[str, ...]) -> str:
    """A whole new config holding only the REA entry."""
    if fmt == "toml":
        return snippet(fmt, command)
    return json.dumps({SERVERS_KEY[fmt]: {SERVER_KEY: entry_value(command)}}, ensure_ascii=False, indent=2) + "\n"


def set_entry(fmt: str, text: str, command: tuple[str, ...]) -> str:
    """`text` with REA's entry launching `command`; an existing entry keeps its other keys (env, ...)."""
    return _toml_set(text, command) if fmt == "toml" else _json_set(text, command)


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
    servers = _json_servers(text)
    assert servers is not None
    return json_edit.remove_member(text, servers, SERVER_KEY)


def duplicate_key(fmt: str, text: str) -> str | None:
    """A JSON key REA would edit that appears twice (parsers disagree on which wins), else None."""
    if fmt == "toml":
        return None  # TOML forbids duplicate keys; tomllib has already refused them
    top = json_edit.root(text)
    key = SERVERS_KEY[fmt]
    if len(top.find(key)) > 1:
        return key
    servers = _json_servers(text)
    if servers is not None and len(servers.find(SERVER_KEY)) > 1:
        return f"{key}.{SERVER_KEY}"
    entry = _json_entry(text)
    for field in ("command", "args"):
        if entry is not None and len(entry.find(field)) > 1:
            return f"{key}.{SERVER_KEY}.{field}"
    return None


def _json_servers(text: str) -> json_edit.ObjectSpan | None:
    return _object_member(text, json_edit.root(text), SERVERS_KEY["json"])


def _json_entry(text: str) -> json_edit.ObjectSpan | None:
    servers = _json_servers(text)
    return _object_member(text, servers, SERVER_KEY) if servers is not None else None


def _object_member(text: str, obj: json_edit.ObjectSpan, key: str) -> json_edit.ObjectSpan | None:
    """The object `obj[key]` (the last one, as `json` reads it); None when absent or not an object."""
    found = obj.find(key)
    if not found or text[found[-1].value_start] != "{":
        return None
    return json_edit.object_at(text, found[-1].value_start)


def _json_set(text: str, command: tuple[str, ...]) -> str:
    value = entry_value(command)
    servers = _json_servers(text)
    if servers is None:
        return json_edit.set_member(text, json_edit.root(text), SERVERS_KEY["json"], {SERVER_KEY: value})
    entry = _json_entry(text)
    if entry is None:
        return json_edit.set_member(text, servers, SERVER_KEY, value)
    for field in ("command", "args"):
        current = _json_entry(text)
        assert current is not None
        text = json_edit.set_member(text, current, field, value[field])
    return text


def _toml_set(text: str, command: tuple[str, ...]) -> str:
    document = tomlkit.parse(text)
    key = SERVERS_KEY["toml"]
    value = entry_value(command)
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
