"""Programs of the native family: every answer is Evidence from the bound provider.

Inventory questions are pure projections of the analysis snapshot (effect
NativeFacts); only pseudocode and instructions ask the live engine (NativeQuery).
"""

from __future__ import annotations

from typing import Any, Protocol, TypeVar
from collections.abc import Callable, Generator, Mapping

from returns.pipeline import is_successful
from returns.result import Failure, Result, Success

from rea.errors import ReaError, invalid_request, no_target
from rea.evidence import Evidence, Provider, Subject, create_evidence, parse_profile
from rea.native import answers as a
from rea.native import dossier, graphs
from rea.native import pseudocode as readable
from rea.native import queries as q
from rea.native.compare import RUNTIME_NOTICE, compare
from rea.native import annotations as notes
from rea.native import metadata
from rea.native.metadata import snapshot_limitations
from rea.native.effects import NativeFacts, NativeQuery, ReadAnnotations, ReadImage
from rea.native import image, subject, sweep
from rea.native.addresses import value
from rea.native.providers import EXPLICIT, HEADLESS, NAVIGATION_MODES, provider_limitations, unavailable_reason
from rea.effect_types import AnyEffect, Program, ToolProgram
from rea.program import Context, Outcome, ProgramCancelled, ReportProgress, failed
from rea.session import MANAGED_HINT, Session, record, resolve
from rea.wire import native as w
from rea.wire.convert import to_wire
from rea.views.programs import deliver

Steps = Program
Args = Mapping[str, Any]
Snapshot = Mapping[str, Any]
# what a snapshot answer gives: (result record or JSON, confidence, limitations), or the caller's mistake
Answered = tuple[object, str, tuple[str, ...]] | ReaError
Answer = Callable[[Session, Snapshot, Args], Answered]
Facts = Callable[[Session, Args, Context], Program]
R = TypeVar("R")


class _Addressed(Protocol):
    @property
    def address(self) -> str: ...


A = TypeVar("A", bound=_Addressed)


NATIVE_MAX_BYTES = 512 * 1024 * 1024


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


def _facts(
    session: Session, stage: str, *, engine_ahead: bool = False
) -> Generator[AnyEffect, Any, Result[Mapping[str, Any], ReaError]]:
    bound = _bound(session)
    if not is_successful(bound):
        return bound
    target = session.target
    assert target is not None
    got: Result[Mapping[str, Any], ReaError] = yield NativeFacts(
        binding=bound.unwrap(), path=target.path, sha256=target.sha256, stage=stage, engine_ahead=engine_ahead
    )
    if not is_successful(got):
        return got
    kept: Result[notes.Annotations, ReaError] = yield ReadAnnotations(
        sha256=target.sha256, profile_digest=bound.unwrap()["analysis_profile"]["digest"]
    )
    return kept.map(lambda state: notes.overlay(got.unwrap(), state))  # the analyst's names and comments


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
    created = _record(session, snapshot, operation, args, result, **extra)
    if not is_successful(created):
        return failed(session, created.failure())
    evidence = created.unwrap()
    if delivery == "summary":
        return deliver(session, evidence, delivery)
    return Outcome(session=record(session, (evidence,)), reply=Success(evidence.to_json()))


def _document_problem(session: Session, args: Mapping[str, Any]) -> ReaError | None:
    document = args.get("document")
    target = session.target
    if document is None or target is None or document in (target.name, target.path):
        return None
    return invalid_request(
        f"document {document!r} is not open; the open document is {target.name!r}",
        field="document",
        accepted=f"{target.name!r}, its path, or omit document",
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
) -> Generator[AnyEffect, Any, tuple[Snapshot, Any] | ReaError]:
    """Check the document, fetch the snapshot (a stripped binary's symbol listing recovers the CFG instead)
    and answer from it: the part every snapshot tool shares, whatever shape its reply takes."""
    if problem := _document_problem(session, args):
        return problem
    facts = yield from _facts(session, stage)
    if is_successful(facts) and stage == "symbols" and "procedures" not in facts.unwrap():
        preview = metadata.preview(facts.unwrap())
        if preview is not None:
            facts = Success({**facts.unwrap(), **preview})
        elif name in FROM_METADATA:
            # no symbols, exception frames or pclntab to answer from: index the code
            yield ReportProgress(phase="analysis", message="no function metadata: indexing the code")
            facts = yield from _facts(session, "index")
    if not is_successful(facts):
        return facts.failure()
    snapshot = facts.unwrap()
    answered = answer(session, snapshot, args)
    return answered if isinstance(answered, ReaError) else (snapshot, answered)


