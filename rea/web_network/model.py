"""The web family's effects and the one value type the capture readers hand the pure core."""

from __future__ import annotations

import attrs

MAX_CAPTURE_BYTES = 32 << 20  # the reference's inputBytes: a larger capture is refused before it is read
MAX_DEPTH = 64  # JSON nesting of one capture
CAPTURE_TIMEOUT_MS = 30_000
MAX_PNG_BYTES = 8 << 20


class NumberText(str):
    """A JSON number kept as the producer's exact text (the pure core records it and converts it)."""

    __slots__ = ()

    def value(self) -> int | float:
        return float(self) if any(c in self for c in ".eE") else int(self)


@attrs.frozen(kw_only=True)
class ReadCapture:
    """Read a HAR file (JSON with literals kept, duplicates refused) or a mitmproxy dump (Debian's reader)."""

    path: str
    format: str
    max_bytes: int = MAX_CAPTURE_BYTES
    timeout_ms: int = CAPTURE_TIMEOUT_MS


@attrs.frozen(kw_only=True)
class ReadPng:
    """The bytes of one PNG file, bounded."""

    path: str
    max_bytes: int = MAX_PNG_BYTES
