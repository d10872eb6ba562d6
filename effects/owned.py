"""Helper processes REA starts outside the native engine register their stop here.

close_binary and server exit stop every one of them, so no family's worker outlives the
session that started it (the contract: every process REA starts is owned and verified gone).
A helper that stopped itself (a browser at the end of its scenario) disowns its entry.
"""

from __future__ import annotations

import atexit
from collections.abc import Callable

# name -> stop(); stop() kills the helper's process group and returns once it is reaped
_STOPS: dict[str, Callable[[], None]] = {}


def own(name: str, stop: Callable[[], None]) -> None:
    """Register a helper's stop; it also runs at interpreter exit."""
    _STOPS[name] = stop


def disown(name: str) -> None:
    """Forget a helper that is already stopped."""
    _STOPS.pop(name, None)


def stop_all() -> list[str]:
    """Stop every registered helper; answer the names of those that were asked to stop."""
    for stop in list(_STOPS.values()):
        stop()
    return sorted(_STOPS)


atexit.register(stop_all)
