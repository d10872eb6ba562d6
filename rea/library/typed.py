"""A tool's result as its typed record: the normalized_result of Evidence, structured by the one strict converter."""

from __future__ import annotations

from typing import Any, TypeVar

import cattrs
from returns.result import Failure, Result, Success

from rea.errors import ReaError, invalid_request
from rea.evidence import Evidence

T = TypeVar("T")


def typed_result(evidence: Evidence, result_type: type[T]) -> Result[T, ReaError]:
    """`evidence.normalized_result` as `result_type` (e.g. FunctionComparison); unknown or missing fields refuse."""
    from rea.wire.convert import CONVERTER

    try:
        return Success(CONVERTER.structure(evidence.normalized_result, result_type))
    except (cattrs.BaseValidationError, cattrs.ForbiddenExtraKeysError, TypeError, ValueError, KeyError) as exc:
        notes: Any = cattrs.transform_error(exc) if isinstance(exc, cattrs.BaseValidationError) else [str(exc)]
        return Failure(
            invalid_request(
                f"the {evidence.operation} result does not fit {getattr(result_type, '__name__', result_type)}: "
                f"{notes[0]}",
                field="normalized_result",
                accepted=f"Evidence whose normalized_result is a {getattr(result_type, '__name__', result_type)}",
            )
        )
