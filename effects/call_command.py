"""`rea call TOOL [--ARG VALUE ...]`: any catalog tool from the command line.

The flags are derived from the tool's advertised input schema, so they cannot
drift from what MCP accepts: string -> `--name TEXT`, integer/number -> a number,
boolean -> `--name/--no-name`, enum -> choices, anything else (objects, arrays,
unions) -> a JSON value. Values still pass the same validation as MCP in
effects/calls.py; a bad flag is the canonical invalid_request (exit 2).
"""

from __future__ import annotations

import argparse
import os
import re
from collections.abc import Mapping, Sequence
from typing import Any, NoReturn

import attrs
import orjson
from returns.result import Failure, Result, Success

from effects.commands import ToolCommand, open_step
from rea.catalog import BY_NAME, CATALOG, ToolContract
from rea.errors import ReaError, invalid_request
from rea.local_paths import LOCAL_PATH_PATTERN
from rea.results import either

# options of `rea call` itself; a tool argument of the same name is spelled --arg-NAME
RESERVED = frozenset({"target", "provider", "target_architecture", "format", "json", "json_args", "help", "list"})


@attrs.frozen(kw_only=True)
class Flag:
    """One command-line option for one top-level tool argument."""

    name: str
    option: str
    kind: str  # string | path | integer | number | boolean | enum | json
    choices: tuple[Any, ...] = ()
    required: bool = False
    help: str = ""


def _simple(prop: Mapping[str, Any]) -> Mapping[str, Any]:
    """`X | None` is flagged as X (null can still be sent with --json-args)."""
    options = prop.get("anyOf")
    if isinstance(options, list):
        rest = [o for o in options if o.get("type") != "null"]
        if len(rest) == 1 and len(rest) < len(options):
            return {**rest[0], **{k: v for k, v in prop.items() if k != "anyOf"}}
    return prop


def _kind(prop: Mapping[str, Any]) -> tuple[str, tuple[Any, ...]]:
    prop = _simple(prop)
    if "const" in prop and isinstance(prop["const"], str):
        return "enum", (prop["const"],)
    if isinstance(prop.get("enum"), list) and all(isinstance(v, str) for v in prop["enum"]):
        return "enum", tuple(prop["enum"])
    kind = prop.get("type")
    if kind == "string" and prop.get("pattern") == LOCAL_PATH_PATTERN:
        return "path", ()  # typed relative to the user's shell, so resolved here, before the server's rule
    if kind in ("string", "integer", "number", "boolean") and "enum" not in prop:
        return str(kind), ()
    return "json", ()


def _help(prop: Mapping[str, Any], kind: str, required: bool) -> str:
    parts = [str(prop.get("description") or "").strip()]
    if kind == "json":
        parts.append("(a JSON value)")
    if "default" in prop:
        parts.append(f"(default: {orjson.dumps(prop['default']).decode()})")
    if required:
        parts.append("(required)")
    return " ".join(p for p in parts if p)


def flags_for(schema: Mapping[str, Any], reserved: frozenset[str] = RESERVED) -> tuple[Flag, ...]:
    """The flags of one tool, one per top-level property of its input schema (a reserved name is --arg-NAME)."""
    required = set(schema.get("required", ()))
    flags = []
    for name, prop in schema.get("properties", {}).items():
        kind, choices = _kind(prop)
        spelled = name.replace("_", "-")
        option = f"--arg-{spelled}" if name in reserved else f"--{spelled}"
        flags.append(
            Flag(
                name=name,
                option=option,
                kind=kind,
                choices=choices,
                required=name in required,
                help=_help(prop, kind, name in required),
            )
        )
    return tuple(flags)


class _Usage(Exception):
    """argparse's complaint, turned into a canonical error instead of an exit."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise _Usage(message)


def json_value(text: str) -> Any:
    """argparse type: one JSON value."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        raise argparse.ArgumentTypeError(f"not JSON: {exc}") from None


def _underscored(option: str) -> str:
    return "--" + option[2:].replace("-", "_")


