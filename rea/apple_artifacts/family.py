"""The Apple artifacts family's one declaration (rea.families; toolset artifacts, where the reference lists
its tools): NSKeyedArchiver plists, compiled nibs and storyboards, asset catalogs and application graphs.

A family of its own, not part of apple_metadata: those tools read Mach-O metadata of one
executable (toolset apple); these read the resource files and layout of a bundle or its
inventory, on any host, beside the other artifact tools.
"""

from __future__ import annotations

from typing import TypeAlias

from rea.apple_artifacts.effects import ReadAssetCatalogs, ReadInterfaceBuilder, ReadKeyedArchive
from rea.family import Family, members

EFFECTS: TypeAlias = ReadKeyedArchive | ReadInterfaceBuilder | ReadAssetCatalogs

FAMILY = Family(
    name="apple_artifacts",
    toolset="artifacts",
    contracts=("rea.apple_artifacts.contract",),
    programs=("rea.apple_artifacts.programs",),
    effects=members(EFFECTS),
    handlers=("effects.apple_artifacts.reader",),
)
