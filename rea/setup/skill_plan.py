"""Installing and removing the agent skill file, decided from what is at its path now."""

from __future__ import annotations

from collections.abc import Callable

from rea.setup.plan import Change
from rea.setup.skill import identity

SKILL_CLIENTS = ("claude_code",)  # clients with a user skills folder REA knows


def plan_install(path: str, current: bytes | None, problem: str | None, text: str) -> Change:
    change = _base(path, current)
    if problem is not None:
        return change(action="refuse", detail=problem, refusal="permission_required")
    content = text.encode()
    if current is None:
        return change(action="create", detail="install the REA skill", content=content)
    if current == content:
        return change(action="none", detail="the skill is current")
    if identity(current.decode("utf-8", "replace")) is None:
        return change(action="refuse", detail="a SKILL.md REA did not write is there; not replaced")
    return change(action="update", detail="replace the REA skill with this build's", content=content)


def plan_remove(path: str, current: bytes | None, problem: str | None) -> Change:
    change = _base(path, current)
    if current is None:
        return change(action="none", detail="no skill installed")
    if problem is not None:
        return change(action="refuse", detail=problem, refusal="permission_required")
    if identity(current.decode("utf-8", "replace")) is None:
        return change(action="refuse", detail="a SKILL.md REA did not write is there; not removed")
    return change(action="remove", detail="remove the REA skill")


def _base(path: str, current: bytes | None) -> Callable[..., Change]:
    return lambda **kw: Change(kind="skill", client="claude_code", path=path, format="markdown", original=current, **kw)
