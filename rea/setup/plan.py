"""What `rea setup` and `rea uninstall` would change in one client config, as a value.

A plan is decided from the file's bytes (None: no file), a refusal the effects side found
(symlink, read-only, not a regular file, ...), this installation and the filesystem facts of a
registered command, so the alignment law is doctor's (`rea.registrations.launches_this`). Each
edit is checked by re-reading the new bytes with the standard parsers: REA's entry is what was
meant and every other setting is unchanged, or the plan refuses.
"""

from __future__ import annotations

import codecs
from collections.abc import Callable, Mapping
from typing import Any

import attrs

from rea.errors import ReaError
from rea.registrations import (
    SERVER_KEY,
    SERVERS_KEY,
    Entry,
    Installation,
    PathFacts,
    entry_of,
    entry_value,
    launches_this,
    parse_config,
    parse_text,
    snippet,
    split_toolsets,
    toolsets_problem,
    with_toolsets,
)
from rea.setup import edits

WRITES = ("create", "add", "update", "remove")
ACTIONS = (*WRITES, "none", "refuse")


@attrs.frozen(kw_only=True)
class Change:
    """One file's planned change: `content` is the whole new file, `original` what it was planned from."""

    kind: str  # "config" or "skill"
    client: str
    path: str
    format: str
    action: str = attrs.field(validator=attrs.validators.in_(ACTIONS))
    detail: str
    before: tuple[str, ...] | None = None
    after: tuple[str, ...] | None = None
    original: bytes | None = None
    content: bytes | None = None
    refusal: str = "configuration_invalid"  # the error code when action is "refuse"

    @property
    def writes(self) -> bool:
        return self.action in WRITES

    def record(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "client": self.client,
            "path": self.path,
            "format": self.format,
            "action": self.action,
            "detail": self.detail,
            "before": None if self.before is None else list(self.before),
            "after": None if self.after is None else list(self.after),
            "entry": snippet(self.format, self.after) if self.after is not None and self.writes else None,
            "error": self.error().record() if self.action == "refuse" else None,
        }

    def error(self) -> ReaError:
        """Why this file is left alone, as a canonical error naming it."""
        action = (
            f"Fix or restore {self.path} (or apply the entry by hand from `rea doctor`), then run the command again."
            if self.refusal == "configuration_invalid"
            else f"Make {self.path} a regular writable file, or apply the entry by hand from `rea doctor`."
        )
        message = f"{self.path} is left unchanged: {self.detail}"
        return ReaError(code=self.refusal, message=message, details={"path": self.path}, action=action)


@attrs.frozen(kw_only=True)
class Target:
    """One config file as the effects side found it."""

    client: str
    path: str
    format: str
    content: bytes | None  # None: no file
    problem: str | None = None  # why REA must not replace this file


def registered_toolsets(toolsets: str | None, command: tuple[str, ...] | None) -> str | None:
    """The `--toolsets` value to register: the one asked for (`all` is the default, so none), else the
    accepted one the entry already has (a re-run of `rea setup` keeps a chosen toolset)."""
    if toolsets is not None:
        return None if toolsets == "all" else toolsets
    kept = None if command is None else split_toolsets(command[1:])[1]
    return kept if toolsets_problem(kept) is None else None


def plan_setup(
    target: Target, installation: Installation, facts: Mapping[str, PathFacts], toolsets: str | None = None
) -> Change:
    """Register this installation: create, add or update the entry; nothing when it is already aligned.
    `toolsets` (normalized names; None: keep the entry's) is registered as `mcp --toolsets NAMES`."""
    change = _base(target)
    if target.problem is not None:
        return change(action="refuse", detail=target.problem, refusal="permission_required")
    if target.content is None:
        expected = with_toolsets(installation.expected, registered_toolsets(toolsets, None))
        text = edits.fresh_text(target.format, expected)
        return change(action="create", detail="new config file", after=expected, content=text.encode())
    read = _read(target, change)
    if isinstance(read, Change):
        return read
    document, text, entry = read
    if entry.state == "invalid":
        return change(action="refuse", detail=entry.detail)
    wanted = registered_toolsets(toolsets, entry.command)
    expected = with_toolsets(installation.expected, wanted)
    if (
        entry.command is not None
        and launches_this(entry.command, installation, facts)
        and split_toolsets(entry.command[1:])[1] == wanted
    ):
        return change(action="none", detail="already launches this installation", before=entry.command)
    action = "update" if entry.command is not None else "add"
    detail = f"{'replace' if entry.command else 'add'} {_entry_name(target.format)}"
    return _edited(
        target,
        change(action=action, detail=detail, before=entry.command, after=expected),
        lambda: edits.set_entry(target.format, text, expected),
        document,
    )


