"""MCP client registrations of REA: does a client's config launch this installation?

A client config (JSON `mcpServers.rea`, TOML `[mcp_servers.rea]`, or a VS Code workspace's JSONC
`servers.rea`) is read into an `Entry`,
then classified against this installation's launch vector:

- aligned: the command is an absolute path to this installation's `rea` console script with
  args `["mcp"]`, or this exact interpreter with `["-m", "effects.cli", "mcp"]`, either
  optionally followed by `--toolsets NAMES` with names REA accepts (`rea setup --toolsets`);
- stale: an entry with a command, but it is relative, does not exist, is another executable,
  or has other args;
- missing: the client is present but its config has no `rea` entry (or no config file);
- invalid: the config cannot be read or parsed, or the entry's shape is wrong.

The effects side finds and reads the files and supplies `PathFacts` for registered commands;
everything here is decided from those values, so it never touches the filesystem.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping
from typing import Any

import attrs

from rea import jsonc

SERVER_KEY = "rea"
# format -> the table holding servers; "vscode" is VS Code's mcp.json (JSON with comments)
SERVERS_KEY = {"json": "mcpServers", "toml": "mcp_servers", "vscode": "servers"}
JSONC_FORMATS = frozenset({"vscode"})
ENTRY_TYPE = {"vscode": "stdio"}  # formats whose entries name their transport
# Claude Code's ~/.claude.json keeps per-project history and often passes 1 MiB.
MAX_CONFIG_BYTES = 8 * 1024 * 1024
MODULE_ARGS = ("-m", "effects.cli", "mcp")
SCRIPT_ARGS = ("mcp",)
STATES = ("aligned", "stale", "missing", "invalid")
TOOLSETS_FLAG = "--toolsets"  # `rea mcp --toolsets NAMES` (rea.catalog.toolsets)


@attrs.frozen(kw_only=True)
class Entry:
    """What one config file holds under the REA key: a command vector, nothing, or a shape error."""

    state: str  # "found", "missing" or "invalid"
    command: tuple[str, ...] | None = None
    detail: str = ""


@attrs.frozen(kw_only=True)
class PathFacts:
    """The filesystem's view of a registered command string, gathered by the effects side."""

    absolute: bool
    normalized: str  # absolute and normalized, symlinks kept (a venv's python is its own identity)
    real: str | None  # symlinks followed; None when nothing exists there


@attrs.frozen(kw_only=True)
class Installation:
    """How this installation launches its MCP server."""

    interpreter: str  # normalized sys.executable
    script: str | None = None  # normalized path of the `rea` console script, when installed
    script_real: str | None = None

    @property
    def expected(self) -> tuple[str, ...]:
        return (self.script, *SCRIPT_ARGS) if self.script else (self.interpreter, *MODULE_ARGS)


@attrs.frozen(kw_only=True)
class Registration:
    """One client's registration as doctor reports it."""

    client: str
    config_path: str
    format: str
    state: str = attrs.field(validator=attrs.validators.in_(STATES))
    command: tuple[str, ...] | None
    expected: tuple[str, ...]
    detail: str
    remediation: str | None
    snippet: str | None  # the entry as file text, to paste when it is not aligned
    live_server: str = "unknown"  # doctor holds no MCP connection, so it cannot see a running server

    def record(self) -> dict[str, Any]:
        return {
            "client": self.client,
            "config_path": self.config_path,
            "format": self.format,
            "state": self.state,
            "command": None if self.command is None else list(self.command),
            "expected": list(self.expected),
            "detail": self.detail,
            "remediation": self.remediation,
            "snippet": self.snippet,
            "live_server": self.live_server,
        }


def read_entry(fmt: str, content: bytes | None) -> Entry:
    """Parse a config file's bytes (None: no file) and pull out the REA entry; never raises."""
    if content is None:
        return Entry(state="missing", detail="no config file")
    parsed = parse_config(fmt, content)
    if isinstance(parsed, str):
        return Entry(state="invalid", detail=parsed)
    return entry_of(fmt, parsed[0])


