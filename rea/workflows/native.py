"""Programs of the native family: every answer is Evidence from the bound provider.

Inventory questions are pure projections of the analysis snapshot (effect
NativeFacts); only pseudocode and instructions ask the live engine (NativeQuery).
"""

from __future__ import annotations

from typing import Any
from collections.abc import Callable, Generator, Mapping

from returns.pipeline import is_successful
from returns.result import Failure, Result, Success

from rea.errors import ReaError, invalid_request, no_target
from rea.evidence import Provider, Subject, create_evidence, parse_profile
from rea.native import queries as q
from rea.native.addresses import normalize
from rea.native.compare import RUNTIME_NOTICE, compare
from rea.native.effects import NativeFacts, NativeQuery
from rea.native.providers import ANGR_LIMITATIONS, unavailable_reason
from rea.paging import paginate
from rea.program import Context, Effect, Outcome
from rea.session import Session, record, resolve
from rea.wire import native as w
from rea.wire.convert import to_wire

Steps = Generator[Effect, Any, Outcome]
FACETS = ("pseudocode", "assembly", "comments", "callers", "callees", "references", "strings_names", "cfg")


def _fail(session: Session, error: ReaError) -> Outcome:
    return Outcome(session=session, reply=Failure(error))


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


def _facts(session: Session, stage: str) -> Generator[Effect, Any, Result[Mapping[str, Any], ReaError]]:
    bound = _bound(session)
    if not is_successful(bound):
        return bound
    target = session.target
    assert target is not None
    return (yield NativeFacts(binding=bound.unwrap(), path=target.path, sha256=target.sha256, stage=stage))


def _ask(session: Session, op: str, params: Mapping[str, Any]) -> Generator[Effect, Any, Result[Any, ReaError]]:
    target = session.target
    assert target is not None and session.provider_binding is not None
    return (
        yield NativeQuery(
            binding=session.provider_binding, path=target.path, sha256=target.sha256, op=op, params=dict(params)
        )
    )


def _evidence(
    session: Session,
    snapshot: Mapping[str, Any],
    operation: str,
    args: Mapping[str, Any],
    result: Any,
    *,
    confidence: str = "derived",
    limitations: tuple[str, ...] = (),
    locations: tuple[Mapping[str, Any], ...] = (),
) -> Outcome:
    target, binding = session.target, session.provider_binding
    assert target is not None and binding is not None
    architecture = snapshot.get("architecture")
    created = create_evidence(
        provider=Provider(**binding["provider"]),
        operation=operation,
        parameters=dict(args),
        normalized_result=to_wire(result),
        subject=Subject(
            name=target.name,
            sha256=target.sha256,
            format=snapshot.get("format", target.format),
            architecture=architecture if architecture in ("x86", "x86_64", "arm", "arm64") else None,
            local_path=target.path,
        ),
        analysis_profile=parse_profile(binding["analysis_profile"]),
        confidence=confidence,
        limitations=(*ANGR_LIMITATIONS[:1], *limitations),
        locations=locations,
    )
    if not is_successful(created):
        return _fail(session, created.failure())
    evidence = created.unwrap()
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
    found = q.find_procedure(snapshot, text)
    if found is None:
        return Failure(
            invalid_request(
                f"No procedure starts at or is named {text!r}.",
                field=field,
                accepted="a procedure start address (0x..., see list_procedures) or an exact procedure name",
                reason="no-procedure",
            )
        )
    return Success(found)


def _address(text: str, field: str = "address") -> Result[str, ReaError]:
    address = normalize(text)
    if address is None:
        return Failure(
            invalid_request(
                f"{text!r} is not an address",
                field=field,
                accepted="hex like 0x401000 (or space:0x10 for other spaces)",
            )
        )
    return Success(address)


def _with_facts(stage: str, answer: Callable[[Session, Mapping[str, Any], Mapping[str, Any]], Any]):
    """A tool that only projects the snapshot: fetch it, check the document, answer, wrap as Evidence."""

    def program(session: Session, args: Mapping[str, Any], ctx: Context) -> Steps:
        if problem := _document_problem(session, args):
            return _fail(session, problem)
        facts = yield from _facts(session, stage)
        if (
            is_successful(facts)
            and stage == "symbols"
            and program.__name__ in FROM_SYMBOLS
            and "procedures" not in facts.unwrap()
            and not any(s["kind"] == "function" and s["address"] for s in facts.unwrap()["symbols"])
        ):
            facts = yield from _facts(session, "cfg")  # stripped: no symbols to answer from, recover the CFG
        if not is_successful(facts):
            return _fail(session, facts.failure())
        snapshot = facts.unwrap()
        answered = answer(session, snapshot, args)
        if isinstance(answered, ReaError):
            return _fail(session, answered)
        result, confidence, limitations = answered
        return _evidence(
            session, snapshot, program.__name__, args, result, confidence=confidence, limitations=limitations
        )

    return program


