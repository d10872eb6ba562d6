"""The native bytes, memory and instruction programs: bytes and file offsets from the file's load map, one
instruction (capstone's decode) and the targets of a call (angr's CFG)."""

from __future__ import annotations

from collections.abc import Generator, Mapping
from typing import Any

from rea.effect_types import AnyEffect, ToolProgram
from rea.errors import ReaError, invalid_request
from rea.native import image
from rea.native import queries as q
from rea.native.addresses import value
from rea.native.effects import ReadImage
from rea.native.image_facts import ImageRead, LoadMap
from rea.native.programs import common as base
from rea.native.programs import engine
from rea.native.programs.surface_steps import Args, Snapshot, Steps, _answer, _resolved, _snapshot
from rea.native.records import arguments as wa
from rea.native.records import surface as w
from rea.native.records.surface import ReadBytesArgs
from rea.program import Context, failed, need, refusable, refuse, typed
from rea.session import Session
from rea.wire.convert import to_wire

# ------------------------------------------------------- bytes and memory


def _image(
    session: Session, address: int = 0, offset: int = 0, length: int = 0, decode: bool = False
) -> Generator[AnyEffect, Any, ImageRead]:
    """The file's load map, and the bytes (decoded) at a file offset when asked (a program step)."""
    target = session.target
    assert target is not None
    facts: ImageRead = yield from need(
        ReadImage(
            path=target.path, sha256=target.sha256, file_offset=offset, length=length, address=address, decode=decode
        )
    )
    return facts


def _unmapped(where: str, facts: LoadMap, field: str = "address") -> ReaError:
    spans = ", ".join(f"{image.hexa(r.vaddr)}-{image.hexa(r.vaddr + r.memsize)}" for r in facts.segments)
    return invalid_request(
        f"{where} is outside every load segment of the file",
        field=field,
        accepted=f"an address inside a load segment ({spans})",
        reason="outside_segments",
    )


def _located(session: Session, args: Args) -> Generator[AnyEffect, Any, tuple[Snapshot, str, LoadMap]]:
    """The loader snapshot, args["address"] normalized, and the file's load map."""
    snapshot = yield from _snapshot(session, args, "loader")
    where = yield from _resolved(session, snapshot, args["address"])
    facts = yield from _image(session)
    return snapshot, where, facts.load_map


@typed
@refusable
def read_bytes(session: Session, args: ReadBytesArgs, ctx: Context) -> Steps:
    params = to_wire(args)
    snapshot, text, facts = yield from _located(session, params)
    at = value(text)
    plan = image.read_plan(facts, at, args.length)
    if plan is None:
        return failed(session, _unmapped(text, facts))
    offset, backed, reason = plan
    data = yield from _image(session, at, offset, backed) if backed else _nothing()
    hex_ = data.bytes_hex if data is not None else ""
    result = w.BytesRead(
        address=text,
        requested_bytes=args.length,
        returned_bytes=len(hex_) // 2,
        bytes_hex=hex_,
        complete=len(hex_) // 2 == args.length,
        file_offset=offset if backed else None,
        stop_reason=reason,
    )
    return _answer(session, snapshot, "read_bytes", params, result, *((reason,) if reason else ()), at=text)


def _nothing() -> Generator[AnyEffect, Any, ImageRead | None]:
    return None
    yield  # pragma: no cover - makes this a generator


@typed
@refusable
def address_to_file_offset(session: Session, args: wa.AddressArgs, ctx: Context) -> Steps:
    params = to_wire(args)
    snapshot, text, facts = yield from _located(session, params)
    at = value(text)
    r = image.region(facts, at)
    if r is None:
        return failed(session, _unmapped(text, facts))
    if image.file_backed(r, at) == 0:
        return failed(
            session,
            invalid_request(
                f"{text} is zero-filled memory of {r.name} (like .bss): no file byte backs it",
                field="address",
                accepted="an address inside the file-backed part of a load segment",
                reason="not_file_backed",
            ),
        )
    result = w.FileOffset(address=text, file_offset=image.file_offset(r, at), segment=r.name)
    return _answer(session, snapshot, "address_to_file_offset", params, result, at=text)


# ------------------------------------------------------------ instructions


def _boundaries(
    session: Session, snapshot: Snapshot, proc: Mapping[str, Any]
) -> Generator[AnyEffect, Any, list[int] | None]:
    """Instruction starts of the procedure as the index decoded it (or the engine disassembled it): None
    when neither can say."""
    if proc["kind"] == "external":
        return None
    listing = yield from engine._engine(session, snapshot, "disassemble", proc)
    starts: list[int] | None = listing.map(
        lambda reply: sorted(value(i["address"]) for i in reply["instructions"])
    ).value_or(None)
    return starts


