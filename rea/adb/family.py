"""The adb family's one declaration (rea.families): a connected device through the adb host protocol."""

from __future__ import annotations

from typing import TypeAlias

from rea.adb.effects import AdbExchange
from rea.family import Family, members

EFFECTS: TypeAlias = AdbExchange

FAMILY = Family(
    name="adb",
    toolset="adb",
    contracts=("rea.adb.contract",),
    programs=("rea.adb.programs",),
    effects=members(EFFECTS),
    handlers=("effects.adb.host",),
)
