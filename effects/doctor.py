"""`rea doctor`: read-only checks of dependencies, settings and providers, and client registrations.

Registrations are a separate section, not checks: a client that is missing or points elsewhere
does not stop REA from working, so like an unavailable provider it never fails doctor.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from returns.result import Failure, Result, Success

from effects.native import cache
from effects.native.discovery import discover
from effects.registrations import inspect_registrations
from effects.skill_files import skill_status
from rea import __version__
from rea.config import input_schema_profile, mcp_toolsets, response_budget
from rea.errors import ReaError

DEPENDENCIES = (
    ("returns", "returns"),
    ("attrs", "attrs"),
    ("cattrs", "cattrs"),
    ("mcp", "mcp"),
    ("anyio", "anyio"),
    ("orjson", "orjson"),
    ("jsonschema", "jsonschema"),
    ("psutil", "psutil"),
    ("zstandard", "zstandard"),
)
# each setting: its variable, its parser (rea.config), and the sentence a valid value reads as
Parser = Callable[[Mapping[str, str]], Result[Any, ReaError]]
Setting = tuple[str, Parser, Callable[[Any], str]]
SETTINGS: tuple[Setting, ...] = (
    (
        "REA_MCP_MAX_RESPONSE_BYTES",
        response_budget,
        lambda b: f"{b.max_response_bytes} bytes per MCP reply (1024 reserved for the JSON-RPC envelope)",
    ),
    ("REA_MCP_INPUT_SCHEMA_PROFILE", input_schema_profile, lambda p: f"{p} input schemas"),
    ("REA_MCP_TOOLSETS", mcp_toolsets, lambda names: f"rea mcp exposes the toolsets {','.join(names)}"),
)


def _check(name: str, status: str, detail: str, remediation: str | None = None) -> dict[str, Any]:
    return {"name": name, "status": status, "detail": detail, "remediation": remediation}


def doctor_report(env: Mapping[str, str], project: Path | None = None) -> dict[str, Any]:
    checks = [
        _check(
            "python",
            "ok" if sys.version_info >= (3, 11) else "unsupported",
            sys.version.split()[0],
            None if sys.version_info >= (3, 11) else "Install Python 3.11 or newer.",
        ),
    ]
    for module, dist in DEPENDENCIES:
        try:
            importlib.import_module(module)
            checks.append(_check(f"dependency {dist}", "ok", importlib.metadata.version(dist)))
        except Exception as exc:  # doctor reports, it never raises
            checks.append(
                _check(
                    f"dependency {dist}",
                    "missing",
                    f"{type(exc).__name__}: {exc}",
                    "Reinstall REA: python3 -m pip install -e .",
                )
            )
    for variable, parse, describe in SETTINGS:
        match parse(env):
            case Success(value):
                checks.append(_check(f"setting {variable}", "ok", describe(value)))
            case Failure(err):
                action = err.record()["remediation"]["action"]
                checks.append(_check(f"setting {variable}", "invalid", err.message, action))
    for fact in discover(dict(env)):
        status = "ok" if fact["available"] else ("unsupported" if fact["code"] == "unsupported_host" else "missing")
        detail = f"{fact['version'] or ''} available".strip() if fact["available"] else fact["reason"]
        checks.append(
            _check(f"provider {fact['id']}", status, detail, None if fact["available"] else fact.get("remediation"))
        )
    usage = cache.usage(cache.cache_root(dict(env)))
    checks.append(
        _check("analysis cache", "ok", f"{usage['path']}: {usage['entries']} entries, {usage['bytes']} bytes", None)
    )
    failed = any(c["status"] in ("missing", "invalid") and not c["name"].startswith("provider ") for c in checks)
    return {
        "version": __version__,
        "executable": sys.executable,
        "cwd": os.getcwd(),
        "status": "failed" if failed else "ok",
        "checks": checks,
        "client_registrations": inspect_registrations(env, project),
        "agent_skill": skill_status(env),
    }
