"""`rea doctor`: read-only checks of dependencies, settings and providers."""

from __future__ import annotations

import importlib
import importlib.metadata
import os
import sys
from typing import Any

from returns.result import Result, Success

from rea import __version__
from rea.errors import ReaError

DEPENDENCIES = (
    ("returns", "returns"), ("attrs", "attrs"), ("cattrs", "cattrs"), ("mcp", "mcp"), ("anyio", "anyio"),
    ("orjson", "orjson"), ("jsonschema", "jsonschema"),
)
SETTINGS = ("REA_MCP_MAX_RESPONSE_BYTES",)


def _check(name: str, status: str, detail: str, remediation: str | None = None) -> dict[str, Any]:
    return {"name": name, "status": status, "detail": detail, "remediation": remediation}


def doctor_report(context: Result[Any, ReaError]) -> dict[str, Any]:
    checks = [
        _check("python", "ok" if sys.version_info >= (3, 11) else "unsupported",
               sys.version.split()[0], None if sys.version_info >= (3, 11) else "Install Python 3.11 or newer."),
    ]
    for module, dist in DEPENDENCIES:
        try:
            importlib.import_module(module)
            checks.append(_check(f"dependency {dist}", "ok", importlib.metadata.version(dist)))
        except Exception as exc:  # doctor reports, it never raises
            checks.append(_check(f"dependency {dist}", "missing", f"{type(exc).__name__}: {exc}",
                                 "Reinstall REA: python3 -m pip install -e ."))
    if isinstance(context, Success):
        ctx = context.unwrap()
        checks.append(_check("setting REA_MCP_MAX_RESPONSE_BYTES", "ok",
                             f"{ctx.max_response_bytes} bytes (1024 reserved for the JSON-RPC envelope)"))
    else:
        err = context.failure()
        checks.append(_check(f"setting {err.details['variable']}", "invalid", err.message,
                             err.record()["remediation"]["action"]))
    checks.append(_check("deep-analysis providers", "unsupported",
                         "none declared in this build (session spine only)",
                         "Native, artifact and JavaScript providers arrive with their tool families."))
    failed = any(c["status"] in ("missing", "invalid") for c in checks)
    return {
        "version": __version__,
        "executable": sys.executable,
        "cwd": os.getcwd(),
        "status": "failed" if failed else "ok",
        "checks": checks,
    }
