"""The agent skill is rendered from this build's catalog and prompts, and doctor checks the installed one."""

from __future__ import annotations

import json
import re
import subprocess

import pytest

from effects.skill_files import catalog_digest, skill_text
from rea import __version__
from rea.catalog import CATALOG
from rea.prompts import PROMPTS
from rea.setup import skill
from support import clean_env, rea_command

# backticked words in the skill that are fields, error codes or the server name, not tools
NOT_TOOLS = {
    "evidence_id",
    "detail",
    "capability_unavailable",
    "provider_unavailable",
    "rea",
    "referenced_by",
    "offset",
    "limit",
}


def test_every_name_the_skill_uses_is_a_tool_or_prompt_of_this_build():
    text = skill_text()
    used = set(re.findall(r"`([a-z]+(?:_[a-z]+)*)`", text))
    known = {c.name for c in CATALOG} | {p.name for p in PROMPTS}
    assert used - NOT_TOOLS <= known, sorted(used - NOT_TOOLS - known)
    assert {t for _, first, then in skill.ROUTES for t in (*first, *then)} <= used


def test_every_family_of_the_catalog_has_a_route():
    """An agent following the skill reaches every family: each family of the catalog has a tool on a route
    (fails when a family is added without one)."""
    from rea.catalog import FAMILY_OF

    routed = skill.routed(CATALOG)
    families = {FAMILY_OF[c.name] for c in CATALOG}
    unrouted = sorted(f for f in families if not any(FAMILY_OF[t] == f for t in routed))
    assert unrouted == [], unrouted
    text = skill_text()
    assert "`detail: summary`" in text and "default to `detail: complete`" in text  # the defaults as they are


def test_the_tool_index_is_the_catalog():
    index = re.findall(r"^- `([a-z_]+)`: ", skill_text().split("## Every tool of this build")[1], re.M)
    assert index == [c.name for c in CATALOG]
    needing = skill_text().split("need a target opened with `open_binary` first: ")[1].split("\n")[0]
    assert re.findall(r"`([a-z_]+)`", needing) == [c.name for c in CATALOG if c.requires_target]


def test_a_routed_tool_missing_from_the_catalog_stops_rendering():
    without = [c for c in CATALOG if c.name != "binary_overview"]
    with pytest.raises(ValueError, match="binary_overview"):
        skill.render(without, PROMPTS, version="x", digest="0" * 64)


def test_the_marker_carries_version_and_catalog_digest():
    assert skill.identity(skill_text()) == (__version__, catalog_digest())
    assert skill_text().startswith("---\nname: rea\ndescription: ")


@pytest.mark.slow
def test_doctor_reports_the_installed_skill_state(tmp_path):
    home = tmp_path / "home"
    path = home / ".claude/skills/rea/SKILL.md"
    env = clean_env(HOME=str(home))

    def state() -> dict:
        out = subprocess.run([*rea_command(), "doctor", "--json"], capture_output=True, text=True, env=env, timeout=120)
        return json.loads(out.stdout)["agent_skill"]

    assert state()["state"] == "missing"
    path.parent.mkdir(parents=True)
    path.write_text(skill_text())
    current = state()
    assert current["state"] == "current" and current["installed"] == current["expected"]
    assert current["expected"] == {"version": __version__, "catalog_digest": catalog_digest()}
    path.write_text(skill.render(CATALOG, PROMPTS, version="0.0.1", digest="f" * 64))
    outdated = state()
    assert outdated["state"] == "outdated" and outdated["installed"] == {"version": "0.0.1", "catalog_digest": "f" * 64}
    assert "rea setup" in outdated["remediation"]
    path.write_text("---\nname: rea\n---\nsomeone else's skill\n")
    assert state()["state"] == "foreign"
    setup = subprocess.run(
        [*rea_command(), "setup", "--client", "claude_code", "--yes", "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    skill_change = [c for c in json.loads(setup.stdout)["changes"] if c["kind"] == "skill"][0]
    assert skill_change["action"] == "refuse" and path.read_text().endswith("someone else's skill\n")
