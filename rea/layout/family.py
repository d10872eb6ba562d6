"""The layout family's one declaration (rea.families): layout, Mach-O, signatures, plists, crashes, dylibs."""

from __future__ import annotations

from typing import TypeAlias

from rea.family import Family, members
from rea.layout.model import (
    DemangleSwift,
    ReadArchitectures,
    ReadBinaryLayout,
    ReadDylibTree,
    ReadMacho,
    ReadPlist,
    ReadRecordedCrash,
    ReadSignature,
)

EFFECTS: TypeAlias = (
    ReadBinaryLayout
    | ReadArchitectures
    | ReadMacho
    | DemangleSwift
    | ReadSignature
    | ReadRecordedCrash
    | ReadPlist
    | ReadDylibTree
)

FAMILY = Family(
    name="layout",
    toolset="layout",
    contracts=("rea.layout.contract",),
    programs=("rea.layout.programs",),
    effects=members(EFFECTS),
    handlers=(
        "effects.layout.runtime",
        "effects.layout.core_read",
        "effects.layout.plist_read",
        "effects.layout.dylib_read",
    ),
    commands=("effects.layout.cli",),
)
