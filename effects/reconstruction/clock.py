"""Answer ReadClock with the wall clock in epoch milliseconds."""

from __future__ import annotations

import time
from typing import Any

from returns.result import Result, Success

from effects.progress import Progress
from rea.errors import ReaError
from rea.reconstruction.effects import ClockFacts, ReadClock


async def read_clock(effect: ReadClock, progress: Progress) -> Result[Any, ReaError]:
    return Success(ClockFacts(epoch_ms=time.time_ns() // 1_000_000))


HANDLERS = {ReadClock: read_clock}
