"""The steps every native program shares: every answer is Evidence from the bound provider.

Inventory questions are pure projections of the analysis snapshot (effect
NativeFacts); only pseudocode and instructions ask the live engine (NativeQuery).
A step that fails ends the program (rea.program.need/must: every native program is @refusable);
`_ask` keeps the engine's Result for a program that answers a refusal as data.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Mapping
from typing import Any, Protocol, TypeVar

from returns.result import Failure, Result, Success

from rea.effect_types import AnyEffect, Program
from rea.errors import ReaError, invalid_request, no_target
from rea.evidence import Evidence, Provider, Subject, create_evidence, parse_profile
from rea.native import annotations as notes
from rea.native import metadata, subject
from rea.native import queries as q
from rea.native.effects import NativeFacts, NativeQuery, ReadAnnotations
from rea.native.metadata import snapshot_limitations
from rea.native.providers import provider_limitations, unavailable_reason
from rea.program import Context, Outcome, ReportProgress, must, need, refusable, refuse
from rea.session import Session, record
from rea.views.programs import deliver
from rea.wire.convert import to_wire

Steps = Program
Args = Mapping[str, Any]
Snapshot = Mapping[str, Any]
# what a snapshot answer gives: (result record or JSON, confidence, limitations); the caller's mistake ends
# the program (rea.program.refuse)
Answered = tuple[object, str, tuple[str, ...]]
Answer = Callable[[Session, Snapshot, Args], Answered]
Facts = Callable[[Session, Args, Context], Program]
R = TypeVar("R")


class _Addressed(Protocol):
    @property
    def address(self) -> str: ...


A = TypeVar("A", bound=_Addressed)


NATIVE_MAX_BYTES = 512 * 1024 * 1024


FROM_METADATA = ("binary_overview", "list_procedures", "list_names")


def _bound(session: Session) -> Result[Mapping[str, Any], ReaError]:
    if session.target is None:
        return Failure(no_target("This tool"))
    if session.provider_binding is None:
        return Failure(
            ReaError(
                code="capability_unavailable",
                message=unavailable_reason(None, session.target.format),
                details={"reason": "provider_missing", "format": session.target.format},
            )
        )
    if session.target.size > NATIVE_MAX_BYTES:
        return Failure(
            ReaError(
                code="truncated",
                message=(
                    f"{session.target.name} has {session.target.size} bytes, over the {NATIVE_MAX_BYTES}-byte limit "
                    "for native analysis; nothing was analysed."
                ),
                details={"limit": "max_target_bytes", "limit_bytes": NATIVE_MAX_BYTES, "size": session.target.size},
                action="Analyse a smaller binary (extract the slice or library you need first).",
            )
        )
    return Success(session.provider_binding)


def _facts(session: Session, stage: str, *, engine_ahead: bool = False) -> Generator[AnyEffect, Any, Snapshot]:
    """The analysis snapshot of the bound target at `stage`, with the analyst's names and comments overlaid
    (a program step: no binding, or a failed analysis, ends the program)."""
    binding = must(_bound(session))
    target = session.target
    assert target is not None
    facts: Snapshot = yield from need(
        NativeFacts(binding=binding, path=target.path, sha256=target.sha256, stage=stage, engine_ahead=engine_ahead)
    )
    kept: notes.Annotations = yield from need(
        ReadAnnotations(sha256=target.sha256, profile_digest=binding["analysis_profile"]["digest"])
    )
    return notes.overlay(facts, kept)


def _ask(session: Session, op: str, params: Mapping[str, Any]) -> Generator[AnyEffect, Any, Result[Any, ReaError]]:
    target = session.target
    assert target is not None and session.provider_binding is not None
    got: Result[Any, ReaError] = yield NativeQuery(
        binding=session.provider_binding, path=target.path, sha256=target.sha256, op=op, params=dict(params)
    )
    return got


def _record(
    session: Session,
    snapshot: Mapping[str, Any],
    operation: str,
    args: Mapping[str, Any],
    result: Any,
    *,
    confidence: str = "derived",
    limitations: tuple[str, ...] = (),
    locations: tuple[Mapping[str, Any], ...] = (),
    raw_result: Any = None,
    evidence_links: tuple[str, ...] = (),
) -> Result[Evidence, ReaError]:
    """Native Evidence of one answer: raw_result stays null (the provider has no separate representation),
    except for annotation edits, which carry the store they produced (restored by bundle import)."""
    target, binding = session.target, session.provider_binding
    assert target is not None and binding is not None
    architecture = snapshot.get("architecture")
    return create_evidence(
        provider=Provider(**binding["provider"]),
        operation=operation,
        parameters=dict(args),
        normalized_result=to_wire(result),
        raw_result=raw_result,
        subject=Subject(
            name=target.name,
            sha256=target.sha256,
            format=snapshot.get("format", target.format),
            architecture=architecture if architecture in ("x86", "x86_64", "arm", "arm64") else None,
            local_path=target.path,
        ),
        analysis_profile=parse_profile(binding["analysis_profile"]),
        confidence=confidence,
        limitations=(
            *(() if _indexed(snapshot) else provider_limitations(binding["provider"]["id"])),
            *snapshot_limitations(snapshot),
            *snapshot.get("provider_notes", ()),
            *limitations,
        ),
        locations=locations,
        evidence_links=evidence_links,
    )


def _indexed(snapshot: Snapshot) -> bool:
    return bool(snapshot.get("index", {}).get("swept"))


def named_edges(snapshot: Snapshot, addresses: Any) -> dict[str, Any]:
    """procedure_callers/callees' raw_result: the reference's answer is bare addresses, so each address's
    name (null: none known) rides beside it here."""
    index = q.by_address(snapshot)
    return {"names": {c: index[c]["name"] if c in index else None for c in addresses}}


def _evidence(
    session: Session, snapshot: Mapping[str, Any], operation: str, args: Mapping[str, Any], result: Any, **extra: Any
) -> Outcome:
    """_record's Evidence retained and answered (extra: its confidence, limitations, locations); detail: summary
    answers with its summary view instead. Delivery detail never reaches the Evidence, so its id is the same."""
    delivery = args.get("detail") if args.get("detail") in ("complete", "summary") else None
    if delivery is not None:
        args = {k: v for k, v in args.items() if k != "detail"}
    if operation in ("procedure_callers", "procedure_callees"):
        extra = {"raw_result": named_edges(snapshot, result), **extra}
    evidence = must(_record(session, snapshot, operation, args, result, **extra))
    if delivery == "summary":
        return deliver(session, evidence, delivery)
    return Outcome(session=record(session, (evidence,)), reply=Success(evidence.to_json()))


def _check_document(session: Session, args: Mapping[str, Any]) -> None:
    """A `document` argument names the open target (its name or path), or the program ends."""
    document = args.get("document")
    target = session.target
    if document is None or target is None or document in (target.name, target.path):
        return
    refuse(
        invalid_request(
            f"document {document!r} is not open; the open document is {target.name!r}",
            field="document",
            accepted=f"{target.name!r}, its path, or omit document",
        )
    )


def _procedure(snapshot: Mapping[str, Any], text: str, field: str = "procedure") -> Result[Mapping[str, Any], ReaError]:
    return subject.resolve_procedure(snapshot, text, field)


def _chosen_procedure(
    snapshot: Mapping[str, Any], args: Mapping[str, Any], first: str = "procedure", other: str = "address"
) -> Result[Mapping[str, Any], ReaError]:
    """The procedure the call names, by `procedure` or `address` (rea.native.subject: one resolver)."""
    return subject.chosen(args, first, other).bind(lambda given: _procedure(snapshot, *given))


def _document(session: Session) -> str:
    """The open target's name (every answer runs after _facts found a target)."""
    assert session.target is not None
    return session.target.name