def _with_facts(stage: str, answer: Answer) -> Facts:
    """A tool that only projects the snapshot, answered as Evidence."""

    def program(session: Session, args: Mapping[str, Any], ctx: Context) -> Steps:
        got = yield from _answered(session, args, stage, program.__name__, answer)
        if isinstance(got, ReaError):
            return failed(session, got)
        snapshot, (result, confidence, limitations) = got
        return _evidence(
            session, snapshot, program.__name__, args, result, confidence=confidence, limitations=limitations
        )

    return program


def _on_procedure(
    answer: Callable[[Session, Snapshot, Args, Mapping[str, Any]], R],
) -> Callable[[Session, Snapshot, Args], R | ReaError]:
    """An answer about args["procedure"]: resolved first, or the canonical no-procedure error."""

    def resolved(session: Session, snapshot: Snapshot, args: Args) -> R | ReaError:
        found = _chosen_procedure(snapshot, args)
        return answer(session, snapshot, args, found.unwrap()) if is_successful(found) else found.failure()

    return resolved


def _on_address(
    answer: Callable[[Session, Snapshot, Args, str], R],
) -> Callable[[Session, Snapshot, Args], R | ReaError]:
    """An answer about args["address"]: normalized first, or the canonical not-an-address error."""

    def resolved(session: Session, snapshot: Snapshot, args: Args) -> R | ReaError:
        if args.get("address") is None and args.get("procedure") is None:
            return invalid_request(
                "the provider runs headless (angr and Ghidra alike): there is no cursor, so give the address",
                field="address",
                accepted="a link-time address like 0x401000, or a name",
            )
        address = subject.chosen(args, "address", "procedure").bind(
            lambda given: subject.resolve_address(snapshot, *given)
        )
        return answer(session, snapshot, args, address.unwrap()) if is_successful(address) else address.failure()

    return resolved


# ------------------------------------------------------------- inventories


def _overview(session: Session, snapshot: Snapshot, args: Args) -> Answered:
    managed = (MANAGED_HINT,) if session.target is not None and session.target.managed else ()
    confidence = "observed" if snapshot.get("preview") else "derived"
    return a.overview(_document(session), snapshot, args), confidence, managed


def _documents(session: Session, snapshot: Snapshot, args: Args) -> Answered:
    return (_document(session),), "observed", ()


FROM_METADATA = ("binary_overview", "list_procedures", "list_names")


def _procedure_rows(session: Session, snapshot: Snapshot, args: Args) -> Answered:
    confidence = "observed" if snapshot.get("preview") else "derived"
    rows = [a.procedure_row(p) for p in a.of_origin(q.procedures(snapshot), args.get("origin"))]
    return a.window(rows, args), confidence, ()


SCANNED_ONLY = (
    "Strings scanned from the data sections before CFG recovery: which procedures reference them "
    "(referenced_by) is not known yet. binary_overview (or any CFG question) completes it."
)


def _at_address(snapshot: Snapshot, rows: list[A], args: Args) -> list[A] | ReaError:
    """The rows at args["address"]: an address, or a name denoting one (rea.native.subject)."""
    if args.get("address") is None:
        return rows
    address = subject.resolve_address(snapshot, args["address"], "address")
    return [r for r in rows if r.address == address.unwrap()] if is_successful(address) else address.failure()


def _string_rows(session: Session, snapshot: Snapshot, args: Args) -> Answered:
    scanned = "strings" not in snapshot
    stored = snapshot.get("scanned_strings" if scanned else "strings", ())
    rows = _at_address(
        snapshot, [a.string_row(s) for s in a.strings_of_origin(snapshot, stored, args.get("origin"))], args
    )
    if isinstance(rows, ReaError):
        return rows
    limitations = (SCANNED_ONLY,) if scanned else ()
    return a.window(rows, args), "observed" if scanned else "derived", limitations + a.string_coverage(snapshot)