def _page(items: list[Any], args: Mapping[str, Any], default: int) -> dict[str, Any]:
    page = paginate(items, args.get("offset", 0), args.get("limit", default))
    return {"items": list(page.items), **page.envelope()}


def _on_procedure(answer):
    """An answer about args["procedure"]: resolved first, or the canonical no-procedure error."""

    def resolved(session, snapshot, args):
        found = _procedure(snapshot, args["procedure"])
        return answer(session, snapshot, args, found.unwrap()) if is_successful(found) else found.failure()

    return resolved


def _on_address(answer):
    """An answer about args["address"]: normalized first, or the canonical not-an-address error."""

    def resolved(session, snapshot, args):
        address = _address(args["address"])
        return answer(session, snapshot, args, address.unwrap()) if is_successful(address) else address.failure()

    return resolved


# ------------------------------------------------------------- inventories


def _overview(session, snapshot, args):
    procs = q.procedures(snapshot)
    limit = args.get("limit", 10)
    functions = [p for p in procs if p["kind"] == "function"]
    entry = q.containing(snapshot, snapshot["entry"]) if snapshot.get("entry") else None
    result = {
        "document": session.target.name,
        "format": snapshot["format"],
        "architecture": snapshot["architecture"],
        "bits": snapshot["bits"],
        "endianness": snapshot["endianness"],
        "entry": snapshot["entry"],
        "entry_procedure": q.brief(entry),
        "pic": snapshot["pic"],
        "linked_base": snapshot["linked_base"],
        "stripped": snapshot["stripped"],
        "engine": snapshot["engine"],
        "counts": {
            "procedures": len(procs),
            "functions": len(functions),
            "thunks": sum(p["kind"] == "thunk" for p in procs),
            "imports": sum(p["kind"] == "external" for p in procs),
            "strings": len(snapshot["strings"]),
            "sections": len(snapshot["sections"]),
            "segments": len(snapshot["segments"]),
            "symbols": len(snapshot["symbols"]),
        },
        "largest_procedures": [
            {**q.brief(p), "size": p["size"]}
            for p in sorted(functions, key=lambda p: (-p["size"], p["address"]))[:limit]
        ],
        "imports": sorted({p["name"] for p in procs if p["kind"] == "external"})[
            : limit if args.get("detail", "concise") == "concise" else None
        ],
    }
    if args.get("detail") == "detailed":
        result["sections"] = snapshot["sections"]
        result["strings_sample"] = [{"address": s["address"], "value": s["value"]} for s in snapshot["strings"][:limit]]
    return result, "derived", ()


def _documents(session, snapshot, args):
    target = session.target
    return (
        {
            "documents": [
                {
                    "name": target.name,
                    "path": target.path,
                    "sha256": target.sha256,
                    "format": snapshot["format"],
                    "current": True,
                }
            ]
        },
        "observed",
        (),
    )


FROM_SYMBOLS = ("list_procedures", "list_names")
SYMBOLS_ONLY = (
    "Answered from the symbol table before CFG recovery: procedures without symbols, thunks and "
    "imports are not listed yet. binary_overview (or any CFG question) completes the inventory."
)


def _window(items: list[Any], args: Mapping[str, Any]) -> list[Any]:
    """The complete list (the reference's answer), or the slice offset/limit ask for."""
    end = None if args.get("limit") is None else args["offset"] + args["limit"]
    return items[args["offset"] : end]


def _procedure_row(p: Mapping[str, Any]) -> w.ProcedureRow:
    flags = w.ProcedureFlags(
        external=p["kind"] == "external",
        thunk=p["kind"] == "thunk",
        thunk_target=(p.get("callees") or [None])[0] if p["kind"] == "thunk" else None,
    )
    return w.ProcedureRow(address=p["address"], value=p["name"], procedure=flags, kind=p["kind"], size=p["size"])


