"""Per-request progress: numbered and rate-limited by the pure law in `rea.progress`."""

from __future__ import annotations

import time
from typing import Any
from collections.abc import Awaitable, Callable

import anyio

from rea.progress import ProgressState, observe

Sink = Callable[[int, str], Awaitable[None]]
TERMINAL_SETTLE_S = 0.01


class Progress:
    """Numbers and rate-limits status observations for one request; silent without a sink."""

    def __init__(self, sink: Sink | None, clock: Callable[[], float] = time.monotonic) -> None:
        self._sink = sink
        self._clock = clock
        self._state = ProgressState()
        self._phase = "starting"
        self.cancelled_outcome: Any = None  # the Outcome a cancelled program returned, if it returned one

    async def report(self, phase: str, message: str, *, terminal: bool = False) -> None:
        self._phase = phase
        if self._sink is None:
            return
        self._state, number = observe(self._state, self._clock(), terminal=terminal)
        if number is not None:
            await self._sink(number, f"{phase}: {message}")

    async def finish(self, message: str) -> None:
        await self.report("finished", message, terminal=True)
        if self._sink is not None:
            # The pinned TypeScript client (2.3.1) dispatches notifications asynchronously
            # and responses synchronously: a notification immediately followed by its
            # response is reported as "unknown token". A short pause lets it land first.
            await anyio.sleep(TERMINAL_SETTLE_S)

    @property
    def phase(self) -> str:
        return self._phase
