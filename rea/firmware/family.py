"""The firmware family's one declaration (rea.families): regions of a firmware image and their extraction."""

from __future__ import annotations

from typing import TypeAlias

from rea.family import Family, members
from rea.firmware.effects import ExtractFirmware, ScanFirmware

EFFECTS: TypeAlias = ScanFirmware | ExtractFirmware

FAMILY = Family(
    name="firmware",
    toolset="firmware",
    contracts=("rea.firmware.contract",),
    programs=("rea.firmware.programs",),
    effects=members(EFFECTS),
    handlers=("effects.firmware.unblob",),
)
