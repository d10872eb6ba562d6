"""The fast index: procedures, calls, callers, references and referenced strings composed from the binary's
metadata and one linear sweep of its code, in the snapshot shape every native question reads.

Procedures start where the file says a function starts (symbols, exports, exception frames, Go's pclntab,
LC_FUNCTION_STARTS) and where a direct call lands; each runs to its known size or to the next start, so
ranges never overlap and no instruction belongs to two procedures. A procedure is its own callee only when
it calls its own entry (a jump back to the entry, as Go's stack-growth prologue makes, is not a call).
Calls through an import slot (a PLT or stub entry, `call [rip + slot]`) reach the import, which is listed
as an `extern:` procedure named by the relocation; a static binary has no import slots and so no imports.

What the sweep cannot see is said, never hidden: indirect calls and jumps are counted per procedure as
unresolved; jumps inside one procedure are its own control flow and are not listed as references.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

import attrs

from rea.native import metadata
from rea.native.addresses import hexa, value
from rea.native.sweep import Sweep

INDEX_LIMITATION = (
    "Answered from REA's fast index (the file's metadata and a linear capstone sweep of every executable "
    "section): direct calls, jumps and every code reference to data are complete; indirect calls and jumps "
    "are counted as unresolved, not followed; basic blocks are not split (each procedure is one range)."
)
UNSWEPT_LIMITATION = (
    "The fast index cannot decode {architecture} code: procedures come from the file's metadata only, and no "
    "calls, callers or references were found."
)
ENGINE = "rea-fast-index (capstone)"  # the snapshot's engine name (answers key reference provenance on it)
PROVENANCE = "REA fast index (file metadata and capstone sweep)"
INDIRECT = "indirect call: the fast index does not resolve indirect targets"


def _extern(slot: int) -> str:
    return f"extern:0x{slot:x}"


class _Spans:
    """Procedure extents sorted by start, for `owner(address)` by bisection."""

    def __init__(self, rows: Sequence[tuple[int, int]]) -> None:
        self.starts = [s for s, _ in rows]
        self.ends = [e for _, e in rows]

    def owner(self, address: int) -> int | None:
        index = bisect.bisect_right(self.starts, address) - 1
        if index >= 0 and address < self.ends[index]:
            return self.starts[index]
        return None


@attrs.frozen
class Start:
    """A function start before anything else is said of it: the name and size the metadata gives (None, 0:
    none) and where the start was learnt (symbols, entry, import-stub, call-target, ...)."""

    name: str | None
    size: int
    source: str


def _executable(address: int, code: Sequence[tuple[str, int, int]]) -> tuple[str, int, int] | None:
    return next((c for c in code if c[1] <= address < c[2]), None)


def _thunks(
    swept: Sweep, slots: Mapping[int, str], code: Sequence[tuple[str, int, int]], known: _Spans
) -> dict[int, int]:
    """Stub entries that jump through an import slot, by their start: the entry's aligned start in a PLT
    section (entries are 16 bytes, the jump may follow an endbr64), else the jump itself when code calls it
    (Mach-O stubs, PE thunks)."""
    called = {r.target for r in swept.references if r.kind == "call"}
    found = {}
    for ref in swept.references:
        if ref.kind != "jump-slot" or ref.target not in slots:
            continue
        section = _executable(ref.site, code)
        if section is not None and section[0].startswith(".plt"):
            found[ref.site & ~0xF] = ref.target
        elif ref.site in called or known.owner(ref.site) is None:
            found[ref.site] = ref.target  # a stub; a tail jump through a slot inside a known function is not one
    return found


def _starts(
    metadata_rows: Sequence[Mapping[str, Any]],
    entry: str | None,
    swept: Sweep | None,
    thunks: Mapping[int, int],
    code: Sequence[tuple[str, int, int]],
    sized: _Spans,
) -> dict[int, Start]:
    """Function starts: the metadata's, the entry, import stubs, and direct call targets that fall inside no
    function the metadata sizes (Go calls into the middle of runtime.duffzero: that is not a new function)."""
    rows: dict[int, Start] = {}
    for row in metadata_rows:
        at = value(row["address"])
        if _executable(at, code) is not None:
            rows[at] = Start(row.get("name"), int(row.get("size") or 0), row["source"])
    if entry and ":" not in entry and _executable(value(entry), code) is not None:
        rows.setdefault(value(entry), Start(None, 0, "entry"))
    for at in thunks:
        rows.setdefault(at, Start(None, 0, "import-stub"))
    if swept is not None:
        for ref in swept.references:
            if ref.kind != "call" or ref.target in rows or _executable(ref.target, code) is None:
                continue
            if sized.owner(ref.target) is None:
                rows[ref.target] = Start(None, 0, "call-target")
    return rows


def _extents(rows: Mapping[int, Start], code: Sequence[tuple[str, int, int]]) -> list[tuple[int, int]]:
    """Each start's range: its known size, cut at the next start and at the end of its section."""
    ordered = sorted(rows)
    spans = []
    for i, start in enumerate(ordered):
        section = _executable(start, code)
        limit = section[2] if section is not None else start
        if i + 1 < len(ordered):
            limit = min(limit, ordered[i + 1])
        size = rows[start].size
        spans.append((start, min(start + size, limit) if size else limit))
    return spans


