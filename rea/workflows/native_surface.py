"""Programs of the native surface REA answers itself: analyst annotations (REA's store, since angr
keeps none), navigation, bytes, one instruction and call targets (the file's load map, capstone's
decode and angr's CFG). Every answer is Evidence like the rest of the native family."""

from __future__ import annotations

from collections.abc import Callable, Generator, Mapping
from typing import Any

from returns.pipeline import is_successful
from returns.result import Result

from rea.effect_types import AnyEffect, ToolProgram
from rea.errors import ReaError, invalid_request
from rea.native import annotations as notes
from rea.native import answers
from rea.native import image
from rea.native import queries as q
from rea.native.addresses import value
from rea.native.effects import EditAnnotations, ReadDwarfType, ReadImage
from rea.program import Context, Outcome, failed, need, refusable, refuse
from rea.session import Session
from rea.wire import native as wn
from rea.wire import native_surface as w
from rea.wire.convert import with_defaults
from rea.workflows import load_image
from rea.workflows import native as base

Args = Mapping[str, Any]
Snapshot = Mapping[str, Any]
Steps = Generator[AnyEffect, Any, Outcome]
NO_CURSOR = (
    "The provider runs headless (angr and Ghidra alike): nothing is moved; the address is checked and normalized."
)
STORE = (
    "Kept by REA in its annotation store (analysis cache directory), per target digest and analysis profile; "
    "the binary is never modified."
)


def _digest(session: Session) -> str:
    assert session.provider_binding is not None
    return str(session.provider_binding["analysis_profile"]["digest"])


def _snapshot(session: Session, args: Args, stage: str) -> Generator[AnyEffect, Any, Snapshot | ReaError]:
    if problem := base._document_problem(session, args):
        return problem
    facts = yield from base._facts(session, stage)
    return facts.unwrap() if is_successful(facts) else facts.failure()


def _mapped(snapshot: Snapshot, text: str | None, field: str = "address") -> str | ReaError:
    """A canonical address inside a loaded segment, or the canonical error naming the problem."""
    if text is None:
        return invalid_request(
            "the provider runs headless (angr and Ghidra alike): there is no cursor, so give the address",
            field=field,
            accepted="a link-time address like 0x401000",
        )
    address = base._address(text, field)
    if not is_successful(address):
        return address.failure()
    where = address.unwrap()
    if not answers.in_segments(snapshot, where):
        shown = ", ".join(f"{image.hexa(lo)}-{image.hexa(hi)}" for lo, hi in answers.segment_spans(snapshot))
        return invalid_request(
            f"{where} is outside every loaded segment",
            field=field,
            accepted=f"an address inside a segment ({shown})",
            reason="outside_segments",
        )
    return where


def _edit(
    session: Session, changes: tuple[tuple[str, str, Any], ...]
) -> Generator[AnyEffect, Any, Result[notes.Annotations, ReaError]]:
    got: Result[notes.Annotations, ReaError] = yield _edit_request(session, changes)
    return got


def _edit_request(session: Session, changes: tuple[tuple[str, str, Any], ...]) -> EditAnnotations:
    assert session.target is not None
    return EditAnnotations(
        sha256=session.target.sha256, profile_digest=_digest(session), edit=notes.Edit(changes=changes)
    )


# Program steps in the one error style (rea.program): each gives its value or ends the program. They read
# the helpers above, whose older shapes the programs not yet converted still use (issue 31).


def _loaded(session: Session, args: Args, stage: str) -> Generator[AnyEffect, Any, Snapshot]:
    """The target's image at `stage`."""
    snapshot = yield from _snapshot(session, args, stage)
    if isinstance(snapshot, ReaError):
        refuse(snapshot)
    return snapshot


def _placed(snapshot: Snapshot, text: str | None, field: str = "address") -> str:
    """A canonical address inside a loaded segment."""
    where = _mapped(snapshot, text, field)
    if isinstance(where, ReaError):
        refuse(where)
    return where


def _answer(
    session: Session, snapshot: Snapshot, name: str, args: Args, result: Any, *notes_: str, kept: Any = None
) -> Outcome:
    """Evidence of the answer; an edit carries the store it produced (`kept`) as its raw_result."""
    where = ({"kind": "address", "address": args["address"]},) if isinstance(args.get("address"), str) else ()
    raw = None if kept is None else _store_json(session, kept)
    return base._evidence(session, snapshot, name, args, result, limitations=notes_, locations=where, raw_result=raw)


