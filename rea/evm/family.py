"""The evm family's one declaration (rea.families): the interface EVM bytecode exposes, read offline."""

from __future__ import annotations

from typing import TypeAlias

from rea.evm.effects import ReadEvmCarrier
from rea.family import Family, members

EFFECTS: TypeAlias = ReadEvmCarrier

FAMILY = Family(
    name="evm",
    toolset="evm",
    contracts=("rea.evm.contract",),
    programs=("rea.evm.programs",),
    effects=members(EFFECTS),
    handlers=("effects.evm.carrier",),
)
