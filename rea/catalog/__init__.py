"""The catalog: one table of tool contracts and its projections."""

from rea.catalog.contract import ToolContract
from rea.catalog.session_tools import SESSION_TOOLS

CATALOG: tuple[ToolContract, ...] = tuple(sorted(SESSION_TOOLS, key=lambda c: c.name))
BY_NAME = {c.name: c for c in CATALOG}

__all__ = ["CATALOG", "BY_NAME", "ToolContract"]
