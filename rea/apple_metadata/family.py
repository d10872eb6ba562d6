"""The Apple metadata family's one declaration (rea.families; toolset apple): Objective-C and Swift metadata."""

from __future__ import annotations

from typing import TypeAlias

from rea.apple_metadata.effects import ReadAppleMetadata
from rea.family import Family, members

EFFECTS: TypeAlias = ReadAppleMetadata

FAMILY = Family(
    name="apple_metadata",
    toolset="apple",
    contracts=("rea.apple_metadata.contract",),
    programs=("rea.apple_metadata.programs",),
    effects=members(EFFECTS),
    handlers=("effects.apple_metadata.reader",),
)
