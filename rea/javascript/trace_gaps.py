"""What a feature trace rests on that it could not read or resolve (rea.javascript.trace): modules not parsed,
a partial graph or code index, and the dynamic IPC operations that may be a reached channel's missing end."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from rea.javascript.records.trace import SeedMatch

_UNPARSED = frozenset(("failed", "omitted", "not-read", "quarantined"))


def _unparsed(node: Mapping[str, Any]) -> bool:
    declaration = (node.get("path") or "").endswith((".d.ts", ".d.mts", ".d.cts"))  # types only, never parsed
    return (
        node["subkind"] in ("module", "original-source-module") and node.get("parse") in _UNPARSED and not declaration
    )


def rests_on(
    result: Mapping[str, Any],
    by_id: Mapping[str, Mapping[str, Any]],
    matches: Sequence[SeedMatch],
    touched: set[str],
    seed: Mapping[str, Any],
) -> tuple[list[str], list[dict[str, Any]]]:
    """Why the answer cannot be complete (what it rests on that was not read or not resolved), and the
    unknowns that bear on it: those on reached nodes and, for a channel, every dynamic IPC operation of
    the channel's direction (one of them may be the end the graph lacks)."""
    reasons = []
    unparsed = [n for n in by_id.values() if _unparsed(n)]
    if unparsed and (not matches or seed["kind"] == "string"):
        reasons.append(
            f"{len(unparsed)} module(s) were not parsed (failed, omitted or not read); a seed may occur there"
        )
    if any(_unparsed(by_id[n]) for n in touched if n in by_id):
        reasons.append("the traversal reaches modules that were not parsed")
    if not matches and result["graph"]["coverage"]["status"] != "complete":
        reasons.append("the application graph is partial")
    code = (result.get("semantic_graph") or {}).get("coverage", {}).get("status")
    if seed["kind"] == "string" and code != "complete":
        reasons.append(f"the code index (semantic graph) is {code or 'absent'}: a literal or name may be unread")
    missing = _missing_ends([by_id[n] for n in touched if n in by_id and by_id[n]["subkind"] == "ipc-channel"])
    unknowns = [
        u
        for u in result["unknowns"]
        if u.get("node") in touched
        or (u["kind"] == "dynamic-ipc-channel" and (u.get("direction"), _end(u.get("relation"))) in missing)
    ]
    dynamic = sum(1 for u in unknowns if u["kind"] == "dynamic-ipc-channel" and u.get("node") not in touched)
    if dynamic:
        reasons.append(
            f"a reached channel lacks an end, and {dynamic} IPC operation(s) of its direction name their channel "
            "dynamically (listed in unknowns): one may be that end"
        )
    return reasons, unknowns


def _end(relation: str | None) -> str:
    return "handler" if relation == "handles" else "sender"


def _missing_ends(channels: Iterable[Mapping[str, Any]]) -> set[tuple[str, str]]:
    """(direction, end) pairs a reached channel has one side of but not the other."""
    out = set()
    for ch in channels:
        ends = ch.get("ends", {})
        for key in ends:
            direction, end = key.split(":", 1)
            other = "sender" if end == "handler" else "handler"
            if f"{direction}:{other}" not in ends:
                out.add((direction, other))
    return out
