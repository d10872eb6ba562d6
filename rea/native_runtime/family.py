"""The native runtime family's one declaration (rea.families; toolset native): observed native calls."""

from __future__ import annotations

from typing import TypeAlias

from rea.family import Family, members
from rea.native_runtime.effects import ObserveNativeCalls

EFFECTS: TypeAlias = ObserveNativeCalls

FAMILY = Family(
    name="native_runtime",
    toolset="native",
    contracts=("rea.native_runtime.contract",),
    programs=("rea.native_runtime.programs",),
    effects=members(EFFECTS),
    handlers=("effects.native_runtime.observer",),
)