def _procedure_rows(session, snapshot, args):
    if "procedures" not in snapshot:
        rows = [
            w.ProcedureRow(address=s["address"], value=s["name"], kind="function", size=s["size"])
            for s in snapshot["symbols"]
            if s["kind"] == "function" and s["address"]
        ]
        rows.sort(key=lambda r: int(r.address, 16))
        return _window(rows, args), "observed", (SYMBOLS_ONLY,)
    return _window([_procedure_row(p) for p in q.procedures(snapshot)], args), "derived", ()


SCANNED_ONLY = (
    "Strings scanned from the data sections before CFG recovery: which procedures reference them "
    "(referenced_by) is not known yet. binary_overview (or any CFG question) completes it."
)


def _string_rows(session, snapshot, args):
    scanned = "strings" not in snapshot
    rows = list(snapshot.get("scanned_strings", ())) if scanned else list(snapshot["strings"])
    if "address" in args:
        address = _address(args["address"])
        if not is_successful(address):
            return address.failure()
        rows = [s for s in rows if s["address"] == address.unwrap()]
    if scanned:
        return {**_page(rows, args, 100), "source": "data-sections"}, "observed", (SCANNED_ONLY,)
    return {**_page(rows, args, 100), "source": "cfg"}, "derived", ()


def _name_rows(session, snapshot, args):
    rows = q.names(snapshot)
    limitations = () if "procedures" in snapshot else (SYMBOLS_ONLY,)
    if "address" in args:
        address = _address(args["address"])
        if not is_successful(address):
            return address.failure()
        rows = [r for r in rows if r["address"] == address.unwrap()]
    return _page(rows, args, 100), "derived", limitations


def _segment_rows(session, snapshot, args):
    return {"items": snapshot["sections"] + snapshot["segments"]}, "observed", ()


@_on_address
def _address_name(session, snapshot, args, address):
    return {"address": address, "name": q.name_at(snapshot, address)}, "derived", ()


@_on_procedure
def _procedure_address(session, snapshot, args, p):
    return {"procedure": q.brief(p)}, "derived", ()


@_on_address
def _containing(session, snapshot, args, address):
    return {"address": address, "procedure": q.brief(q.containing(snapshot, address))}, "derived", ()


def _searcher(collection: str, field: str):
    def answer(session, snapshot, args):
        source = (
            snapshot[collection]
            if collection == "strings"
            else [{**q.brief(p), "size": p["size"]} for p in q.procedures(snapshot)]
        )
        found = q.search(source, field, args["pattern"], args.get("mode", "literal"), args.get("case_sensitive", False))
        if isinstance(found, str):
            return invalid_request(found, field="pattern", accepted="a valid Python regular expression")
        return _page(list(found), args, 100), "derived", ()

    return answer


@_on_procedure
def _info(session, snapshot, args, p):
    return (
        {
            "procedure": {
                **q.brief(p),
                "size": p["size"],
                "returning": p["returning"],
                "blocks": p["blocks"],
                "callers": len(p["callers"]),
                "callees": len(p["callees"]),
                "strings": q.strings_at(snapshot, p["strings"]),
            }
        },
        "derived",
        (),
    )


def _edges(edge: str):
    @_on_procedure
    def answer(session, snapshot, args, p):
        return {"procedure": q.brief(p), edge: q.related(snapshot, p[edge])}, "derived", ()

    return answer


@_on_procedure
def _references(session, snapshot, args, p):
    direction = args.get("direction", "outgoing")
    refs = q.outgoing(snapshot, p) if direction == "outgoing" else q.incoming(snapshot, p["address"])
    return {"procedure": q.brief(p), "direction": direction, **_page(refs, args, 100)}, "derived", ()


@_on_address
def _xrefs(session, snapshot, args, address):
    refs = q.incoming(snapshot, address)
    return {"address": address, "name": q.name_at(snapshot, address), "references": refs}, "derived", ()


def _xrefs_to_name(session, snapshot, args):
    targets = sorted(
        {r["address"] for r in q.names(snapshot) if r["name"] == args["name"] and r["address"]}
        | {p["address"] for p in q.procedures(snapshot) if p["name"] == args["name"]}
    )
    if not targets:
        return invalid_request(
            f"No symbol, import or procedure is named {args['name']!r}",
            field="name",
            accepted="an exact name from list_names or list_procedures",
        )
    return (
        {"name": args["name"], "targets": [{"address": t, "references": q.incoming(snapshot, t)} for t in targets]},
        "derived",
        (),
    )


