"""The JavaScript family's one declaration (rea.families): applications and bundles, static and at runtime."""

from __future__ import annotations

from typing import TypeAlias

from rea.family import Family, members
from rea.javascript.devtools_effects import DiscoverDevtools, ObserveTarget
from rea.javascript.effects import ExtractFiles, ScanApplication
from rea.javascript.recovery_effects import PublishRecovery, ReadRecoveryInput

EFFECTS: TypeAlias = (
    ScanApplication | ExtractFiles | ReadRecoveryInput | PublishRecovery | DiscoverDevtools | ObserveTarget
)

FAMILY = Family(
    name="javascript",
    toolset="javascript",
    contracts=("rea.javascript.contract.application", "rea.javascript.contract.runtime"),
    programs=(
        "rea.javascript.programs.analysis",
        "rea.javascript.programs.traces",
        "rea.javascript.programs.comparisons",
        "rea.javascript.programs.runtime",
    ),
    effects=members(EFFECTS),
    handlers=("effects.javascript.runtime", "effects.javascript.recover", "effects.javascript.devtools"),
    commands=("effects.javascript.cli", "effects.javascript.runtime_cli"),
)
