"""Find and read MCP client configs for `rea doctor`; read-only, bounded, never raises.

Locations follow the clients REA's setup knows (home-scoped only; no project files). A client
is inspected when its directory or its config file exists, so absent clients are not reported.
"""

from __future__ import annotations

import os
import stat
import sys
import sysconfig
from pathlib import Path
from typing import Any, Mapping

from rea.registrations import (
    MAX_CONFIG_BYTES, Entry, Installation, PathFacts, Registration, classify, read_entry,
)

LIVE_SERVER = {"state": "unknown",
               "reason": "doctor holds no MCP connection; binary_session reports the live server's identity"}


def client_locations(env: Mapping[str, str]) -> list[tuple[str, str, Path, Path]]:
    """(client, format, marker directory, config file) for every location to look at."""
    home_text = env.get("HOME") or env.get("USERPROFILE")
    if not home_text:
        return []
    home = Path(home_text)
    config = Path(env.get("XDG_CONFIG_HOME") or home / ".config")
    codex = Path(env.get("CODEX_HOME") or home / ".codex")
    rows = [
        ("claude_code", "json", home / ".claude", home / ".claude.json"),
        ("claude_desktop", "json", home / "Library/Application Support/Claude",
         home / "Library/Application Support/Claude/claude_desktop_config.json"),
        ("claude_desktop", "json", config / "Claude", config / "Claude/claude_desktop_config.json"),
        ("codex", "toml", codex, codex / "config.toml"),
        ("cursor", "json", home / ".cursor", home / ".cursor/mcp.json"),
        ("gemini_cli", "json", home / ".gemini", home / ".gemini/settings.json"),
        ("windsurf", "json", home / ".codeium/windsurf", home / ".codeium/windsurf/mcp_config.json"),
    ]
    if env.get("APPDATA"):
        appdata = Path(env["APPDATA"]) / "Claude"
        rows.append(("claude_desktop", "json", appdata, appdata / "claude_desktop_config.json"))
    seen: set[Path] = set()
    return [row for row in rows if not (row[3] in seen or seen.add(row[3]))]


def this_installation() -> Installation:
    """The running interpreter and, when installed, the `rea` console script that launches it."""
    name = "rea.exe" if sys.platform == "win32" else "rea"
    candidates = [Path(sys.argv[0])] if Path(sys.argv[0]).name == name else []
    candidates += [Path(sysconfig.get_path("scripts")) / name, Path(sys.executable).parent / name]
    script = next((c for c in candidates if c.is_file()), None)
    interpreter = os.path.normpath(os.path.abspath(sys.executable))
    if script is None:
        return Installation(interpreter=interpreter)
    return Installation(interpreter=interpreter, script=os.path.normpath(os.path.abspath(script)),
                        script_real=os.path.realpath(script))


def path_facts(command: str) -> PathFacts:
    try:
        absolute = os.path.isabs(command)
        normalized = os.path.normpath(command) if absolute else command
        real = os.path.realpath(command) if absolute and os.path.exists(command) else None
    except (OSError, ValueError):  # e.g. an embedded NUL byte
        return PathFacts(absolute=False, normalized=command, real=None)
    return PathFacts(absolute=absolute, normalized=normalized, real=real)


def inspect_registrations(env: Mapping[str, str]) -> dict[str, Any]:
    """The doctor section: each present client's registration, the expected vector, live state unknown."""
    installation = this_installation()
    rows: list[Registration] = []
    for client, fmt, marker, config in client_locations(env):
        if not (_is_dir(marker) or _exists(config)):
            continue
        entry = _read(fmt, config)
        facts = {entry.command[0]: path_facts(entry.command[0])} if entry.command else {}
        rows.append(classify(client=client, config_path=str(config), fmt=fmt, entry=entry,
                             installation=installation, facts=facts))
    rows.sort(key=lambda r: (r.client, r.config_path))
    return {"expected_command": list(installation.expected), "live_server": LIVE_SERVER,
            "registrations": [r.record() for r in rows]}


def _read(fmt: str, path: Path) -> Entry:
    """At most MAX_CONFIG_BYTES + 1 bytes of a regular file; opened non-blocking so a FIFO cannot hang doctor."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        return read_entry(fmt, None)
    except (OSError, ValueError) as exc:
        return Entry(state="invalid", detail=f"unreadable: {getattr(exc, 'strerror', None) or exc}")
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return Entry(state="invalid", detail="not a regular file")
        if info.st_size > MAX_CONFIG_BYTES:
            return Entry(state="invalid", detail=f"larger than {MAX_CONFIG_BYTES} bytes; not read")
        content = b""
        while len(content) <= MAX_CONFIG_BYTES and (chunk := os.read(fd, MAX_CONFIG_BYTES + 1 - len(content))):
            content += chunk
    except OSError as exc:
        return Entry(state="invalid", detail=f"unreadable: {exc.strerror or exc}")
    finally:
        os.close(fd)
    return read_entry(fmt, content)


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
