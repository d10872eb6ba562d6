"""The adb family's one declaration (rea.families): a connected device through the adb host protocol."""

from __future__ import annotations

from typing import TypeAlias

from rea.adb.effects import AdbExchange
from rea.family import Family, members

EFFECTS: TypeAlias = AdbExchange

FAMILY = Family(
    name="adb",
    toolset="adb",
    contracts=("rea.catalog.adb_tools",),
    programs=("rea.workflows.adb",),
    effects=members(EFFECTS),
    handlers=("effects.adb.host",),
    typed=("rea/adb", "rea/workflows/adb.py"),
)
