"""The catalog: one table of tool contracts and its projections.

Each family module exports TOOLS (its contracts) and CLI_COMMANDS (its `rea`
subcommand names); adding a family is one line in _FAMILIES, which also names its
family (the toolset that selects it, rea.catalog.toolsets).
"""

from rea.catalog import adb_tools as _adb
from rea.catalog import android_tools as _android
from rea.catalog import artifacts as _artifacts
from rea.catalog import batch_commands as _batch
from rea.catalog import generic_commands as _generic
from rea.catalog import javascript_tools as _javascript
from rea.catalog import javascript_runtime_tools as _javascript_runtime
from rea.catalog import layout as _layout
from rea.catalog import apple_metadata as _apple_metadata
from rea.catalog import native_runtime as _native_runtime
from rea.catalog import wasm as _wasm
from rea.catalog import web_network as _web_network
from rea.catalog import web as _web
from rea.catalog import web_scenario as _web_scenario
from rea.catalog import web_scripts as _web_scripts
from rea.catalog import managed_tools as _managed
from rea.catalog import native_tools as _native
from rea.catalog import native_surface as _native_surface
from rea.catalog import native_analyses as _native_analyses
from rea.catalog import session_tools as _session
from rea.catalog import setup_commands as _setup
from rea.catalog import views as _views
from rea.catalog.contract import ToolContract

# (family, module): the family names the catalog's families go by (REA_MCP_TOOLSETS selects them,
# rea.catalog.toolsets); a module with no tools (CLI commands only) has the family None
_FAMILIES = (
    ("session", _session),
    ("native", _native),
    ("native", _native_surface),
    ("native", _native_analyses),
    ("artifacts", _artifacts),
    ("javascript", _javascript),
    ("javascript", _javascript_runtime),
    ("managed", _managed),
    ("android", _android),
    ("adb", _adb),
    ("layout", _layout),
    ("apple", _apple_metadata),
    ("native", _native_runtime),
    ("wasm", _wasm),
    ("web", _web_network),
    ("views", _views),
    (None, _generic),
    (None, _setup),
    (None, _batch),
    ("web", _web),
    ("web", _web_scenario),
    ("web", _web_scripts),
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