def add_flag(parser: argparse._ActionsContainer, flag: Flag) -> None:
    """The flag, and its underscored spelling unlisted."""
    _add_one(parser, flag, [flag.option], flag.help)
    if _underscored(flag.option) != flag.option:  # --input_path works too, unlisted
        _add_one(parser, flag, [_underscored(flag.option)], argparse.SUPPRESS)


def _add_one(parser: argparse._ActionsContainer, flag: Flag, names: list[str], help: str) -> None:
    common: dict[str, Any] = {"dest": f"tool:{flag.name}", "default": argparse.SUPPRESS, "help": help}
    if flag.kind == "boolean":
        parser.add_argument(*names, action=argparse.BooleanOptionalAction, **common)
    elif flag.kind == "enum":
        parser.add_argument(*names, choices=flag.choices, metavar="{" + ",".join(flag.choices) + "}", **common)
    elif flag.kind == "integer":
        parser.add_argument(*names, type=int, metavar="INT", **common)
    elif flag.kind == "number":
        parser.add_argument(*names, type=float, metavar="NUMBER", **common)
    elif flag.kind == "path":
        parser.add_argument(*names, type=os.path.abspath, metavar="PATH", **common)
    elif flag.kind == "string":
        parser.add_argument(*names, metavar="TEXT", **common)
    else:
        parser.add_argument(*names, type=json_value, metavar="JSON", **common)


def tool_parser(contract: ToolContract) -> argparse.ArgumentParser:
    kind = "an Evidence record" if contract.result_kind == "evidence" else '{"result": ...}'
    parser = _Parser(
        prog=f"rea call {contract.name}",
        description=f"{contract.title}. {contract.description}",
        epilog=f"Answers {kind}." + (" Needs an open target: pass --target PATH." if contract.requires_target else ""),
        allow_abbrev=False,
    )
    own = parser.add_argument_group("rea call options")
    own.add_argument("--target", metavar="PATH", help="open this file first (open_binary) on the one-shot connection")
    own.add_argument("--provider", metavar="ID", help="provider_id for that open_binary (default auto)")
    own.add_argument(
        "--target-architecture",
        metavar="ARCH",
        help="the universal Mach-O slice that open_binary loads (its `architecture`: arm64, x86_64, ...)",
    )
    own.add_argument("--json-args", type=json_value, metavar="JSON", help="arguments as one JSON object")
    own.add_argument("--format", choices=("text", "json"), default="text", help="output format (default text)")
    own.add_argument("--json", dest="format", action="store_const", const="json", help="same as --format json")
    group = parser.add_argument_group(f"{contract.name} arguments (from its input schema)")
    for flag in flags_for(contract.input_schema):
        add_flag(group, flag)
    return parser


@attrs.frozen(kw_only=True)
class Plan:
    """What `rea call ...` resolved to: text to print, a listing, or the tool calls to run (or why there are
    none: an unknown tool, a bad flag)."""

    fmt: str = "text"
    text: str | None = None
    listing: Mapping[str, Any] | None = None
    command: Result[ToolCommand, ReaError] = Failure(invalid_request("nothing to run", field="tool"))


def _fmt(argv: Sequence[str]) -> str:
    joined = list(argv)
    if "--json" in joined or "--format=json" in joined:
        return "json"
    for i, a in enumerate(joined[:-1]):
        if a == "--format" and joined[i + 1] == "json":
            return "json"
    return "text"


def tools_listing() -> dict[str, Any]:
    return {
        "tools": [
            {
                "name": c.name,
                "title": c.title,
                "result_kind": c.result_kind,
                "requires_target": c.requires_target,
                "flags": [f.option for f in flags_for(c.input_schema)],
            }
            for c in CATALOG
        ]
    }


def render_tools(value: Mapping[str, Any]) -> str:
    return "\n".join(
        f"{t['name']:<34} {t['title']}{'  [needs --target]' if t['requires_target'] else ''}" for t in value["tools"]
    )


def render_reply(value: Mapping[str, Any]) -> str:
    body = value.get("normalized_result", value.get("result", value))
    text = orjson.dumps(body, option=orjson.OPT_INDENT_2).decode()
    if "evidence_id" in value:
        return f"{value.get('operation', '?')} {value['evidence_id']}\n{text}"
    return text


