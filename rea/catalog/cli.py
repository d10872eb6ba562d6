"""A tool's `rea` subcommand, declared on its catalog row (ToolContract.cli).

The command line derives a family command from the row the same way `rea call TOOL`
does: every top-level property of the input schema is a `--flag` of its kind
(effects.call_command), and the same validation and program run as over MCP. The
declaration adds only what the schema cannot say: the command's name, which arguments
are positional, the older spellings a flag keeps (aliases), values the command always
sends, whether it opens its target first (open_binary, as `rea call --target` does),
and a readable text renderer: a pure function from the reply to text. Without a
renderer the text output is the reply as indented JSON.

Commands that are more than one tool with arguments (a choice between tools, several
dependent calls, files read before the call) stay written by hand in effects/; they
reuse the same flag builder.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

import attrs

if TYPE_CHECKING:  # the contract holds a Command, so it is imported for the annotations only
    from rea.catalog.contract import ToolContract


@attrs.frozen(kw_only=True)
class Positional:
    """One tool argument taken by position instead of as a flag."""

    # the tool argument it fills
    argument: str
    # the name shown in usage and errors (default: the argument's name)
    metavar: str | None = None
    help: str | None = None
    # nargs="?": absent leaves the tool's default
    optional: bool = False
    # nargs="*": each word is one item of the list argument (none given leaves the tool's default)
    many: bool = False
    # with many, nargs="+": argparse refuses the command without one word
    at_least_one: bool = False
    # the argument's value from the word typed (made absolute first when `path`): a pure function for an
    # argument whose JSON is not one word (`before.png` for the screenshot {"path": ...})
    value: Callable[[Any], Any] | None = None
    path: bool = False


@attrs.frozen(kw_only=True)
class Alias:
    """An extra spelling of one argument's flag, kept from the hand-written command it replaced."""

    option: str
    argument: str
    # each use adds one item to the list argument (action="append")
    repeat: bool = False
    # the value (each item when repeated) is a local path, made absolute here like every CLI path
    path: bool = False
    # the value is JSON (an object, array or union argument)
    json: bool = False
    # a number argument
    integer: bool = False
    help: str | None = None
    metavar: str | None = None
    # argparse refuses the command without it
    required: bool = False
    # the argument's value from the text given (the list of texts when repeated): a pure function for a
    # flag whose spelling is not the argument's JSON (`--break NAME@MODULE` for one breakpoint object)
    value: Callable[[Any], Any] | None = None
    # the option takes no value and sends this one (`--no-strings` for include_strings false)
    switch: bool | None = None


@attrs.frozen(kw_only=True)
class Opens:
    """The command's first positional is a file that open_binary opens before the tool runs."""

    metavar: str = "path"
    help: str = "path of the file to open"
    # --provider ID (default auto) for open_binary, checked by the one provider parser
    provider: bool = False
    # --architecture for open_binary (the slice of a universal Mach-O)
    architecture: bool = False
    architecture_help: str | None = None


@attrs.frozen(kw_only=True)
class Command:
    """A tool's `rea` subcommand: everything the input schema does not already say."""

    name: str
    help: str
    positionals: tuple[Positional, ...] = ()
    aliases: tuple[Alias, ...] = ()
    opens: Opens | None = None
    # arguments the command always sends (not offered as flags)
    sends: Mapping[str, Any] = attrs.field(factory=dict)
    # arguments sent when their flag is absent (where the command's default differs from the tool's)
    defaults: Mapping[str, Any] = attrs.field(factory=dict)
    # the reply as readable text; None prints it as indented JSON
    render: Callable[[Any], str] | None = None

    def taken(self) -> frozenset[str]:
        """Arguments that are not offered as flags of their own."""
        return frozenset(p.argument for p in self.positionals) | frozenset(self.sends)


def declared(rows: Iterable[ToolContract], commands: Mapping[str, Command]) -> tuple[ToolContract, ...]:
    """The rows, each named in `commands` with its command declared (a family's small table of commands beside
    rows that a shared helper builds)."""
    found = tuple(attrs.evolve(row, cli=commands[row.name]) if row.name in commands else row for row in rows)
    missing = set(commands) - {row.name for row in found}
    assert not missing, f"commands declared for tools that are not rows here: {sorted(missing)}"
    return found
