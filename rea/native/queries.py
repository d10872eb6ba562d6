"""Pure questions over an analysis snapshot: lookups, references, searches, call graphs.

The snapshot is the worker's JSON (link-time addresses already). Each function
here is a plain function of it, so inventory answers need no engine at all once
the snapshot exists.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, overload

import attrs

from rea.native.addresses import normalize, value

KIND_ORDER = {"function": 0, "thunk": 1, "external": 2}


def procedures(snapshot: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return list(snapshot.get("procedures", ()))


def by_address(snapshot: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    return {p["address"]: p for p in procedures(snapshot)}


def find_procedure(snapshot: Mapping[str, Any], text: str) -> Mapping[str, Any] | None:
    """A procedure by exact start address or exact name (functions before thunks before imports)."""
    address = normalize(text)
    if address is not None:
        found = by_address(snapshot).get(address)
        if found is not None:
            return found
    named = [p for p in procedures(snapshot) if p["name"] == text]
    return min(named, key=lambda p: KIND_ORDER.get(p["kind"], 9)) if named else None


@overload
def brief(procedure: Mapping[str, Any]) -> dict[str, Any]: ...
@overload
def brief(procedure: None) -> None: ...
def brief(procedure: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """Overloaded so a known procedure's brief needs no null check."""
    if procedure is None:
        return None
    return {"address": procedure["address"], "name": procedure["name"], "kind": procedure["kind"]}


def containing(snapshot: Mapping[str, Any], address: str) -> Mapping[str, Any] | None:
    """The procedure whose basic blocks cover `address` (ram space only)."""
    if ":" in address:
        return by_address(snapshot).get(address)
    target = value(address)
    spans = sorted(
        (value(b["start"]), value(b["start"]) + b["size"], p["address"])
        for p in procedures(snapshot)
        if p["kind"] != "external"
        for b in p["blocks"]
    )
    index = bisect.bisect_right([s[0] for s in spans], target) - 1
    if index >= 0 and spans[index][0] <= target < spans[index][1]:
        return by_address(snapshot)[spans[index][2]]
    return None


def related(snapshot: Mapping[str, Any], addresses: Iterable[str]) -> list[dict[str, Any]]:
    index = by_address(snapshot)
    unknown = {"name": None, "kind": "unknown"}
    return [brief(index[a]) if a in index else {"address": a, **unknown} for a in addresses]


def strings_at(snapshot: Mapping[str, Any], addresses: Iterable[str]) -> list[Mapping[str, Any]]:
    wanted = set(addresses)
    return [s for s in snapshot.get("strings", ()) if s["address"] in wanted]


@attrs.frozen
class Name:
    """A name with its address (None: an import the loader placed nowhere), its kind and its source:
    the symbol table's own (primary, external) or an analysis name (dynamic)."""

    name: str
    address: str | None
    kind: str
    source: str


def names(snapshot: Mapping[str, Any]) -> list[Name]:
    """Symbol-table names (primary), imports (external) and analysis names (dynamic)."""
    rows = [Name(s["name"], s["address"], s["kind"], s["source"]) for s in snapshot.get("symbols", ())]
    known = {(r.name, r.address) for r in rows}
    symbol_names = {r.name for r in rows}
    for p in procedures(snapshot):
        if p["kind"] == "external" or (p["name"], p["address"]) in known or p["name"] in symbol_names:
            continue
        rows.append(Name(p["name"], p["address"], "function", "dynamic"))
    return sorted(rows, key=lambda r: (r.address is None, value(r.address) if r.address else 0, r.name))


def name_at(snapshot: Mapping[str, Any], address: str) -> str | None:
    """The name at `address`: its procedure's, else a symbol's (a string there has none)."""
    procedure = by_address(snapshot).get(address)
    if procedure is not None:
        named: str | None = procedure["name"]
        return named
    return next((row.name for row in names(snapshot) if row.address == address), None)


def _instruction(site: Mapping[str, Any]) -> str:
    """The call instruction of a call site (snapshots cached before it was recorded name the block)."""
    return str(site.get("instruction") or site["site"])


@attrs.frozen
class Reference:
    """One recorded reference as incoming and outgoing list them: a call (from its call instruction) or a
    data reference, with the procedure holding its source (None: outside every procedure). The snapshot's
    own rows stay as they are ({from, from_procedure, to, kind}): only the few a question reads become
    records."""

    source: str
    procedure: str | None
    target: str
    kind: str


def _data(row: Mapping[str, Any]) -> Reference:
    return Reference(row["from"], row.get("from_procedure"), row["to"], row["kind"])


def incoming(snapshot: Mapping[str, Any], address: str) -> list[Reference]:
    """Every recorded reference to `address`: call sites and data references."""
    refs = []
    for p in procedures(snapshot):
        for site in p["call_sites"]:
            if site["target"] == address:
                refs.append(Reference(_instruction(site), p["address"], address, "call"))
    refs += [_data(ref) for ref in snapshot.get("data_references", ()) if ref["to"] == address]
    return sorted(refs, key=lambda r: (r.source, r.kind))


def outgoing(snapshot: Mapping[str, Any], procedure: Mapping[str, Any]) -> list[Reference]:
    refs = [Reference(_instruction(s), procedure["address"], s["target"], "call") for s in procedure["call_sites"]]
    refs += [_data(r) for r in snapshot.get("data_references", ()) if r.get("from_procedure") == procedure["address"]]
    return sorted(refs, key=lambda r: (r.source, r.target))


def search(
    items: Sequence[Mapping[str, Any]], field: str, pattern: str, mode: str, case_sensitive: bool
) -> list[Mapping[str, Any]] | str:
    """Matching rows, or an error message for an invalid regular expression."""
    if mode == "regex":
        try:
            compiled = re.compile(pattern, 0 if case_sensitive else re.IGNORECASE)
        except re.error as exc:
            return f"invalid regular expression: {exc}"
        return [i for i in items if compiled.search(i[field] or "")]
    needle = pattern if case_sensitive else pattern.casefold()
    return [i for i in items if needle in ((i[field] or "") if case_sensitive else (i[field] or "").casefold())]


def utf16_page(text: str, offset: int, limit: int) -> tuple[str, int | None, int]:
    """A page of `text` measured in UTF-16 code units that never splits a surrogate pair.

    Returns (page, next_offset or None, total units)."""
    units = text.encode("utf-16-le")
    total = len(units) // 2
    start = min(offset, total)
    end = min(start + limit, total)

    def is_low_surrogate(index: int) -> bool:
        return index < total and 0xDC00 <= int.from_bytes(units[2 * index : 2 * index + 2], "little") <= 0xDFFF

    if is_low_surrogate(start):  # an offset inside a pair starts after it
        start += 1
        end = max(end, min(start + 1, total))
    if end < total and is_low_surrogate(end):  # never end between a high and a low surrogate
        end = end - 1 if end - 1 > start else end + 1
    page = units[2 * start : 2 * end].decode("utf-16-le")
    return page, (end if end < total else None), total
