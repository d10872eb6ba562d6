"""A provider's operations as one capability set (rea.native.providers declares them): each operation's
facts, and the groups of operations that share them under their common limitations."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs
import orjson


@attrs.frozen(kw_only=True)
class Mode:
    """One of a tool's modes (get_navigation_context: the selection, an explicit document) and whether this
    provider can answer it; tool availability lists them."""

    name: str
    available: bool
    missing_operations: tuple[str, ...]
    remediation: str | None

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "available": self.available,
            "missing_operations": list(self.missing_operations),
            "remediation": self.remediation,
        }


@attrs.frozen(kw_only=True)
class OperationCapability:
    """One operation's facts as a provider declares them (before grouping)."""

    operation: str
    available: bool
    reason: str | None = None
    code: str | None = None
    effects: tuple[str, ...] = ()
    limitations: tuple[str, ...] = ()
    remediation: str | None = None  # what tool availability tells the caller (not on the capability wire)
    modes: tuple[Mode, ...] = ()  # the tool's modes, when it has several (tool availability)


def common_prefix(sequences: Iterable[Sequence[str]]) -> tuple[str, ...]:
    """The longest ordered prefix every sequence starts with."""
    rows = [tuple(s) for s in sequences]
    if not rows:
        return ()
    shortest = min(rows, key=len)
    length = next((i for i, item in enumerate(shortest) if any(r[i] != item for r in rows)), len(shortest))
    return shortest[:length]


def group_capabilities(provider: Mapping[str, Any], rows: Sequence[OperationCapability]) -> dict[str, Any]:
    """One capability set: shared_limitations is the ordered common prefix of every operation's
    limitations, and operations with identical facts and suffixes form one group. Expanding a group
    (shared + its suffix) gives back each operation's exact limitations."""
    shared = common_prefix(r.limitations for r in rows)
    groups: dict[tuple[Any, ...], dict[str, Any]] = {}
    for row in rows:
        facts: dict[str, Any] = {
            "available": row.available,
            "reason": None if row.available else row.reason,
            "availability_code": None if row.available else row.code,
            "effects": sorted(row.effects),
            "limitations": list(row.limitations[len(shared) :]),
        }
        key = tuple(
            orjson.dumps(facts[k]) for k in ("available", "reason", "availability_code", "effects", "limitations")
        )
        groups.setdefault(key, {"operations": [], **facts})["operations"].append(row.operation)
    ordered = sorted(groups.values(), key=lambda g: min(g["operations"]))
    for group in ordered:
        group["operations"].sort()
    return {"provider": dict(provider), "shared_limitations": list(shared), "groups": ordered}