def _answered(
    session: Session, args: Mapping[str, Any], stage: str, name: str, answer: Callable[[Session, Snapshot, Args], Any]
) -> Generator[AnyEffect, Any, tuple[Snapshot, Any]]:
    """Check the document, fetch the snapshot (a stripped binary's symbol listing recovers the CFG instead)
    and answer from it: the part every snapshot tool shares, whatever shape its reply takes."""
    _check_document(session, args)
    snapshot = yield from _facts(session, stage)
    if stage == "symbols" and "procedures" not in snapshot:
        preview = metadata.preview(snapshot)
        if preview is not None:
            snapshot = {**snapshot, **preview}
        elif name in FROM_METADATA:
            # no symbols, exception frames or pclntab to answer from: index the code
            yield ReportProgress(phase="analysis", message="no function metadata: indexing the code")
            snapshot = yield from _facts(session, "index")
    return snapshot, answer(session, snapshot, args)


def _with_facts(stage: str, answer: Answer) -> Facts:
    """A tool that only projects the snapshot, answered as Evidence."""

    @refusable
    def program(session: Session, args: Mapping[str, Any], ctx: Context) -> Steps:
        snapshot, (result, confidence, limitations) = yield from _answered(
            session, args, stage, program.__name__, answer
        )
        return _evidence(
            session, snapshot, program.__name__, args, result, confidence=confidence, limitations=limitations
        )

    return program


def _on_procedure(
    answer: Callable[[Session, Snapshot, Args, Mapping[str, Any]], R],
) -> Callable[[Session, Snapshot, Args], R]:
    """An answer about args["procedure"]: resolved first, or the canonical no-procedure error ends the program."""

    def resolved(session: Session, snapshot: Snapshot, args: Args) -> R:
        return answer(session, snapshot, args, must(_chosen_procedure(snapshot, args)))

    return resolved


def _on_address(
    answer: Callable[[Session, Snapshot, Args, str], R],
) -> Callable[[Session, Snapshot, Args], R]:
    """An answer about args["address"]: normalized first, or the canonical not-an-address error ends the program."""

    def resolved(session: Session, snapshot: Snapshot, args: Args) -> R:
        if args.get("address") is None and args.get("procedure") is None:
            refuse(
                invalid_request(
                    "the provider runs headless (angr and Ghidra alike): there is no cursor, so give the address",
                    field="address",
                    accepted="a link-time address like 0x401000, or a name",
                )
            )
        address = subject.chosen(args, "address", "procedure").bind(
            lambda given: subject.resolve_address(snapshot, *given)
        )
        return answer(session, snapshot, args, must(address))

    return resolved
