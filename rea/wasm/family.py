"""The wasm family's one declaration (rea.families): WebAssembly modules and their text form."""

from __future__ import annotations

from typing import TypeAlias

from rea.family import Family, members
from rea.wasm.model import InspectWasm, ReadWatPage

EFFECTS: TypeAlias = InspectWasm | ReadWatPage

FAMILY = Family(
    name="wasm",
    toolset="wasm",
    contracts=("rea.wasm.contract",),
    programs=("rea.wasm.programs",),
    effects=members(EFFECTS),
    handlers=("effects.wasm.runtime", "effects.wasm.wat_cache"),
)