class Layout(NamedTuple):
    """Where the procedures are, before anything is said of them: their starts (with what the metadata says
    of each), extents in address order, import stubs and canonical import slots. Made first so a pass that needs
    only the extents (the stack-string scan) can start while the rest of the snapshot is built."""

    rows: dict[int, Start]
    spans: list[tuple[int, int]]
    thunks: dict[int, int]
    canonical: dict[int, int]


def layout(
    loader: Mapping[str, Any], swept: Sweep | None, slots: Mapping[int, str], code: Sequence[tuple[str, int, int]]
) -> Layout:
    """The procedures' starts and extents from the metadata and the sweep's calls."""
    canonical = _canonical(slots)
    known = metadata.starts(loader)
    sized = _Spans(sorted((value(r["address"]), value(r["address"]) + int(r["size"])) for r in known if r["size"]))
    thunks = _thunks(swept, slots, code, sized) if swept is not None else {}
    rows = _starts(known, loader.get("entry"), swept, thunks, code, sized)
    return Layout(rows=rows, spans=_extents(rows, code), thunks=thunks, canonical=canonical)


def snapshot(
    loader: Mapping[str, Any],
    swept: Sweep | None,
    slots: Mapping[int, str],
    code: Sequence[tuple[str, int, int]],
    placed: Layout | None = None,
) -> dict[str, Any]:
    """The index snapshot: the loader facts plus procedures, strings with their referrers, and references
    (`placed`: the layout already made of the same arguments). The loader's `scanned_strings` are not
    repeated: `strings` holds each of them with its referrers."""
    rows, spans, thunks, canonical = placed if placed is not None else layout(loader, swept, slots, code)
    extents = _Spans(spans)
    procs = {start: _procedure(start, end, rows[start], thunks.get(start), slots, canonical) for start, end in spans}
    externs = _externs(slots, canonical)
    references, reads = _wire(swept, procs, extents, slots, canonical) if swept is not None else ([], [])
    strings = _strings(loader.get("scanned_strings", ()), reads, loader.get("go_string_headers") or {})
    for s in strings:
        for p in s["referenced_by"]:
            procs[value(p)]["strings"].append(s["address"])
    _link(procs, externs)
    _mark_fragments(procs, references)
    unresolved = 0
    if swept is not None:
        for site in swept.indirect_calls:
            at = extents.owner(site)
            if at is not None:
                procs[at]["unresolved_calls"].append({"address": hexa(site), "reason": INDIRECT})
                unresolved += 1
    listing = [procs[s] for s in sorted(procs)] + [externs[k] for k in sorted(externs)]
    architecture = loader.get("architecture")
    notes = (INDEX_LIMITATION,) if swept is not None else (UNSWEPT_LIMITATION.format(architecture=architecture),)
    return {
        **{k: v for k, v in loader.items() if k != "scanned_strings"},
        "procedures": listing,
        "strings": strings,
        # calls are their procedure's call sites; a call from code no procedure covers stays a reference
        "data_references": [r for r in references if r["kind"] != "call" or r["from_procedure"] is None],
        "provider_notes": list(notes),
        "index": _stats(swept, unresolved),
    }


def _procedure(
    start: int,
    end: int,
    row: Start,
    slot: int | None,
    slots: Mapping[int, str],
    canonical: Mapping[int, int],
) -> dict[str, Any]:
    name = row.name
    kind = "function"
    if slot is not None:
        kind, name = "thunk", name or slots[slot]
    return {
        "address": hexa(start),
        "name": name or metadata.synthetic_name(hexa(start)),
        "kind": kind,
        "size": end - start,
        "returning": None,
        "blocks": [{"start": hexa(start), "size": end - start, "successors": []}] if end > start else [],
        "unresolved_calls": [],
        "callees": [_extern(canonical[slot])] if slot is not None else [],
        "callers": [],
        "call_sites": [],
        "strings": [],
        "source": row.source,
        "provenance": PROVENANCE,
    }


