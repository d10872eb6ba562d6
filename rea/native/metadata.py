"""Procedures known from the binary's own metadata, without a control-flow graph.

Symbol tables, exports (ELF dynamic symbols, the PE export directory, the Mach-O export
trie), exception-frame starts (`.eh_frame` FDEs, `.pdata` RUNTIME_FUNCTIONs,
LC_FUNCTION_STARTS) and Go's pclntab name functions and their extents. They answer a
first overview fast, name the functions of a stripped Go binary after CFG recovery, and
stand in for the CFG when angr's recovery fails (coverage partial, the engine error in
limitations) so one engine fault never fails the whole overview.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from rea.native import origin
from rea.native import strings as text
from rea.native.addresses import value

# a name angr made up from an address: replaced by a metadata name when one is known
SYNTHETIC_PREFIXES = origin.SYNTHETIC_PREFIXES
# an export's name is the public one: it names the start before anything else does; Go's pclntab name is the
# function's own (a Mach-O symbol adds the C underscore), so it comes before the symbol table's
PRIORITY = {"exports": 0, "go-pclntab": 1, "symbols": 2, "exception-frames": 3, "pdata": 3, "function_starts": 3}


def starts(loader: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every known function start, one per address: the most trusted source names and sizes it."""
    found: dict[str, dict[str, Any]] = {}
    candidates: list[dict[str, Any]] = [
        {"address": s["address"], "name": s["name"], "size": s["size"], "source": "symbols"}
        for s in loader.get("symbols", ())
        if s["kind"] == "function" and s["address"] and ":" not in s["address"]
    ]
    candidates += [
        {"address": e["address"], "name": e["name"], "size": 0, "source": "exports"}
        for e in loader.get("exports", ())
        if e["kind"] == "function"
    ]
    go = loader.get("go") or {}
    candidates += [{**f, "source": "go-pclntab"} for f in go.get("functions", ())]
    candidates += [dict(f) for f in loader.get("function_starts", ())]
    for row in sorted(candidates, key=lambda r: PRIORITY.get(r["source"], 9)):
        held = found.get(row["address"])
        if held is None:
            found[row["address"]] = {"name": None, **row}
        else:
            held["name"] = held.get("name") or row.get("name")
            held["size"] = held["size"] or row["size"]
    return sorted(found.values(), key=lambda r: value(r["address"]))


def synthetic_name(address: str) -> str:
    """The name of an unnamed function carries the address we report (never a rebased one)."""
    return f"sub_{value(address):x}"


def procedure(row: Mapping[str, Any]) -> dict[str, Any]:
    """A snapshot procedure from one metadata start: one block spanning its known extent."""
    blocks = [{"start": row["address"], "size": row["size"], "successors": []}] if row["size"] else []
    return {
        "address": row["address"],
        "name": row.get("name") or synthetic_name(row["address"]),
        "kind": "function",
        "size": row["size"],
        "returning": None,
        "blocks": blocks,
        "unresolved_calls": [],
        "callees": [],
        "callers": [],
        "call_sites": [],
        "strings": [],
        "source": row["source"],
    }


