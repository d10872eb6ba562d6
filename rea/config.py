"""Startup settings parsed from an environment mapping (passed in, never read here)."""

from __future__ import annotations

import re
from collections.abc import Mapping

from returns.result import Failure, Result, Success

from rea.budget import DEFAULT_MAX_RESPONSE_BYTES, MAX_SAFE_INTEGER, ResponseBudget
from rea.errors import ReaError, configuration_invalid
from rea.native.selector import parse_selector

_DECIMAL = re.compile(r"^[0-9]+$")
MAX_TIMEOUT_MS = 2_147_483_647


def decimal_setting(
    env: Mapping[str, str], variable: str, *, minimum: int, maximum: int, default: int, accepted: str
) -> Result[int, ReaError]:
    raw = env.get(variable)
    if raw is None:
        return Success(default)
    digits = raw.lstrip("0") or "0"
    if not _DECIMAL.fullmatch(raw) or len(digits) > len(str(maximum)) or not minimum <= int(digits) <= maximum:
        return Failure(configuration_invalid(variable, raw, accepted))
    return Success(int(digits))


def response_budget(env: Mapping[str, str]) -> Result[ResponseBudget, ReaError]:
    return decimal_setting(
        env,
        "REA_MCP_MAX_RESPONSE_BYTES",
        minimum=DEFAULT_MAX_RESPONSE_BYTES,
        maximum=MAX_SAFE_INTEGER,
        default=DEFAULT_MAX_RESPONSE_BYTES,
        accepted=f"a decimal integer from {DEFAULT_MAX_RESPONSE_BYTES} to {MAX_SAFE_INTEGER} (bytes)",
    ).map(lambda n: ResponseBudget(max_response_bytes=n))


def timeout_ms(env: Mapping[str, str], variable: str, default: int) -> Result[int, ReaError]:
    return decimal_setting(
        env,
        variable,
        minimum=1,
        maximum=MAX_TIMEOUT_MS,
        default=default,
        accepted=f"a decimal integer of milliseconds from 1 to {MAX_TIMEOUT_MS}",
    )


INPUT_SCHEMA_PROFILES = ("full", "compact")


def input_schema_profile(env: Mapping[str, str]) -> Result[str, ReaError]:
    raw = env.get("REA_MCP_INPUT_SCHEMA_PROFILE", "full")
    if raw not in INPUT_SCHEMA_PROFILES:
        return Failure(configuration_invalid("REA_MCP_INPUT_SCHEMA_PROFILE", raw, "full (default) or compact"))
    return Success(raw)


def analysis_provider(env: Mapping[str, str]) -> Result[str | None, ReaError]:
    """REA_ANALYSIS_PROVIDER through the one provider parser (rea.native.selector); unset or empty: none."""
    raw = env.get("REA_ANALYSIS_PROVIDER")
    if raw is None or raw == "":
        return Success(None)
    return parse_selector(raw, "environment")


def mcp_toolsets(env: Mapping[str, str], flag: str | None = None) -> Result[tuple[str, ...], ReaError]:
    """The toolsets the MCP server exposes: `rea mcp --toolsets` when given, else REA_MCP_TOOLSETS;
    unset or blank: all (rea.catalog.toolsets parses both, naming the valid toolsets on a bad one)."""
    from rea.catalog import toolsets  # noqa: PLC0415 - the catalog table loads only where a toolset is read

    chosen = toolsets.parse(env.get(toolsets.VARIABLE)) if flag is None else toolsets.parse(flag, toolsets.FLAG)
    return chosen.map(lambda selection: selection.names)


MEMORY_FRACTION = 0.5  # of physical RAM: the default ceiling of an engine child
MAX_MEMORY_MIB = 1 << 30


def native_memory_limit(env: Mapping[str, str], total_mib: int) -> Result[int, ReaError]:
    """REA_NATIVE_MEMORY_LIMIT_MIB: the resident-memory ceiling of the angr worker (default: half of RAM)."""
    return decimal_setting(
        env,
        "REA_NATIVE_MEMORY_LIMIT_MIB",
        minimum=64,
        maximum=MAX_MEMORY_MIB,
        default=max(64, int(total_mib * MEMORY_FRACTION)),
        accepted=f"a decimal integer of MiB from 64 to {MAX_MEMORY_MIB}",
    )


def angr_startup_timeout(env: Mapping[str, str]) -> Result[int, ReaError]:
    return timeout_ms(env, "REA_ANGR_STARTUP_TIMEOUT_MS", 120_000)
