"""`rea batch`, declared for rea.families: a CLI command only, no tools."""

from rea.family import Family

FAMILY = Family(
    name="batch",
    contracts=("rea.batch.contract",),
)
