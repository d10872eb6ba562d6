"""A tool family's one declaration, from which every registry derives (rea.families lists them).

A family names its modules instead of importing them, so that importing the list costs nothing
but the family's effect record types: the catalog imports the contract modules, the program
table the program modules, the interpreter each handler module on the family's first effect,
the command line the command modules, and the type check reads the paths. Named, not imported,
also because the session family's programs list the whole catalog, which is built from this
list: a record that held the programs themselves would be an import circle.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast, get_args

import attrs


def _modules_under(root: str) -> Callable[[Any, Any, tuple[str, ...]], None]:
    """An attrs validator: every name is a module under `root` (rea/ pure, effects/ IO)."""

    def check(instance: Any, attribute: Any, value: tuple[str, ...]) -> None:
        wrong = [name for name in value if not name.startswith(root + ".")]
        if wrong:
            raise ValueError(f"{attribute.name} names modules under {root}/ only: {wrong}")

    return check


@attrs.frozen(kw_only=True)
class Family:
    """One family of tools: what each registry needs of it, declared in the family's own package."""

    # the family's name (its package under rea/ where it has one)
    name: str
    # the toolset that selects its tools (REA_MCP_TOOLSETS, rea.catalog.toolsets); None for a family
    # that has CLI commands only
    toolset: str | None = None
    # rea.catalog modules, each exporting TOOLS (catalog rows) and CLI_COMMANDS (`rea` subcommand names)
    contracts: tuple[str, ...] = attrs.field(default=(), validator=_modules_under("rea"))
    # modules exporting PROGRAMS: tool name -> program
    programs: tuple[str, ...] = attrs.field(default=(), validator=_modules_under("rea"))
    # the effect record types its programs yield (members of rea.effect_types.AnyEffect)
    effects: tuple[type, ...] = ()
    # effects modules exporting HANDLERS (effect type -> handler), imported on the family's first effect
    handlers: tuple[str, ...] = attrs.field(default=(), validator=_modules_under("effects"))
    # effects modules exporting COMMANDS, the family's `rea` subcommands (effects.commands.ToolCommand)
    commands: tuple[str, ...] = attrs.field(default=(), validator=_modules_under("effects"))


def members(union: object) -> tuple[type, ...]:
    """The types of a union alias (`A | B`), or the one type it names."""
    found = get_args(union)
    return cast(tuple[type, ...], found if found else (union,))