def _graph(session, snapshot, args):
    found = _procedure(snapshot, args["address"], "address")
    if not is_successful(found):
        return found.failure()
    return q.call_graph(snapshot, found.unwrap(), args.get("depth", 2), args.get("direction", "forward")), "derived", ()


def _trace(session, snapshot, args):
    start = _procedure(snapshot, args["start"], "start")
    if not is_successful(start):
        return start.failure()
    goal = None
    if "goal" in args:
        resolved = _procedure(snapshot, args["goal"], "goal")
        if not is_successful(resolved):
            return resolved.failure()
        goal = resolved.unwrap()
    return (
        q.trace(
            snapshot,
            start.unwrap(),
            goal,
            args.get("direction", "forward"),
            args.get("max_depth", 5),
            args.get("max_nodes", 100),
        ),
        "derived",
        (),
    )


_HEADLESS = "angr runs headless: there is no cursor or selection, so this facet is unavailable (not empty)."


def _current_document(session, snapshot, args):
    return {"document": {"name": session.target.name, "path": session.target.path}}, "observed", ()


def _current_address(session, snapshot, args):
    return {"address": None, "available": False, "reason": _HEADLESS}, "observed", (_HEADLESS,)


def _current_procedure(session, snapshot, args):
    return {"procedure": None, "available": False, "reason": _HEADLESS}, "observed", (_HEADLESS,)


def _navigation(session, snapshot, args):
    return (
        {
            "document": {"name": session.target.name, "path": session.target.path},
            "current_address": {"available": False, "reason": _HEADLESS},
            "procedure": None,
            "modes": [
                {
                    "name": "current_selection",
                    "available": False,
                    "missing_operations": ["current_document", "current_address", "resolve_containing_procedure"],
                    "remediation": "Pass an explicit address to inspect_address_context instead.",
                },
                {"name": "explicit_document", "available": True, "missing_operations": [], "remediation": None},
            ],
        },
        "observed",
        (_HEADLESS,),
    )


@_on_address
def _address_context(session, snapshot, args, where):
    unavailable = {"available": False, "reason": "angr keeps no analyst comments or bookmarks."}
    return (
        {
            "address": where,
            "name": {"available": True, "value": q.name_at(snapshot, where)},
            "procedure": {"available": True, "value": q.brief(q.containing(snapshot, where))},
            "comment": unavailable,
            "inline_comment": unavailable,
            "bookmark": unavailable,
        },
        "derived",
        (),
    )


def _named(name: str, stage: str, answer):
    program = _with_facts(stage, answer)
    program.__name__ = name
    return program


# ------------------------------------------------------------ engine tools


def _cfg_procedure(
    session: Session, args: Mapping[str, Any]
) -> Generator[Effect, Any, Result[tuple[Mapping[str, Any], Mapping[str, Any]], ReaError]]:
    """The CFG snapshot and the procedure args["procedure"] names, or the reason neither exists."""
    if problem := _document_problem(session, args):
        return Failure(problem)
    facts = yield from _facts(session, "cfg")
    if not is_successful(facts):
        return facts
    snapshot = facts.unwrap()
    return _procedure(snapshot, args["procedure"]).map(lambda proc: (snapshot, proc))


def _engine_tool(
    name: str, op: str, build: Callable[[Mapping[str, Any], Mapping[str, Any], Any, Mapping[str, Any]], Any]
):
    """A tool that needs the live engine for one procedure."""

    def program(session: Session, args: Mapping[str, Any], ctx: Context) -> Steps:
        found = yield from _cfg_procedure(session, args)
        if not is_successful(found):
            return _fail(session, found.failure())
        snapshot, proc = found.unwrap()
        reply = yield from _ask(session, op, {"address": proc["address"]})
        if not is_successful(reply):
            return _fail(session, reply.failure())
        return _evidence(
            session,
            snapshot,
            name,
            args,
            build(snapshot, proc, reply.unwrap(), args),
            locations=({"kind": "address", "address": proc["address"]},),
        )

    program.__name__ = name
    return program


def _assembly_text(snapshot, proc, reply, args):
    lines = [f"{i['address']}: {i['mnemonic']} {i['operands']}".rstrip() for i in reply["instructions"]]
    return {"procedure": q.brief(proc), "assembly": "\n".join(lines), "instructions": len(lines)}


