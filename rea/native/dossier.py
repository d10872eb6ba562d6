"""The analyze_function dossier in the reference's 6.x shape, built from the snapshot and two engine replies.

Every facet is either observed or declared unavailable with its reason
(facet_availability), so an empty list is never mistaken for "none". The
dossier is complete by default; the 3.1 window arguments only narrow it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rea.native import annotations as notes
from rea.native import answers as a
from rea.native import pseudocode as readable
from rea.native import queries as q
from rea.native import strings as native_strings
from rea.native.addresses import value
from rea.native.records import arguments as wa
from rea.native.records import procedures as wp

FACETS = ("pseudocode", "assembly", "comments", "callers", "callees", "references", "strings_names", "cfg")
NO_VALUE_FLOW = "Value flow is not computed by this provider yet (angr's data-flow analyses are not wired in)."
IMPORT_BODY = "an import: its body is outside this binary, so it was not read"
BODY_FACETS = ("callees", "references", "strings_names", "cfg")
NO_NATIVE_API = "Imported APIs are not classified into families by this provider: native_api is null."


def assembly_line(i: Mapping[str, Any]) -> str:
    return f"{i['address']}: {i['mnemonic']} {i['operands']}".rstrip()


def _slice(items: tuple[Any, ...], args: wa.DossierArgs, name: str) -> tuple[Any, ...]:
    start: int = 0 if args.collection_offset is None else getattr(args.collection_offset, name)
    return items[start : None if args.limit is None else start + args.limit]


def _referenced_strings(snapshot: Mapping[str, Any], p: Mapping[str, Any]) -> tuple[wp.Referenced, ...]:
    sites: dict[str, str] = {}
    for ref in q.outgoing(snapshot, p):
        sites.setdefault(ref.target, ref.source)
    return tuple(
        wp.Referenced(
            address=s["address"], value=native_strings.shown(s)[0], source_address=sites.get(s["address"], p["address"])
        )
        for s in q.strings_at(snapshot, p["strings"])
    )


def _referenced_names(snapshot: Mapping[str, Any], p: Mapping[str, Any]) -> tuple[wp.Referenced, ...]:
    rows, seen = [], set()
    for ref in q.outgoing(snapshot, p):
        name = a.name_at(snapshot, ref.target)
        if name and (ref.target, ref.source) not in seen:
            seen.add((ref.target, ref.source))
            rows.append(wp.Referenced(address=ref.target, value=name, source_address=ref.source))
    return tuple(rows)


def _blocks(p: Mapping[str, Any]) -> tuple[wp.Block, ...]:
    return tuple(
        wp.Block(
            start=b["start"], end=f"0x{value(b['start']) + b['size']:x}", successors=tuple(b.get("successors", ()))
        )
        for b in p["blocks"]
    )


def _comments(p: Mapping[str, Any], kept: notes.Annotations) -> tuple[wp.Comment, ...]:
    """The analyst's comments inside the procedure's blocks (REA's annotation store), by address."""
    spans = [(value(b["start"]), value(b["start"]) + b["size"]) for b in p.get("blocks", ())]
    inside = [value(p["address"]), *(a for a, _ in spans)]

    def within(address: str) -> bool:
        at = value(address)
        return at in inside or any(lo <= at < hi for lo, hi in spans)

    rows = [wp.Comment(address=k, kind="comment", text=t) for k, t in kept.comments.items() if within(k)]
    rows += [wp.Comment(address=k, kind="inline", text=t) for k, t in kept.inline_comments.items() if within(k)]
    return tuple(sorted(rows, key=lambda c: (value(c.address), c.kind)))


LOCAL_PROVENANCE = (
    "angr's decompiler (variable recovery); the operand is angr's offset from the stack pointer at entry "
    "restated through the procedure's prologue as the assembly addresses it"
)


def _local(slot: readable.StackLocal) -> wp.LocalVariable:
    sign = "-" if slot.entry_offset < 0 else "+"
    where = f"{slot.operand} in the assembly, " if slot.operand else ""
    text = f"{slot.declaration.rstrip(';')} at {where}entry sp {sign} {abs(slot.entry_offset):#x}"
    return wp.LocalVariable(description=text, provenance=LOCAL_PROVENANCE)


def _no_pseudocode(
    reason: str | None, instructions: list[Mapping[str, Any]] | None, p: Mapping[str, Any]
) -> str | None:
    """Why there is no pseudocode, and where the body is instead when the assembly was read."""
    if instructions is None or p["kind"] == "external":
        return reason
    return (
        f"{reason}; the body is in `assembly` ({len(instructions)} instructions) and "
        f"`basic_blocks` ({len(p.get('blocks', ()))} blocks) instead"
    )


def _procedure(p: Mapping[str, Any], cleaned: readable.Readable | None = None) -> wp.DossierProcedure:
    return wp.DossierProcedure(
        address=p["address"],
        name=p["name"],
        signature=None,
        locals=() if cleaned is None else tuple(_local(s) for s in cleaned.locals),
        classification=a.classification(p),
        body=a.body(p),
        kind=p["kind"],
        size=p["size"],
        returning=p["returning"],
    )


def build(
    snapshot: Mapping[str, Any],
    p: Mapping[str, Any],
    args: wa.DossierArgs,
    pseudocode: str | None,
    pseudocode_reason: str | None,
    instructions: list[Mapping[str, Any]] | None,
    assembly_reason: str | None,
    cleaned: readable.Readable | None = None,
) -> wp.Dossier:
    """The dossier; `pseudocode`/`instructions` are None when unavailable, with their reasons;
    `cleaned` is what the pseudocode post-processor did (its stack locals become procedure.locals)."""
    available = {k: wp.Availability(available=True) for k in FACETS}
    if p["kind"] == "external":  # no body here: what it calls, references or branches to was never read
        for facet in BODY_FACETS:
            available[facet] = wp.Availability(available=False, reason=IMPORT_BODY)
    text = pseudocode or ""
    if pseudocode is None:
        available["pseudocode"] = wp.Availability(
            available=False, reason=_no_pseudocode(pseudocode_reason, instructions, p)
        )
    start, cap = args.pseudocode_offset, args.max_pseudocode_chars
    shown = text[start : None if cap is None else start + cap]
    lines = tuple(assembly_line(i) for i in instructions or ())
    if instructions is None:
        available["assembly"] = wp.Availability(available=False, reason=assembly_reason)
    first, most = args.assembly_offset, args.max_instructions
    limitations = [NO_VALUE_FLOW, NO_NATIVE_API, *(cleaned.notes() if cleaned is not None else ())]
    limitations += [f"{k}: {v.reason}" for k, v in available.items() if not v.available and v.reason not in limitations]
    index = q.by_address(snapshot)  # once: a popular callee has a thousand callers
    incoming = a.edges(snapshot, q.incoming(snapshot, p["address"]), index)
    outgoing = a.edges(snapshot, q.outgoing(snapshot, p), index)
    return wp.Dossier(
        procedure=_procedure(p, cleaned),
        pseudocode=None if pseudocode is None else shown,
        assembly=lines[first : None if most is None else first + most],
        comments=_comments(p, notes.of(snapshot)),
        callers=_slice(tuple(filter(None, (a.ref_in(index, c) for c in p["callers"]))), args, "callers"),
        callees=_slice(tuple(filter(None, (a.ref_in(index, c) for c in p["callees"]))), args, "callees"),
        incoming_references=_slice(incoming, args, "incoming_references"),
        outgoing_references=_slice(outgoing, args, "outgoing_references"),
        referenced_strings=_slice(_referenced_strings(snapshot, p), args, "referenced_strings"),
        referenced_names=_slice(_referenced_names(snapshot, p), args, "referenced_names"),
        basic_blocks=_slice(_blocks(p), args, "basic_blocks"),
        unresolved_calls=a.unresolved(p),
        native_api=None,
        native_value_flow=wp.ValueFlow(available=False, reason=NO_VALUE_FLOW),
        limitations=tuple(limitations),
        facet_availability=wp.FacetAvailability(**available),
        pseudocode_length=len(text),
        pseudocode_truncated=pseudocode is not None and len(shown) < len(text),
        assembly_total=len(lines),
    )