def plan_uninstall(target: Target) -> Change:
    """Remove REA's entry, whatever it launches; nothing when there is none."""
    change = _base(target)
    if target.content is None:
        return change(action="none", detail="no config file")
    if target.problem is not None:
        return change(action="refuse", detail=target.problem, refusal="permission_required")
    read = _read(target, change)
    if isinstance(read, Change):
        return read
    document, text, entry = read
    if entry.state == "missing":
        return change(action="none", detail=entry.detail)
    if entry.state == "invalid" and not _has_entry(target.format, document):
        return change(action="refuse", detail=entry.detail)
    return _edited(
        target,
        change(action="remove", detail=f"remove {_entry_name(target.format)}", before=entry.command),
        lambda: edits.remove_entry(target.format, text),
        document,
    )


def _base(target: Target) -> Callable[..., Change]:
    return lambda **kw: Change(
        kind="config", client=target.client, path=target.path, format=target.format, original=target.content, **kw
    )


def _read(target: Target, change: Callable[..., Change]) -> tuple[Any, str, Entry] | Change:
    """The parsed document, its text and REA's entry, or the refusal of a file that does not parse."""
    parsed = _parsed(target)
    if isinstance(parsed, str):
        return change(action="refuse", detail=parsed)
    return parsed[0], parsed[1], entry_of(target.format, parsed[0])


def _parsed(target: Target) -> tuple[Any, str] | str:
    assert target.content is not None
    parsed = parse_config(target.format, target.content)
    if isinstance(parsed, str):
        return parsed
    if not isinstance(parsed[0], dict):
        return parsed  # entry_of names the shape problem
    duplicate = edits.duplicate_key(target.format, parsed[1])
    return f"the key {duplicate} appears more than once; readers disagree on which one counts" if duplicate else parsed


def _edited(target: Target, change: Change, edit: Callable[[], str], document: Any) -> Change:
    """The change with its new bytes, once they re-read as intended; a refusal otherwise."""
    assert target.content is not None
    try:
        text = edit()
    except (ValueError, TypeError, KeyError, AssertionError) as exc:  # a layout the editor cannot keep
        return attrs.evolve(change, action="refuse", detail=f"cannot edit this layout safely: {exc}", after=None)
    bom = codecs.BOM_UTF8 if target.content.startswith(codecs.BOM_UTF8) else b""
    content = bom + text.encode()
    problem = _verify(target.format, document, content, change.after)
    if problem is not None:
        return attrs.evolve(change, action="refuse", detail=f"the edit did not re-read as intended: {problem}")
    return attrs.evolve(change, content=content)


def _verify(fmt: str, old: Any, content: bytes, expected: tuple[str, ...] | None) -> str | None:
    new = parse_text(fmt, content.decode("utf-8-sig"))
    entry = entry_of(fmt, new)
    if expected is None and entry.state != "missing":
        return "REA's entry is still there"
    if expected is not None and entry.command != expected:
        return f"the entry reads {entry.command}"
    if _others(fmt, old) != _others(fmt, new):
        return "another setting changed"
    if expected is not None and _entry_rest(fmt, old) != _entry_rest(fmt, new):
        return "another key of REA's entry changed"
    return None


def _others(fmt: str, document: dict[str, Any]) -> dict[str, Any]:
    """The document without REA's entry (and without a servers table that only held it)."""
    key = SERVERS_KEY[fmt]
    servers = {k: v for k, v in document.get(key, {}).items() if k != SERVER_KEY}
    rest = {k: v for k, v in document.items() if k != key}
    return {**rest, key: servers} if servers else rest


def _entry_rest(fmt: str, document: dict[str, Any]) -> dict[str, Any]:
    entry = document.get(SERVERS_KEY[fmt], {}).get(SERVER_KEY, {})
    written = {*entry_value(fmt, ("",)), "command", "args"}  # the keys REA writes (and VS Code's "type")
    return {k: v for k, v in entry.items() if k not in written} if isinstance(entry, dict) else {}


def _has_entry(fmt: str, document: Any) -> bool:
    servers = document.get(SERVERS_KEY[fmt]) if isinstance(document, dict) else None
    return isinstance(servers, dict) and SERVER_KEY in servers


def _entry_name(fmt: str) -> str:
    return f"[{SERVERS_KEY[fmt]}.{SERVER_KEY}]" if fmt == "toml" else f"{SERVERS_KEY[fmt]}.{SERVER_KEY}"
