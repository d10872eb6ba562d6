"""Offset/limit paging: pages of one listing partition it exactly."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

import attrs

T = TypeVar("T")


@attrs.frozen(kw_only=True)
class Page:
    items: tuple[Any, ...]
    offset: int
    limit: int | None
    total: int
    next_offset: int | None

    def envelope(self) -> dict[str, Any]:
        """The wire fields every paged listing carries beside its items."""
        return {"offset": self.offset, "limit": self.limit, "total": self.total, "next_offset": self.next_offset}


def paginate(items: Sequence[T], offset: int = 0, limit: int | None = None) -> Page:
    """One page; `next_offset` is null exactly when nothing follows it. `limit=None` means all."""
    total = len(items)
    start = min(max(offset, 0), total)
    end = total if limit is None else min(start + max(limit, 0), total)
    return Page(
        items=tuple(items[start:end]),
        offset=offset,
        limit=limit,
        total=total,
        next_offset=end if end < total else None,
    )
