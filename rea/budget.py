"""The response budget: how many bytes one MCP reply may take, and what frames a reply.

An MCP success carries the record twice (the canonical text as a JSON string, and
structuredContent as the SDK re-serializes it) inside the SDK's JSON-RPC frame; an
error carries only the text. The frame's own size is measured by the transport with
the SDK's serializer (`WireFrame`); 1,024 bytes of the budget stay reserved for it,
so a reply is charged `payload + max(frame, reserve)`. `rea.replies` decides admission.
"""

from __future__ import annotations

from collections.abc import Callable

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


def _python_decimal(value: int | float) -> str:
    return str(value) if type(value) is int else repr(value)


@attrs.frozen(kw_only=True)
class WireFrame:
    """What the transport writes around one tool reply, measured by the transport.

    `frame_bytes` is the whole line the transport would write for this reply with an
    empty text (`""`) and, for a success, an empty structuredContent (`{}`).
    `number_text` is how the transport's serializer prints a float or a big integer
    (the only JSON values it prints differently from the canonical form)."""

    frame_bytes: int = 0
    number_text: Callable[[int | float], str] = _python_decimal