def procedures(loader: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The metadata's procedures, each with its origin (program, library, runtime)."""
    return origin.annotate([procedure(r) for r in starts(loader)], loader)


def fallback(loader: Mapping[str, Any], error: Mapping[str, Any]) -> dict[str, Any]:
    """The snapshot part CFG recovery would have given, from metadata, after the engine failed."""
    return {
        "procedures": procedures(loader),
        "strings": list(loader.get("scanned_strings", ())),
        "data_references": [],
        "degraded": {"engine_error": dict(error), "source": "metadata"},
    }


PREVIEW = (
    "Answered from the binary's metadata before CFG recovery (symbol table, exception-frame function "
    "starts, Go pclntab): thunks, imports and procedures without metadata are not listed yet, and no calls, "
    "callers or references are known. Cross-reference, caller and call-graph questions recover the CFG."
)


def preview(loader: Mapping[str, Any]) -> dict[str, Any] | None:
    """Procedures from metadata for a fast first answer, or None when the binary has none to give."""
    procs = procedures(loader)
    return {"procedures": procs, "data_references": [], "preview": True} if procs else None


def snapshot_limitations(snapshot: Mapping[str, Any]) -> tuple[str, ...]:
    """What a metadata-only snapshot cannot say, for every answer drawn from it."""
    if snapshot.get("preview"):
        return (PREVIEW,)
    degraded = snapshot.get("degraded")
    if not degraded:
        return ()
    error = degraded["engine_error"]
    return (
        "Coverage partial: angr's CFG recovery failed "
        f"({error.get('message', 'unknown error')}), so procedures come from the binary's metadata "
        "(symbols, exception-frame starts, Go pclntab): no blocks, calls, callers or references were recovered, "
        "and functions without metadata are missing.",
    )


def renamed(procs: Iterable[Mapping[str, Any]], loader: Mapping[str, Any]) -> list[dict[str, Any]]:
    """CFG procedures with synthetic names given their metadata names (a stripped Go binary keeps
    every function name in pclntab), and every synthetic name made to carry its reported address."""
    names = {r["address"]: r["name"] for r in starts(loader) if r.get("name")}
    rows = []
    for p in procs:
        row = dict(p)
        if row["kind"] == "function" and str(row["name"]).startswith(SYNTHETIC_PREFIXES):
            row["name"] = names.get(row["address"]) or synthetic_name(row["address"])
        rows.append(row)
    return rows


def _owners(loader: Mapping[str, Any]) -> tuple[list[tuple[int, int, str]], set[str]]:
    known = starts(loader)
    extents = sorted((value(r["address"]), value(r["address"]) + r["size"], r["address"]) for r in known if r["size"])
    return extents, {r["address"] for r in known}


def _owner(extents: list[tuple[int, int, str]], address: str) -> str | None:
    at = value(address)
    index = bisect.bisect_right(extents, (at, 1 << 64, "")) - 1
    while index >= 0 and extents[index][0] == at:
        index -= 1  # an extent starting here is this procedure's own, not an owner
    if index >= 0 and extents[index][0] < at < extents[index][1]:
        return extents[index][2]
    return None


def fragment_owners(procs: Iterable[Mapping[str, Any]], loader: Mapping[str, Any]) -> dict[str, str]:
    """CFG 'functions' that start inside another function's metadata extent (jump targets, cold
    parts angr split off) and have no start of their own in the metadata, mapped to their owner (which
    angr may not have found: then the folded function is made at the metadata's start)."""
    extents, known = _owners(loader)
    owners = {}
    for p in procs:
        if p["kind"] != "function" or p["address"] in known or ":" in p["address"]:
            continue
        owner = _owner(extents, p["address"])
        if owner is not None:
            owners[p["address"]] = owner
    return owners


def _empty(address: str, name: str | None) -> dict[str, Any]:
    return {**procedure({"address": address, "name": name, "size": 0, "source": "cfg"}), "source": "cfg"}


def _merge_into(row: dict[str, Any], part: Mapping[str, Any]) -> None:
    row["blocks"] = sorted([*row["blocks"], *part["blocks"]], key=lambda b: value(b["start"]))
    row["size"] += part["size"]
    row["call_sites"] = [*row["call_sites"], *part["call_sites"]]
    row["unresolved_calls"] = [*row["unresolved_calls"], *part["unresolved_calls"]]
    row["callees"] = [*row["callees"], *part["callees"]]
    row["callers"] = [*row["callers"], *part["callers"]]
    row["strings"] = sorted({*row["strings"], *part["strings"]})
    row["fragments"] = sorted({*row.get("fragments", ()), part["address"]})


def merged(snapshot: Mapping[str, Any], loader: Mapping[str, Any]) -> dict[str, Any]:
    """The CFG snapshot with fragments folded into their functions: callers and callees name other
    functions only (a jump inside a function is not a call), references say which function they are in."""
    procs = list(snapshot.get("procedures", ()))
    owners = fragment_owners(procs, loader)
    if not owners:
        return dict(snapshot)

    def mapped(address: str | None) -> str | None:
        return owners.get(address, address) if address is not None else None

    rows = {p["address"]: dict(p) for p in procs if p["address"] not in owners}
    names = {r["address"]: r.get("name") for r in starts(loader)}
    order = [p["address"] for p in procs if p["address"] not in owners]
    for owner in owners.values():
        if owner not in rows:  # angr missed the entry and found only pieces of the function
            rows[owner] = {**_empty(owner, names.get(owner)), "returning": None}
            order.insert(
                bisect.bisect_left([value(a) if ":" not in a else 1 << 64 for a in order], value(owner)), owner
            )
    for row in rows.values():  # a function calling its own entry is recursion, kept; folding adds no self edges
        row["recursive"] = row["address"] in row["callees"]
    for fragment, owner in owners.items():
        _merge_into(rows[owner], next(p for p in procs if p["address"] == fragment))
    for row in rows.values():
        me, recursive = row["address"], row.pop("recursive")
        keep = {me} if recursive else set()
        row["callees"] = sorted({owners.get(c, c) for c in row["callees"]} - ({me} - keep))
        row["callers"] = sorted({owners.get(c, c) for c in row["callers"]} - ({me} - keep))
        row["call_sites"] = [
            {**s, "target": owners.get(s["target"], s["target"])}
            for s in row["call_sites"]
            if owners.get(s["target"], s["target"]) != me or s["target"] == me
        ]
    references = [{**r, "from_procedure": mapped(r.get("from_procedure"))} for r in snapshot.get("data_references", ())]
    strings = [
        {**s, "referenced_by": sorted({mapped(a) for a in s.get("referenced_by", ())} - {None})}
        if "referenced_by" in s
        else s
        for s in snapshot.get("strings", ())
    ]
    return {
        **snapshot,
        "procedures": [rows[a] for a in order],
        "data_references": references,
        "strings": strings,
        "merged_fragments": len(owners),
    }


def _referenced(
    strings: list[dict[str, Any]], references: Iterable[Mapping[str, Any]], holder: Callable[[str], str | None]
) -> None:
    """Every code reference into a string counts for it, not only those angr typed as a string (a 16-byte
    vector load of a UTF-32 table entry is data of another sort to angr)."""
    by_address = {s["address"]: s for s in strings}
    for ref in references:
        held, source = holder(ref["to"]), ref.get("from_procedure")
        if held is not None and source is not None and source not in by_address[held]["referenced_by"]:
            by_address[held]["referenced_by"] = sorted({*by_address[held]["referenced_by"], source})


def completed(cfg: Mapping[str, Any], loader: Mapping[str, Any]) -> dict[str, Any]:
    """The CFG answer named from metadata, its fragments folded in, its strings completed by the scan (a
    Go binary's strings are length-addressed: see rea.native.strings), each procedure's strings named by
    the reported string that holds the referenced address, and each procedure's origin classified."""
    go = loader.get("go") or {}
    strings = text.with_scanned(
        cfg.get("strings", ()), loader.get("scanned_strings", ()), length_addressed=bool(go.get("functions"))
    )
    holder = text.holders(strings)
    _referenced(strings, cfg.get("data_references", ()), holder)
    procs = [
        {**p, "strings": sorted({h for a in p.get("strings", ()) if (h := holder(a)) is not None})}
        for p in renamed(cfg["procedures"], loader)
    ]
    folded = merged({**cfg, "procedures": procs, "strings": strings}, loader)
    return {**folded, "procedures": origin.annotate(folded["procedures"], origin.with_matches(loader, cfg))}
