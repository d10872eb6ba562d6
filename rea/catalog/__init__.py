"""The catalog: one table of tool contracts and its projections.

Each family module exports TOOLS (its contracts) and CLI_COMMANDS (its `rea`
subcommand names); adding a family is one line in _FAMILIES.
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

_FAMILIES = (
    _session,
    _native,
    _native_surface,
    _native_analyses,
    _artifacts,
    _javascript,
    _javascript_runtime,
    _managed,
    _android,
    _adb,
    _layout,
    _apple_metadata,
    _native_runtime,
    _wasm,
    _web_network,
    _views,
    _generic,
    _setup,
    _batch,
    _web,
    _web_scenario,
    _web_scripts,
)

CATALOG: tuple[ToolContract, ...] = tuple(sorted((c for f in _FAMILIES for c in f.TOOLS), key=lambda c: c.name))
BY_NAME = {c.name: c for c in CATALOG}
CLI_COMMANDS: tuple[str, ...] = tuple(sorted(name for f in _FAMILIES for name in f.CLI_COMMANDS))
assert len(BY_NAME) == len(CATALOG), "tool names are unique across families"

__all__ = ["CATALOG", "BY_NAME", "CLI_COMMANDS", "ToolContract"]
