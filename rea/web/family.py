"""The web family's one declaration (rea.families): pages and Electron apps in a browser, scenarios, scripts."""

from __future__ import annotations

from typing import TypeAlias

from rea.family import Family, members
from rea.web.effects import ObserveBrowser
from rea.web.scenario_effects import RunScenario
from rea.web.script_effects import FetchSourceMaps, ParseWebScripts, PublishWebScripts, ReadLocalFile

EFFECTS: TypeAlias = (
    ObserveBrowser | RunScenario | ParseWebScripts | FetchSourceMaps | ReadLocalFile | PublishWebScripts
)

FAMILY = Family(
    name="web",
    toolset="web",
    contracts=("rea.web.contract.browser", "rea.web.contract.scenario", "rea.web.contract.scripts"),
    programs=("rea.web.programs.browser", "rea.web.programs.scenario", "rea.web.programs.scripts"),
    effects=members(EFFECTS),
    handlers=("effects.web.runtime", "effects.web.scenario", "effects.web.scripts"),
    commands=("effects.web.scenario_cli", "effects.web.scripts_cli"),
)
