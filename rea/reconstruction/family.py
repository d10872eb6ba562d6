"""The reconstruction family's one declaration (rea.families): pure derivations over supplied Evidence."""

from __future__ import annotations

from typing import TypeAlias

from rea.family import Family, members
from rea.reconstruction.effects import ReadClock

EFFECTS: TypeAlias = ReadClock

FAMILY = Family(
    name="reconstruction",
    toolset="reconstruction",
    contracts=("rea.reconstruction.contract",),
    programs=("rea.reconstruction.programs",),
    effects=members(EFFECTS),
    handlers=("effects.reconstruction.clock",),
)
