"""The response budget: how many bytes one MCP reply may take.

An MCP success carries the record twice (text and structuredContent) plus the
provenance marker; the reserve covers the JSON-RPC envelope. `rea.replies`
decides admission against `payload_limit`.
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
