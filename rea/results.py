"""Several `Result`s read as one: every value, or the first error in the order given.

Steps that check each of many inputs (files, records, settings) run in order, as a loop over them would:
the first failure is the answer, and given a generator the steps after it never run, exactly as a loop that
returned on it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

from returns.result import Failure, Result, Success

T = TypeVar("T")
E = TypeVar("E")
U = TypeVar("U")


def all_of(results: Iterable[Result[T, E]]) -> Result[list[T], E]:
    """The values of every result in order, or the first failure (a failure ends the gathering)."""
    values: list[T] = []
    for result in results:
        match result:
            case Success(value):
                values.append(value)
            case Failure(error):
                return Failure(error)
    return Success(values)


def either(result: Result[T, E], on_success: Callable[[T], U], on_failure: Callable[[E], U]) -> U:
    """One answer from whichever side the result holds (a reply rendered, or its error rendered)."""
    match result:
        case Success(value):
            return on_success(value)
    return on_failure(result.failure())
