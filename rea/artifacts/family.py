"""The artifacts family's one declaration (rea.families): archives and packages as content-addressed graphs."""

from __future__ import annotations

from typing import TypeAlias

from rea.artifacts.model import ExtractArtifact, InventoryArtifact
from rea.family import Family, members

EFFECTS: TypeAlias = InventoryArtifact | ExtractArtifact

FAMILY = Family(
    name="artifacts",
    toolset="artifacts",
    contracts=("rea.artifacts.contract",),
    programs=("rea.artifacts.programs",),
    effects=members(EFFECTS),
    handlers=("effects.artifacts",),
    commands=("effects.artifacts.commands",),
)