def _instruction_page(snapshot, proc, reply, args):
    return {"procedure": q.brief(proc), **_page(reply["instructions"], args, 64)}


def _pseudocode(snapshot, proc, reply, args):
    return reply["pseudocode"]


def batch_decompile(session: Session, args: Mapping[str, Any], ctx: Context) -> Steps:
    facts = yield from _facts(session, "cfg")
    if not is_successful(facts):
        return _fail(session, facts.failure())
    snapshot = facts.unwrap()
    rows = []
    for text in args["addresses"]:
        found = _procedure(snapshot, text, "addresses")
        if not is_successful(found):
            rows.append({"requested": text, "ok": False, "error": found.failure().record()})
            continue
        proc = found.unwrap()
        reply = yield from _ask(session, "decompile", {"address": proc["address"]})
        rows.append(
            {"requested": text, "ok": True, "procedure": q.brief(proc), "pseudocode": reply.unwrap()["pseudocode"]}
            if is_successful(reply)
            else {"requested": text, "ok": False, "procedure": q.brief(proc), "error": reply.failure().record()}
        )
    failed = sum(not r["ok"] for r in rows)
    return _evidence(
        session, snapshot, "batch_decompile", args, {"results": rows, "succeeded": len(rows) - failed, "failed": failed}
    )


def analyze_function(session: Session, args: Mapping[str, Any], ctx: Context) -> Steps:
    """The function dossier: every facet either observed or declared unavailable with its reason."""
    found = yield from _cfg_procedure(session, args)
    if not is_successful(found):
        return _fail(session, found.failure())
    snapshot, proc = found.unwrap()
    limit = args.get("limit", 100)
    availability: dict[str, dict[str, Any]] = {}
    dossier: dict[str, Any] = {"procedure": {**q.brief(proc), "size": proc["size"], "returning": proc["returning"]}}
    if proc["kind"] == "function":
        reply = yield from _ask(session, "decompile", {"address": proc["address"]})
        if is_successful(reply):
            text = reply.unwrap()["pseudocode"]
            cap = args.get("max_pseudocode_chars")
            dossier["pseudocode"] = text if cap is None else text[:cap]
            dossier["pseudocode_length"] = len(text)
            dossier["pseudocode_truncated"] = cap is not None and len(text) > cap
            availability["pseudocode"] = {"available": True}
        else:
            dossier["pseudocode"] = None
            availability["pseudocode"] = {"available": False, "reason": reply.failure().message}
    else:
        dossier["pseudocode"] = None
        availability["pseudocode"] = {"available": False, "reason": f"a {proc['kind']} has no body of its own"}
    if args.get("include_assembly", False) and proc["kind"] != "external":
        listing = yield from _ask(session, "disassemble", {"address": proc["address"]})
        if is_successful(listing):
            instructions = listing.unwrap()["instructions"]
            dossier["assembly"] = instructions[: args.get("max_instructions", 500)]
            dossier["assembly_total"] = len(instructions)
            availability["assembly"] = {"available": True}
        else:
            availability["assembly"] = {"available": False, "reason": listing.failure().message}
    else:
        availability["assembly"] = {
            "available": False,
            "reason": "not requested (include_assembly: false)"
            if proc["kind"] != "external"
            else "an import has no instructions here",
        }
    availability["comments"] = {"available": False, "reason": "angr keeps no analyst comments."}
    dossier["basic_blocks"] = proc["blocks"][:limit]
    dossier["callers"] = q.related(snapshot, proc["callers"])[:limit]
    dossier["callees"] = q.related(snapshot, proc["callees"])[:limit]
    dossier["references"] = {
        "incoming": q.incoming(snapshot, proc["address"])[:limit],
        "outgoing": q.outgoing(snapshot, proc)[:limit],
    }
    dossier["strings"] = q.strings_at(snapshot, proc["strings"])[:limit]
    dossier["names"] = [r for r in q.names(snapshot) if r["address"] == proc["address"]]
    for facet in ("callers", "callees", "references", "strings_names", "cfg"):
        availability[facet] = {"available": True}
    dossier["facet_availability"] = {k: availability[k] for k in FACETS}
    dossier["counts"] = {
        "basic_blocks": len(proc["blocks"]),
        "callers": len(proc["callers"]),
        "callees": len(proc["callees"]),
        "strings": len(proc["strings"]),
    }
    return _evidence(
        session,
        snapshot,
        "analyze_function",
        args,
        dossier,
        locations=({"kind": "address", "address": proc["address"]},),
    )


