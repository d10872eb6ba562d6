"""One error style for the family's pure derivations: refuse deep inside, answer a Result at the edge.

The derivations walk nested, caller-supplied structures; the first malformed part ends the
whole derivation with one canonical ReaError naming that part and what would be accepted.
They refuse with the programs' own `refuse` (rea.program) and read nested Results with its
`must`; `attempt` turns the refusal back into `Result[T, ReaError]` at the public function,
so nothing above sees an exception.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from returns.result import Failure, Result, Success

from rea.errors import ReaError
from rea.program import Refused, must, refuse

T = TypeVar("T")
value = must
__all__ = ["attempt", "refuse", "value"]


def attempt(derive: Callable[[], T]) -> Result[T, ReaError]:
    try:
        return Success(derive())
    except Refused as refused:
        return Failure(refused.error)