def _decoded_at(
    session: Session, args: Args, stage: str = "index"
) -> Generator[AnyEffect, Any, tuple[Snapshot, w.InstructionFacts, str, list[int] | None]]:
    """The snapshot (`stage`), the instruction facts at args["address"], its mechanism and its procedure's
    boundaries."""
    snapshot = yield from _snapshot(session, args, stage)
    where = yield from _resolved(session, snapshot, args["address"])
    text, at = where, value(where)
    facts = (yield from _image(session)).load_map
    arch, mode = facts.architecture, f"{facts.architecture}-{facts.bits}"
    proc = q.containing(snapshot, text)
    owner = proc["address"] if proc else None
    r = image.region(facts, at)
    if r is None:
        return (
            snapshot,
            image.undecoded(text, "outside-memory", None, arch, mode, ("No load segment maps it.",)),
            "unavailable",
            None,
        )
    code = image.region(facts, at, "code") if facts.code else (r if r.executable else None)
    if code is None or image.file_backed(r, at) == 0:
        why = "It lies outside every executable section." if code is None else "No file bytes back it."
        return snapshot, image.undecoded(text, "data", owner, arch, mode, (why,)), "unavailable", None
    starts = (yield from _boundaries(session, snapshot, proc)) if proc else None
    limits: tuple[str, ...] = ()
    if starts is not None and at not in starts:
        note = "Inside an instruction the engine decoded; the nearest earlier start is " + image.hexa(
            max([s for s in starts if s < at], default=value(owner or text))
        )
        return (
            snapshot,
            image.undecoded(text, "not-instruction-boundary", owner, arch, mode, (note,)),
            "unavailable",
            None,
        )
    if proc is None:
        limits = ("Not inside a recovered procedure: decoded as if an instruction starts here.",)
    read = yield from _image(session, at, image.file_offset(r, at), min(16, image.file_backed(r, at)), decode=True)
    decoded = read.decoded
    assert decoded is not None  # asked with decode=True
    if decoded.status != "decoded":
        status = "undecodable"
        return (
            snapshot,
            image.undecoded(
                text, status, owner, arch, decoded.mode, (f"capstone cannot decode {read.bytes_hex[:32]}.",)
            ),
            "unavailable",
            None,
        )
    extra = [
        image._ref(ref["to"], "data", "", False, False, -1, text, "angr CFGFast")
        for ref in snapshot.get("data_references", ())
        if ref["from"] == text and ":" not in ref["to"]
    ]
    built = image.instruction(decoded, at, owner, arch, facts.bits, extra, limits)
    return snapshot, built, image.flow_of(decoded, at)[1], starts


@typed
@refusable
def inspect_native_instruction(session: Session, args: wa.AddressArgs, ctx: Context) -> Steps:
    params = to_wire(args)
    snapshot, facts, _, _ = yield from _decoded_at(session, params)
    return _answer(session, snapshot, "inspect_native_instruction", params, facts, at=facts.address)


def _analysed_targets(snapshot: Snapshot, address: str) -> list[str]:
    """angr's call-site targets for the block the call ends (a call ends its basic block in CFGFast)."""
    proc = q.containing(snapshot, address)
    if proc is None:
        return []
    at = value(address)
    blocks = [b for b in proc["blocks"] if value(b["start"]) <= at < value(b["start"]) + b["size"]]
    sites = {b["start"] for b in blocks}
    return sorted({c["target"] for c in proc.get("call_sites", ()) if c["site"] in sites and c["target"]})


@typed
@refusable
def resolve_native_call_targets(session: Session, args: wa.AddressArgs, ctx: Context) -> Steps:
    params = to_wire(args)
    snapshot, facts, mechanism, _ = yield from _decoded_at(session, params)
    names = {p["address"]: p["name"] for p in q.procedures(snapshot)}
    if facts.status != "decoded":
        result = w.CallTargets(
            call_site=facts.address,
            procedure=facts.procedure,
            status="unavailable",
            mechanism="unavailable",
            targets=(),
            limitations=(f"No instruction decoded here ({facts.status}).", *facts.limitations),
        )
        return _answer(session, snapshot, "resolve_native_call_targets", params, result, at=facts.address)
    indirect = facts.flow.kind == "call" and mechanism != "direct"
    analysed: list[str] = []
    if indirect:
        snapshot, analysed = yield from _indirect_targets(session, snapshot, facts.address)
    limits = ("Indirect targets come from angr's static CFG, not from a run.",) if indirect else ()
    result = image.call_targets(facts, mechanism, analysed, names, limits)
    return _answer(session, snapshot, "resolve_native_call_targets", params, result, at=facts.address)


def _indirect_targets(
    session: Session, snapshot: Snapshot, address: str
) -> Generator[AnyEffect, Any, tuple[Snapshot, list[str]]]:
    """What angr resolves for an indirect call: from the graph of its own procedure when the fast index gave
    the extent (a fraction of a second), else from the whole-program CFG (minutes on a large binary)."""
    proc = q.containing(snapshot, address)
    if base._indexed(snapshot) and proc is not None and proc.get("size"):
        params = {"address": proc["address"], "size": proc["size"], "local": True, "site": address}
        got = yield from base._ask(session, "call_targets", params)
        refused = got.swap().value_or(None)  # the worker's error, or None when it answered
        if refused is None:
            return snapshot, list(got.unwrap()["targets"])
        if refused.code not in ("capability_unavailable", "execution_failure", "invalid_request"):
            refuse(refused)  # a timeout, a cancel, the memory ceiling: not answered by waiting longer
    whole = yield from _snapshot(session, {}, "cfg")
    return whole, _analysed_targets(whole, address)


PROGRAMS: Mapping[str, ToolProgram] = {
    "read_bytes": read_bytes,
    "address_to_file_offset": address_to_file_offset,
    "inspect_native_instruction": inspect_native_instruction,
    "resolve_native_call_targets": resolve_native_call_targets,
}