def parse_config(fmt: str, content: bytes) -> tuple[Any, str] | str:
    """The parsed document and its text (BOM removed), or why the bytes are not a config of `fmt`."""
    if len(content) > MAX_CONFIG_BYTES:
        return f"larger than {MAX_CONFIG_BYTES} bytes; not parsed"
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return f"not UTF-8 text (byte {exc.start})"
    try:
        return parse_text(fmt, text), text
    except (ValueError, RecursionError) as exc:
        return f"not valid {_FORMAT_NAME.get(fmt, fmt.upper())}: {_first_line(exc)}"


_FORMAT_NAME = {"vscode": "JSON with comments"}


def parse_text(fmt: str, text: str) -> Any:
    """The document a config text holds (raises ValueError when it is not one of `fmt`)."""
    if fmt == "toml":
        return tomllib.loads(text)
    return json.loads(jsonc.to_json(text) if fmt in JSONC_FORMATS else text)


def entry_value(fmt: str, command: tuple[str, ...]) -> dict[str, Any]:
    """REA's entry as a value: the command vector, and the transport where the format names one."""
    kind = {"type": ENTRY_TYPE[fmt]} if fmt in ENTRY_TYPE else {}
    return {**kind, "command": command[0], "args": list(command[1:])}


def entry_of(fmt: str, document: Any) -> Entry:
    """The REA entry of a parsed config document, checked for shape."""
    key = SERVERS_KEY[fmt]
    if not isinstance(document, dict):
        return Entry(state="invalid", detail=f"the document is a {_kind(document)}, not a table of settings")
    servers = document.get(key)
    if servers is None:
        return Entry(state="missing", detail=f"no {key} section")
    if not isinstance(servers, dict):
        return Entry(state="invalid", detail=f"{key} is a {_kind(servers)}, not a table")
    entry = servers.get(SERVER_KEY)
    if entry is None:
        return Entry(state="missing", detail=f"no {key}.{SERVER_KEY} entry")
    if not isinstance(entry, dict):
        return Entry(state="invalid", detail=f"{key}.{SERVER_KEY} is a {_kind(entry)}, not a table")
    command, args = entry.get("command"), entry.get("args", [])
    if not isinstance(command, str) or not command:
        return Entry(state="invalid", detail=f"{key}.{SERVER_KEY}.command is not a non-empty string")
    if not isinstance(args, list) or not all(isinstance(arg, str) for arg in args):
        return Entry(state="invalid", detail=f"{key}.{SERVER_KEY}.args is not a list of strings")
    return Entry(state="found", command=(command, *args))


def split_toolsets(args: tuple[str, ...]) -> tuple[tuple[str, ...], str | None]:
    """Launch args without their trailing `--toolsets NAMES` (or `--toolsets=NAMES`), and NAMES (None: none)."""
    if len(args) >= 2 and args[-2] == TOOLSETS_FLAG:
        return args[:-2], args[-1]
    if args and args[-1].startswith(TOOLSETS_FLAG + "="):
        return args[:-1], args[-1][len(TOOLSETS_FLAG) + 1 :]
    return args, None


def with_toolsets(command: tuple[str, ...], toolsets: str | None) -> tuple[str, ...]:
    """The launch vector that starts the server with these toolsets (None: the default catalog)."""
    return command if toolsets is None else (*command, TOOLSETS_FLAG, toolsets)


def toolsets_problem(value: str | None) -> str | None:
    """Why a registered `--toolsets` value would stop the server at startup, else None."""
    from rea.catalog import toolsets  # noqa: PLC0415 - the catalog table loads only for a registered toolset

    if value is None:
        return None
    parsed = toolsets.parse(value, TOOLSETS_FLAG)
    return parsed.map(lambda _: None).value_or(f"--toolsets {value!r} names no toolset REA accepts")


