"""The session checks' one declaration (rea.families): bundle comparison and resolution checks.

They sit in the `session` toolset beside the session family (rea.session_tools),
as the reference places them; they need no effect of their own (a bundle is read with the
core ReadJsonFile)."""

from __future__ import annotations

from rea.family import Family

FAMILY = Family(
    name="session_checks",
    toolset="session",
    contracts=("rea.session_checks.contract",),
    programs=("rea.session_checks.programs",),
)