def _name_rows(session: Session, snapshot: Snapshot, args: Args) -> Answered:
    named, unplaced = a.name_rows(snapshot)
    limitations: tuple[str, ...] = ()
    if unplaced:
        limitations += (f"{unplaced} imported names have no address in this binary and are not listed.",)
    rows = _at_address(snapshot, named, args)
    if isinstance(rows, ReaError):
        return rows
    return a.window(rows, args), "derived", limitations


def _segment_rows(session: Session, snapshot: Snapshot, args: Args) -> Answered:
    return a.segments(snapshot), "observed", ()


@_on_address
def _address_name(session: Session, snapshot: Snapshot, args: Args, address: str) -> Answered:
    return a.name_at(snapshot, address), "derived", ()


@_on_procedure
def _procedure_address(session: Session, snapshot: Snapshot, args: Args, p: Mapping[str, Any]) -> Answered:
    return p["address"], "derived", ()


@_on_address
def _containing(session: Session, snapshot: Snapshot, args: Args, address: str) -> Answered:
    return a.containing(snapshot, address), "derived", ()


def _searcher(collection: str) -> Answer:
    def answer(session: Session, snapshot: Snapshot, args: Args) -> Answered:
        # a string's row is made for the matches only: a Go executable has 25,000 strings and a search finds a few
        if collection == "strings":
            chosen = a.strings_of_origin(snapshot, snapshot["strings"], args.get("origin"))
            found = q.search(chosen, "value", args["pattern"], args["mode"], args["case_sensitive"])
            rows = found if isinstance(found, str) else [a.string_row(s) for s in found]
        else:
            source = [
                {"value": p["name"], "row": w.SearchRow(address=p["address"], value=p["name"])}
                for p in a.of_origin(q.procedures(snapshot), args.get("origin"))
            ]
            found = q.search(source, "value", args["pattern"], args["mode"], args["case_sensitive"])
            rows = found if isinstance(found, str) else [m["row"] for m in found]
        if isinstance(rows, str):
            return invalid_request(rows, field="pattern", accepted="a valid regular expression")
        coverage = a.string_coverage(snapshot) if collection == "strings" else ()
        return a.window(rows, args), "derived", coverage

    return answer


@_on_procedure
def _info(session: Session, snapshot: Snapshot, args: Args, p: Mapping[str, Any]) -> Answered:
    return a.info(p), "derived", ()


def _edges(edge: str) -> Answer:
    @_on_procedure
    def answer(session: Session, snapshot: Snapshot, args: Args, p: Mapping[str, Any]) -> Answered:
        return tuple(p[edge]), "derived", ()

    return answer


def named_edges(snapshot: Snapshot, addresses: Any) -> dict[str, Any]:
    """procedure_callers/callees' raw_result: the reference's answer is bare addresses, so each address's
    name (null: none known) rides beside it here."""
    index = q.by_address(snapshot)
    return {"names": {c: index[c]["name"] if c in index else None for c in addresses}}


@_on_procedure
def _references(session: Session, snapshot: Snapshot, args: Args, p: Mapping[str, Any]) -> Answered:
    return a.references(snapshot, p, args), "derived", ()


@_on_address
def _xrefs(session: Session, snapshot: Snapshot, args: Args, address: str) -> Answered:
    return tuple(sorted({r["from"] for r in q.incoming(snapshot, address)}, key=a.address_order)), "derived", ()


def _xrefs_to_name(session: Session, snapshot: Snapshot, args: Args) -> Answered:
    return a.xrefs_to_name(snapshot, args["name"]), "derived", ()


Begin = Callable[[Snapshot, Args], graphs.Walk | ReaError]


def _graph(snapshot: Snapshot, args: Args) -> graphs.Walk | ReaError:
    found = _chosen_procedure(snapshot, args, "address", "procedure")
    if not is_successful(found):
        return found.failure()
    return graphs.call_graph_walk(snapshot, found.unwrap(), args.get("depth"), args["direction"])


