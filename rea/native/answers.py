"""Snapshot projections into the reference's result records (rea.native.records).

Each function is a plain function of the analysis snapshot (and the caller's
arguments), so inventory answers need no engine once the snapshot exists, and
the shapes are exactly the advertised ones.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeVar, overload

from rea.errors import ReaError
from rea.native import decoding, index
from rea.native import origin as o
from rea.native import queries as q
from rea.native import strings as native_strings
from rea.native.addresses import value
from rea.native.records import arguments as wa
from rea.native.records import listings as wl
from rea.native.records import procedures as wp

T = TypeVar("T")
LOADER = "cle-loader"
_PERMISSIONS = wl.Permissions(available=True, source="elf/pe/mach-o headers, read by angr's CLE loader")


@overload
def identity(p: Mapping[str, Any]) -> wl.ProcedureIdentity: ...
@overload
def identity(p: None) -> None: ...
@overload
def identity(p: Mapping[str, Any] | None) -> wl.ProcedureIdentity | None: ...
def identity(p: Mapping[str, Any] | None) -> wl.ProcedureIdentity | None:
    """Overloaded so a known procedure gives a non-null identity without a check."""
    if p is None:
        return None
    return wl.ProcedureIdentity(address=p["address"], name=p["name"], classification=classification(p), body=body(p))


def classification(p: Mapping[str, Any]) -> wl.Classification:
    thunk_target = (p.get("callees") or [None])[0] if p["kind"] == "thunk" else None
    return wl.Classification(
        external=p["kind"] == "external",
        thunk=p["kind"] == "thunk",
        thunk_target=thunk_target,
        provenance=p.get("provenance", "angr CFGFast"),  # a provider other than angr names its own
        kind=p["kind"],
        returning=p["returning"],
    )


def ref(p: Mapping[str, Any] | None, classified: bool = True) -> wl.ProcedureRef | None:
    """A procedure named inside another answer: address, name and (unless the answer states it once
    elsewhere) its kind; never its body again."""
    if p is None:
        return None
    kind = classification(p) if classified else None
    return wl.ProcedureRef(address=p["address"], name=p["name"], classification=kind)


def ref_at(snapshot: Mapping[str, Any], address: str | None, classified: bool = True) -> wl.ProcedureRef | None:
    return ref_in(q.by_address(snapshot), address, classified)


def ref_in(
    index: Mapping[str, Mapping[str, Any]], address: str | None, classified: bool = True
) -> wl.ProcedureRef | None:
    """ref_at over procedures already indexed by address (q.by_address, built once per answer, not per row)."""
    return None if address is None else ref(index.get(address), classified)


def window(items: list[T], args: Mapping[str, Any]) -> list[T]:
    """The complete list (the reference's answer), or the slice offset/limit ask for."""
    end = None if args.get("limit") is None else args["offset"] + args["limit"]
    return items[args["offset"] : end]


# ----------------------------------------------------------------- regions


def _region(row: Mapping[str, Any]) -> dict[str, Any]:
    return dict(
        name=row["name"],
        start=row["start"],
        end=row["end"],
        readable=row["readable"],
        writable=row["writable"],
        executable=row["executable"],
        permissions=_PERMISSIONS,
        provenance=LOADER,
        size=row["size"],
    )


def segments(snapshot: Mapping[str, Any]) -> list[wl.Segment]:
    """Loadable segments, each holding the sections that lie inside it."""
    rows = []
    for seg in snapshot["segments"]:
        lo, hi = value(seg["start"]), value(seg["end"])
        inside = [wl.Region(**_region(s)) for s in snapshot["sections"] if lo <= value(s["start"]) < hi]
        rows.append(wl.Segment(**_region(seg), sections=tuple(inside)))
    return rows


def segment_spans(snapshot: Mapping[str, Any]) -> list[tuple[int, int]]:
    """Each loaded segment as [start, start + size) in link-time addresses.

    Measured from the start and size, never the printed end: a segment ending at the
    image's last byte has its end printed in angr's `extern:` space (absolute, not rebased).
    """
    return [(value(s["start"]), value(s["start"]) + s["size"]) for s in snapshot["segments"] if ":" not in s["start"]]


def in_segments(snapshot: Mapping[str, Any], address: str) -> bool:
    """Whether a link-time (ram-space) address lies in a loaded segment; other spaces never do."""
    if ":" in address:
        return False
    at = value(address)
    return any(lo <= at < hi for lo, hi in segment_spans(snapshot))


# ------------------------------------------------------------------ overview


def overview(document: str, snapshot: Mapping[str, Any], args: Mapping[str, Any]) -> wl.Overview:
    procs = q.procedures(snapshot)
    functions = [p for p in procs if p["kind"] == "function"]
    limit, detailed = args["limit"], args["detail"] == "detailed"
    entry = q.containing(snapshot, snapshot["entry"]) if snapshot.get("entry") else None
    largest = sorted(functions, key=lambda p: (-p["size"], p["address"]))[:limit]
    imports = sorted({p["name"] for p in procs if p["kind"] == "external"} | _imported_symbols(snapshot))
    strings = snapshot.get("strings", snapshot.get("scanned_strings", ()))
    extents = [
        wl.Extent(name=s["name"], start=s["start"], end=s["end"], length=s["size"]) for s in snapshot["segments"]
    ]
    own = sorted((p for p in functions if o.of(p).kind == "program"), key=lambda p: (-p["size"], p["address"]))
    return wl.Overview(
        document=document,
        detail=args["detail"],
        program_procedures=tuple(
            wl.SizedProcedure(address=p["address"], name=p["name"], size=p["size"]) for p in own[:limit]
        ),
        origins=wl.OriginCounts(**o.counts(procs)),
        segments=tuple(extents),
        segment_count=len(extents),
        procedure_count=len(procs),
        string_count=len(strings),
        format=snapshot["format"],
        architecture=snapshot["architecture"],
        bits=snapshot["bits"],
        endianness=snapshot["endianness"],
        entry=snapshot["entry"],
        entry_procedure=identity(entry),
        pic=snapshot["pic"],
        linked_base=snapshot["linked_base"],
        stripped=snapshot["stripped"],
        engine=wl.Engine(**snapshot["engine"]),
        counts=wl.Counts(
            procedures=len(procs),
            functions=len(functions),
            thunks=sum(p["kind"] == "thunk" for p in procs),
            imports=len(imports),
            strings=len(strings),
            sections=len(snapshot["sections"]),
            segments=len(snapshot["segments"]),
            symbols=len(snapshot["symbols"]),
        ),
        largest_procedures=tuple(
            wl.SizedProcedure(address=p["address"], name=p["name"], size=p["size"]) for p in largest
        ),
        imports=tuple(imports if detailed else imports[:limit]),
        sections=tuple(wl.Region(**_region(s)) for s in snapshot["sections"]) if detailed else None,
        strings_sample=tuple(
            wl.AddressedValue(address=s["address"], value=native_strings.shown(s)[0]) for s in strings[:limit]
        )
        if detailed
        else None,
        analysis=analysis_state(snapshot),
        go=go_info(snapshot.get("go")),
    )


def _imported_symbols(snapshot: Mapping[str, Any]) -> set[str]:
    """Before the CFG, imports are the symbol table's undefined names (after it, the extern procedures)."""
    if not snapshot.get("preview"):
        return set()
    return {s["name"] for s in snapshot.get("symbols", ()) if s["source"] == "external"}


def analysis_state(snapshot: Mapping[str, Any]) -> wl.AnalysisState:
    index = snapshot.get("index")
    if index and index.get("swept"):
        unresolved = int(index.get("unresolved_calls", 0)) + int(index.get("indirect_jumps", 0))
        undecoded = int(index.get("undecoded_bytes", 0))
        return wl.AnalysisState(
            source="index",
            coverage="partial" if unresolved or undecoded else "complete",
            merged_fragments=0,
            unresolved_indirect=unresolved,
            undecoded_bytes=undecoded,
        )
    degraded = snapshot.get("degraded")
    partial = bool(degraded or snapshot.get("preview"))
    return wl.AnalysisState(
        source="metadata" if partial else "cfg",
        coverage="partial" if partial else "complete",
        engine_error=degraded["engine_error"].get("message") if degraded else None,
        merged_fragments=int(snapshot.get("merged_fragments", 0)),
    )


def go_info(go: Mapping[str, Any] | None) -> wl.GoInfo | None:
    if not go:
        return None
    build = go.get("build_info") or {}
    return wl.GoInfo(
        pclntab_layout=go.get("layout"),
        functions=len(go.get("functions", ())),
        go_version=build.get("go_version"),
        module_path=build.get("module_path"),
        main_version=build.get("main_version"),
        dependencies=tuple(wl.GoDependency(path=p, version=v) for p, v in build.get("dependencies", ())),
        problems=tuple(go.get("problems", ())),
        inferred_version=_inferred(go.get("inferred_version")),
    )


def _inferred(found: Mapping[str, Any] | None) -> wl.GoVersionInference | None:
    if not found:
        return None
    rows = tuple(wl.GoVersionCandidate(**c) for c in found["candidates"])
    return wl.GoVersionInference(**{**found, "candidates": rows})


# ------------------------------------------------------------------ listings


def procedure_row(p: Mapping[str, Any]) -> wl.ProcedureRow:
    kind = classification(p)
    flags = wl.ProcedureFlags(external=kind.external, thunk=kind.thunk, thunk_target=kind.thunk_target)
    origin = o.of(p)
    return wl.ProcedureRow(
        address=p["address"],
        value=p["name"],
        procedure=flags,
        kind=p["kind"],
        size=p["size"],
        origin=wl.ProcedureOrigin(kind=origin.kind, source=origin.source, unit=origin.unit),
    )


def of_origin(procs: Iterable[Mapping[str, Any]], wanted: str | None) -> list[Mapping[str, Any]]:
    """The procedures of one origin kind (all of them when none is asked for)."""
    return [p for p in procs if wanted is None or o.of(p).kind == wanted]


def string_row(s: Mapping[str, Any]) -> wl.StringRow:
    value, truncated = native_strings.shown(s)
    return wl.StringRow(
        address=s["address"],
        value=value,
        string=wl.StringFacts(
            encoding=s["encoding"], termination=native_strings.termination(s), byte_length=s["length"]
        ),
        truncated=truncated,
        referenced_by=tuple(s["referenced_by"]) if "referenced_by" in s else None,
        section=s.get("section"),
        origin=s.get("origin", "stored"),
        procedure=s.get("procedure"),
        frame_offset=s.get("frame_offset"),
        decoder=s.get("decoder"),
        call_site=s.get("call_site"),
        inputs=tuple(wl.DecodedInput(**i) for i in s["inputs"]) if s.get("inputs") is not None else None,
    )


def strings_of_origin(
    snapshot: Mapping[str, Any], stored: Sequence[Mapping[str, Any]], origin: str | None
) -> list[Mapping[str, Any]]:
    """The strings stored in the clear (their order kept, so pages of them do not move), then the stack
    strings and any decoded ones the snapshot holds; `origin` keeps to one of them."""
    every = [*stored, *snapshot.get("stack_strings", ()), *snapshot.get("decoded_strings", ())]
    if origin is None:
        return every
    return [s for s in every if s.get("origin", "stored") == origin]


def string_coverage(snapshot: Mapping[str, Any]) -> tuple[str, ...]:
    """What the string answer covers beyond the strings stored in the clear: which procedures were scanned
    for stack strings, and which decoder call sites were emulated (origin decoded) or not, and why."""
    scan = snapshot.get("stack_scan")
    if not scan:
        return (
            "Stack strings were not scanned: this answer did not come from REA's fast index. Decoded strings "
            "(produced at run time) are not recovered.",
        )
    if not scan.get("scanned"):
        why = scan.get("reason") or f"the fast index does not read {scan.get('architecture')} code"
        return (f"Stack strings were not scanned: {why}. Decoded strings (produced at run time) are not recovered.",)
    candidates = len({c["call_site"] for c in snapshot.get("decoder_candidates", ())})
    return (
        f"Stack strings: all {scan['procedures']} procedures of the fast index were scanned for immediate stores "
        "into their frame (addressed from the stack pointer, or from rbp/x29 where the procedure sets it from the "
        f"stack pointer; {scan['replayed']} could build a string or call a XOR routine and were replayed; "
        f"{scan['stack_strings']} stack strings of at least 4 printable characters found). A string copied onto "
        "the stack from data, built through any other pointer register, or written by a loop is not a stack "
        "string here.",
        decoding.coverage_text(snapshot.get("decode_coverage"), candidates),
    )


_SYMBOL_SOURCE: Mapping[str, wa.SymbolSource] = {
    "primary": "default",
    "external": "imported",
    "dynamic": "analysis",
    "analyst": "user_defined",
}


def name_rows(snapshot: Mapping[str, Any]) -> tuple[list[wl.NameRow], int]:
    """Every name with an address; an import without one takes its extern stub's address, or is counted."""
    externs = {p["name"]: p["address"] for p in q.procedures(snapshot) if p["kind"] == "external"}
    rows, unplaced = [], 0
    for r in q.names(snapshot):
        address = r.address or externs.get(r.name)
        if address is None:
            unplaced += 1
            continue
        facts = wl.SymbolFacts(
            primary=r.source == "primary",
            dynamic=r.source == "dynamic",
            external=r.source == "external",
            type=r.kind,
            source=_SYMBOL_SOURCE[r.source],
        )
        rows.append(wl.NameRow(address=address, value=r.name, symbol=facts))
    return rows, unplaced


def name_at(snapshot: Mapping[str, Any], address: str) -> str | None:
    return q.name_at(snapshot, address)


def containing(snapshot: Mapping[str, Any], address: str) -> wl.Contained | wl.NotContained:
    proc = q.containing(snapshot, address)
    if proc is not None:
        return wl.Contained(query_address=address, found=True, procedure=identity(proc))
    reason: wa.NotContainedReason = "not_in_procedure" if in_segments(snapshot, address) else "outside_segments"
    return wl.NotContained(query_address=address, found=False, procedure=None, reason=reason)


# ---------------------------------------------------------------- references


def edge(snapshot: Mapping[str, Any], index: Mapping[str, Mapping[str, Any]], ref: q.Reference) -> wp.ReferenceEdge:
    """Our reference (from, its procedure, to, kind) as the reference's edge; `index` is the snapshot's
    procedures by address, built once per answer (building it per edge made a popular callee's 50 callers
    take seconds on a 4k-procedure binary)."""
    return wp.ReferenceEdge(
        source_address=ref.source,
        target_address=ref.target,
        source_procedure=ref_in(index, ref.procedure, classified=False),
        target_procedure=ref_in(index, ref.target, classified=False),
        kind=reference_kind(snapshot, index, ref),
    )


# (calls, data references): where each kind of reference came from, by engine
_REF_PROVENANCE = {
    "angr": ("angr CFGFast call sites", "angr xref database"),
    "ghidra": ("Ghidra call references", "Ghidra reference manager"),
    index.ENGINE: ("REA fast index: direct call operands", "REA fast index: instruction operands"),
}


def reference_kind(
    snapshot: Mapping[str, Any], index: Mapping[str, Mapping[str, Any]], ref: q.Reference
) -> wp.ReferenceKind:
    """Calls come from CFG call sites (a direct operand, resolved statically); everything else from angr's xrefs."""
    target = index.get(ref.target)
    call, jump = ref.kind == "call", ref.kind == "jump"
    return wp.ReferenceKind(
        available=True,
        provenance=_REF_PROVENANCE.get(str(snapshot.get("engine", {}).get("name")), _REF_PROVENANCE["angr"])[not call],
        type=ref.kind,
        flow=call or jump,
        call=call,
        jump=jump,
        data=not (call or jump),
        read=ref.kind == "read",
        write=ref.kind == "write",
        indirect=False,
        computed=False,
        conditional=False,
        terminal=False,
        primary=True,
        operand_index=0 if call else -1,
        external=target is not None and target["kind"] == "external",
    )


def edges(
    snapshot: Mapping[str, Any], refs: Iterable[q.Reference], index: Mapping[str, Mapping[str, Any]] | None = None
) -> tuple[wp.ReferenceEdge, ...]:
    """The references' edges; `index` (q.by_address) when the caller has already built it."""
    index = q.by_address(snapshot) if index is None else index
    return tuple(edge(snapshot, index, r) for r in refs)


def unresolved(p: Mapping[str, Any]) -> tuple[wp.UnresolvedCall, ...]:
    return tuple(wp.UnresolvedCall(**u) for u in p.get("unresolved_calls", ()))


def references(snapshot: Mapping[str, Any], p: Mapping[str, Any], args: Mapping[str, Any]) -> wp.ProcedureReferences:
    outgoing = args["direction"] == "outgoing"
    refs = q.outgoing(snapshot, p) if outgoing else q.incoming(snapshot, p["address"])
    return wp.ProcedureReferences(
        procedure=identity(p),
        direction=args["direction"],
        reference_kinds_available=True,
        unresolved_calls=unresolved(p) if outgoing else (),
        references=edges(snapshot, window(list(refs), args)),  # only the page's edges are built
        instruction_scan_truncated=False,
        instructions_scanned=0,
    )


def xrefs_to_name(snapshot: Mapping[str, Any], name: str) -> wp.XrefsResolved | wp.XrefsUnresolved:
    rows, _ = name_rows(snapshot)
    targets = sorted(
        {r.address for r in rows if r.value == name}
        | {p["address"] for p in q.procedures(snapshot) if p["name"] == name},
        key=address_order,
    )
    if not targets:
        return wp.XrefsUnresolved(status="unresolved", name=name, reason="name_not_found")
    first = q.find_procedure(snapshot, name)
    address = first["address"] if first is not None else targets[0]
    xrefs = sorted({r.source for r in q.incoming(snapshot, address)}, key=address_order)
    return wp.XrefsResolved(status="resolved", name=name, address=address, xrefs=tuple(xrefs), addresses=tuple(targets))


def address_order(address: str) -> tuple[str, int]:
    space, _, digits = address.rpartition(":")
    return space, int(digits, 16)


# --------------------------------------------------------------- procedures


def body(p: Mapping[str, Any]) -> wl.Body:
    """Block ranges merged where one ends at the next's start."""
    if p["kind"] == "external":
        return wl.Body(available=False, ranges=(), reason="an import: its body is outside this binary")
    spans: list[list[int]] = []
    for b in sorted(p["blocks"], key=lambda b: value(b["start"])):
        start = value(b["start"])
        if spans and spans[-1][1] == start:
            spans[-1][1] = start + b["size"]
        else:
            spans.append([start, start + b["size"]])
    return wl.Body(available=True, ranges=tuple(wl.Range(start=f"0x{a:x}", end=f"0x{b:x}") for a, b in spans))


def info(p: Mapping[str, Any]) -> wp.ProcedureInfo:
    return wp.ProcedureInfo(
        name=p["name"],
        entrypoint=p["address"],
        basicblock_count=len(p["blocks"]),
        length=p["size"],
        signature=None,
        locals=(),
        classification=classification(p),
        body=body(p),
        callers=len(p["callers"]),
        callees=len(p["callees"]),
    )


def error_record(error: ReaError) -> wp.ErrorRecord:
    """The canonical error body (ReaError.record) as the typed record batch rows carry."""
    body = error.record()
    return wp.ErrorRecord(
        code=body["code"],
        category=body["category"],
        message=body["message"],
        retryable=body["retryable"],
        remediation=wp.ErrorRemediation(action=body["remediation"]["action"]),
        details=body.get("details"),
    )
