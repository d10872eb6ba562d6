"""The Android family's one declaration (rea.families): APKs, their manifest, DEX and resources."""

from __future__ import annotations

from typing import TypeAlias

from rea.android.effects import AndroidQuery, DecodeResources, ProbeClient
from rea.family import Family, members

EFFECTS: TypeAlias = AndroidQuery | ProbeClient | DecodeResources

FAMILY = Family(
    name="android",
    toolset="android",
    contracts=("rea.android.contract",),
    programs=("rea.android.programs",),
    effects=members(EFFECTS),
    handlers=("effects.android.runtime",),
    commands=(),
)
