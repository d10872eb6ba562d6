"""The managed family's one declaration (rea.families): .NET assemblies from their CLI metadata."""

from __future__ import annotations

from typing import TypeAlias

from rea.family import Family, members
from rea.managed.facts import ReadManagedAssembly

EFFECTS: TypeAlias = ReadManagedAssembly

FAMILY = Family(
    name="managed",
    toolset="managed",
    contracts=("rea.managed.contract",),
    programs=("rea.managed.programs", "rea.managed.derived_programs"),
    effects=members(EFFECTS),
    handlers=("effects.managed.reader",),
    commands=("effects.managed.cli",),
)