def _store_json(session: Session, kept: notes.Annotations) -> dict[str, Any]:
    assert session.target is not None
    return {notes.RAW_KEY: notes.to_json(kept, session.target.sha256, _digest(session))}


# ----------------------------------------------------------- annotations

Read = Callable[[notes.Annotations, str], Any]


def _reader(name: str, read: Read) -> ToolProgram:
    def program(session: Session, args: Args, ctx: Context) -> Steps:
        snapshot = yield from _snapshot(session, args, "loader")
        if isinstance(snapshot, ReaError):
            return failed(session, snapshot)
        where = _mapped(snapshot, args.get("address"))
        if isinstance(where, ReaError):
            return failed(session, where)
        return _answer(session, snapshot, name, args, read(notes.of(snapshot), where), STORE)

    program.__name__ = name
    return program


# tool -> (table, argument holding the text, is it a name)
_SETTERS = {
    "set_comment": ("comments", "comment", False),
    "set_inline_comment": ("inline_comments", "comment", False),
    "set_address_name": ("names", "name", True),
}


def _check(text: str, field: str, is_name: bool) -> ReaError | None:
    return notes.check_name(text, field) if is_name else notes.check_text(text, field)


def _setter(name: str) -> ToolProgram:
    table, field, is_name = _SETTERS[name]

    def program(session: Session, args: Args, ctx: Context) -> Steps:
        snapshot = yield from _snapshot(session, args, "loader")
        if isinstance(snapshot, ReaError):
            return failed(session, snapshot)
        where = _mapped(snapshot, args["address"])
        if isinstance(where, ReaError):
            return failed(session, where)
        text = args[field]
        if problem := _check(text, field, is_name) if text or is_name else None:
            return failed(session, problem)
        edited = yield from _edit(session, ((table, where, text or None),))
        if not is_successful(edited):
            return failed(session, edited.failure())
        return _answer(session, snapshot, name, args, True, STORE, kept=edited.unwrap())

    program.__name__ = name
    return program


def set_addresses_names(session: Session, args: Args, ctx: Context) -> Steps:
    """All valid entries in one locked edit; an address outside every segment answers false."""
    snapshot = yield from _snapshot(session, args, "loader")
    if isinstance(snapshot, ReaError):
        return failed(session, snapshot)
    changes, answer = [], {}
    for given, name in args["names"].items():
        field = f"names[{given!r}]"
        if problem := notes.check_name(name, field):
            return failed(session, problem)
        where = _mapped(snapshot, given, field)
        if isinstance(where, ReaError) and (where.details or {}).get("reason") != "outside_segments":
            return failed(session, where)
        answer[given] = not isinstance(where, ReaError)
        if isinstance(where, str):
            changes.append(("names", where, name))
    kept = None
    if changes:
        edited = yield from _edit(session, tuple(changes))
        if not is_successful(edited):
            return failed(session, edited.failure())
        kept = edited.unwrap()
    return _answer(session, snapshot, "set_addresses_names", args, answer, STORE, kept=kept)


@refusable
def set_bookmark(session: Session, args: Args, ctx: Context) -> Steps:
    snapshot = yield from _loaded(session, args, "loader")
    where = _placed(snapshot, args["address"])
    label = args.get("name") or ""
    if label and (problem := notes.check_name(label)):
        return failed(session, problem)
    kept = yield from need(_edit_request(session, (("bookmarks", where, label),)))
    return _answer(session, snapshot, "set_bookmark", args, True, STORE, kept=kept)


def unset_bookmark(session: Session, args: Args, ctx: Context) -> Steps:
    """False when there was no bookmark there (nothing changed)."""
    snapshot = yield from _snapshot(session, args, "loader")
    if isinstance(snapshot, ReaError):
        return failed(session, snapshot)
    where = base._address(args["address"])
    if not is_successful(where):
        return failed(session, where.failure())
    present = where.unwrap() in notes.of(snapshot).bookmarks
    kept = None
    if present:
        edited = yield from _edit(session, (("bookmarks", where.unwrap(), None),))
        if not is_successful(edited):
            return failed(session, edited.failure())
        kept = edited.unwrap()
    return _answer(session, snapshot, "unset_bookmark", args, present, STORE, kept=kept)


def list_bookmarks(session: Session, args: Args, ctx: Context) -> Steps:
    snapshot = yield from _snapshot(session, args, "loader")
    if isinstance(snapshot, ReaError):
        return failed(session, snapshot)
    marks = notes.of(snapshot).bookmarks
    rows = tuple(w.Bookmark(address=k, name=marks[k]) for k in sorted(marks, key=value))
    return _answer(session, snapshot, "list_bookmarks", args, rows, STORE)


