"""The web family's one declaration (rea.families): pages and Electron apps in a browser, scenarios, scripts."""

from __future__ import annotations

from typing import TypeAlias

from rea.web.effects import ObserveBrowser
from rea.web.scenario_effects import RunScenario
from rea.web.script_effects import FetchSourceMaps, ParseWebScripts, PublishWebScripts, ReadLocalFile
from rea.family import Family, members

EFFECTS: TypeAlias = (
    ObserveBrowser | RunScenario | ParseWebScripts | FetchSourceMaps | ReadLocalFile | PublishWebScripts
)

FAMILY = Family(
    name="web",
    toolset="web",
    contracts=("rea.catalog.web", "rea.catalog.web_scenario", "rea.catalog.web_scripts"),
    programs=("rea.workflows.web", "rea.workflows.web_scenario", "rea.workflows.web_scripts"),
    effects=members(EFFECTS),
    handlers=("effects.web.runtime", "effects.web.scenario", "effects.web.scripts"),
    commands=("effects.web.cli", "effects.web.scenario_cli", "effects.web.scripts_cli"),
    typed=("rea/web", "rea/workflows/web.py", "rea/workflows/web_scenario.py", "rea/workflows/web_scripts.py"),
)
