"""`rea setup` / `rea uninstall`: register REA with MCP clients and install its agent skill.

CLI only: changing a client's configuration is the user's decision, never an MCP tool's.
"""

from rea.catalog.contract import ToolContract

TOOLS: tuple[ToolContract, ...] = ()
CLI_COMMANDS = ("setup", "uninstall")
