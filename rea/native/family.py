"""The native family's one declaration (rea.families): binaries through an analysis provider and REA's own readers."""

from __future__ import annotations

from typing import TypeAlias

from rea.family import Family, members
from rea.native.effects import (
    DiscoverProviders,
    EditAnnotations,
    NativeActivity,
    NativeFacts,
    NativeLineage,
    NativeQuery,
    ReadAnnotations,
    ReadDosFile,
    ReadDwarfType,
    ReadImage,
    ReleaseNative,
)

EFFECTS: TypeAlias = (
    DiscoverProviders
    | NativeFacts
    | NativeQuery
    | ReadAnnotations
    | EditAnnotations
    | ReadImage
    | ReadDwarfType
    | ReadDosFile
    | ReleaseNative
    | NativeLineage
    | NativeActivity
)

FAMILY = Family(
    name="native",
    toolset="native",
    contracts=("rea.native.contract.tools", "rea.native.contract.surface", "rea.native.contract.analyses"),
    programs=tuple(
        f"rea.native.programs.{name}"
        for name in (
            "inventories",
            "engine",
            "compare",
            "annotations",
            "memory",
            "navigation",
            "load_image",
            "analyses",
        )
    ),
    effects=members(EFFECTS),
    handlers=(
        "effects.native.runtime",
        "effects.native.annotations",
        "effects.native.image",
        "effects.native.dwarf",
        "effects.native.dos_read",
    ),
    commands=("effects.native.cli", "effects.native.surface_cli", "effects.native.analyses_cli"),
)
