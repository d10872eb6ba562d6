"""`Result.bind` for steps that await: an effect handler's checks, connections and reads run in turn,
and the first failure is the answer, without testing each Result by hand between the awaits."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

from returns.result import Failure, Result, Success

T = TypeVar("T")
U = TypeVar("U")
E = TypeVar("E")


async def then(result: Result[T, E], step: Callable[[T], Awaitable[Result[U, E]]]) -> Result[U, E]:
    """The step's answer on the result's value; the result's failure as it is (the step never runs)."""
    match result:
        case Success(value):
            return await step(value)
    return Failure(result.failure())
