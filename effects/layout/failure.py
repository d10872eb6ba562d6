"""The one exception the layout readers raise: the file is not what the tool reads, said precisely."""

from __future__ import annotations

from typing import Any


class LayoutFailure(Exception):
    """reason: unsupported (no known magic), malformed (a header lies), needs-slice / no-slice (universal file)."""

    def __init__(self, reason: str, message: str, **details: Any) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message
        self.details = details
