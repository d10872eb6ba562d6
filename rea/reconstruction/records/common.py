"""Shapes every reconstruction tool shares: identifiers, statuses and the page envelope."""

from __future__ import annotations

from typing import Literal

from rea.wire.schema import SAFE_INT_MAX, field

EVIDENCE_ID = "^ev_[a-f0-9]{64}$"
UNKNOWN_ID = "^unk_[a-f0-9]{64}$"
SHA256 = "^[a-f0-9]{64}$"
CLAIM_ID = "^[A-Za-z][A-Za-z0-9._-]{0,99}$"
STABLE_ID = "^[A-Za-z][A-Za-z0-9._:/-]{0,199}$"

# the verdict vocabulary of every comparison REA produces (compare_functions, compare_artifacts, process captures)
ComparisonStatus = Literal["unchanged", "added", "removed", "changed", "truncated", "unknown", "contradiction"]
CHANGES = ("added", "removed", "changed")


def offset_field() -> int:
    return field("First item of the page", default=0, minimum=0, maximum=SAFE_INT_MAX)  # type: ignore[no-any-return]


def limit_field() -> int:
    return field("Items per page", default=100, minimum=1, maximum=100)  # type: ignore[no-any-return]
