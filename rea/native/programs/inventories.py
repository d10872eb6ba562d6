"""The native inventory programs: binary, procedure, string, name and segment listings, searches, references,
call graphs and paths, and the navigation answers, each a pure projection of the analysis snapshot (NativeFacts)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NoReturn

from returns.result import Failure, Success

from rea.effect_types import ToolProgram
from rea.errors import ReaError, invalid_request
from rea.evidence import Evidence
from rea.native import annotations as notes
from rea.native import answers as a
from rea.native import graphs, subject
from rea.native import queries as q
from rea.native.programs.common import (
    A,
    Answer,
    Answered,
    Args,
    Facts,
    Snapshot,
    Steps,
    _answered,
    _check_document,
    _chosen_procedure,
    _document,
    _evidence,
    _facts,
    _on_address,
    _on_procedure,
    _procedure,
    _record,
    _with_facts,
)
from rea.native.providers import EXPLICIT, HEADLESS, NAVIGATION_MODES
from rea.native.records import listings as wl
from rea.native.records import procedures as wp
from rea.program import Context, Outcome, ProgramCancelled, ReportProgress, must, refusable, refuse
from rea.session import MANAGED_HINT, Session, record
from rea.wire.convert import to_wire

# ------------------------------------------------------------- inventories


def _overview(session: Session, snapshot: Snapshot, args: Args) -> Answered:
    managed = (MANAGED_HINT,) if session.target is not None and session.target.managed else ()
    confidence = "observed" if snapshot.get("preview") else "derived"
    return a.overview(_document(session), snapshot, args), confidence, managed


def _documents(session: Session, snapshot: Snapshot, args: Args) -> Answered:
    return (_document(session),), "observed", ()


def _procedure_rows(session: Session, snapshot: Snapshot, args: Args) -> Answered:
    confidence = "observed" if snapshot.get("preview") else "derived"
    rows = [a.procedure_row(p) for p in a.of_origin(q.procedures(snapshot), args.get("origin"))]
    return a.window(rows, args), confidence, ()


SCANNED_ONLY = (
    "Strings scanned from the data sections before CFG recovery: which procedures reference them "
    "(referenced_by) is not known yet. binary_overview (or any CFG question) completes it."
)


def _at_address(snapshot: Snapshot, rows: list[A], args: Args) -> list[A]:
    """The rows at args["address"]: an address, or a name denoting one (rea.native.subject)."""
    if args.get("address") is None:
        return rows
    address = must(subject.resolve_address(snapshot, args["address"], "address"))
    return [r for r in rows if r.address == address]


def _string_rows(session: Session, snapshot: Snapshot, args: Args) -> Answered:
    scanned = "strings" not in snapshot
    stored = snapshot.get("scanned_strings" if scanned else "strings", ())
    rows = _at_address(
        snapshot, [a.string_row(s) for s in a.strings_of_origin(snapshot, stored, args.get("origin"))], args
    )
    limitations = (SCANNED_ONLY,) if scanned else ()
    return a.window(rows, args), "observed" if scanned else "derived", limitations + a.string_coverage(snapshot)


def _name_rows(session: Session, snapshot: Snapshot, args: Args) -> Answered:
    named, unplaced = a.name_rows(snapshot)
    limitations: tuple[str, ...] = ()
    if unplaced:
        limitations += (f"{unplaced} imported names have no address in this binary and are not listed.",)
    rows = _at_address(snapshot, named, args)
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
                {"value": p["name"], "row": wl.SearchRow(address=p["address"], value=p["name"])}
                for p in a.of_origin(q.procedures(snapshot), args.get("origin"))
            ]
            found = q.search(source, "value", args["pattern"], args["mode"], args["case_sensitive"])
            rows = found if isinstance(found, str) else [m["row"] for m in found]
        if isinstance(rows, str):
            refuse(invalid_request(rows, field="pattern", accepted="a valid regular expression"))
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


@_on_procedure
def _references(session: Session, snapshot: Snapshot, args: Args, p: Mapping[str, Any]) -> Answered:
    return a.references(snapshot, p, args), "derived", ()


@_on_address
def _xrefs(session: Session, snapshot: Snapshot, args: Args, address: str) -> Answered:
    return tuple(sorted({r.source for r in q.incoming(snapshot, address)}, key=a.address_order)), "derived", ()


def _xrefs_to_name(session: Session, snapshot: Snapshot, args: Args) -> Answered:
    return a.xrefs_to_name(snapshot, args["name"]), "derived", ()


Begin = Callable[[Snapshot, Args], graphs.Walk]


def _graph(snapshot: Snapshot, args: Args) -> graphs.Walk:
    found = must(_chosen_procedure(snapshot, args, "address", "procedure"))
    return graphs.call_graph_walk(snapshot, found, args.get("depth"), args["direction"])


def _trace(snapshot: Snapshot, args: Args) -> graphs.Walk:
    start = must(_procedure(snapshot, args["start"], "start"))
    goal = None if args.get("goal") is None else must(_procedure(snapshot, args["goal"], "goal"))
    return graphs.trace_walk(snapshot, start, goal, args)


def _walk_tool(name: str, phase: str, begin: Begin) -> Facts:
    """A traversal over the CFG snapshot with a checkpoint after every step: cancelled between steps, it
    retains what it observed as partial Evidence and names it in details.partial_observation."""

    @refusable
    def program(session: Session, args: Mapping[str, Any], ctx: Context) -> Steps:
        _check_document(session, args)
        snapshot = yield from _facts(session, "index")
        walk = begin(snapshot, args)
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
    evidence = _record(session, snapshot, name, args, partial, limitations=(limitation,)).value_or(None)
    if evidence is None:  # nothing could be recorded: the cancel goes on as it came
        raise ProgramCancelled(phase)
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
_MODES = [m.to_json() for m in NAVIGATION_MODES]


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
    refuse(_no_cursor("current_address"))


def _current_procedure(session: Session, snapshot: Snapshot, args: Args) -> Answered:
    refuse(_no_cursor("current_procedure"))


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

    @refusable
    def program(session: Session, args: Mapping[str, Any], ctx: Context) -> Steps:
        _, answer_ = yield from _answered(session, args, stage, "", answer)
        return Outcome(session=session, reply=Success({"result": to_wire(answer_)}))

    return program


def _navigation(session: Session, snapshot: Snapshot, args: Args) -> NoReturn:
    refuse(_no_cursor("get_navigation_context"))


@_on_address
def _address_context(session: Session, snapshot: Snapshot, args: Args, where: str) -> wp.AddressContext:
    kept = notes.of(snapshot)
    return wp.AddressContext(
        address=where,
        document=_document(session),
        name=wp.Available(state="available", value=a.name_at(snapshot, where)),
        procedure=wp.Available(state="available", value=to_wire(a.identity(q.containing(snapshot, where)))),
        comment=wp.Available(state="available", value=kept.comments.get(where)),
        inline_comment=wp.Available(state="available", value=kept.inline_comments.get(where)),
        bookmarks=wp.Available(
            state="available",
            value=[{"address": where, "name": kept.bookmarks[where]}] if where in kept.bookmarks else [],
        ),
    )


PROGRAMS: Mapping[str, ToolProgram] = {
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
    "get_call_graph": _walk_tool("get_call_graph", "call graph", _graph),
    "trace_call_path": _walk_tool("trace_call_path", "tracing", _trace),
    "current_document": _named("current_document", "loader", _current_document),
    "current_address": _named("current_address", "loader", _current_address),
    "current_procedure": _named("current_procedure", "loader", _current_procedure),
    "get_navigation_context": _lifecycle("loader", _navigation),
    "inspect_address_context": _lifecycle("index", _address_context),
}
