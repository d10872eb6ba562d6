"""Startup: read the environment and the host once, hand values to the pure core."""

from __future__ import annotations

import datetime
import importlib.metadata
import os
import shutil
import sys

from returns.result import Result, Success

from rea import __version__
from effects.native.cache import cache_root
from rea.config import analysis_provider, angr_startup_timeout, input_schema_profile, response_budget
from rea.errors import ReaError
from rea.program import Context, ServerFacts

PACKAGE = "rea-py"


def _version(distribution: str) -> str | None:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def resolve_command_path(command: str) -> str:
    """What the OS would execute for `command`: a PATH lookup for bare names, then realpath."""
    found = shutil.which(command) if command and os.sep not in command else None
    return os.path.realpath(found or command)


def server_path() -> str:
    return resolve_command_path(sys.argv[0] if sys.argv and sys.argv[0] else sys.executable)


def load_context(transport: str, environ: dict[str, str] | None = None) -> Result[Context, ReaError]:
    env = dict(os.environ if environ is None else environ)
    settings = [input_schema_profile(env), analysis_provider(env), angr_startup_timeout(env)]
    for setting in settings:
        if not isinstance(setting, Success):
            return setting
    profile, provider, startup = (s.unwrap() for s in settings)
    return response_budget(env).map(
        lambda budget: Context(
            server=ServerFacts(
                package=PACKAGE,
                version=__version__,
                sdk_version=_version("mcp") or "unknown",
                server_path=server_path(),
                started_at=datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
                transport=transport,
            ),
            max_response_bytes=budget.max_response_bytes,
            input_schema_profile=profile,
            analysis_provider=provider,
            angr_startup_timeout_ms=startup,
            cache_dir=str(cache_root(env)),
        )
    )
