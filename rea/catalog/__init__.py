"""The catalog: one table of tool contracts and its projections.

Each contract module exports TOOLS (its contracts) and may export CLI_COMMANDS (the
names of its hand-written `rea` subcommands; a row's own command is declared on the row,
ToolContract.cli); each family (rea/<family>/family.py, listed in rea.families) names
its contract modules and the toolset that selects its tools (rea.catalog.toolsets).
"""

import importlib
from types import ModuleType

from rea.catalog.contract import ToolContract
from rea.families import FAMILIES as _DECLARED

# (toolset, module): the toolset names the catalog's families go by (REA_MCP_TOOLSETS selects them,
# rea.catalog.toolsets); a module with no tools (CLI commands only) has the toolset None
_FAMILIES: tuple[tuple[str | None, ModuleType], ...] = tuple(
    (family.toolset, importlib.import_module(module)) for family in _DECLARED for module in family.contracts
)

CATALOG: tuple[ToolContract, ...] = tuple(sorted((c for _, f in _FAMILIES for c in f.TOOLS), key=lambda c: c.name))
BY_NAME = {c.name: c for c in CATALOG}
# (family, contract) for every row that declares its `rea` subcommand, in the families' declared order
DECLARED_COMMANDS: tuple[tuple[str, ToolContract], ...] = tuple(
    (family.name, c)
    for family in _DECLARED
    for module in family.contracts
    for c in importlib.import_module(module).TOOLS
    if c.cli is not None
)
CLI_COMMANDS: tuple[str, ...] = tuple(
    sorted(
        [name for _, f in _FAMILIES for name in getattr(f, "CLI_COMMANDS", ())]
        + [c.cli.name for _, c in DECLARED_COMMANDS if c.cli is not None]
    )
)
assert len(set(CLI_COMMANDS)) == len(CLI_COMMANDS), "command names are unique"
# tool name -> its family; FAMILIES in first-declared order
FAMILY_OF: dict[str, str] = {c.name: family for family, f in _FAMILIES if family is not None for c in f.TOOLS}
FAMILIES: tuple[str, ...] = tuple(dict.fromkeys(family for family, f in _FAMILIES if family is not None))
assert all(not f.TOOLS for family, f in _FAMILIES if family is None), "a family with tools has a name"
assert len(BY_NAME) == len(CATALOG), "tool names are unique across families"

__all__ = ["CATALOG", "BY_NAME", "CLI_COMMANDS", "DECLARED_COMMANDS", "FAMILIES", "FAMILY_OF", "ToolContract"]