def launches_this(command: tuple[str, ...], installation: Installation, facts: Mapping[str, PathFacts]) -> bool:
    """The alignment law: an existing absolute path to this script with ["mcp"], or this interpreter with -m,
    either optionally followed by an accepted `--toolsets NAMES`."""
    fact = facts.get(command[0])
    if fact is None or not fact.absolute or fact.real is None:
        return False
    args, chosen = split_toolsets(command[1:])
    if toolsets_problem(chosen) is not None:
        return False
    by_script = installation.script_real is not None and fact.real == installation.script_real
    return (by_script and args == SCRIPT_ARGS) or (fact.normalized == installation.interpreter and args == MODULE_ARGS)


def classify(
    *, client: str, config_path: str, fmt: str, entry: Entry, installation: Installation, facts: Mapping[str, PathFacts]
) -> Registration:
    """One client's registration state, what was found and the one-line fix."""
    expected = installation.expected
    fix, text = remediation(config_path, fmt, expected), snippet(fmt, expected)
    if entry.state != "found" or entry.command is None:
        state = "invalid" if entry.state == "invalid" else "missing"
        return Registration(
            client=client,
            config_path=config_path,
            format=fmt,
            state=state,
            command=None,
            expected=expected,
            detail=entry.detail,
            remediation=fix,
            snippet=text,
        )
    if launches_this(entry.command, installation, facts):
        chosen = split_toolsets(entry.command[1:])[1]
        return Registration(
            client=client,
            config_path=config_path,
            format=fmt,
            state="aligned",
            command=entry.command,
            expected=expected,
            detail="launches this installation" + ("" if chosen is None else f" (toolsets {chosen})"),
            remediation=None,
            snippet=None,
        )
    return Registration(
        client=client,
        config_path=config_path,
        format=fmt,
        state="stale",
        command=entry.command,
        expected=expected,
        detail=_stale_reason(entry.command, installation, facts),
        remediation=fix,
        snippet=text,
    )


def remediation(config_path: str, fmt: str, expected: tuple[str, ...]) -> str:
    """The exact entry to write, as one line."""
    if fmt == "toml":
        command, args = _quoted(expected[0]), _quoted(list(expected[1:]))
        return (
            f"In {config_path}, set [{SERVERS_KEY[fmt]}.{SERVER_KEY}] to command = {command} and "
            f"args = {args}, then restart the client."
        )
    return f"In {config_path}, set {snippet(fmt, expected)[1:-1]}, then restart the client."


def snippet(fmt: str, expected: tuple[str, ...]) -> str:
    """The entry as file text."""
    if fmt == "toml":
        command, args = _quoted(expected[0]), _quoted(list(expected[1:]))
        return f"[{SERVERS_KEY[fmt]}.{SERVER_KEY}]\ncommand = {command}\nargs = {args}\n"
    return json.dumps({SERVERS_KEY[fmt]: {SERVER_KEY: entry_value(fmt, expected)}}, ensure_ascii=False)


def _stale_reason(command: tuple[str, ...], installation: Installation, facts: Mapping[str, PathFacts]) -> str:
    head = command[0]
    fact = facts.get(head)
    if fact is None or not fact.absolute:
        return f"{head!r} is not an absolute path; the client resolves it with its own PATH"
    if fact.real is None:
        return f"{head} does not exist"
    problem = toolsets_problem(split_toolsets(command[1:])[1])
    if problem is not None:
        return problem
    if installation.script_real is not None and fact.real == installation.script_real:
        return f"args {list(command[1:])} are not {list(SCRIPT_ARGS)}"
    if fact.normalized == installation.interpreter:
        return f"args {list(command[1:])} are not {list(MODULE_ARGS)}"
    return f"{head} is not this installation's rea ({installation.expected[0]})"


def _quoted(value: Any) -> str:
    """JSON text that is also a TOML value: TOML basic strings take JSON's escapes but not a raw DEL."""
    return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")


def _kind(value: Any) -> str:
    return {dict: "table", list: "list", str: "string", bool: "boolean"}.get(type(value), type(value).__name__)


def _first_line(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return text.splitlines()[0][:200]