COMPARE_PROVIDER = Provider(id="rea-compare", name="REA function comparison", version="1")


def compare_functions(session: Session, args: Mapping[str, Any], ctx: Context) -> Outcome:
    sides = {}
    for side in ("left", "right"):
        inline, ids = args.get(side), args.get(f"{side}_evidence_ids")
        if (inline is None) == (ids is None):
            return _fail(
                session,
                invalid_request(
                    f"compare_functions needs exactly one of {side} and {side}_evidence_ids",
                    field=side,
                    accepted=f"{side}: inline analyze_function Evidence or a retained reference; or {side}_evidence_ids",
                ),
            )
        refs = [inline] if inline is not None else [{"kind": "retained-evidence", "evidence_id": i} for i in ids]
        resolved = []
        for index, ref in enumerate(refs):
            found = resolve(session, ref, side if inline is not None else f"{side}_evidence_ids[{index}]")
            if not is_successful(found):
                return _fail(session, found.failure())
            evidence = found.unwrap()
            if evidence.operation != "analyze_function":
                return _fail(
                    session,
                    invalid_request(
                        f"{side} is {evidence.operation} Evidence; compare_functions compares analyze_function dossiers",
                        field=side,
                        accepted="Evidence whose operation is analyze_function",
                    ),
                )
            resolved.append(evidence)
        sides[side] = resolved
    result = compare(sides["left"], sides["right"])
    created = create_evidence(
        provider=COMPARE_PROVIDER,
        operation="compare_functions",
        parameters={"left": result["left"]["evidence_ids"], "right": result["right"]["evidence_ids"]},
        normalized_result=result,
        confidence="derived",
        authority="analyst-inference",
        limitations=[RUNTIME_NOTICE],
        evidence_links=[*result["left"]["evidence_ids"], *result["right"]["evidence_ids"]],
    )
    if not is_successful(created):
        return _fail(session, created.failure())
    evidence = created.unwrap()
    retained = record(session, (*sides["left"], *sides["right"], evidence))
    return Outcome(session=retained, reply=Success(evidence.to_json()))


PROGRAMS: Mapping[str, Callable[..., Any]] = {
    "compare_functions": compare_functions,
    "binary_overview": _named("binary_overview", "cfg", _overview),
    "list_documents": _named("list_documents", "loader", _documents),
    "list_procedures": _named("list_procedures", "symbols", _procedure_rows),
    "list_strings": _named("list_strings", "symbols", _string_rows),
    "list_names": _named("list_names", "symbols", _name_rows),
    "list_segments": _named("list_segments", "loader", _segment_rows),
    "address_name": _named("address_name", "cfg", _address_name),
    "procedure_address": _named("procedure_address", "cfg", _procedure_address),
    "resolve_containing_procedure": _named("resolve_containing_procedure", "cfg", _containing),
    "search_procedures": _named("search_procedures", "cfg", _searcher("procedures", "name")),
    "search_strings": _named("search_strings", "cfg", _searcher("strings", "value")),
    "procedure_info": _named("procedure_info", "cfg", _info),
    "procedure_callers": _named("procedure_callers", "cfg", _edges("callers")),
    "procedure_callees": _named("procedure_callees", "cfg", _edges("callees")),
    "procedure_references": _named("procedure_references", "cfg", _references),
    "xrefs": _named("xrefs", "cfg", _xrefs),
    "find_xrefs_to_name": _named("find_xrefs_to_name", "cfg", _xrefs_to_name),
    "procedure_assembly": _engine_tool("procedure_assembly", "disassemble", _assembly_text),
    "read_function_instructions": _engine_tool("read_function_instructions", "disassemble", _instruction_page),
    "procedure_pseudo_code": _engine_tool("procedure_pseudo_code", "decompile", _pseudocode),
    "batch_decompile": batch_decompile,
    "analyze_function": analyze_function,
    "get_call_graph": _named("get_call_graph", "cfg", _graph),
    "trace_call_path": _named("trace_call_path", "cfg", _trace),
    "current_document": _named("current_document", "loader", _current_document),
    "current_address": _named("current_address", "loader", _current_address),
    "current_procedure": _named("current_procedure", "loader", _current_procedure),
    "get_navigation_context": _named("get_navigation_context", "loader", _navigation),
    "inspect_address_context": _named("inspect_address_context", "cfg", _address_context),
}
