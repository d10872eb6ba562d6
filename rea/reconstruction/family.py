"""The reconstruction family's one declaration (rea.families): pure derivations over supplied Evidence."""

from __future__ import annotations

from rea.family import Family

FAMILY = Family(
    name="reconstruction",
    toolset="reconstruction",
    contracts=("rea.reconstruction.contract",),
    programs=("rea.reconstruction.programs",),
    typed=("rea/reconstruction",),
)