_CHANGES = ("name", "comment", "inline_comment", "signature", "calling_convention", "variables")


def _function_changes(args: Args, entry: str, kept: notes.Annotations) -> tuple[tuple[str, str, Any], ...] | ReaError:
    if not any(args.get(k) is not None for k in _CHANGES):
        return invalid_request(
            "annotate_native_function needs at least one change",
            field="procedure",
            accepted="one or more of " + ", ".join(_CHANGES),
        )
    for key, is_name in (("name", True), ("comment", False), ("inline_comment", False)):
        if args.get(key) and (problem := _check(args[key], key, is_name)):
            return problem
    for i, var in enumerate(args.get("variables") or ()):
        if var.get("new_name") is None and var.get("data_type") is None:
            return invalid_request(
                f"variables[{i}] changes nothing", field=f"variables[{i}]", accepted="new_name or data_type"
            )
        for key in ("name", "new_name"):
            if var.get(key) and (problem := notes.check_name(var[key], f"variables[{i}].{key}")):
                return problem
    changes: list[tuple[str, str, Any]] = []
    if args.get("name") is not None:
        changes.append(("names", entry, args["name"]))
    for key, table in (("comment", "comments"), ("inline_comment", "inline_comments")):
        if args.get(key) is not None:
            changes.append((table, entry, args[key] or None))
    record = dict(kept.functions.get(entry, {}))
    for key in ("signature", "calling_convention"):
        if args.get(key) is not None:
            record[key] = args[key]
    if args.get("variables"):
        merged = {v["name"]: dict(v) for v in record.get("variables", ())}
        merged.update({v["name"]: {k: x for k, x in v.items() if x is not None} for v in args["variables"]})
        record["variables"] = [merged[k] for k in sorted(merged)]
    if record:
        changes.append(("functions", entry, record))
    return tuple(changes)


def annotate_native_function(session: Session, args: Args, ctx: Context) -> Steps:
    """Rename, comment and type one function in REA's store, then answer the refreshed dossier."""
    found = yield from base._cfg_procedure(session, args)
    if not is_successful(found):
        return failed(session, found.failure())
    snapshot, proc = found.unwrap()
    entry = proc["address"]
    changes = _function_changes(args, entry, notes.of(snapshot))
    if isinstance(changes, ReaError):
        return failed(session, changes)
    edited = yield from _edit(session, changes)
    if not is_successful(edited):
        return failed(session, edited.failure())
    kept = edited.unwrap()
    dossier_args = with_defaults({"procedure": entry}, wn.DossierArgs)
    assert is_successful(dossier_args)
    refreshed = yield from base.analyze_function(session, dossier_args.unwrap(), ctx)
    if not is_successful(refreshed.reply):
        return failed(session, refreshed.reply.failure())
    dossier = refreshed.reply.unwrap()["normalized_result"]
    function = kept.functions.get(entry, {})
    result = w.FunctionAnnotations(
        annotations=w.AnnotationReadback(
            address=entry,
            name=dossier["procedure"]["name"],
            comment=kept.comments.get(entry),
            inline_comment=kept.inline_comments.get(entry),
            signature=function.get("signature"),
            calling_convention=function.get("calling_convention"),
            variables=tuple(w.VariableEdit(**v) for v in function.get("variables", ())),
        ),
        dossier=dossier,
        effects=w.AnnotationEffects(
            scope="persistent-analysis-database", source_bytes_modified=False, persists_after_close=True
        ),
    )
    return base._evidence(
        refreshed.session,
        snapshot,
        "annotate_native_function",
        args,
        result,
        limitations=(
            STORE,
            "signature, calling convention and variable types are recorded, not re-decompiled by angr.",
        ),
        locations=({"kind": "address", "address": entry},),
        raw_result=_store_json(session, kept),
    )


# ------------------------------------------------------- bytes and memory


def _image(
    session: Session, address: int = 0, offset: int = 0, length: int = 0, decode: bool = False
) -> Generator[AnyEffect, Any, Mapping[str, Any] | ReaError]:
    target = session.target
    assert target is not None
    got: Result[Mapping[str, Any], ReaError] = yield ReadImage(
        path=target.path, sha256=target.sha256, file_offset=offset, length=length, address=address, decode=decode
    )
    return got.unwrap() if is_successful(got) else got.failure()


