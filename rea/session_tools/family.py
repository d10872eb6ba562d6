"""The session family's one declaration (rea.families): binary_session, the target binding, the Evidence ledger
and its bundles, residual unknowns.

The package is `session_tools`, not `session`: rea.session is the connection's Session value itself, which every
family's programs read and change, while this family is the tools that show and change it. The toolset keeps the
reference's name, `session` (rea.session_checks joins it).

Its `rea` subcommands beyond the derived ones (capabilities, doctor, inspect-evidence-bundle, mcp, providers) are
the command line's own (effects.commandline); their names are declared with its contract (CLI_COMMANDS).
"""

from __future__ import annotations

from rea.family import Family

FAMILY = Family(
    name="session_tools",
    toolset="session",
    contracts=("rea.session_tools.contract",),
    programs=(
        "rea.session_tools.programs.status",
        "rea.session_tools.programs.target",
        "rea.session_tools.programs.bundles",
        "rea.session_tools.programs.unknowns",
    ),
)
