"""Where REA's agent skill lives for Claude Code, its text for this build, and doctor's check of it."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from effects.registrations import read_bounded
from rea import __version__
from rea.catalog import CATALOG, CLI_COMMANDS
from rea.catalog.projection import catalog_identity
from rea.prompts import PROMPTS
from rea.setup import skill


def catalog_digest() -> str:
    return str(catalog_identity(CATALOG, CLI_COMMANDS)["digests"]["combined_sha256"])


def skill_text() -> str:
    return skill.render(CATALOG, PROMPTS, version=__version__, digest=catalog_digest())


def skill_path(env: Mapping[str, str]) -> Path | None:
    home = env.get("HOME") or env.get("USERPROFILE")
    return Path(home) / ".claude/skills" / skill.SKILL_NAME / "SKILL.md" if home else None


def skill_status(env: Mapping[str, str]) -> dict[str, Any]:
    """The doctor section: the installed skill against this build's version and catalog digest."""
    path = skill_path(env)
    content = read_bounded(path) if path is not None else None
    if isinstance(content, str):
        redo = f"Replace {path} (it is {content}) by running `rea uninstall` and `rea setup`."
        return {"path": str(path), "state": "invalid", "detail": content, "installed": None, "remediation": redo}
    found = skill.status(content, expected_text=skill_text(), version=__version__, digest=catalog_digest())
    fix: str | None = (
        None if found["state"] == "current" else "Run `rea setup --client claude_code` to install this build's skill."
    )
    if found["state"] == "foreign":
        fix = f"{path} was not written by REA; move it aside, then run `rea setup --client claude_code`."
    return {"path": None if path is None else str(path), **found, "remediation": fix}
