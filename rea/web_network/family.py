"""The web network family's one declaration (rea.families; toolset web): captures and screenshots."""

from __future__ import annotations

from typing import TypeAlias

from rea.family import Family, members
from rea.web_network.model import ReadCapture, ReadPng

EFFECTS: TypeAlias = ReadCapture | ReadPng

FAMILY = Family(
    name="web_network",
    toolset="web",
    contracts=("rea.web_network.contract",),
    programs=("rea.web_network.programs",),
    effects=members(EFFECTS),
    handlers=("effects.web_network.runtime",),
    commands=("effects.web_network.cli",),
)
