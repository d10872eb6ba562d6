"""The reconstruction family's one effect: the wall clock, which coverage closure reads to judge staleness.

Everything else the family does is pure; a verifier result's age is the one fact that depends on
when the question is asked, so the time comes in as an answer like any other IO.
"""

from __future__ import annotations

import attrs


@attrs.frozen(kw_only=True)
class ReadClock:
    """Ask for the current time."""


@attrs.frozen(kw_only=True)
class ClockFacts:
    epoch_ms: int