def _trace(snapshot: Snapshot, args: Args) -> graphs.Walk | ReaError:
    start = _procedure(snapshot, args["start"], "start")
    if not is_successful(start):
        return start.failure()
    goal = None
    if args.get("goal") is not None:
        resolved = _procedure(snapshot, args["goal"], "goal")
        if not is_successful(resolved):
            return resolved.failure()
        goal = resolved.unwrap()
    return graphs.trace_walk(snapshot, start.unwrap(), goal, args)


def _walk_tool(name: str, phase: str, begin: Begin) -> Facts:
    """A traversal over the CFG snapshot with a checkpoint after every step: cancelled between steps, it
    retains what it observed as partial Evidence and names it in details.partial_observation."""

    def program(session: Session, args: Mapping[str, Any], ctx: Context) -> Steps:
        if problem := _document_problem(session, args):
            return failed(session, problem)
        facts = yield from _facts(session, "index")
        if not is_successful(facts):
            return failed(session, facts.failure())
        snapshot = facts.unwrap()
        walk = begin(snapshot, args)
        if isinstance(walk, ReaError):
            return failed(session, walk)
        try:
            while True:
                seen = next(walk)
                yield ReportProgress(phase=phase, message=f"{seen} procedures seen")
        except StopIteration as done:
            return _evidence(session, snapshot, name, args, done.value)
        except ProgramCancelled:
            return _cancelled_walk(session, snapshot, name, phase, args, walk)

    program.__name__ = name
    return program


def _cancelled_walk(
    session: Session, snapshot: Snapshot, name: str, phase: str, args: Args, walk: graphs.Walk
) -> Outcome:
    """cancelled, with the traversal so far retained as partial Evidence (a cancelled program yields no more)."""
    try:
        walk.throw(graphs.Interrupted(f"cancelled during {phase}"))
        walk.close()
        raise ProgramCancelled(phase)  # the walk kept going: nothing to keep
    except StopIteration as done:
        partial = done.value
    limitation = f"Partial: the call was cancelled during {phase}; what was observed before is kept."
    created = _record(session, snapshot, name, args, partial, limitations=(limitation,))
    if not is_successful(created):
        raise ProgramCancelled(phase)
    evidence = created.unwrap()
    return kept_cancelled(
        session,
        evidence,
        phase,
        f"{name} was cancelled during {phase}; its partial traversal is retained as {evidence.evidence_id}.",
        "Read the partial Evidence (it says what was not expanded), or run the traversal again.",
    )


def kept_cancelled(session: Session, evidence: Evidence, phase: str, message: str, action: str) -> Outcome:
    """The `cancelled` error of a program that kept what it saw: the partial Evidence recorded in the session
    and named in details.partial_observation."""
    return Outcome(
        session=record(session, (evidence,)),
        reply=Failure(
            ReaError(
                code="cancelled",
                message=message,
                details={
                    "phase": phase,
                    "partial_observation": {"kind": "retained-evidence", "evidence_id": evidence.evidence_id},
                },
                action=action,
            )
        ),
    )


# the provider declares these (rea.native.providers); the availability rule refuses cursor
# operations with the same text before these programs run
_HEADLESS = HEADLESS
_EXPLICIT = EXPLICIT
_MODES = [dict(m) for m in NAVIGATION_MODES]


def _no_cursor(operation: str) -> ReaError:
    """The reference fails cursor questions on a headless provider with capability_unavailable."""
    return ReaError(
        code="capability_unavailable",
        message=f"{operation}: {_HEADLESS}",
        details={"reason": "headless_provider", "operation": operation, "modes": _MODES},
        action=_EXPLICIT,
    )


def _current_document(session: Session, snapshot: Snapshot, args: Args) -> Answered:
    return _document(session), "observed", ()


def _current_address(session: Session, snapshot: Snapshot, args: Args) -> Answered:
    return _no_cursor("current_address")


def _current_procedure(session: Session, snapshot: Snapshot, args: Args) -> Answered:
    return _no_cursor("current_procedure")


def _named(name: str, stage: str, answer: Answer) -> Facts:
    program = _with_facts(stage, answer)
    program.__name__ = name
    return program


