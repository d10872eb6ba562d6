"""`rea batch`: a CLI command with no MCP tool (no batch runs inside the server process; an MCP
client reads a finished batch with import_evidence_bundle)."""

from rea.catalog.contract import ToolContract

TOOLS: tuple[ToolContract, ...] = ()
CLI_COMMANDS = ("batch",)
