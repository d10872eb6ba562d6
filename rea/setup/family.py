"""`rea setup` / `rea uninstall`, declared for rea.families: CLI commands only, no tools."""

from rea.family import Family

FAMILY = Family(
    name="setup",
    contracts=("rea.setup.contract",),
)
