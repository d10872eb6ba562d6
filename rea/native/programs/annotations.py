"""The native annotation programs: comments, names, bookmarks and function annotations, kept in REA's own
store (angr keeps none) per target digest and analysis profile; the binary is never modified."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from returns.result import Failure

from rea.effect_types import ToolProgram
from rea.errors import invalid_request
from rea.native import annotations as notes
from rea.native.addresses import value
from rea.native.programs import common as base
from rea.native.programs import engine
from rea.native.programs.surface_steps import (
    STORE,
    Args,
    Steps,
    _answer,
    _edit_request,
    _mapped,
    _mapped_answer,
    _resolved,
    _snapshot,
    _store_json,
)
from rea.native.records import arguments as wa
from rea.native.records import surface as w
from rea.native.records.surface import BookmarkArgs
from rea.program import Context, failed, must, need, refusable, refuse, typed
from rea.session import Session
from rea.wire.convert import structure, to_wire

# ----------------------------------------------------------- annotations

Read = Callable[[notes.Annotations, str], Any]


def _reader(name: str, read: Read) -> ToolProgram:
    @refusable
    def program(session: Session, args: Args, ctx: Context) -> Steps:
        snapshot = yield from _snapshot(session, args, "loader")
        where = yield from _mapped(session, snapshot, args.get("address"))
        return _answer(session, snapshot, name, args, read(notes.of(snapshot), where), STORE, at=where)

    program.__name__ = name
    return program


# tool -> (table, argument holding the text, is it a name)
_SETTERS = {
    "set_comment": ("comments", "comment", False),
    "set_inline_comment": ("inline_comments", "comment", False),
    "set_address_name": ("names", "name", True),
}


def _check(text: str, field: str, is_name: bool) -> None:
    """A name or comment the store accepts, or the program ends naming the problem."""
    must(notes.check_name(text, field) if is_name else notes.check_text(text, field))


def _setter(name: str) -> ToolProgram:
    table, field, is_name = _SETTERS[name]

    @refusable
    def program(session: Session, args: Args, ctx: Context) -> Steps:
        snapshot = yield from _snapshot(session, args, "loader")
        where = yield from _mapped(session, snapshot, args["address"])
        text = args[field]
        if text or is_name:
            _check(text, field, is_name)
        kept = yield from need(_edit_request(session, ((table, where, text or None),)))
        return _answer(session, snapshot, name, args, True, STORE, kept=kept, at=where)

    program.__name__ = name
    return program


@refusable
def set_addresses_names(session: Session, args: Args, ctx: Context) -> Steps:
    """All valid entries in one locked edit; an address outside every segment answers false."""
    snapshot = yield from _snapshot(session, args, "loader")
    changes, answer = [], {}
    for given, name in args["names"].items():
        field = f"names[{given!r}]"
        _check(name, field, True)
        mapped = yield from _mapped_answer(session, snapshot, given, field)
        refused = mapped.swap().value_or(None)  # the address's problem, or None when it is mapped
        if refused is not None and (refused.details or {}).get("reason") != "outside_segments":
            refuse(refused)
        answer[given] = refused is None
        if refused is None:
            changes.append(("names", mapped.unwrap(), name))
    kept = None
    if changes:
        kept = yield from need(_edit_request(session, tuple(changes)))
    return _answer(session, snapshot, "set_addresses_names", args, answer, STORE, kept=kept)


@typed
@refusable
def set_bookmark(session: Session, args: BookmarkArgs, ctx: Context) -> Steps:
    params = to_wire(args)
    snapshot = yield from _snapshot(session, params, "loader")
    where = yield from _mapped(session, snapshot, args.address)
    label = args.name or ""
    if label:
        match notes.check_name(label):
            case Failure(problem):
                return failed(session, problem)
    kept = yield from need(_edit_request(session, (("bookmarks", where, label),)))
    return _answer(session, snapshot, "set_bookmark", params, True, STORE, kept=kept, at=where)


@typed
@refusable
def unset_bookmark(session: Session, args: wa.AddressArgs, ctx: Context) -> Steps:
    """False when there was no bookmark there (nothing changed)."""
    params = to_wire(args)
    snapshot = yield from _snapshot(session, params, "loader")
    where = yield from _resolved(session, snapshot, args.address)
    present = where in notes.of(snapshot).bookmarks
    kept = None
    if present:
        kept = yield from need(_edit_request(session, (("bookmarks", where, None),)))
    return _answer(session, snapshot, "unset_bookmark", params, present, STORE, kept=kept, at=where)


@typed
@refusable
def list_bookmarks(session: Session, args: wa.DocumentArgs, ctx: Context) -> Steps:
    params = to_wire(args)
    snapshot = yield from _snapshot(session, params, "loader")
    marks = notes.of(snapshot).bookmarks
    rows = tuple(w.Bookmark(address=k, name=marks[k]) for k in sorted(marks, key=value))
    return _answer(session, snapshot, "list_bookmarks", params, rows, STORE)


_CHANGES = ("name", "comment", "inline_comment", "signature", "calling_convention", "variables")


def _function_changes(args: Args, entry: str, kept: notes.Annotations) -> tuple[tuple[str, str, Any], ...]:
    """The store edits an annotate_native_function call asks for (the program ends on an empty or invalid one)."""
    if not any(args.get(k) is not None for k in _CHANGES):
        refuse(
            invalid_request(
                "annotate_native_function needs at least one change",
                field="procedure",
                accepted="one or more of " + ", ".join(_CHANGES),
            )
        )
    for key, is_name in (("name", True), ("comment", False), ("inline_comment", False)):
        if args.get(key):
            _check(args[key], key, is_name)
    for i, var in enumerate(args.get("variables") or ()):
        if var.get("new_name") is None and var.get("data_type") is None:
            refuse(
                invalid_request(
                    f"variables[{i}] changes nothing", field=f"variables[{i}]", accepted="new_name or data_type"
                )
            )
        for key in ("name", "new_name"):
            if var.get(key):
                _check(var[key], f"variables[{i}].{key}", True)
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


@refusable
def annotate_native_function(session: Session, args: Args, ctx: Context) -> Steps:
    """Rename, comment and type one function in REA's store, then answer the refreshed dossier."""
    snapshot, proc = yield from engine._cfg_procedure(session, args)
    entry = proc["address"]
    changes = _function_changes(args, entry, notes.of(snapshot))
    kept: notes.Annotations = yield from need(_edit_request(session, changes))
    dossier_args = must(structure({"procedure": entry}, wa.DossierArgs))  # the entry is an address
    refreshed = yield from engine.analyze_function(session, dossier_args, ctx)
    dossier = must(refreshed.reply)["normalized_result"]
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
}