def _unmapped(where: str, facts: Mapping[str, Any], field: str = "address") -> ReaError:
    spans = ", ".join(f"{image.hexa(r['vaddr'])}-{image.hexa(r['vaddr'] + r['memsize'])}" for r in facts["segments"])
    return invalid_request(
        f"{where} is outside every load segment of the file",
        field=field,
        accepted=f"an address inside a load segment ({spans})",
        reason="outside_segments",
    )


def _located(
    session: Session, args: Args
) -> Generator[AnyEffect, Any, tuple[Snapshot, str, Mapping[str, Any]] | ReaError]:
    """The loader snapshot, args["address"] normalized, and the file's load map."""
    snapshot = yield from _snapshot(session, args, "loader")
    if isinstance(snapshot, ReaError):
        return snapshot
    where = base._address(args["address"])
    if not is_successful(where):
        return where.failure()
    facts = yield from _image(session)
    return facts if isinstance(facts, ReaError) else (snapshot, where.unwrap(), facts)


def read_bytes(session: Session, args: Args, ctx: Context) -> Steps:
    got = yield from _located(session, args)
    if isinstance(got, ReaError):
        return failed(session, got)
    snapshot, text, facts = got
    at = value(text)
    plan = image.read_plan(facts, at, args["length"])
    if plan is None:
        return failed(session, _unmapped(text, facts))
    offset, backed, reason = plan
    data = yield from _image(session, at, offset, backed) if backed else _nothing()
    if isinstance(data, ReaError):
        return failed(session, data)
    hex_ = data.get("bytes_hex", "") if backed else ""
    result = w.BytesRead(
        address=text,
        requested_bytes=args["length"],
        returned_bytes=len(hex_) // 2,
        bytes_hex=hex_,
        complete=len(hex_) // 2 == args["length"],
        file_offset=offset if backed else None,
        stop_reason=reason,
    )
    return _answer(session, snapshot, "read_bytes", args, result, *((reason,) if reason else ()))


def _nothing() -> Generator[AnyEffect, Any, Mapping[str, Any]]:
    return {}
    yield  # pragma: no cover - makes this a generator


def address_to_file_offset(session: Session, args: Args, ctx: Context) -> Steps:
    got = yield from _located(session, args)
    if isinstance(got, ReaError):
        return failed(session, got)
    snapshot, text, facts = got
    at = value(text)
    r = image.region(facts, at)
    if r is None:
        return failed(session, _unmapped(text, facts))
    if image.file_backed(r, at) == 0:
        return failed(
            session,
            invalid_request(
                f"{text} is zero-filled memory of {r['name']} (like .bss): no file byte backs it",
                field="address",
                accepted="an address inside the file-backed part of a load segment",
                reason="not_file_backed",
            ),
        )
    result = w.FileOffset(address=text, file_offset=image.file_offset(r, at), segment=r["name"])
    return _answer(session, snapshot, "address_to_file_offset", args, result)


# ------------------------------------------------------------ instructions


def _boundaries(
    session: Session, snapshot: Snapshot, proc: Mapping[str, Any]
) -> Generator[AnyEffect, Any, list[int] | None]:
    """Instruction starts of the procedure as the index decoded it (or the engine disassembled it): None
    when neither can say."""
    if proc["kind"] == "external":
        return None
    listing = yield from base._engine(session, snapshot, "disassemble", proc)
    if not is_successful(listing):
        return None
    return sorted(value(i["address"]) for i in listing.unwrap()["instructions"])


def _decoded_at(
    session: Session, args: Args, stage: str = "index"
) -> Generator[AnyEffect, Any, tuple[Snapshot, w.InstructionFacts, str, list[int] | None] | ReaError]:
    """The snapshot (`stage`), the instruction facts at args["address"], its mechanism and its procedure's
    boundaries."""
    snapshot = yield from _snapshot(session, args, stage)
    if isinstance(snapshot, ReaError):
        return snapshot
    where = base._address(args["address"])
    if not is_successful(where):
        return where.failure()
    text, at = where.unwrap(), value(where.unwrap())
    facts = yield from _image(session)
    if isinstance(facts, ReaError):
        return facts
    arch, mode = str(facts["architecture"]), f"{facts['architecture']}-{facts['bits']}"
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
    code = image.region(facts, at, "code") if facts["code"] else (r if r["executable"] else None)
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
    if isinstance(read, ReaError):
        return read
    decoded = read["decoded"]
    if decoded["status"] != "decoded":
        status = "undecodable"
        return (
            snapshot,
            image.undecoded(
                text, status, owner, arch, decoded["mode"], (f"capstone cannot decode {read['bytes_hex'][:32]}.",)
            ),
            "unavailable",
            None,
        )
    extra = [
        image._ref(ref["to"], "data", "", False, False, -1, text, "angr CFGFast")
        for ref in snapshot.get("data_references", ())
        if ref["from"] == text and ":" not in ref["to"]
    ]
    built = image.instruction(decoded, at, owner, arch, int(facts["bits"]), extra, limits)
    return snapshot, built, image.flow_of(decoded, at)[1], starts


