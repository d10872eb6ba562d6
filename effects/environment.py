"""Startup: read the environment and the host once, hand values to the pure core."""

from __future__ import annotations

import datetime
import importlib.metadata
import os
import re
import shutil
import sys
from pathlib import Path
from typing import Any

from returns.result import Result, Success

from effects.heap import settle_startup_heap
from effects.native.cache import cache_root
from rea import __version__
from rea.config import (
    analysis_provider,
    angr_startup_timeout,
    input_schema_profile,
    mcp_toolsets,
    native_memory_limit,
    response_budget,
)
from rea.errors import ReaError
from rea.program import Context, ServerFacts

PACKAGE = "rea-py"
ROOT = Path(__file__).resolve().parents[1]  # the checkout or site-packages directory holding rea/ and effects/
_COMMIT = re.compile(r"^[0-9a-f]{40}$")


def _version(distribution: str) -> str | None:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def build_commit(root: Path = ROOT) -> str | None:
    """The git commit a source checkout (or worktree) is at, read from its files; None when unknown."""
    try:
        dot_git = root / ".git"
        if dot_git.is_file():  # a worktree: "gitdir: <path>"
            git_dir = Path(dot_git.read_text().split(":", 1)[1].strip())
            git_dir = git_dir if git_dir.is_absolute() else (root / git_dir)
        elif dot_git.is_dir():
            git_dir = dot_git
        else:
            return None
        common = git_dir
        if (git_dir / "commondir").is_file():
            common = (git_dir / (git_dir / "commondir").read_text().strip()).resolve()
        head = (git_dir / "HEAD").read_text().strip()
        if not head.startswith("ref: "):
            return head if _COMMIT.match(head) else None
        ref = head[5:].strip()
        for base in (git_dir, common):
            loose = base / ref
            if loose.is_file():
                value = loose.read_text().strip()
                return value if _COMMIT.match(value) else None
        packed = common / "packed-refs"
        if packed.is_file():
            for line in packed.read_text().splitlines():
                parts = line.split(" ", 1)
                if len(parts) == 2 and parts[1].strip() == ref and _COMMIT.match(parts[0]):
                    return parts[0]
    except (OSError, IndexError, UnicodeDecodeError):
        return None
    return None


def resolve_command_path(command: str) -> str:
    """What the OS would execute for `command`: a PATH lookup for bare names, then realpath."""
    found = shutil.which(command) if command and os.sep not in command else None
    return os.path.realpath(found or command)


def server_path() -> str:
    return resolve_command_path(sys.argv[0] if sys.argv and sys.argv[0] else sys.executable)


def load_context(
    transport: str, environ: dict[str, str] | None = None, toolsets: str | None = None
) -> Result[Context, ReaError]:
    """The startup settings; `toolsets` is `rea mcp --toolsets` (it overrides REA_MCP_TOOLSETS)."""
    env = dict(os.environ if environ is None else environ)
    settle_startup_heap()
    import psutil  # noqa: PLC0415 - the RAM size only sets a default ceiling

    total_mib = psutil.virtual_memory().total >> 20
    chosen_toolsets: Result[tuple[str, ...], ReaError] = (
        mcp_toolsets(env, toolsets) if transport == "mcp" else Success(("all",))
    )
    # each setting is read in turn (pure functions of env): the first bad one is the answer
    return input_schema_profile(env).bind(
        lambda profile: analysis_provider(env).bind(
            lambda provider: angr_startup_timeout(env).bind(
                lambda startup: native_memory_limit(env, total_mib).bind(
                    lambda memory: chosen_toolsets.bind(
                        lambda chosen: _context(transport, env, profile, provider, startup, memory, chosen)
                    )
                )
            )
        )
    )


def _context(
    transport: str,
    env: dict[str, str],
    profile: str,
    provider: str | None,
    startup: int,
    memory: int,
    chosen: tuple[str, ...],
) -> Result[Context, ReaError]:
    """The context once every setting but the response budget was read (the budget is read last)."""
    return response_budget(env).map(
        lambda budget: Context(
            server=ServerFacts(
                package=PACKAGE,
                version=__version__,
                sdk_version=_version("mcp") or "unknown",
                server_path=server_path(),
                started_at=datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
                transport=transport,
                root_path=str(ROOT),
                build_commit=build_commit(),
            ),
            max_response_bytes=budget.max_response_bytes,
            input_schema_profile=profile,
            analysis_provider=provider,
            toolsets=chosen,
            angr_startup_timeout_ms=startup,
            native_memory_limit_mib=memory,
            cache_dir=str(cache_root(env)),
        )
    )


def add_toolsets_option(parser: Any) -> None:
    """`rea mcp --toolsets NAMES` (the server's own parser and the one-shot CLI's help share it)."""
    from rea.catalog import toolsets  # noqa: PLC0415 - only `rea mcp` reads it

    parser.add_argument(
        toolsets.FLAG,
        metavar="NAMES",
        help=(
            f"expose only these toolsets, comma-separated (overrides {toolsets.VARIABLE}): "
            f"{', '.join(toolsets.NAMES)}; default {toolsets.DEFAULT}"
        ),
    )
