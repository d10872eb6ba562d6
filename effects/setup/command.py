"""`rea setup` and `rea uninstall`: print the plan, then apply it only with --yes or a typed "y".

Exit 0 when the plan was shown (--dry-run), applied, or had nothing to do; 1 when a file was
refused or failed, or confirmation was not given (nothing is written then); 130 when SIGINT
stopped the run (each file is then either as it was or fully rewritten).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from returns.result import Result, Success

from effects.registrations import PROJECT_FILES, ClientFile, path_facts, read_bounded, this_installation
from effects.setup import files as setup_files
from effects.skill_files import skill_path, skill_text
from rea.catalog import toolsets
from rea.errors import ReaError, invalid_request
from rea.registrations import read_entry, with_toolsets
from rea.setup import skill_plan
from rea.setup.plan import Change, Target, plan_setup, plan_uninstall

CLIENTS = ("claude_code", "claude_desktop", "codex", "cursor", "gemini_cli", "windsurf")
PROJECT_CLIENTS = tuple(client for client, _, _ in PROJECT_FILES)


def configure(parser: argparse.ArgumentParser, *, setup: bool) -> None:
    choices = sorted({*CLIENTS, *PROJECT_CLIENTS})
    parser.add_argument("--client", action="append", choices=choices, default=[], help="a client (repeatable)")
    parser.add_argument(
        "--project",
        type=project_dir,
        metavar="DIR",
        help="the project's own configs instead of the user's (.mcp.json, .vscode/mcp.json, .cursor/, .gemini/)",
    )
    if setup:
        parser.add_argument("--all-detected", action="store_true", help="every client found (the default)")
        parser.add_argument(
            toolsets.FLAG,
            metavar="NAMES",
            help=(
                f"register `rea mcp {toolsets.FLAG} NAMES` (comma-separated: {', '.join(toolsets.NAMES)}); "
                f"{toolsets.DEFAULT} registers the complete catalog; omitted keeps an entry's toolsets"
            ),
        )
    parser.add_argument("--dry-run", action="store_true", help="print the plan and change nothing")
    parser.add_argument("--yes", action="store_true", help="apply the plan without asking")


def project_dir(value: str) -> Path:
    """--project DIR: an existing directory, made absolute against the working directory."""
    path = Path(os.path.abspath(value))
    if not path.is_dir():
        raise argparse.ArgumentTypeError(f"{value!r} is not a directory; pass the project's root directory")
    return path


def clients_problem(ns: argparse.Namespace) -> str | None:
    """A --client that has no config in the chosen scope (VS Code is per project; Codex and others per user)."""
    scope, known = ("project", PROJECT_CLIENTS) if ns.project is not None else ("user", CLIENTS)
    wrong = [c for c in ns.client if c not in known]
    if not wrong:
        return None
    other = "without --project" if ns.project is not None else "with --project DIR"
    return (
        f"{', '.join(wrong)} has no {scope}-level config REA writes; accepted here: {', '.join(known)} (or run {other})"
    )


def chosen_toolsets(ns: argparse.Namespace) -> Result[str | None, ReaError]:
    """`rea setup --toolsets NAMES` normalized (`all` for the complete catalog); None when not given."""
    raw = getattr(ns, "toolsets", None)
    if raw is None:
        return Success(None)
    return toolsets.parse(raw, toolsets.FLAG).map(toolsets.normalized)


def plan(operation: str, ns: argparse.Namespace, env: Mapping[str, str], chosen: str | None = None) -> list[Change]:
    files = setup_files.selected_files(env, ns.client, getattr(ns, "all_detected", False), ns.project)
    changes = [_config_change(operation, f, chosen) for f in files]
    # the skill is a user-level file: a project-scoped run leaves it to `rea setup` without --project
    if ns.project is None and any(f.client in skill_plan.SKILL_CLIENTS for f in files):
        changes.append(_skill_change(operation, env))
    return changes


def _config_change(operation: str, file: ClientFile, chosen: str | None) -> Change:
    target = setup_files.read_target(file)
    if operation == "uninstall":
        return plan_uninstall(target)
    return plan_setup(target, this_installation(), _facts(target), chosen)


def _facts(target: Target) -> dict[str, Any]:
    entry = read_entry(target.format, target.content) if target.content else None
    return {entry.command[0]: path_facts(entry.command[0])} if entry and entry.command else {}


def _skill_change(operation: str, env: Mapping[str, str]) -> Change:
    path = skill_path(env)
    assert path is not None
    target = setup_files.read_target(ClientFile("claude_code", "markdown", path.parent, path))
    if operation == "uninstall":
        return skill_plan.plan_remove(str(path), target.content, target.problem)
    return skill_plan.plan_install(str(path), target.content, target.problem, skill_text())


def run(operation: str, ns: argparse.Namespace, env: Mapping[str, str], fmt: str) -> tuple[dict[str, Any], int]:
    problem = clients_problem(ns)
    if problem is not None:
        error = invalid_request(
            problem, field="--client", accepted=", ".join(PROJECT_CLIENTS if ns.project else CLIENTS)
        )
        return _refused(operation, error)
    return (
        chosen_toolsets(ns)
        .map(lambda chosen: _planned(operation, ns, env, fmt, chosen))
        .lash(lambda error: Success(_refused(operation, error)))
        .unwrap()
    )


def _refused(operation: str, error: ReaError) -> tuple[dict[str, Any], int]:
    """Bad options: nothing is planned (exit 2)."""
    return {"operation": operation, "mode": "refused", "changes": [], "error": error.to_json()["error"]}, 2


def _planned(
    operation: str, ns: argparse.Namespace, env: Mapping[str, str], fmt: str, chosen: str | None
) -> tuple[dict[str, Any], int]:
    """The plan for the chosen toolsets, shown, confirmed and applied as the options say."""
    changes = plan(operation, ns, env, chosen)
    expected = with_toolsets(this_installation().expected, None if chosen in (None, toolsets.DEFAULT) else chosen)
    report: dict[str, Any] = {
        "operation": operation,
        "project": None if ns.project is None else str(ns.project),
        "expected_command": list(expected),
        "toolsets": chosen,
        "changes": [c.record() for c in changes],
        "skill_unsupported": _skill_unsupported(changes),
        "mode": "dry_run",
        "applied": [],
    }
    refused = any(c.action == "refuse" for c in changes)
    writes = [c for c in changes if c.writes]
    if ns.dry_run or not writes:
        report["mode"] = "dry_run" if ns.dry_run else "nothing_to_do"
        return report, 1 if refused else 0
    if not ns.yes and not _confirmed(report, fmt):
        report["mode"] = "not_confirmed"
        report["error"] = _not_confirmed().to_json()["error"]
        return report, 1
    report["applied"] = _apply_all(writes)
    cancelled = any(a["status"] == "cancelled" for a in report["applied"])
    report["mode"] = "cancelled" if cancelled else "applied"
    failed = any(a["status"] != "applied" for a in report["applied"])
    return report, 130 if cancelled else (1 if refused or failed else 0)


def _apply_all(writes: list[Change]) -> list[dict[str, Any]]:
    stamp, results = setup_files.utc_stamp(), []
    for index, change in enumerate(writes):
        try:
            backup = setup_files.apply(change, backup=change.kind == "config", stamp=stamp)
            if change.kind == "skill" and change.content is None:
                with contextlib.suppress(OSError):
                    os.rmdir(Path(change.path).parent)
            results.append({"path": change.path, "status": "applied", "backup": backup, "detail": change.detail})
        except setup_files.ChangedSincePlan as exc:
            results.append({"path": change.path, "status": "changed_since_plan", "backup": None, "detail": str(exc)})
        except OSError as exc:
            results.append({"path": change.path, "status": "failed", "backup": None, "detail": str(exc)})
        except KeyboardInterrupt:  # SIGINT before or after a file's rename; each file is old or new
            landed = read_bounded(Path(change.path)) == change.content
            if landed:
                results.append({"path": change.path, "status": "applied", "backup": None, "detail": change.detail})
            for rest in writes[index + landed :]:
                results.append({"path": rest.path, "status": "cancelled", "backup": None, "detail": "not applied"})
            break
    return results


def _skill_unsupported(changes: list[Change]) -> list[str]:
    clients = {c.client for c in changes if c.kind == "config"}
    return sorted(clients - set(skill_plan.SKILL_CLIENTS))


def _confirmed(report: dict[str, Any], fmt: str) -> bool:
    """An interactive yes; never when stdin is not a terminal (a pipe cannot consent)."""
    if not sys.stdin.isatty():
        return False
    sys.stderr.write(render(report) + "\nApply these changes? [y/N] ")
    sys.stderr.flush()
    return sys.stdin.readline().strip().lower() in ("y", "yes")


def _not_confirmed() -> ReaError:
    return ReaError(
        code="permission_required",
        message="the plan changes client configuration, which needs confirmation; nothing was changed",
        details={"accepted": "--yes, or an interactive 'y' on a terminal; --dry-run only prints the plan"},
        action="Review the plan, then run again with --yes (or answer y at the prompt).",
    )


def render(report: Mapping[str, Any]) -> str:
    if report["mode"] == "refused":
        return f"rea {report['operation']}: {report['error']['message']}"
    lines = [f"rea {report['operation']}: registers {' '.join(report['expected_command'])}"]
    if report["operation"] == "uninstall":
        lines = ["rea uninstall: removes REA's entries and skill"]
    for change in report["changes"]:
        lines.append(f"  {change['action']:<7} {change['path']} ({change['client']}): {change['detail']}")
        if change["before"] and change["action"] in ("update", "remove"):
            lines.append(f"          was: {' '.join(change['before'])}")
        if change["entry"]:
            lines.append(f"          entry: {'; '.join(change['entry'].strip().splitlines())}")
    if not report["changes"]:
        lines.append("  no supported client found (name one with --client)")
    if report.get("project") and report["operation"] == "setup":
        lines.append("  skill: user-level only; `rea setup` without --project installs it")
    elif report["skill_unsupported"] and report["operation"] == "setup":
        lines.append(f"  skill: not installed for {', '.join(report['skill_unsupported'])} (no skills folder)")
    for result in report["applied"]:
        backup = f"; backup {result['backup']}" if result["backup"] else ""
        lines.append(f"  {result['status']}: {result['path']}{backup}")
    tail = {
        "dry_run": "dry run: nothing changed",
        "nothing_to_do": "nothing to do",
        "not_confirmed": "not confirmed: nothing changed (pass --yes to apply)",
        "applied": "done; restart the clients to load the change",
        "cancelled": "cancelled: the files listed as cancelled were not changed",
    }
    lines.append(tail[report["mode"]])
    refused = sum(c["action"] == "refuse" for c in report["changes"])
    if refused:
        lines.append(f"{refused} file(s) refused and left unchanged (see above)")
    return "\n".join(lines)
