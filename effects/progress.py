"""Per-request progress: numbered and rate-limited by the pure law in `rea.progress`.

The last notification is ordered before the result by construction, not by a pause:
after the terminal notification the transport's `settle` step sends the client a ping
and the result goes out only once the client has answered it. One pipe carries both
in order, and a client that dispatches notifications asynchronously (the pinned
TypeScript client queues every inbound message's handler in arrival order) has run
the notification's handler before it answers the ping, so the result cannot overtake
it ("progress notification for an unknown token").
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from rea.progress import ProgressState, observe

if TYPE_CHECKING:
    from effects.native.runtime import NativeRuntime

Sink = Callable[[int, str], Awaitable[None]]
Settle = Callable[[], Awaitable[None]]


class Progress:
    """What a handler has of its request: the client's status channel (numbered and rate-limited; silent
    without a sink) and the connection's native engines (`native`), passed with the call rather than held in
    a context variable, so a handler's state is in its arguments. None outside a connection (a test driving a
    handler, the CLI's evidence-bundle check): a native handler then refuses to run."""

    def __init__(
        self,
        sink: Sink | None,
        clock: Callable[[], float] = time.monotonic,
        settle: Settle | None = None,
        native: NativeRuntime | None = None,
    ) -> None:
        self.native = native
        self._sink = sink
        self._clock = clock
        self._settle = settle
        self._state = ProgressState()
        self._phase = "starting"
        self._last: str | None = None  # the text last sent: a repeat of it tells the client nothing
        self.cancelled_outcome: Any = None  # the Outcome a cancelled program returned, if it returned one
        self.effect_partial: Any = None  # what a cancelled effect observed before it stopped (for the program)

    async def report(self, phase: str, message: str, *, terminal: bool = False) -> None:
        self._phase = phase
        text = f"{phase}: {message}"
        if self._sink is None or (text == self._last and not terminal):
            return
        self._state, number = observe(self._state, self._clock(), terminal=terminal)
        if number is not None:
            self._last = text
            await self._sink(number, text)

    async def finish(self, message: str) -> None:
        await self.report("finished", message, terminal=True)
        if self._sink is not None and self._settle is not None:
            await self._settle()  # the client has handled the notification before the result leaves

    @property
    def phase(self) -> str:
        return self._phase
