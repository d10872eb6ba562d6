"""Programs of the native surface REA answers itself: analyst annotations (REA's store, since angr
keeps none), navigation, bytes, one instruction and call targets (the file's load map, capstone's
decode and angr's CFG). Every answer is Evidence like the rest of the native family."""

from __future__ import annotations

from collections.abc import Generator, Mapping
from typing import Any

from returns.result import Failure, Result, Success

from rea.effect_types import AnyEffect
from rea.errors import ReaError, invalid_request
from rea.native import annotations as notes
from rea.native import answers, image, subject
from rea.native.effects import EditAnnotations
from rea.native.programs import common as base
from rea.program import Outcome, must
from rea.session import Session

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


def _snapshot(session: Session, args: Args, stage: str) -> Generator[AnyEffect, Any, Snapshot]:
    """The target's image at `stage` (a program step: a document that is not open, or no snapshot, ends it)."""
    base._check_document(session, args)
    snapshot: Snapshot = yield from base._facts(session, stage)
    return snapshot


def _resolved_answer(
    session: Session, snapshot: Snapshot, text: str, field: str = "address"
) -> Generator[AnyEffect, Any, Result[str, ReaError]]:
    """The address `text` denotes (rea.native.subject, the one resolver): written as one, or a procedure, symbol
    or sub_<hex> name. A loader snapshot has no names, so a name (or bare hex, which a name would win over)
    reads the fast index's."""
    if subject.written(text) is None and "procedures" not in snapshot:
        snapshot = yield from base._facts(session, "index")
    return subject.resolve_address(snapshot, text, field)


def _resolved(
    session: Session, snapshot: Snapshot, text: str, field: str = "address"
) -> Generator[AnyEffect, Any, str]:
    """The address `text` denotes (a program step: _resolved_answer's error ends the program)."""
    return must((yield from _resolved_answer(session, snapshot, text, field)))


def _mapped_answer(
    session: Session, snapshot: Snapshot, text: str | None, field: str = "address"
) -> Generator[AnyEffect, Any, Result[str, ReaError]]:
    """A canonical address inside a loaded segment, or the canonical error naming the problem (kept, for a
    program that answers an address outside every segment as data)."""
    if text is None:
        return Failure(
            invalid_request(
                "the provider runs headless (angr and Ghidra alike): there is no cursor, so give the address",
                field=field,
                accepted=subject.ACCEPTED_ADDRESS,
            )
        )
    found = yield from _resolved_answer(session, snapshot, text, field)
    return found.bind(lambda where: _in_segments(snapshot, where, field))


def _in_segments(snapshot: Snapshot, where: str, field: str) -> Result[str, ReaError]:
    if answers.in_segments(snapshot, where):
        return Success(where)
    shown = ", ".join(f"{image.hexa(lo)}-{image.hexa(hi)}" for lo, hi in answers.segment_spans(snapshot))
    return Failure(
        invalid_request(
            f"{where} is outside every loaded segment",
            field=field,
            accepted=f"an address inside a segment ({shown})",
            reason="outside_segments",
        )
    )


def _mapped(
    session: Session, snapshot: Snapshot, text: str | None, field: str = "address"
) -> Generator[AnyEffect, Any, str]:
    """A canonical address inside a loaded segment (a program step: a name resolved through the one resolver)."""
    return must((yield from _mapped_answer(session, snapshot, text, field)))


def _edit_request(session: Session, changes: tuple[tuple[str, str, Any], ...]) -> EditAnnotations:
    assert session.target is not None
    return EditAnnotations(
        sha256=session.target.sha256, profile_digest=_digest(session), edit=notes.Edit(changes=changes)
    )


def _answer(
    session: Session,
    snapshot: Snapshot,
    name: str,
    args: Args,
    result: Any,
    *notes_: str,
    kept: Any = None,
    at: str | None = None,
) -> Outcome:
    """Evidence of the answer, located at `at` (the address args["address"] resolved to); an edit carries the
    store it produced (`kept`) as its raw_result."""
    given = args.get("address")
    at = at or (subject.written(given) if isinstance(given, str) else None)
    where = ({"kind": "address", "address": at},) if at is not None else ()
    raw = None if kept is None else _store_json(session, kept)
    return base._evidence(session, snapshot, name, args, result, limitations=notes_, locations=where, raw_result=raw)


def _store_json(session: Session, kept: notes.Annotations) -> dict[str, Any]:
    assert session.target is not None
    return {notes.RAW_KEY: notes.to_json(kept, session.target.sha256, _digest(session))}
