"""The native engine programs: assembly, instructions and pseudocode from the live engine (NativeQuery), batch
decompilation and the analyze_function dossier."""

from __future__ import annotations

from collections.abc import Callable, Generator, Mapping
from typing import Any

from returns.result import Result, Success

from rea.effect_types import AnyEffect, ToolProgram
from rea.errors import ReaError
from rea.native import annotations as notes
from rea.native import answers as a
from rea.native import dossier, image, sweep
from rea.native import pseudocode as readable
from rea.native import queries as q
from rea.native.addresses import value
from rea.native.effects import ReadImage
from rea.native.image_facts import ImageRead
from rea.native.programs.common import (
    Args,
    Facts,
    Snapshot,
    Steps,
    _ask,
    _check_document,
    _chosen_procedure,
    _evidence,
    _facts,
    _indexed,
    _procedure,
)
from rea.native.records import arguments as wa
from rea.native.records import procedures as wp
from rea.program import Context, must, refusable, typed
from rea.session import Session
from rea.wire.convert import to_wire

# ------------------------------------------------------------ engine tools


def _cfg_procedure(
    session: Session, args: Mapping[str, Any], *, engine_ahead: bool = False
) -> Generator[AnyEffect, Any, tuple[Snapshot, Mapping[str, Any]]]:
    """The snapshot (the fast index where it answers, else the CFG) and the procedure args["procedure"]
    names; the program ends with the reason when either does not exist (engine_ahead: see NativeFacts)."""
    _check_document(session, args)
    snapshot = yield from _facts(session, "index", engine_ahead=engine_ahead)
    return snapshot, must(_chosen_procedure(snapshot, args))


def _engine_tool(
    name: str,
    op: str,
    build: Callable[[Snapshot, Mapping[str, Any], Any, Args], object],
    *,
    body_only: bool = False,
    with_listing: bool = False,
) -> Facts:
    """A tool that needs the live engine for one procedure; an import has no body to ask about.
    `with_listing` adds the procedure's instructions to the reply (None when they cannot be read)."""

    @refusable
    def program(session: Session, args: Mapping[str, Any], ctx: Context) -> Steps:
        snapshot, proc = yield from _cfg_procedure(session, args)
        where = ({"kind": "address", "address": proc["address"]},)
        if body_only and proc["kind"] == "external":
            return _evidence(
                session,
                snapshot,
                name,
                args,
                None,
                locations=where,
                limitations=(f"{proc['name']} is an import: it has no body here.",),
            )
        answer = must((yield from _engine(session, snapshot, op, proc)))
        if with_listing:
            answer = {**answer, "instructions": (yield from _listing(session, snapshot, proc))}
        return _evidence(session, snapshot, name, args, build(snapshot, proc, answer, args), locations=where)

    program.__name__ = name
    return program


def _engine(
    session: Session, snapshot: Snapshot, op: str, proc: Mapping[str, Any]
) -> Generator[AnyEffect, Any, Result[Any, ReaError]]:
    """One procedure's instructions or pseudocode: on an indexed snapshot the instructions are decoded from
    the file's bytes here and the decompiler builds the procedure's own graph only; otherwise the engine
    answers from its whole-program CFG."""
    params = {"address": proc["address"], "size": proc["size"]}
    if _indexed(snapshot) and op == "disassemble":
        listing = yield from _decoded(session, snapshot, proc)
        if listing is not None:
            return Success(listing)
    if _indexed(snapshot) and op in ("decompile", "boundary"):
        params["local"] = True
        params["names"] = _callee_names(snapshot, proc)
        if not str(proc["name"]).startswith("sub_"):
            params["name"] = str(proc["name"])
    got = yield from _ask(session, op, params)
    return got


def _callee_names(snapshot: Snapshot, proc: Mapping[str, Any]) -> dict[str, str]:
    """What the index calls each procedure this one calls, for the decompiler to print (a stripped static
    binary's `exit` named by its bytes, a PLT stub by its import), instead of the engine's `sub_…`."""
    index = q.by_address(snapshot)
    names = {}
    for site in proc.get("call_sites", ()):
        callee = index.get(site["target"])
        if callee is not None and callee["kind"] != "external" and not str(callee["name"]).startswith("sub_"):
            names[callee["address"]] = str(callee["name"])
    return names


