"""Response-budget admission, decided on sizes before any reply string is built.

An MCP success carries the record twice (text and structuredContent), plus the
provenance marker and the JSON-RPC envelope; the reserve covers the envelope.
"""

from __future__ import annotations

import attrs

DEFAULT_MAX_RESPONSE_BYTES = 10_485_760
ENVELOPE_RESERVE_BYTES = 1_024
MAX_SAFE_INTEGER = 2**53 - 1


@attrs.frozen(kw_only=True)
class ResponseBudget:
    max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES

    @property
    def payload_limit(self) -> int:
        return self.max_response_bytes - ENVELOPE_RESERVE_BYTES


def reply_bytes(record_bytes: int, meta_bytes: int, *, structured: bool) -> int:
    """Bytes of a tools/call result: the JSON text is escaped once inside the envelope
    (worst case about 2x for quote-heavy JSON is covered by `text_bytes`), plus the
    structured copy when present."""
    return record_bytes + (record_bytes if structured else 0) + meta_bytes


def admits(budget: ResponseBudget, *, text_bytes: int, structured_bytes: int, meta_bytes: int) -> bool:
    return text_bytes + structured_bytes + meta_bytes <= budget.payload_limit