def _canonical(slots: Mapping[int, str]) -> dict[int, int]:
    """Each import slot mapped to the first slot of its name: a name's JUMP_SLOT and GLOB_DAT are one import."""
    first: dict[str, int] = {}
    for slot in sorted(slots):
        first.setdefault(slots[slot], slot)
    return {slot: first[slots[slot]] for slot in slots}


def _externs(slots: Mapping[int, str], canonical: Mapping[int, int]) -> dict[int, dict[str, Any]]:
    """One extern procedure per imported name: the file's imports, whether or not code calls them directly."""
    return {
        slot: {
            "address": _extern(slot),
            "name": slots[slot],
            "kind": "external",
            "size": 0,
            "returning": None,
            "blocks": [],
            "unresolved_calls": [],
            "callees": [],
            "callers": [],
            "call_sites": [],
            "strings": [],
            "source": "import-slot",
            "provenance": PROVENANCE,
        }
        for slot in sorted(set(canonical.values()))
    }


def _wire(
    swept: Sweep,
    procs: Mapping[int, dict[str, Any]],
    spans: _Spans,
    slots: Mapping[int, str],
    canonical: Mapping[int, int],
) -> tuple[list[dict[str, Any]], list[tuple[int, str]]]:
    """Every reference as the snapshot records it; calls also become call sites of their procedure. Beside
    them, the (target, procedure) of each reference that may name a string (from a procedure, not a call), so
    `_strings` does not parse 400,000 targets back from their text.

    References come in site order, so a site's owner is most often the last site's: the span (or the gap
    between spans) the last site fell in is checked first, and bisection runs only when a site leaves it."""
    owner, starts, ends = spans.owner, spans.starts, spans.ends
    out: list[dict[str, Any]] = []
    reads: list[tuple[int, str]] = []
    low, high, at = 0, 0, None  # the span or gap holding the last site, and its owner (None in a gap)
    for site, target, kind in swept.references:
        if not low <= site < high:
            index = bisect.bisect_right(starts, site) - 1
            if index >= 0 and site < ends[index]:
                low, high, at = starts[index], ends[index], starts[index]
            else:
                low = ends[index] if index >= 0 else 0
                high = starts[index + 1] if index + 1 < len(starts) else 2**64
                at = None
        if kind in ("call-slot", "jump-slot"):
            if target in slots:
                if kind == "jump-slot" and at is not None and procs[at]["callees"] == [_extern(canonical[target])]:
                    continue  # the stub's own jump: the thunk's callee already says where it goes
                kind, to = "call", _extern(canonical[target])  # a tail jump to an import calls it too
            else:
                kind, to = "read", f"0x{target:x}"  # a call or jump through a pointer in memory reads the pointer
                if at is not None:
                    procs[at]["unresolved_calls"].append({"address": f"0x{site:x}", "reason": INDIRECT})
        else:
            to = f"0x{target:x}"
        # a jump inside its own procedure is control flow, and one back to the entry (Go's morestack
        # prologue) is not a call: neither is a reference
        if kind == "jump" and at is not None and low <= target < high:
            continue
        text = f"0x{site:x}"
        # the owner's own address text, not a new one per reference (400,000 of them in a Go executable)
        source = None if at is None else procs[at]["address"]
        if at is not None:
            if kind == "call":
                procs[at]["call_sites"].append({"site": text, "instruction": text, "target": to})
                callee = to if to.startswith("extern:") else owner(target)  # a call into a function calls it
                if callee is not None:
                    procs[at]["callees"].append(callee if isinstance(callee, str) else f"0x{callee:x}")
            else:
                reads.append((target, procs[at]["address"]))
        out.append({"from": text, "from_procedure": source, "to": to, "kind": kind})
    return out, reads


def _link(procs: Mapping[int, dict[str, Any]], externs: Mapping[int, dict[str, Any]]) -> None:
    """Callees from call sites (and thunk targets), callers as their reverse."""
    by_address = {p["address"]: p for p in [*procs.values(), *externs.values()]}
    for p in procs.values():
        p["callees"] = sorted({*p["callees"], *(s["target"] for s in p["call_sites"] if s["target"] in by_address)})
        p["strings"] = sorted(set(p["strings"]), key=value)
    for p in procs.values():
        for callee in p["callees"]:
            by_address[callee]["callers"].append(p["address"])
    for p in by_address.values():
        p["callers"] = sorted(set(p["callers"]), key=value)


