"""The CFG part of a Ghidra answer in the snapshot's shape (rea.native.ghidra reads the loader part and the
procedures): each procedure's blocks and owner, and the references between them."""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Mapping
from typing import Any

import attrs
from returns.result import Failure, Result

from rea.errors import ReaError
from rea.native.ghidra import (
    CALLS,
    DATA_KINDS,
    FLOWS,
    PROVENANCE,
    THUNK,
    Function,
    Notes,
    Raw,
    Space,
    functions_of,
    ranges_of,
    rows_of,
    space_of,
    strings_of,
    subtract,
    unreadable,
)


@attrs.frozen
class _Owners:
    """Which procedure's body holds an address."""

    starts: tuple[int, ...]
    spans: tuple[tuple[int, int, str], ...]

    @classmethod
    def of(cls, rows: Iterable[Function]) -> _Owners:
        spans = sorted((a, b, r.address) for r in rows for a, b in r.body)
        return cls(tuple(s[0] for s in spans), tuple(spans))

    def at(self, address: str | None) -> str | None:
        if address is None or ":" in address:
            return None
        at = int(address, 16)
        index = bisect.bisect_right(self.starts, at) - 1
        if index >= 0 and self.spans[index][0] <= at < self.spans[index][1]:
            return self.spans[index][2]
        return None


def _blocks(space: Space, row: Function) -> list[dict[str, Any]]:
    """Basic blocks (BasicBlockModel) clipped to the resolved body, each byte in one block, with their
    in-procedure successors on the piece that ends the block; body bytes no block covers stand alone."""
    body = row.body
    inside = _Owners.of([row])
    rows: list[dict[str, Any]] = []
    taken: list[tuple[int, int]] = []
    for block in rows_of(row.raw, "blocks"):
        span = ranges_of(space, [block])
        if not span:
            continue
        clipped = [(max(a, lo), min(b, hi)) for a, b in span for lo, hi in body if max(a, lo) < min(b, hi)]
        pieces = subtract(sorted(clipped), taken)
        if not pieces:
            continue
        following = {
            space.link(d.get("to"))
            for d in rows_of(block, "destinations")
            if str(d.get("flow_type")) in FLOWS and str(d.get("flow_type")) != "INDIRECTION"
        }
        successors = sorted((s for s in following if s is not None and inside.at(s) == row.address), key=_value)
        for index, (a, b) in enumerate(pieces):
            rows.append(
                {"start": f"0x{a:x}", "size": b - a, "successors": successors if index == len(pieces) - 1 else []}
            )
        taken = sorted([*taken, *pieces])
    rows += [{"start": f"0x{a:x}", "size": b - a, "successors": []} for a, b in subtract(body, taken)]
    return sorted(rows, key=lambda r: int(r["start"], 16))


def _value(address: str) -> tuple[bool, int]:
    return ":" in address, int(address.rpartition(":")[2], 16)


def _references(raw: Raw, space: Space, notes: Notes) -> list[tuple[str, str, str]]:
    """(from, to, Ghidra type) of every reference whose ends are readable and in memory."""
    refs = set()
    for ref in rows_of(raw, "references"):
        kind = str(ref.get("type") or "")
        source, target = space.link(ref.get("from")), space.link(ref.get("to"))
        if kind not in CALLS and kind not in FLOWS and kind not in DATA_KINDS and kind != THUNK:
            notes.add("reference(s) of a type this adapter does not know, left out")
            continue
        if source is None or target is None or not space.loaded(source) or not space.loaded(target):
            notes.add("reference(s) with a malformed end or one outside loaded memory, left out")
            continue
        refs.add((source, target, kind))
    return sorted(refs, key=lambda r: (_value(r[0]), _value(r[1]), r[2]))


def cfg_snapshot(raw: Raw) -> Result[dict[str, Any], ReaError]:
    """The analysis part of the snapshot: procedures with blocks, calls, callers and strings;
    strings with who references them; data references."""
    if not isinstance(raw, Mapping):
        return Failure(unreadable("the answer is not an object"))
    return space_of(raw).map(lambda space: _cfg(raw, space))


def _cfg(raw: Raw, space: Space) -> dict[str, Any]:
    notes = Notes()
    rows = functions_of(raw, space, notes)
    entries = {r.address for r in rows}
    owners = _Owners.of(rows)
    refs = _references(raw, space, notes)
    calls: dict[str, list[dict[str, Any]]] = {a: [] for a in entries}
    callees: dict[str, set[str]] = {a: set() for a in entries}
    data_refs: list[dict[str, Any]] = []
    for source, target, kind in refs:
        owner = owners.at(source)
        if kind in CALLS or kind == THUNK:
            if kind == THUNK and source in entries and target in entries:
                callees[source].add(target)
            elif kind == THUNK:
                notes.add("thunk reference(s) between unknown functions, left out")
            elif owner is None or target not in entries:
                notes.add("call reference(s) from outside every procedure or to no procedure entry, left out")
            else:
                calls[owner].append({"site": source, "instruction": source, "target": target})
                callees[owner].add(target)
        elif kind in DATA_KINDS:
            data_refs.append({"from": source, "from_procedure": owner, "to": target, "kind": DATA_KINDS[kind]})
    for row in rows:  # Function.getThunkedFunction, when the THUNK reference itself was not given
        thunked = space.link(row.raw.get("thunked"))
        if row.kind == "thunk" and thunked in entries:
            callees[row.address].add(str(thunked))
    callers: dict[str, set[str]] = {a: set() for a in entries}
    for caller, targets in callees.items():
        for target in targets:
            callers[target].add(caller)
    strings = strings_of(raw, space, notes)
    string_at = {s["address"] for s in strings}
    by_string: dict[str, set[str]] = {}
    for ref in data_refs:
        if ref["to"] in string_at and ref["from_procedure"] is not None:
            by_string.setdefault(ref["to"], set()).add(ref["from_procedure"])
    for s in strings:
        s.pop("section", None)
        s["referenced_by"] = sorted(by_string.get(s["address"], ()), key=_value)
    procedures = [
        {
            "address": r.address,
            "name": r.name,
            "kind": r.kind,
            "size": r.size if r.kind != "external" else 0,
            "returning": None if not isinstance(r.raw.get("no_return"), bool) else not r.raw["no_return"],
            "blocks": [] if r.kind == "external" else _blocks(space, r),
            "unresolved_calls": [],
            "callees": sorted(callees[r.address], key=_value),
            "callers": sorted(callers[r.address], key=_value),
            "call_sites": sorted(calls[r.address], key=lambda c: _value(c["site"])),
            "strings": sorted(
                {ref["to"] for ref in data_refs if ref["from_procedure"] == r.address} & string_at, key=_value
            ),
            "provenance": PROVENANCE,
        }
        for r in rows
    ]
    data_refs.sort(key=lambda r: (_value(r["to"]), _value(r["from"])))
    return {
        "procedures": procedures,
        "strings": strings,
        "data_references": data_refs,
        "provider_notes": notes.lines(),
    }
