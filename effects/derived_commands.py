"""The one builder of family commands: a catalog row's `rea` subcommand from its input schema and its
declaration (rea.catalog.cli).

Flags come from the schema exactly as `rea call TOOL` makes them (effects.call_command), minus the
arguments the declaration takes by position or always sends; aliases keep the spellings of the
hand-written commands these replaced. The command runs through the same path as `rea call` (a
ToolCommand whose steps are open_binary when the command opens its target, then the tool), and prints
JSON or the declared text.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping, Sequence
from typing import Any

from returns.result import Result

from effects.call_command import Flag, add_flag, flags_for, given_arguments, json_value
from effects.commands import Step, ToolCommand, open_step, render_json
from rea.catalog.cli import Alias, Command, Positional
from rea.catalog.contract import ToolContract
from rea.errors import ReaError

# the options every family command has (--format, --json, --help), and a target's own
_COMMON = frozenset({"format", "json", "help"})


def _reserved(command: Command) -> frozenset[str]:
    opens = command.opens
    own = {"provider": opens is not None and opens.provider, "architecture": opens is not None and opens.architecture}
    return _COMMON | {name for name, taken in own.items() if taken}


def _positional(parser: argparse.ArgumentParser, positional: Positional, flag: Flag | None) -> None:
    kind = flag.kind if flag is not None else "string"
    typed: dict[str, Any] = {"path": {"type": os.path.abspath}, "integer": {"type": int}, "number": {"type": float}}
    extra = typed.get(kind, {"type": json_value} if kind == "json" else {})
    if positional.optional:
        extra = {**extra, "nargs": "?", "default": argparse.SUPPRESS}
    if positional.many:  # each word one item, as typed (an empty list is left out: argparse.SUPPRESS)
        extra = {"nargs": "+"} if positional.at_least_one else {"nargs": "*", "default": argparse.SUPPRESS}
    if positional.value is not None:  # the word as typed (a path made absolute), converted by the steps
        extra = {"type": os.path.abspath} if positional.path else {}
    parser.add_argument(
        _positional_dest(positional),
        metavar=positional.metavar or positional.argument,
        help=positional.help if positional.help is not None else (flag.help if flag else None),
        **extra,
    )


def _positional_dest(positional: Positional) -> str:
    """A positional with its own value function keeps what was typed apart until the steps convert it."""
    return f"positional:{positional.argument}" if positional.value is not None else f"tool:{positional.argument}"


def _alias_dest(alias: Alias) -> str:
    """An alias with its own value function keeps what was typed apart until the steps convert it."""
    return f"alias:{alias.option}" if alias.value is not None else f"tool:{alias.argument}"


def _alias(parser: argparse.ArgumentParser, alias: Alias, flag: Flag | None) -> None:
    if alias.switch is not None:
        parser.add_argument(
            alias.option,
            dest=_alias_dest(alias),
            action="store_const",
            const=alias.switch,
            default=argparse.SUPPRESS,
            help=alias.help,
        )
        return
    kind: dict[str, Any] = (
        {"type": os.path.abspath, "metavar": "PATH"}
        if alias.path
        else (
            {"type": json_value, "metavar": "JSON"}
            if alias.json
            else ({"type": int, "metavar": "INT"} if alias.integer else {"metavar": "TEXT"})
        )
    )
    if flag is not None and flag.kind == "enum" and alias.value is None:  # argparse offers the schema's values
        kind = {"choices": flag.choices}
    if alias.metavar is not None:
        kind["metavar"] = alias.metavar
    action: dict[str, Any] = {"action": "append"} if alias.repeat else {}
    required: dict[str, Any] = {"required": True} if alias.required else {}
    parser.add_argument(
        alias.option,
        dest=_alias_dest(alias),
        default=argparse.SUPPRESS,
        help=alias.help,
        **kind,
        **action,
        **required,
    )


def _converted(ns: argparse.Namespace, command: Command) -> dict[str, Any]:
    """The arguments given through positionals and aliases with a value function, converted."""
    typed = [(p.argument, p.value, _positional_dest(p)) for p in command.positionals]
    typed += [(a.argument, a.value, _alias_dest(a)) for a in command.aliases]
    return {
        argument: value(getattr(ns, dest)) for argument, value, dest in typed if value is not None and hasattr(ns, dest)
    }


def _configure(contract: ToolContract, command: Command) -> Any:
    flags = flags_for(contract.input_schema, _reserved(command))
    by_name = {f.name: f for f in flags}

    def configure(parser: argparse.ArgumentParser) -> None:
        opens = command.opens
        if opens is not None:
            parser.add_argument("target:path", metavar=opens.metavar, help=opens.help)
            if opens.provider:
                parser.add_argument(
                    "--provider",
                    dest="target:provider",
                    default="auto",
                    metavar="PROVIDER",
                    help="deep-analysis provider id or auto (default)",
                )
            if opens.architecture:
                parser.add_argument(
                    "--architecture", dest="target:architecture", metavar="ARCHITECTURE", help=opens.architecture_help
                )
        for positional in command.positionals:
            _positional(parser, positional, by_name.get(positional.argument))
        for alias in command.aliases:
            _alias(parser, alias, by_name.get(alias.argument))
        for flag in flags:
            if flag.name not in command.taken():
                add_flag(parser, flag)

    return configure


def _steps(contract: ToolContract, command: Command) -> Any:
    def steps(ns: argparse.Namespace) -> Sequence[Step] | Result[Sequence[Step], ReaError]:
        call = (contract.name, {**command.defaults, **given_arguments(ns), **_converted(ns, command), **command.sends})
        if command.opens is None:
            return [call]
        target = (getattr(ns, "target:provider", None), getattr(ns, "target:architecture", None))
        return open_step(getattr(ns, "target:path"), *target).map(lambda opened: [opened, call])

    return steps


def derived_command(contract: ToolContract) -> ToolCommand:
    """The `rea` subcommand a catalog row declares."""
    command = contract.cli
    assert command is not None, f"{contract.name} declares no command"
    return ToolCommand(
        name=command.name,
        help=command.help,
        configure=_configure(contract, command),
        steps=_steps(contract, command),
        render=command.render or render_json,
    )


def derived_commands(rows: Sequence[tuple[str, ToolContract]]) -> Mapping[str, tuple[ToolCommand, ...]]:
    """Family name -> its derived commands, in the rows' order."""
    found: dict[str, list[ToolCommand]] = {}
    for family, contract in rows:
        found.setdefault(family, []).append(derived_command(contract))
    return {family: tuple(commands) for family, commands in found.items()}
