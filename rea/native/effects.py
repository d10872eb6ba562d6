"""Effect descriptions of the native family; handlers live in effects/native."""

from __future__ import annotations

from typing import Any
from collections.abc import Mapping

import attrs


@attrs.frozen(kw_only=True)
class DiscoverProviders:
    """Host facts for every declared deep-analysis provider; starts nothing."""


@attrs.frozen(kw_only=True)
class NativeFacts:
    """The analysis snapshot of the bound target: loader facts, plus procedures,
    strings and references when `stage` is "cfg" (from memory, the disk cache or the worker).
    "symbols" takes the CFG snapshot when one exists and loader facts otherwise."""

    binding: Mapping[str, Any]
    path: str
    sha256: str
    stage: str  # "loader" | "symbols" | "cfg"


@attrs.frozen(kw_only=True)
class NativeQuery:
    """A per-function question only the live engine can answer (decompile, disassemble)."""

    binding: Mapping[str, Any]
    path: str
    sha256: str
    op: str
    params: Mapping[str, Any]


@attrs.frozen(kw_only=True)
class ReleaseNative:
    """Stop every owned engine process and report what, if anything, remains."""


@attrs.frozen(kw_only=True)
class NativeLineage:
    """Process-lineage snapshots of every provider started on this connection."""


@attrs.frozen(kw_only=True)
class NativeActivity:
    """Request activity of every started provider: the request in flight and those queued behind it."""
