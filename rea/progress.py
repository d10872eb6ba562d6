"""The progress law: strictly increasing counts, at most one intermediate update per
100 ms, the terminal update always sent, no total. Times are passed in (seconds)."""

from __future__ import annotations

import attrs

MIN_INTERVAL_S = 0.1


@attrs.frozen(kw_only=True)
class ProgressState:
    count: int = 0
    last_sent_at: float | None = None


def observe(state: ProgressState, now: float, *, terminal: bool) -> tuple[ProgressState, int | None]:
    """Returns the new state and the progress number to send, or None to stay silent."""
    if not terminal and state.last_sent_at is not None and now - state.last_sent_at < MIN_INTERVAL_S:
        return state, None
    count = state.count + 1
    return ProgressState(count=count, last_sent_at=now), count
