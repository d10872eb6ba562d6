"""Canonical JSON (RFC 8785) as values: the bytes or the digest identity is made of, or why there are none."""

from __future__ import annotations

from typing import Any

from returns.result import Failure, Result, Success

from rea.canonical_json import CanonicalJsonError, canonical_sha256, canonicalize
from rea.errors import ReaError, invalid_request


def _refused(exc: Exception) -> ReaError:
    return invalid_request(
        f"the value is not I-JSON: {exc}",
        field="value",
        accepted="JSON values: objects with string keys, arrays, strings, finite numbers, booleans, null",
    )


def canonical_bytes(value: Any) -> Result[bytes, ReaError]:
    """The RFC 8785 bytes of `value` (what every REA id and digest hashes)."""
    try:
        return Success(canonicalize(value))
    except (CanonicalJsonError, TypeError, ValueError) as exc:
        return Failure(_refused(exc))


def canonical_digest(value: Any) -> Result[str, ReaError]:
    """The lowercase SHA-256 hex of `value`'s canonical bytes."""
    try:
        return Success(canonical_sha256(value))
    except (CanonicalJsonError, TypeError, ValueError) as exc:
        return Failure(_refused(exc))
