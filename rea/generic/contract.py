"""CLI commands that serve every tool and prompt rather than one family.

No tools of its own: `rea call` reaches any catalog tool through flags derived
from its input schema, `rea tools` lists them, `rea prompts`/`rea prompt` show
the MCP prompts, `rea toolsets` what each toolset (REA_MCP_TOOLSETS) exposes.
"""

from rea.catalog.contract import ToolContract

TOOLS: tuple[ToolContract, ...] = ()
CLI_COMMANDS = ("call", "prompt", "prompts", "tools", "toolsets")