def inspect_native_instruction(session: Session, args: Args, ctx: Context) -> Steps:
    got = yield from _decoded_at(session, args)
    if isinstance(got, ReaError):
        return failed(session, got)
    snapshot, facts, _, _ = got
    return _answer(session, snapshot, "inspect_native_instruction", args, facts)


def _analysed_targets(snapshot: Snapshot, address: str) -> list[str]:
    """angr's call-site targets for the block the call ends (a call ends its basic block in CFGFast)."""
    proc = q.containing(snapshot, address)
    if proc is None:
        return []
    at = value(address)
    blocks = [b for b in proc["blocks"] if value(b["start"]) <= at < value(b["start"]) + b["size"]]
    sites = {b["start"] for b in blocks}
    return sorted({c["target"] for c in proc.get("call_sites", ()) if c["site"] in sites and c["target"]})


def resolve_native_call_targets(session: Session, args: Args, ctx: Context) -> Steps:
    got = yield from _decoded_at(session, args)
    if isinstance(got, ReaError):
        return failed(session, got)
    snapshot, facts, mechanism, _ = got
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
        return _answer(session, snapshot, "resolve_native_call_targets", args, result)
    indirect = facts.flow.kind == "call" and mechanism != "direct"
    analysed: list[str] = []
    if indirect:
        resolved = yield from _indirect_targets(session, snapshot, facts.address)
        if isinstance(resolved, ReaError):
            return failed(session, resolved)
        snapshot, analysed = resolved
    limits = ("Indirect targets come from angr's static CFG, not from a run.",) if indirect else ()
    result = image.call_targets(facts, mechanism, analysed, names, limits)
    return _answer(session, snapshot, "resolve_native_call_targets", args, result)


def _indirect_targets(
    session: Session, snapshot: Snapshot, address: str
) -> Generator[AnyEffect, Any, tuple[Snapshot, list[str]] | ReaError]:
    """What angr resolves for an indirect call: from the graph of its own procedure when the fast index gave
    the extent (a fraction of a second), else from the whole-program CFG (minutes on a large binary)."""
    proc = q.containing(snapshot, address)
    if base._indexed(snapshot) and proc is not None and proc.get("size"):
        params = {"address": proc["address"], "size": proc["size"], "local": True, "site": address}
        got = yield from base._ask(session, "call_targets", params)
        if is_successful(got):
            return snapshot, list(got.unwrap()["targets"])
        if got.failure().code not in ("capability_unavailable", "execution_failure", "invalid_request"):
            return got.failure()  # a timeout, a cancel, the memory ceiling: not answered by waiting longer
    whole = yield from _snapshot(session, {}, "cfg")
    if isinstance(whole, ReaError):
        return whole
    return whole, _analysed_targets(whole, address)


# -------------------------------------------------------------- navigation


def goto_address(session: Session, args: Args, ctx: Context) -> Steps:
    snapshot = yield from _snapshot(session, args, "loader")
    if isinstance(snapshot, ReaError):
        return failed(session, snapshot)
    where = _mapped(snapshot, args["address"])
    if isinstance(where, ReaError):
        return failed(session, where)
    return _answer(session, snapshot, "goto_address", args, where, NO_CURSOR)


def _stepper(name: str, step: int) -> ToolProgram:
    """The next/previous instruction start inside a procedure (the engine's disassembly); a byte away elsewhere."""

    def program(session: Session, args: Args, ctx: Context) -> Steps:
        snapshot = yield from _snapshot(session, args, "index")
        if isinstance(snapshot, ReaError):
            return failed(session, snapshot)
        where = _mapped(snapshot, args.get("address"))
        if isinstance(where, ReaError):
            return failed(session, where)
        at, proc = value(where), q.containing(snapshot, where)
        starts = (yield from _boundaries(session, snapshot, proc)) if proc else None
        if starts:
            after = [s for s in starts if s > at] if step > 0 else [s for s in starts if s < at]
            if after:
                found = min(after) if step > 0 else max(after)
                return _answer(
                    session,
                    snapshot,
                    name,
                    args,
                    image.hexa(found),
                    "Instruction starts from the engine's disassembly.",
                )
            return _answer(
                session, snapshot, name, args, image.hexa(at + step), "At the procedure's edge: one byte away."
            )
        return _answer(
            session, snapshot, name, args, image.hexa(max(0, at + step)), "Outside any procedure: one byte away."
        )

    program.__name__ = name
    return program


