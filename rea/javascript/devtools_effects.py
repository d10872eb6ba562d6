"""Effects of the runtime tools: DevTools discovery and one bounded, listen-only observation of a target.

The program decides what is sent (`start`, `finish`: only enable/get/skip commands of the
passive tools, never Runtime.evaluate) and which events are kept; the effect carries them
over one websocket and answers the raw events, command results and whether the target
went away during the window.
"""

from __future__ import annotations

from collections.abc import Mapping

import attrs

from rea.loopback import Endpoint

Command = tuple[str, Mapping[str, object]]


@attrs.frozen(kw_only=True)
class DiscoverDevtools:
    """`/json/version` and `/json/list` of a loopback endpoint."""

    endpoint: Endpoint
    operation: str


@attrs.frozen(kw_only=True)
class ObserveTarget:
    """Attach to one target, send `start`, keep `listen` events for `observation_ms`, send `finish`, detach."""

    endpoint: Endpoint
    target_id: str
    operation: str
    start: tuple[Command, ...]
    listen: tuple[str, ...]
    finish: tuple[Command, ...]
    observation_ms: int
    max_events: int
    script_sources: int = 0  # after the window, Debugger.getScriptSource for up to this many file: scripts
