"""The process-capture family's one declaration (rea.families): an owned run of a declared executable, and
two runs compared."""

from __future__ import annotations

from typing import TypeAlias

from rea.family import Family, members
from rea.process_capture.effects import MeasureAges, RunScenario

EFFECTS: TypeAlias = RunScenario | MeasureAges

FAMILY = Family(
    name="process_capture",
    toolset="process_capture",
    contracts=("rea.process_capture.contract",),
    programs=("rea.process_capture.programs",),
    effects=members(EFFECTS),
    handlers=("effects.process_capture.runner",),
)
