"""The native family's one declaration (rea.families): binaries through an analysis provider and REA's own readers."""

from __future__ import annotations

from typing import TypeAlias

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
from rea.family import Family, members

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
    contracts=("rea.catalog.native_tools", "rea.catalog.native_surface", "rea.catalog.native_analyses"),
    programs=("rea.workflows.native", "rea.workflows.native_surface", "rea.workflows.native_analyses"),
    effects=members(EFFECTS),
    handlers=(
        "effects.native.runtime",
        "effects.native.annotations",
        "effects.native.image",
        "effects.native.dwarf",
        "effects.native.dos_read",
    ),
    commands=("effects.native.cli", "effects.native.surface_cli", "effects.native.analyses_cli"),
    typed=(
        "rea/native",
        "rea/workflows/native.py",
        "rea/workflows/native_surface.py",
        "rea/workflows/load_image.py",
        "rea/workflows/native_analyses.py",
    ),
)