def _mark_fragments(procs: Mapping[int, dict[str, Any]], references: Sequence[Mapping[str, Any]]) -> None:
    """A procedure nobody calls and only one other procedure jumps to is that procedure's part (a `.cold`
    piece the compiler moved away): it is marked `fragment_of`, so what is said of its owner (its origin)
    can be said of it."""
    entries = {p["address"] for p in procs.values()}
    reached: dict[str, set[tuple[str, str | None]]] = {}
    for ref in references:
        if ref["to"] in entries:
            reached.setdefault(ref["to"], set()).add((ref["kind"], ref["from_procedure"]))
    for p in procs.values():
        seen = reached.get(p["address"], set())
        jumpers = {source for kind, source in seen if kind == "jump" and source not in (None, p["address"])}
        if not p["callers"] and len(jumpers) == 1 and all(kind == "jump" for kind, _ in seen):
            p["fragment_of"] = jumpers.pop()


def inherit_fragment_origins(procs: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Procedures whose origin no fact decided (unmatched, or placed by neighbours) take their owner's when
    they are its fragment (rea.native.origin runs first; this only follows `fragment_of`)."""
    rows = [dict(p) for p in procs]
    by_address = {r["address"]: r for r in rows}
    for row in rows:
        owner, hops = row.get("fragment_of"), 0
        while owner in by_address and by_address[owner].get("fragment_of") and hops < 8:
            owner, hops = by_address[owner]["fragment_of"], hops + 1
        undecided = (row.get("origin") or {}).get("source") in ("unmatched", "neighbours")
        if owner in by_address and undecided and "origin" in by_address[owner]:
            held = by_address[owner]["origin"]
            row["origin"] = {"kind": held["kind"], "source": "fragment-of", "unit": held.get("unit") or owner}
    return rows


def library_names(procs: Sequence[Mapping[str, Any]], facts: Mapping[str, Any]) -> list[dict[str, Any]]:
    """A procedure the file leaves unnamed (`sub_…`) whose bytes equal one installed static library function
    (relocations masked: rea.native.origin's library-match) takes that function's name, so a stripped static
    binary's calls read `exit`, `printf`, not `sub_417560`. Only a name matched at one address is used: equal
    bytes at two addresses (`.cold` parts, clones) name neither (on a stripped gcc -static build, under 2% of
    the names given differ from nm's on the unstripped copy: aliases)."""
    matches = [m for m in (facts.get("library_matches") or {}).get("matches") or () if m.get("by") == "bytes"]
    uses: dict[str, int] = {}
    for m in matches:
        uses[m.get("name") or ""] = uses.get(m.get("name") or "", 0) + 1
    # a name matched at two addresses (`.cold` parts, clones with equal bytes) says nothing about either
    names = {m["address"]: m["name"] for m in matches if m.get("name") and uses[m["name"]] == 1}
    rows = []
    for p in procs:
        row = dict(p)
        if row["kind"] == "function" and str(row["name"]).startswith("sub_") and row["address"] in names:
            row["name"] = names[row["address"]]
        rows.append(row)
    return rows


def _strings(
    scanned: Iterable[Mapping[str, Any]], reads: Iterable[tuple[int, str]], headers: Mapping[str, str]
) -> list[dict[str, Any]]:
    """The scanned strings, each with the procedures whose code references any byte of it (or a Go string
    header that names it); `reads` are (target, procedure) pairs of the references that are not calls."""
    rows = [{**s, "referenced_by": []} for s in scanned]
    rows.sort(key=lambda s: value(s["address"]))
    starts = [value(s["address"]) for s in rows]
    ends = [start + row["length"] for start, row in zip(starts, rows, strict=True)]
    pointers = {value(header): value(pointer) for header, pointer in headers.items()}
    referrers: dict[int, set[str]] = {}
    for target, source in reads:
        named = pointers.get(target, target)
        index = bisect.bisect_right(starts, named) - 1
        if index >= 0 and named < ends[index]:
            referrers.setdefault(index, set()).add(source)
    for index, found in referrers.items():
        rows[index]["referenced_by"] = sorted(found, key=value)
    return rows


def _stats(swept: Sweep | None, unresolved: int) -> dict[str, Any]:
    if swept is None:
        return {"swept": False, "instructions": 0, "undecoded_bytes": 0, "code_bytes": 0, "unresolved_calls": 0}
    return {
        "swept": True,
        "instructions": swept.instructions,
        "undecoded_bytes": swept.undecoded_bytes,
        "code_bytes": swept.code_bytes,
        "unresolved_calls": unresolved,
        "indirect_jumps": len(swept.indirect_jumps),
    }
