"""The views family's one declaration (rea.families): inspect_analysis_view, the views every family's Evidence shares.

Its programs read every family's projection (each family's own `views` module) and seal the view with the parts
all projections share (rea.views.projection); the other families import `deliver` from its programs to answer
detail: summary. It yields no effect of its own (a WAT page is the wasm family's ReadWatPage).
"""

from __future__ import annotations

from rea.family import Family

FAMILY = Family(
    name="views",
    toolset="views",
    contracts=("rea.views.contract",),
    programs=("rea.views.programs",),
    commands=("effects.views.commands",),
)