PROGRAMS: Mapping[str, ToolProgram] = {
    "comment": _reader("comment", lambda kept, at: kept.comments.get(at)),
    "inline_comment": _reader("inline_comment", lambda kept, at: kept.inline_comments.get(at)),
    "set_comment": _setter("set_comment"),
    "set_inline_comment": _setter("set_inline_comment"),
    "set_address_name": _setter("set_address_name"),
    "set_addresses_names": set_addresses_names,
    "set_bookmark": set_bookmark,
    "unset_bookmark": unset_bookmark,
    "list_bookmarks": list_bookmarks,
    "annotate_native_function": annotate_native_function,
    "read_bytes": read_bytes,
    "address_to_file_offset": address_to_file_offset,
    "inspect_native_instruction": inspect_native_instruction,
    "resolve_native_call_targets": resolve_native_call_targets,
    "goto_address": goto_address,
    "next_address": _stepper("next_address", 1),
    "prev_address": _stepper("prev_address", -1),
}


def _macos_only(name: str) -> ToolProgram:
    """Typed unavailability: the UI tools need macOS accessibility (and Hopper's IB metadata)."""

    def program(session: Session, args: Args, ctx: Context) -> Outcome:
        return failed(
            session,
            ReaError(
                code="capability_unavailable",
                message=f"{name} needs macOS accessibility (and Hopper for Interface Builder metadata); "
                "this host is not macOS, so nothing was observed.",
                details={"reason": "host_unsupported", "operation": name, "platforms": ["darwin"]},
                action="Run REA on macOS with accessibility permission granted (and Hopper installed for "
                "trace_native_ui_action); on Linux, use inspect_native_instruction and analyze_function.",
            ),
        )

    program.__name__ = name
    return program


PROGRAMS = {
    **PROGRAMS,
    **{n: _macos_only(n) for n in ("observe_native_ui", "capture_native_ui_scenario", "trace_native_ui_action")},
}


def _data_type(found: Mapping[str, Any]) -> w.DataType:
    members = [w.TypeField(**m) for m in found.get("members", ())]
    return w.DataType(
        status=found["status"],
        reason=found.get("reason"),
        id=found.get("id"),
        name=found.get("name"),
        kind=found.get("kind"),
        size=found.get("size"),
        alignment=found.get("alignment"),
        packing=None,
        fields=tuple(m for m in members if m.bit_size is None),
        bitfields=tuple(m for m in members if m.bit_size is not None),
        enum_values=tuple(w.EnumValue(**e) for e in found.get("enumerators", ())),
        child_type_ids=tuple(found.get("child_type_ids", ())),
        variable=found.get("variable"),
    )


def inspect_native_data_type(session: Session, args: Args, ctx: Context) -> Steps:
    if (args.get("type") is None) == (args.get("address") is None):
        return failed(
            session,
            invalid_request(
                "inspect_native_data_type needs exactly one of type and address",
                field="type",
                accepted="type: a type name, or address: a global variable's address",
            ),
        )
    snapshot = yield from _snapshot(session, args, "loader")
    if isinstance(snapshot, ReaError):
        return failed(session, snapshot)
    address = None
    if args.get("address") is not None:
        where = base._address(args["address"])
        if not is_successful(where):
            return failed(session, where.failure())
        address = value(where.unwrap())
    assert session.target is not None
    got: Result[Mapping[str, Any], ReaError] = yield ReadDwarfType(
        path=session.target.path, type=args.get("type"), address=address
    )
    if not is_successful(got):
        return failed(session, got.failure())
    found = got.unwrap()
    notes_ = () if found["status"] == "found" else (str(found["reason"]),)
    return _answer(session, snapshot, "inspect_native_data_type", args, _data_type(found), *notes_)


PROGRAMS = {**PROGRAMS, "inspect_native_data_type": inspect_native_data_type}

PROGRAMS = {**PROGRAMS, **load_image.PROGRAMS}
