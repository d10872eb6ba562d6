"""The catalog: one table of tool contracts and its projections.

Each contract module exports TOOLS (its contracts) and CLI_COMMANDS (its `rea`
subcommand names); each family (rea/<family>/family.py, listed in rea.families) names
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
CLI_COMMANDS: tuple[str, ...] = tuple(sorted(name for _, f in _FAMILIES for name in f.CLI_COMMANDS))
# tool name -> its family; FAMILIES in first-declared order
FAMILY_OF: dict[str, str] = {c.name: family for family, f in _FAMILIES if family is not None for c in f.TOOLS}
FAMILIES: tuple[str, ...] = tuple(dict.fromkeys(family for family, f in _FAMILIES if family is not None))
assert all(not f.TOOLS for family, f in _FAMILIES if family is None), "a family with tools has a name"
assert len(BY_NAME) == len(CATALOG), "tool names are unique across families"

__all__ = ["CATALOG", "BY_NAME", "CLI_COMMANDS", "FAMILIES", "FAMILY_OF", "ToolContract"]