def _decoded(
    session: Session, snapshot: Snapshot, proc: Mapping[str, Any]
) -> Generator[AnyEffect, Any, dict[str, Any] | None]:
    """The procedure's instructions, each listed once, decoded from the file bytes of its extent (None when
    the bytes cannot be read here: the engine answers instead)."""
    target = session.target
    assert target is not None
    start, size = value(proc["address"]), int(proc["size"])
    answered: Result[ImageRead, ReaError] = yield ReadImage(path=target.path, sha256=target.sha256)
    read = answered.value_or(None)
    if read is None:
        return None
    facts = read.load_map
    data = b""
    while len(data) < size:
        at = start + len(data)
        plan = image.read_plan(facts, at, min(size - len(data), image.MAX_CHUNK))
        if plan is None or plan[1] == 0:
            return None
        got: Result[ImageRead, ReaError] = yield ReadImage(
            path=target.path, sha256=target.sha256, file_offset=plan[0], length=plan[1], address=at
        )
        chunk = got.value_or(None)
        if chunk is None:
            return None
        data += bytes.fromhex(chunk.bytes_hex)
    rows = [
        {
            "address": f"0x{i.address:x}",
            "bytes": data[i.address - start : i.address - start + i.size].hex(),
            "mnemonic": i.mnemonic,
            "operands": i.operands,
            "block": proc["address"],
        }
        for i in sweep.decode(str(snapshot.get("architecture")), data, start)
    ]
    return {"address": proc["address"], "instructions": rows}


def _listing(
    session: Session, snapshot: Snapshot, proc: Mapping[str, Any]
) -> Generator[AnyEffect, Any, list[Mapping[str, Any]] | None]:
    """The procedure's instructions, or None when neither the index nor the engine can list them (the
    pseudocode then names stack locals by their entry-sp offset only)."""
    listing = yield from _engine(session, snapshot, "disassemble", proc)
    instructions: list[Mapping[str, Any]] | None = listing.map(lambda reply: reply["instructions"]).value_or(None)
    return instructions


def _assembly_text(snapshot: Snapshot, proc: Mapping[str, Any], reply: Any, args: Args) -> str:
    return "\n".join(dossier.assembly_line(i) for i in reply["instructions"])


def _instruction_page(snapshot: Snapshot, proc: Mapping[str, Any], reply: Any, args: Args) -> wp.InstructionWindow:
    rows = reply["instructions"]
    start, end = args["offset"], args["offset"] + args["limit"]
    page = rows[start:end]
    return wp.InstructionWindow(
        procedure=a.identity(proc),
        instructions=tuple(dossier.assembly_line(i) for i in page),
        limitations=() if end >= len(rows) else (f"{len(rows) - end} later instructions: read from offset {end}.",),
        offset=start,
        total=len(rows),
        next_offset=end if end < len(rows) else None,
        bytes=tuple(i["bytes"] for i in page) if args.get("include_bytes") else None,
    )


def _readable(
    snapshot: Snapshot, proc: Mapping[str, Any], text: str, instructions: list[Mapping[str, Any]] | None = None
) -> readable.Readable:
    """angr's text after the pure post-processor (rea.native.pseudocode), with the procedure's facts."""
    called = filter(None, (a.name_at(snapshot, c) for c in proc.get("callees", ())))
    return readable.readable(text, readable.facts_of(snapshot, proc, instructions, called))


def _pseudocode(snapshot: Snapshot, proc: Mapping[str, Any], reply: Any, args: Args) -> Any:
    cleaned = _readable(snapshot, proc, reply["pseudocode"], reply.get("instructions"))
    return notes.annotate_pseudocode(cleaned.text, proc, notes.of(snapshot))