def _strings(name: str, answer: Answer) -> Facts:
    """A string tool: from the fast index, and with origin decoded from the index whose decoder call sites
    were emulated (slow the first time: the default answer stays fast and says how to ask for them)."""
    indexed, decoded = _named(name, "index", answer), _named(name, "decoded", answer)

    def program(session: Session, args: Mapping[str, Any], ctx: Context) -> Steps:
        return (decoded if args.get("origin") == "decoded" else indexed)(session, args, ctx)

    program.__name__ = name
    return program


# ------------------------------------------------------ lifecycle answers


def _lifecycle(stage: str, answer: Callable[[Session, Snapshot, Args], object]) -> Facts:
    """A navigation tool: `{result: ...}` with no Evidence (the reference's lifecycle shape)."""

    def program(session: Session, args: Mapping[str, Any], ctx: Context) -> Steps:
        got = yield from _answered(session, args, stage, "", answer)
        if isinstance(got, ReaError):
            return failed(session, got)
        return Outcome(session=session, reply=Success({"result": to_wire(got[1])}))

    return program


def _navigation(session: Session, snapshot: Snapshot, args: Args) -> ReaError:
    return _no_cursor("get_navigation_context")


@_on_address
def _address_context(session: Session, snapshot: Snapshot, args: Args, where: str) -> w.AddressContext:
    kept = notes.of(snapshot)
    return w.AddressContext(
        address=where,
        document=_document(session),
        name=w.Available(state="available", value=a.name_at(snapshot, where)),
        procedure=w.Available(state="available", value=to_wire(a.identity(q.containing(snapshot, where)))),
        comment=w.Available(state="available", value=kept.comments.get(where)),
        inline_comment=w.Available(state="available", value=kept.inline_comments.get(where)),
        bookmarks=w.Available(
            state="available",
            value=[{"address": where, "name": kept.bookmarks[where]}] if where in kept.bookmarks else [],
        ),
    )


# ------------------------------------------------------------ engine tools


def _cfg_procedure(
    session: Session, args: Mapping[str, Any], *, engine_ahead: bool = False
) -> Generator[AnyEffect, Any, Result[tuple[Mapping[str, Any], Mapping[str, Any]], ReaError]]:
    """The snapshot (the fast index where it answers, else the CFG) and the procedure args["procedure"]
    names, or the reason neither exists (engine_ahead: see NativeFacts)."""
    if problem := _document_problem(session, args):
        return Failure(problem)
    facts = yield from _facts(session, "index", engine_ahead=engine_ahead)
    if not is_successful(facts):
        return Failure(facts.failure())
    snapshot = facts.unwrap()
    return _chosen_procedure(snapshot, args).map(lambda proc: (snapshot, proc))


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

    def program(session: Session, args: Mapping[str, Any], ctx: Context) -> Steps:
        found = yield from _cfg_procedure(session, args)
        if not is_successful(found):
            return failed(session, found.failure())
        snapshot, proc = found.unwrap()
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
        reply = yield from _engine(session, snapshot, op, proc)
        if not is_successful(reply):
            return failed(session, reply.failure())
        answer = reply.unwrap()
        if with_listing:
            answer = {**answer, "instructions": (yield from _listing(session, snapshot, proc))}
        return _evidence(session, snapshot, name, args, build(snapshot, proc, answer, args), locations=where)

    program.__name__ = name
    return program


def _indexed(snapshot: Snapshot) -> bool:
    return bool(snapshot.get("index", {}).get("swept"))


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
    facts: Result[Mapping[str, Any], ReaError] = yield ReadImage(path=target.path, sha256=target.sha256)
    if not is_successful(facts):
        return None
    data = b""
    while len(data) < size:
        at = start + len(data)
        plan = image.read_plan(facts.unwrap(), at, min(size - len(data), image.MAX_CHUNK))
        if plan is None or plan[1] == 0:
            return None
        got: Result[Mapping[str, Any], ReaError] = yield ReadImage(
            path=target.path, sha256=target.sha256, file_offset=plan[0], length=plan[1], address=at
        )
        if not is_successful(got):
            return None
        data += bytes.fromhex(got.unwrap().get("bytes_hex", ""))
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
    return listing.unwrap()["instructions"] if is_successful(listing) else None


def _assembly_text(snapshot: Snapshot, proc: Mapping[str, Any], reply: Any, args: Args) -> str:
    return "\n".join(dossier.assembly_line(i) for i in reply["instructions"])