def _usage_error(tool: str, message: str, flags: Sequence[Flag]) -> ReaError:
    found = re.search(r"argument (--[\w-]+)", message)
    option = found.group(1) if found else None
    flag = next((f for f in flags if option in (f.option, _underscored(f.option))), None)
    field = flag.name if flag else (option.lstrip("-").replace("-", "_") if option else "arguments")
    accepted = (
        f"{flag.kind}" + (": one of " + ", ".join(flag.choices) if flag.choices else "")
        if flag
        else f"the flags listed by `rea call {tool} --help`"
    )
    return invalid_request(f"rea call {tool}: {message}", field=field, accepted=accepted, tool=tool)


def given_arguments(ns: argparse.Namespace) -> dict[str, Any]:
    """The tool arguments a person gave as flags or positionals (dest `tool:NAME`)."""
    return {k.split(":", 1)[1]: v for k, v in vars(ns).items() if k.startswith("tool:")}


def _arguments(ns: argparse.Namespace) -> Result[dict[str, Any], ReaError]:
    base = ns.json_args if ns.json_args is not None else {}
    if not isinstance(base, dict):
        return Failure(
            invalid_request("--json-args must be a JSON object", field="json_args", accepted="a JSON object")
        )
    flags = given_arguments(ns)
    return Success({**base, **flags})  # a flag wins over the same key in --json-args


def plan(argv: Sequence[str]) -> Plan:
    """Resolve `rea call` arguments without running anything."""
    fmt = _fmt(argv)
    if not argv or argv[0] in ("-h", "--help"):
        return Plan(text=USAGE)
    if argv[0] == "--list":
        return Plan(fmt=fmt, listing=tools_listing())
    contract = BY_NAME.get(argv[0])
    if contract is None:
        names = ", ".join(BY_NAME)
        unknown = invalid_request(f"There is no tool named {argv[0]!r}.", field="tool", accepted=names)
        return Plan(fmt=fmt, command=Failure(unknown))
    parser = tool_parser(contract)
    if any(a in ("-h", "--help") for a in argv[1:]):
        return Plan(text=parser.format_help())
    try:
        ns = parser.parse_args(list(argv[1:]))
    except _Usage as exc:
        return Plan(fmt=fmt, command=Failure(_usage_error(contract.name, str(exc), flags_for(contract.input_schema))))
    steps = _arguments(ns).bind(lambda args: _steps(ns, contract.name, args))
    return either(
        steps,
        lambda chosen: Plan(
            fmt=ns.format,
            command=Success(
                ToolCommand(
                    name="call", help="", configure=lambda p: None, steps=lambda _ns: chosen, render=render_reply
                )
            ),
        ),
        lambda error: Plan(fmt=fmt, command=Failure(error)),
    )


def _steps(
    ns: argparse.Namespace, tool: str, args: dict[str, Any]
) -> Result[list[tuple[str, Mapping[str, Any]]], ReaError]:
    """The tool call, after open_binary when --target names a file (--provider and the architecture need it)."""
    for flag in ("provider", "target_architecture"):
        if getattr(ns, flag) is not None and ns.target is None:
            option = "--" + flag.replace("_", "-")
            return Failure(invalid_request(f"{option} needs --target", field=flag, accepted="--target"))
    call: tuple[str, Mapping[str, Any]] = (tool, args)
    if ns.target is None:
        return Success([call])
    opened = open_step(ns.target, "auto" if ns.provider is None else ns.provider, ns.target_architecture)
    return opened.map(lambda step: [step, call])


USAGE = """usage: rea call TOOL [--target PATH] [--provider ID] [--target-architecture ARCH] [--ARG VALUE ...] [--json-args JSON] [--format json|text]
       rea call --list
       rea call TOOL --help

Calls any REA tool once. TOOL's flags come from its input schema: strings take text, integers and
numbers take numbers, booleans are --name / --no-name, enums take one of their values, and objects,
arrays and unions take a JSON value. --target opens the file first (open_binary).
"""
