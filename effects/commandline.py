"""The `rea` command line: the same programs as MCP, one shot, JSON or text.

Exit codes: 0 success, 1 the operation failed (canonical error on stdout),
2 bad arguments or configuration, 130 cancelled by SIGINT/SIGTERM.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any

import anyio
import orjson
from returns.result import Failure, Result, Success

from effects import call_command, prompt_commands
from effects.batch import cli as batch_cli
from effects.calls import Connection, call_tool
from effects.commands import ToolCommand
from effects.derived_commands import derived_commands
from effects.doctor import doctor_report
from effects.environment import add_toolsets_option, load_context
from effects.interpreter import run
from effects.native.discovery import discover
from effects.native.runtime import release_all
from effects.progress import Progress
from effects.setup import command as setup_command
from rea import __version__
from rea.catalog import CATALOG, CLI_COMMANDS, DECLARED_COMMANDS, toolsets
from rea.catalog.availability import TargetState
from rea.catalog.projection import catalog_identity, grouped_availability, tool_definition
from rea.errors import ReaError, cancelled, invalid_request
from rea.families import FAMILIES
from rea.native.providers import EMBEDDED_DEFAULT, candidate_records
from rea.session import Session
from rea.session_tools.programs.bundles import INSPECT_BUNDLE_SCHEMA, inspect_evidence_bundle
from rea.session_tools.programs.status import NATIVE_OPERATIONS
from rea.validation import validate_arguments

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_CANCELLED = 0, 1, 2, 130

# Family subcommands in the list's order (rea.families): each family's commands derived from its catalog
# rows (rea.catalog.cli, effects.derived_commands), then the hand-written ones of the command modules it
# names (their names are its contract modules' CLI_COMMANDS).
_DERIVED = derived_commands(DECLARED_COMMANDS)
FAMILY_COMMANDS: tuple[ToolCommand, ...] = tuple(
    command
    for family in FAMILIES
    for command in (
        *_DERIVED.get(family.name, ()),
        *(command for module in family.commands for command in import_module(module).COMMANDS),
    )
)


def _emit(value: Any, fmt: str, render: Callable[[Any], str]) -> None:
    if fmt == "json":
        sys.stdout.write(orjson.dumps(value, option=orjson.OPT_INDENT_2).decode() + "\n")
    else:
        sys.stdout.write(render(value).rstrip("\n") + "\n")
    sys.stdout.flush()


def _render_error(value: Mapping[str, Any]) -> str:
    err = value["error"]
    lines = [
        f"error: {err['code']} ({err['category']}): {err['message']}",
        f"  what to do: {err['remediation']['action']}",
    ]
    for key, detail in (err.get("details") or {}).items():
        lines.append(f"  {key}: {orjson.dumps(detail).decode() if not isinstance(detail, str) else detail}")
    return "\n".join(lines)


def _fail(error: ReaError, fmt: str) -> int:
    _emit(error.to_json(), fmt, _render_error)
    return (
        EXIT_USAGE
        if error.code in ("invalid_request", "configuration_invalid")
        else (EXIT_CANCELLED if error.code == "cancelled" else EXIT_FAILED)
    )


async def _stderr_progress(number: int, message: str) -> None:
    sys.stderr.write(f"[rea] {message}\n")
    sys.stderr.flush()


async def _cancellable(work: Callable[[], Any]) -> Result[Any, ReaError]:
    """Run work; SIGINT/SIGTERM cancel it through the same anyio scope MCP cancellation uses."""
    outcome: list[Result[Any, ReaError]] = []
    async with anyio.create_task_group() as group:

        async def watch() -> None:
            with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
                async for signum in signals:
                    outcome.append(Failure(cancelled("the command", signal=signal.Signals(signum).name)))
                    group.cancel_scope.cancel()
                    return

        async def main() -> None:
            outcome.append(await work())
            group.cancel_scope.cancel()

        group.start_soon(watch)
        group.start_soon(main)
    return outcome[0]


# ------------------------------------------------------------- commands


def _capabilities(conn: Connection) -> dict[str, Any]:
    return {
        "package": {"name": conn.ctx.server.package, "version": __version__},
        "catalog": catalog_identity(CATALOG, CLI_COMMANDS),
        "tool_availability": grouped_availability(CATALOG, state=TargetState(), client_features=frozenset()),
    }


def _render_capabilities(value: Mapping[str, Any]) -> str:
    ident = value["catalog"]
    lines = [
        f"REA {value['package']['version']}: {ident['counts']['mcp_tools']} MCP tools, "
        f"{ident['counts']['cli_commands']} CLI commands",
        f"catalog digest (combined_sha256): {ident['digests']['combined_sha256']}",
    ]
    for group in value["tool_availability"]["groups"]:
        state = "available" if group["available"] else f"unavailable ({group['reason']})"
        lines.append(f"  [{group['surface']}] {state}: {', '.join(group['names'])}")
    return "\n".join(lines)


def _providers(conn: Connection) -> dict[str, Any]:
    return {
        "analysis_provider_candidates": candidate_records(discover(), None, None, NATIVE_OPERATIONS),
        "default": EMBEDDED_DEFAULT,
        "catalog": catalog_identity(CATALOG, CLI_COMMANDS),
    }


def _render_toolsets(value: Mapping[str, Any]) -> str:
    lines = [
        f"{value['variable']} or `rea mcp {value['flag']} NAMES` (comma-separated; default {value['default']}); "
        f"always in: {', '.join(value['always'])}"
    ]
    for row in value["toolsets"]:
        lines.append(
            f"  {row['name']:<11} {row['kind']:<7} {row['tool_count']:>3} tools  {row['context_bytes'] / 1024:6.1f} KB"
        )
        own = [t for t in row["tools"] if t not in value["always"]] or row["tools"]
        if row["name"] != value["default"]:
            lines.append(f"              {', '.join(own)}")
    return "\n".join(lines)


def _render_providers(value: Mapping[str, Any]) -> str:
    lines = []
    for c in value["analysis_provider_candidates"]:
        p, a = c["provider"], c["availability"]
        state = (
            f"available {p['version']}" if a["status"] == "available" else f"unavailable ({a['code']}): {a['reason']}"
        )
        lines.append(f"{p['id']:<7} {state}{'  [embedded default]' if c['embedded'] else ''}")
        if a.get("remediation"):
            lines.append(f"        -> {a['remediation']}")
    return "\n".join(lines)


def _render_summary(value: Mapping[str, Any]) -> str:
    """The evidence-bundle-summary as text: counts, then one line per matching record."""
    result = value["result"]
    retained, matching = result["total_retained_records"], result["matching_records"]
    counts = f"{matching} record(s)" if matching == retained else f"{matching} of {retained} record(s) match"
    lines = [f"{counts}, {result['unknown_revisions']} unknown revision(s)"]
    for row in result["records"]:
        subject = row["subject"]["name"] if row["subject"] else "-"
        dossier = row["native_dossier"]
        procedure = (
            f"  {dossier['procedure_address']} {dossier['procedure_name'] or '?'}" if dossier["available"] else ""
        )
        lines.append(f"  {row['evidence_id']}  {row['operation']}  {subject}  {row['provider']['id']}{procedure}")
    return "\n".join(lines)


def _render_doctor(value: Mapping[str, Any]) -> str:
    lines = [f"REA {value['version']} doctor ({value['status']})"]
    for check in value["checks"]:
        lines.append(f"  {check['status']:<11} {check['name']}: {check['detail']}")
        if check.get("remediation"):
            lines.append(f"              -> {check['remediation']}")
    section = value["client_registrations"]
    lines.append(
        f"client registrations (expected: {' '.join(section['expected_command'])}; "
        f"live server: {section['live_server']['state']})"
    )
    for reg in section["registrations"]:
        found = " ".join(reg["command"]) if reg["command"] else "-"
        lines.append(f"  {reg['state']:<11} {reg['client']} {reg['config_path']}: {found} ({reg['detail']})")
        if reg["remediation"]:
            lines.append(f"              -> {reg['remediation']}")
    if not section["registrations"]:
        lines.append("  no supported client found")
    skill = value["agent_skill"]
    lines.append(f"agent skill: {skill['state']} ({skill['path']})")
    if skill.get("remediation"):
        lines.append(f"              -> {skill['remediation']}")
    return "\n".join(lines)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rea", description="REA: reverse engineer anything (MCP server and CLI).")
    parser.add_argument("--version", action="version", version=f"rea {__version__}")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--format", choices=("text", "json"), default="text", help="output format (default text)")
    common.add_argument("--json", dest="format", action="store_const", const="json", help="same as --format json")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    add_toolsets_option(sub.add_parser("mcp", help="serve MCP over stdio"))
    sub.add_parser("capabilities", parents=[common], help="catalog identity and tool availability")
    sub.add_parser("providers", parents=[common], help="deep-analysis provider candidates")
    sub.add_parser(
        "doctor", parents=[common], help="check dependencies, providers, settings and client registrations (read-only)"
    ).add_argument(
        "--project", type=setup_command.project_dir, metavar="DIR", help="also read this project's MCP configs"
    )
    setup_command.configure(
        sub.add_parser("setup", parents=[common], help="register REA with MCP clients (prints the plan first)"),
        setup=True,
    )
    setup_command.configure(
        sub.add_parser("uninstall", parents=[common], help="remove REA's client entries and skill (plan first)"),
        setup=False,
    )
    inspect = sub.add_parser(
        "inspect-evidence-bundle", parents=[common], help="summary of an exported Evidence bundle file"
    )
    inspect.add_argument("request", help='JSON request, e.g. \'{"path":"/tmp/evidence.json","detail":"summary"}\'')
    for command in FAMILY_COMMANDS:
        command.configure(sub.add_parser(command.name, parents=[common], help=command.help))
    _generic_commands(sub, common)
    batch_cli.configure(sub.add_parser("batch", parents=[common], help="analyse many files into one Evidence bundle"))
    return parser


def _generic_commands(sub: Any, common: argparse.ArgumentParser) -> None:
    call = sub.add_parser(
        "call", add_help=False, help="call any tool: rea call TOOL [--ARG VALUE ...] (see rea call TOOL --help)"
    )
    call.add_argument("argv", nargs=argparse.REMAINDER, help="TOOL and its flags")
    sub.add_parser("tools", parents=[common], help="list every tool (same as rea call --list)")
    sub.add_parser(
        "toolsets", parents=[common], help="what each toolset of `rea mcp --toolsets` exposes and its context cost"
    )
    sub.add_parser("prompts", parents=[common], help="list the guided workflows served as MCP prompts")
    prompt_commands.configure_get(sub.add_parser("prompt", parents=[common], help="render one prompt"))


def _prompt_command(ns: argparse.Namespace, fmt: str) -> int:
    if ns.command == "tools":
        _emit(call_command.tools_listing(), fmt, call_command.render_tools)
        return EXIT_OK
    if ns.command == "toolsets":
        _emit(toolsets.overview(tool_definition), fmt, _render_toolsets)
        return EXIT_OK
    if ns.command == "prompts":
        _emit(prompt_commands.listing(), fmt, prompt_commands.render_listing)
        return EXIT_OK
    return _finish(prompt_commands.prompt(ns), fmt, prompt_commands.render_prompt)


def _call(argv: list[str]) -> int:
    """`rea call`: parsed here, not by the top-level parser, because the flags depend on the tool."""
    plan = call_command.plan(argv)
    if plan.text is not None:
        sys.stdout.write(plan.text)
        return EXIT_OK
    if plan.listing is not None:
        _emit(plan.listing, plan.fmt, call_command.render_tools)
        return EXIT_OK
    match plan.command.bind(lambda command: load_context("cli").map(lambda ctx: (command, ctx))):
        case Success((command, ctx)):
            return _run_family(Connection(ctx=ctx), command, argparse.Namespace(), plan.fmt)
        case refused:
            return _fail(refused.failure(), plan.fmt)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "call":
        return _call(argv[1:])
    parser = _parser()
    ns = parser.parse_args(argv)
    if ns.command is None:
        parser.print_help()
        return EXIT_USAGE
    fmt = getattr(ns, "format", "text")
    context = load_context("mcp", toolsets=ns.toolsets) if ns.command == "mcp" else load_context("cli")
    if ns.command in ("tools", "toolsets", "prompts", "prompt"):
        return _prompt_command(ns, fmt)
    if ns.command == "batch":
        return batch_cli.main(ns, fmt)
    if ns.command == "doctor":
        report = doctor_report(os.environ, project=ns.project)
        _emit(report, fmt, _render_doctor)
        return EXIT_OK if report["status"] != "failed" else EXIT_FAILED
    if ns.command in ("setup", "uninstall"):
        report, code = setup_command.run(ns.command, ns, os.environ, fmt)
        _emit(report, fmt, setup_command.render)
        return code
    match context:
        case Failure(err) if ns.command == "mcp":
            sys.stderr.write(f"rea mcp: {err.message}\n")
            return EXIT_USAGE
        case Failure(err):
            return _fail(err, fmt)
    conn = Connection(ctx=context.unwrap())
    if ns.command == "mcp":
        from effects.server import run_stdio

        return run_stdio(conn, __version__)
    if ns.command == "capabilities":
        _emit(_capabilities(conn), fmt, _render_capabilities)
        return EXIT_OK
    if ns.command == "providers":
        _emit(_providers(conn), fmt, _render_providers)
        return EXIT_OK
    if ns.command == "inspect-evidence-bundle":
        return _inspect_bundle(conn, ns.request, fmt)
    family = {c.name: c for c in FAMILY_COMMANDS}.get(ns.command)
    if family is not None:
        return _run_family(conn, family, ns, fmt)
    return EXIT_USAGE  # pragma: no cover - argparse rejects unknown commands


def _inspect_bundle(conn: Connection, request: str, fmt: str) -> int:
    try:
        args = orjson.loads(request)
    except orjson.JSONDecodeError as exc:
        return _fail(
            invalid_request(
                f"the request is not JSON: {exc}",
                field="request",
                accepted='{"path": "<bundle.json>", "detail": "summary", "filters": {...}}',
            ),
            fmt,
        )
    checked = validate_arguments("inspect-evidence-bundle", INSPECT_BUNDLE_SCHEMA, args)

    async def work() -> Result[Any, ReaError]:
        outcome = await run(inspect_evidence_bundle, Session(), checked.unwrap(), conn.ctx, Progress(_stderr_progress))
        return outcome.reply

    return _finish(checked.bind(lambda _: anyio.run(_cancellable, work)), fmt, _render_summary)


def _finish(reply: Result[Any, ReaError], fmt: str, render: Callable[[Any], str]) -> int:
    """Print the reply's value (exit 0) or its canonical error (the error's exit code)."""
    match reply:
        case Success(value):
            _emit(value, fmt, render)
            return EXIT_OK
        case _:
            return _fail(reply.failure(), fmt)


def _run_family(conn: Connection, command: ToolCommand, ns: argparse.Namespace, fmt: str) -> int:
    match command.steps(ns):  # the command may not be able to prepare its calls (e.g. an unreadable input file)
        case Failure(error):
            return _fail(error, fmt)
        case Success(prepared):
            steps = prepared
        case prepared:
            steps = prepared

    async def work() -> Result[Any, ReaError]:
        reply: Result[Any, ReaError] = Failure(invalid_request("nothing to run", field="command"))
        earlier: list[Any] = []
        try:
            for tool, args in steps:
                # a step may build its arguments from the earlier replies (e.g. their evidence ids)
                built = args(earlier) if callable(args) else args
                reply = await call_tool(conn, tool, dict(built), _stderr_progress)
                match reply:
                    case Success(value):
                        earlier.append(value)
                    case _:
                        break
        finally:
            await release_all(conn.native)
        return reply

    reply = anyio.run(_cancellable, work)
    match reply:
        case Failure(error) if error.code == "cancelled" and conn.cancelled_reply is not None:
            reply = conn.cancelled_reply  # the partial Evidence the cancelled call retained
    return _finish(reply, fmt, command.render)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