def _instruction_page(snapshot: Snapshot, proc: Mapping[str, Any], reply: Any, args: Args) -> w.InstructionWindow:
    rows = reply["instructions"]
    start, end = args["offset"], args["offset"] + args["limit"]
    page = rows[start:end]
    return w.InstructionWindow(
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


def _resolved_ref(proc: Mapping[str, Any] | None) -> w.ResolvedRef:
    if proc is None:
        return w.ResolvedRef(status="unknown", address=None, name=None)
    return w.ResolvedRef(status="resolved", address=proc["address"], name=proc["name"])


def batch_decompile(session: Session, args: Mapping[str, Any], ctx: Context) -> Steps:
    facts = yield from _facts(session, "index")
    if not is_successful(facts):
        return failed(session, facts.failure())
    snapshot = facts.unwrap()
    rows: list[w.Decompiled | w.NotDecompiled] = []
    for text in args["addresses"]:
        found = _procedure(snapshot, text, "addresses")
        proc = found.unwrap() if is_successful(found) else None
        if proc is None:
            rows.append(
                w.NotDecompiled(
                    address=text, status="error", error=a.error_record(found.failure()), procedure=_resolved_ref(None)
                )
            )
            continue
        reply = yield from _engine(session, snapshot, "decompile", proc)
        if is_successful(reply) and reply.unwrap()["pseudocode"]:
            rows.append(
                w.Decompiled(
                    address=text,
                    status="ok",
                    pseudocode=_readable(
                        snapshot, proc, reply.unwrap()["pseudocode"], (yield from _listing(session, snapshot, proc))
                    ).text,
                    procedure=_resolved_ref(proc),
                )
            )
        else:
            error = a.error_record(
                reply.failure()
                if not is_successful(reply)
                else ReaError(code="execution_failure", message="the decompiler returned no text")
            )
            rows.append(w.NotDecompiled(address=text, status="error", error=error, procedure=_resolved_ref(proc)))
    errors = sum(r.status == "error" for r in rows)
    result = w.Batch(items=tuple(rows), total=len(rows), succeeded=len(rows) - errors, failed=errors)
    return _evidence(session, snapshot, "batch_decompile", args, result)


def analyze_function(session: Session, args: Mapping[str, Any], ctx: Context) -> Steps:
    """The function dossier: every facet either observed or declared unavailable with its reason."""
    found = yield from _cfg_procedure(session, args)
    if not is_successful(found):
        return failed(session, found.failure())
    snapshot, proc = found.unwrap()
    decompiled, pseudo_reason = None, f"a {proc['kind']} has no body of its own"
    if proc["kind"] == "function":
        reply = yield from _engine(session, snapshot, "decompile", proc)
        if is_successful(reply):
            decompiled = reply.unwrap()["pseudocode"]
        else:
            pseudo_reason = reply.failure().message
    instructions, asm_reason = None, "an import has no instructions here"
    if proc["kind"] != "external":
        listing = yield from _engine(session, snapshot, "disassemble", proc)
        if is_successful(listing):
            instructions = listing.unwrap()["instructions"]
        else:
            asm_reason = listing.failure().message
    cleaned = None if decompiled is None else _readable(snapshot, proc, decompiled, instructions)
    if args.get("include_assembly") is False:  # read for the pseudocode's stack names, not shown
        instructions, asm_reason = None, "not requested (include_assembly: false)"
    pseudocode = None if cleaned is None else notes.annotate_pseudocode(cleaned.text, proc, notes.of(snapshot))
    result = dossier.build(snapshot, proc, args, pseudocode, pseudo_reason, instructions, asm_reason, cleaned)
    return _evidence(
        session,
        snapshot,
        "analyze_function",
        args,
        result,
        locations=({"kind": "address", "address": proc["address"]},),
    )


COMPARE_PROVIDER = Provider(id="rea-compare", name="REA function comparison", version="1")


def _side(session: Session, args: Mapping[str, Any], side: str) -> Result[list[Evidence], ReaError]:
    inline, ids = args.get(side), args.get(f"{side}_evidence_ids")
    if (inline is None) == (ids is None):
        return Failure(
            invalid_request(
                f"compare_functions needs exactly one of {side} and {side}_evidence_ids",
                field=side,
                accepted=f"{side}: inline analyze_function Evidence or a retained reference; or {side}_evidence_ids",
            )
        )
    refs = [inline] if inline is not None else [{"kind": "retained-evidence", "evidence_id": i} for i in ids or ()]
    resolved: list[Evidence] = []
    for index, ref in enumerate(refs):
        found = resolve(session, ref, side if inline is not None else f"{side}_evidence_ids[{index}]")
        if not is_successful(found):
            return Failure(found.failure())
        evidence = found.unwrap()
        if evidence.operation != "analyze_function":
            return Failure(
                invalid_request(
                    f"{side} is {evidence.operation} Evidence; compare_functions compares analyze_function dossiers",
                    field=side,
                    accepted="Evidence whose operation is analyze_function",
                )
            )
        resolved.append(evidence)
    return Success(resolved)


def compare_functions(session: Session, args: Mapping[str, Any], ctx: Context) -> Outcome:
    sides: dict[str, list[Evidence]] = {}
    for side in ("left", "right"):
        found = _side(session, args, side)
        if not is_successful(found):
            return failed(session, found.failure())
        sides[side] = found.unwrap()
    result = compare(sides["left"], sides["right"])
    created = create_evidence(
        provider=COMPARE_PROVIDER,
        operation="compare_functions",
        parameters={"left": list(result.left_evidence_ids), "right": list(result.right_evidence_ids)},
        normalized_result=to_wire(result),
        confidence="derived",
        authority="analyst-inference",
        limitations=[RUNTIME_NOTICE],
        evidence_links=[*result.left_evidence_ids, *result.right_evidence_ids],
    )
    if not is_successful(created):
        return failed(session, created.failure())
    evidence = created.unwrap()
    retained = record(session, (*sides["left"], *sides["right"], evidence))
    return Outcome(session=retained, reply=Success(evidence.to_json()))


PROGRAMS: Mapping[str, ToolProgram] = {
    "compare_functions": compare_functions,
    "binary_overview": _named("binary_overview", "index", _overview),
    "list_documents": _named("list_documents", "loader", _documents),
    "list_procedures": _named("list_procedures", "index", _procedure_rows),
    "list_strings": _strings("list_strings", _string_rows),
    "list_names": _named("list_names", "index", _name_rows),
    "list_segments": _named("list_segments", "loader", _segment_rows),
    "address_name": _named("address_name", "index", _address_name),
    "procedure_address": _named("procedure_address", "index", _procedure_address),
    "resolve_containing_procedure": _named("resolve_containing_procedure", "index", _containing),
    "search_procedures": _named("search_procedures", "index", _searcher("procedures")),
    "search_strings": _strings("search_strings", _searcher("strings")),
    "procedure_info": _named("procedure_info", "index", _info),
    "procedure_callers": _named("procedure_callers", "index", _edges("callers")),
    "procedure_callees": _named("procedure_callees", "index", _edges("callees")),
    "procedure_references": _named("procedure_references", "index", _references),
    "xrefs": _named("xrefs", "index", _xrefs),
    "find_xrefs_to_name": _named("find_xrefs_to_name", "index", _xrefs_to_name),
    "procedure_assembly": _engine_tool("procedure_assembly", "disassemble", _assembly_text),
    "read_function_instructions": _engine_tool("read_function_instructions", "disassemble", _instruction_page),
    "procedure_pseudo_code": _engine_tool(
        "procedure_pseudo_code", "decompile", _pseudocode, body_only=True, with_listing=True
    ),
    "batch_decompile": batch_decompile,
    "analyze_function": analyze_function,
    "get_call_graph": _walk_tool("get_call_graph", "call graph", _graph),
    "trace_call_path": _walk_tool("trace_call_path", "tracing", _trace),
    "current_document": _named("current_document", "loader", _current_document),
    "current_address": _named("current_address", "loader", _current_address),
    "current_procedure": _named("current_procedure", "loader", _current_procedure),
    "get_navigation_context": _lifecycle("loader", _navigation),
    "inspect_address_context": _lifecycle("index", _address_context),
}
