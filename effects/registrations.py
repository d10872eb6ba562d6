"""Find and read MCP client configs for `rea doctor`; read-only, bounded, never raises.

Locations are the user-level files of the clients the TypeScript REA's setup supports, plus
Claude Desktop's Linux (XDG) and Windows (APPDATA) homes and CODEX_HOME; with a project
directory, that project's own files (`.mcp.json`, VS Code's `.vscode/mcp.json`, Cursor's and
Gemini CLI's). A client is inspected when its directory or its config file exists, so absent
clients are not listed.
"""

from __future__ import annotations

import os
import stat
import sys
import sysconfig
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from rea.registrations import (
    MAX_CONFIG_BYTES,
    Entry,
    Installation,
    PathFacts,
    Registration,
    classify,
    read_entry,
)

LIVE_SERVER = {
    "state": "unknown",
    "reason": "doctor holds no MCP connection; binary_session reports the live server's identity",
}


@attrs.frozen
class ClientFile:
    """Where one client keeps its config; the client counts as present when `home_dir` or `path` exists."""

    client: str
    format: str
    home_dir: Path
    path: Path


def client_files(env: Mapping[str, str]) -> list[ClientFile]:
    """Every location to look at, from HOME (else USERPROFILE), XDG_CONFIG_HOME, CODEX_HOME and APPDATA."""
    home_text = env.get("HOME") or env.get("USERPROFILE")
    if not home_text:
        return []
    home = Path(home_text)
    config_home = Path(env.get("XDG_CONFIG_HOME") or home / ".config")
    claude_dirs = [home / "Library/Application Support/Claude", config_home / "Claude"]
    claude_dirs += [Path(env["APPDATA"]) / "Claude"] if env.get("APPDATA") else []
    codex = Path(env.get("CODEX_HOME") or home / ".codex")
    files = [
        ClientFile("claude_code", "json", home / ".claude", home / ".claude.json"),
        *(ClientFile("claude_desktop", "json", d, d / "claude_desktop_config.json") for d in claude_dirs),
        ClientFile("codex", "toml", codex, codex / "config.toml"),
        ClientFile("cursor", "json", home / ".cursor", home / ".cursor/mcp.json"),
        ClientFile("gemini_cli", "json", home / ".gemini", home / ".gemini/settings.json"),
        ClientFile("windsurf", "json", home / ".codeium/windsurf", home / ".codeium/windsurf/mcp_config.json"),
    ]
    return list({f.path: f for f in files}.values())


# client, format, file under the project root; the client counts as present when the file's directory does
# (the project root itself for .mcp.json, which Claude Code reads from the directory it was started in)
PROJECT_FILES = (
    ("claude_code", "json", ".mcp.json"),
    ("cursor", "json", ".cursor/mcp.json"),
    ("gemini_cli", "json", ".gemini/settings.json"),
    ("vscode", "vscode", ".vscode/mcp.json"),
)


def project_files(project: Path) -> list[ClientFile]:
    """A project's own MCP configs (shared with everyone who opens the project)."""
    return [ClientFile(client, fmt, (project / rel).parent, project / rel) for client, fmt, rel in PROJECT_FILES]


def this_installation() -> Installation:
    """The running interpreter and, when installed, the `rea` console script that launches it."""
    name = "rea.exe" if sys.platform == "win32" else "rea"
    candidates = [Path(sys.argv[0])] if Path(sys.argv[0]).name == name else []
    candidates += [Path(sysconfig.get_path("scripts")) / name, Path(sys.executable).parent / name]
    script = next((c for c in candidates if c.is_file()), None)
    interpreter = os.path.normpath(os.path.abspath(sys.executable))
    if script is None:
        return Installation(interpreter=interpreter)
    return Installation(
        interpreter=interpreter, script=os.path.normpath(os.path.abspath(script)), script_real=os.path.realpath(script)
    )


def path_facts(command: str) -> PathFacts:
    """What the filesystem says about a registered command; a bare name is left for the client's PATH."""
    try:
        absolute = os.path.isabs(command)
        normalized = os.path.normpath(command) if absolute else command
        real = os.path.realpath(command) if absolute and os.path.exists(command) else None
    except (OSError, ValueError):  # e.g. an embedded NUL byte
        return PathFacts(absolute=False, normalized=command, real=None)
    return PathFacts(absolute=absolute, normalized=normalized, real=real)


def inspect_registrations(env: Mapping[str, str], project: Path | None = None) -> dict[str, Any]:
    """The doctor section: each present client's registration, the expected vector, live state unknown."""
    installation = this_installation()
    rows: list[Registration] = []
    for file in client_files(env) + (project_files(project) if project is not None else []):
        if not (_is_dir(file.home_dir) or _exists(file.path)):
            continue
        entry = _read(file.format, file.path)
        facts = {entry.command[0]: path_facts(entry.command[0])} if entry.command else {}
        rows.append(
            classify(
                client=file.client,
                config_path=str(file.path),
                fmt=file.format,
                entry=entry,
                installation=installation,
                facts=facts,
            )
        )
    rows.sort(key=lambda r: (r.client, r.config_path))
    return {
        "expected_command": list(installation.expected),
        "live_server": LIVE_SERVER,
        "registrations": [r.record() for r in rows],
    }


def _read(fmt: str, path: Path) -> Entry:
    content = read_bounded(path)
    if isinstance(content, str):
        return Entry(state="invalid", detail=content)
    return read_entry(fmt, content)


def read_bounded(path: Path) -> bytes | None | str:
    """At most MAX_CONFIG_BYTES + 1 bytes of a regular file (None: no file; str: why not).

    Opened non-blocking so a FIFO cannot hang the reader."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        return f"unreadable: {getattr(exc, 'strerror', None) or exc}"
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return "not a regular file"
        if info.st_size > MAX_CONFIG_BYTES:
            return f"larger than {MAX_CONFIG_BYTES} bytes; not read"
        content = b""
        while len(content) <= MAX_CONFIG_BYTES and (chunk := os.read(fd, MAX_CONFIG_BYTES + 1 - len(content))):
            content += chunk
    except OSError as exc:
        return f"unreadable: {exc.strerror or exc}"
    finally:
        os.close(fd)
    return content


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except OSError:
        return False


def _exists(path: Path) -> bool:
    try:
        return path.exists() or path.is_symlink()
    except OSError:
        return False