def _resolved_ref(proc: Mapping[str, Any] | None) -> wp.ResolvedRef:
    if proc is None:
        return wp.ResolvedRef(status="unknown", address=None, name=None)
    return wp.ResolvedRef(status="resolved", address=proc["address"], name=proc["name"])


@typed
@refusable
def batch_decompile(session: Session, args: wa.BatchArgs, ctx: Context) -> Steps:
    snapshot = yield from _facts(session, "index")
    rows: list[wp.Decompiled | wp.NotDecompiled] = []
    for text in args.addresses:
        found = _procedure(snapshot, text, "addresses")
        proc = found.value_or(None)
        if proc is None:
            rows.append(
                wp.NotDecompiled(
                    address=text, status="error", error=a.error_record(found.failure()), procedure=_resolved_ref(None)
                )
            )
            continue
        reply = yield from _engine(session, snapshot, "decompile", proc)
        pseudocode = reply.map(lambda answer: answer["pseudocode"]).value_or(None)
        if pseudocode:
            rows.append(
                wp.Decompiled(
                    address=text,
                    status="ok",
                    pseudocode=_readable(
                        snapshot, proc, pseudocode, (yield from _listing(session, snapshot, proc))
                    ).text,
                    procedure=_resolved_ref(proc),
                )
            )
        else:
            no_text = ReaError(code="execution_failure", message="the decompiler returned no text")
            error = a.error_record(reply.swap().value_or(no_text))  # the engine's refusal, or no text
            rows.append(wp.NotDecompiled(address=text, status="error", error=error, procedure=_resolved_ref(proc)))
    errors = sum(r.status == "error" for r in rows)
    result = wp.Batch(items=tuple(rows), total=len(rows), succeeded=len(rows) - errors, failed=errors)
    return _evidence(session, snapshot, "batch_decompile", to_wire(args), result)


@typed
@refusable
def analyze_function(session: Session, args: wa.DossierArgs, ctx: Context) -> Steps:
    """The function dossier: every facet either observed or declared unavailable with its reason (an engine
    that cannot decompile or list a procedure is a reason, not an error)."""
    params = to_wire(args)
    snapshot, proc = yield from _cfg_procedure(session, params)
    decompiled, pseudo_reason = None, f"a {proc['kind']} has no body of its own"
    if proc["kind"] == "function":
        reply = yield from _engine(session, snapshot, "decompile", proc)
        decompiled = reply.map(lambda answer: answer["pseudocode"]).value_or(None)
        pseudo_reason = reply.swap().map(lambda error: error.message).value_or(pseudo_reason)
    instructions, asm_reason = None, "an import has no instructions here"
    if proc["kind"] != "external":
        listing = yield from _engine(session, snapshot, "disassemble", proc)
        instructions = listing.map(lambda answer: answer["instructions"]).value_or(None)
        asm_reason = listing.swap().map(lambda error: error.message).value_or(asm_reason)
    cleaned = None if decompiled is None else _readable(snapshot, proc, decompiled, instructions)
    if not args.include_assembly:  # read for the pseudocode's stack names, not shown
        instructions, asm_reason = None, "not requested (include_assembly: false)"
    pseudocode = None if cleaned is None else notes.annotate_pseudocode(cleaned.text, proc, notes.of(snapshot))
    result = dossier.build(snapshot, proc, args, pseudocode, pseudo_reason, instructions, asm_reason, cleaned)
    return _evidence(
        session,
        snapshot,
        "analyze_function",
        params,
        result,
        locations=({"kind": "address", "address": proc["address"]},),
    )


PROGRAMS: Mapping[str, ToolProgram] = {
    "procedure_assembly": _engine_tool("procedure_assembly", "disassemble", _assembly_text),
    "read_function_instructions": _engine_tool("read_function_instructions", "disassemble", _instruction_page),
    "procedure_pseudo_code": _engine_tool(
        "procedure_pseudo_code", "decompile", _pseudocode, body_only=True, with_listing=True
    ),
    "batch_decompile": batch_decompile,
    "analyze_function": analyze_function,
}
