"""Programs of the native analyses: trace_feature and inspect_native_api over the angr snapshot and
engine, build_call_path over the analyze_function Evidence the caller supplies."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from returns.result import Result, Success

from rea.effect_types import ToolProgram
from rea.errors import ReaError, invalid_request
from rea.evidence import Evidence, Provider, create_evidence
from rea.native import api, callpath, emulation, feature, subject, values
from rea.native import queries as q
from rea.native.programs import common as base
from rea.native.programs import engine, inventories
from rea.native.records.analyses import CallPathArgs, FeatureArgs, NativeApiArgs
from rea.native.records.emulation import EmulateArgs
from rea.native.records.values import TraceValuesArgs
from rea.program import Context, Outcome, ProgramCancelled, must, refusable, refuse, typed
from rea.session import Session, record, resolve
from rea.views.programs import deliver
from rea.wire.convert import to_wire

Args = Mapping[str, Any]
PATH_PROVIDER = Provider(id="rea-call-path", name="REA call path reconstruction", version="1")
STATIC = "Static call edges from the supplied dossiers; a path is possible control flow, never an observed run."


@typed
@refusable
def trace_feature(session: Session, args: FeatureArgs, ctx: Context) -> base.Steps:
    params = to_wire(args)
    snapshot = yield from base._facts(session, "index")
    return base._evidence(session, snapshot, "trace_feature", params, feature.trace(snapshot, params))


# ------------------------------------------------------------ build_call_path


def _dossiers(session: Session, args: Args) -> tuple[list[Evidence], dict[str, callpath.Dossier]]:
    """The supplied analyze_function Evidence and its dossiers by address (the program ends on a reference that
    does not resolve, a dossier of another tool, binary or provider, or two dossiers of one function)."""
    evidence: list[Evidence] = []
    dossiers: dict[str, callpath.Dossier] = {}
    for index, item in enumerate(args["functions"]):
        where = f"functions[{index}]"
        record_ = must(resolve(session, item, where))
        if record_.operation != "analyze_function":
            refuse(
                invalid_request(
                    f"{where} is {record_.operation} Evidence; build_call_path reads analyze_function dossiers",
                    field=where,
                    accepted="analyze_function Evidence, inline or as a retained reference",
                )
            )
        if evidence and (record_.subject, record_.provider) != (evidence[0].subject, evidence[0].provider):
            first, this = evidence[0], record_
            if (this.subject and this.subject.sha256) != (first.subject and first.subject.sha256):
                refuse(invalid_request("the dossiers mix binaries", field=where, accepted="dossiers of one binary"))
            if this.provider != first.provider:
                refuse(invalid_request("the dossiers mix providers", field=where, accepted="dossiers of one provider"))
        made = callpath.dossier(record_.evidence_id, record_.normalized_result)
        if isinstance(made, str):
            refuse(invalid_request(made, field=where, accepted="analyze_function Evidence"))
        if made.address in dossiers and dossiers[made.address].evidence_id != made.evidence_id:
            refuse(
                invalid_request(
                    f"two dossiers describe {made.address}", field=where, accepted="one dossier per function"
                )
            )
        dossiers[made.address] = made
        evidence.append(record_)
    return evidence, dossiers


def _endpoint(args: Args, name: str, dossiers: Mapping[str, callpath.Dossier]) -> Result[str, ReaError]:
    """args[name] as an entry address: written as one, or a name (or sub_<hex> name) of a supplied dossier's
    function or of one it calls (rea.native.subject, the one resolver)."""
    known: list[tuple[str, str | None]] = [(d.address, d.name) for d in dossiers.values()]
    known += [callee for d in dossiers.values() for callee in d.callees]
    return subject.among(known, str(args[name]["address"]), f"{name}.address")


@typed
@refusable
def build_call_path(session: Session, args: CallPathArgs, ctx: Context) -> Outcome:
    params = to_wire(args)
    sources, dossiers = _dossiers(session, params)
    start = must(_endpoint(params, "start", dossiers))
    goal = must(_endpoint(params, "goal", dossiers))
    if start not in dossiers:
        refuse(
            invalid_request(
                f"no analyze_function Evidence was supplied for start {start}",
                field="functions",
                accepted="include the start function's analyze_function Evidence",
            )
        )
    built = callpath.build(dossiers, start, goal, params)
    if isinstance(built, str):
        refuse(invalid_request(built, field="functions", accepted="fewer dossiers"))
    evidence = must(
        create_evidence(
            provider=PATH_PROVIDER,
            operation="build_call_path",
            parameters={
                **{k: v for k, v in params.items() if k != "functions"},
                "functions": list(built.evidence_links),
            },
            normalized_result=to_wire(built),
            confidence="derived",
            authority="analyst-inference",
            limitations=[STATIC],
            evidence_links=list(built.evidence_links),
            subject=sources[0].subject,
        )
    )
    return Outcome(session=record(session, (*sources, evidence)), reply=Success(evidence.to_json()))


# ------------------------------------------------------- inspect_native_api

# worker refusals that mean "no boundary here", answered as an unavailable boundary rather than an error
_NO_BOUNDARY = ("capability_unavailable", "execution_failure")


@typed
@refusable
def inspect_native_api(session: Session, args: NativeApiArgs, ctx: Context) -> base.Steps:
    params = to_wire(args)
    snapshot, proc = yield from engine._cfg_procedure(session, params)
    where = ({"kind": "address", "address": proc["address"]},)
    facts, reason, count = None, f"a {proc['kind']} has no body of its own here", 0
    if proc["kind"] == "function":
        listing = must((yield from engine._engine(session, snapshot, "disassemble", proc)))
        count = len(listing["instructions"])
        if count > args.max_instructions:
            reason = f"{count} instructions exceed max_instructions={args.max_instructions}"
        else:
            got = yield from engine._engine(session, snapshot, "boundary", proc)
            refused = got.swap().value_or(None)  # the worker's error, or None when it answered
            if refused is None:
                facts = got.unwrap()
            elif refused.code in _NO_BOUNDARY:
                reason = refused.message
            else:
                refuse(refused)
    result = api.answer(proc, facts, reason, count)
    return base._evidence(session, snapshot, "inspect_native_api", params, result, locations=where)


# ------------------------------------------------------ trace_native_values

# worker refusals that leave one procedure unknown rather than failing the trace
_NO_FLOW = ("capability_unavailable", "execution_failure", "invalid_request")


@typed
@refusable
def trace_native_values(session: Session, args: TraceValuesArgs, ctx: Context) -> base.Steps:
    """Each procedure's reaching definitions from the worker, retained as its own native_value_flow
    Evidence, then composed by the pure tracer across the calls the CFG resolved."""
    params = to_wire(args)
    snapshot, proc = yield from engine._cfg_procedure(session, params)
    binding, target = session.provider_binding, session.target
    assert binding is not None and target is not None
    tracer = values.Tracer(params, proc["address"], lambda address: q.find_procedure(snapshot, address))
    flows: list[Evidence] = []
    while (step := tracer.next()) is not None:
        address, depth = step
        got = yield from base._ask(session, "value_flow", _flow_params(snapshot, address))
        refused = got.swap().value_or(None)  # the worker's error, or None when it answered
        if refused is not None:
            if refused.code not in _NO_FLOW:
                refuse(refused)
            tracer.failed(address, refused.message)
            continue
        facts = values.flow(got.unwrap())
        made = must(
            base._record(
                session,
                snapshot,
                "native_value_flow",
                {"procedure": address},
                facts,
                locations=({"kind": "address", "address": address},),
            )
        )
        flows.append(made)
        tracer.add(address, depth, made.evidence_id, facts, binding["provider"]["id"], _digest(binding))
    created = must(
        base._record(
            session,
            snapshot,
            "trace_native_values",
            {k: v for k, v in params.items() if k != "detail"},  # delivery detail: the same Evidence either way
            tracer.answer(params.get("procedure") or params["address"], target.sha256),
            limitations=values.LIMITATIONS,
            locations=({"kind": "address", "address": proc["address"]},),
            evidence_links=tuple(dict.fromkeys(f.evidence_id for f in flows)),
        )
    )
    return deliver(record(session, flows), created, params.get("detail", "complete"))


def _flow_params(snapshot: base.Snapshot, address: str) -> dict[str, Any]:
    """On an indexed snapshot each procedure's flow comes from its own graph (the index gives its extent and
    its callees' names); otherwise from the whole-program CFG."""
    proc = q.find_procedure(snapshot, address)
    if not base._indexed(snapshot) or proc is None or not proc.get("size"):
        return {"address": address}
    return {"address": address, "size": proc["size"], "local": True, "names": engine._callee_names(snapshot, proc)}


def _digest(binding: Mapping[str, Any]) -> str | None:
    profile = binding.get("analysis_profile")
    return profile.get("digest") if isinstance(profile, Mapping) else None


# -------------------------------------------------- emulate_native_function


@typed
@refusable
def emulate_native_function(session: Session, args: EmulateArgs, ctx: Context) -> base.Steps:
    """One procedure, found through the fast index (never the whole-program CFG), run in the worker's
    emulator on the caller's arguments within the budget; how the run ended is part of the answer."""
    params = to_wire(args)
    arguments = must(emulation.parse_arguments(params["arguments"]))
    base._check_document(session, params)
    snapshot = yield from base._facts(session, "index", engine_ahead=True)
    found = base._chosen_procedure(snapshot, params)
    start = None if found.value_or(None) is not None else emulation.sub_address(params["procedure"])
    if start is not None:  # sub_<hex> of a named one
        snapshot, proc = yield from engine._cfg_procedure(session, {**params, "procedure": start})
    else:
        proc = must(found)
    if proc["kind"] == "external":
        refuse(
            invalid_request(
                f"{proc['name']} is an import: it has no body in this binary to emulate",
                field="procedure",
                accepted="a procedure with code in this binary (list_procedures with origin program)",
            )
        )
    stop_at = None if params.get("stop_at") is None else int(params["stop_at"], 16)
    limits = emulation.budget(params)
    request = {"address": proc["address"], **emulation.plan(arguments, limits, stop_at)}
    try:
        got = yield from base._ask(session, "emulate", request)
    except ProgramCancelled as stop:
        if not stop.partial:  # cancelled before the worker ran a block, or it could not answer: nothing to keep
            raise
        return _cancelled_run(session, snapshot, proc, params, limits, stop.partial, str(stop))
    result = emulation.answer(proc, must(got), limits, _name_of(snapshot))
    where = ({"kind": "address", "address": proc["address"]},)
    return base._evidence(
        session, snapshot, "emulate_native_function", params, result, limitations=emulation.LIMITATIONS, locations=where
    )


def _name_of(snapshot: base.Snapshot) -> Any:
    index = q.by_address(snapshot)

    def name_of(address: str) -> str | None:
        known = index.get(address)
        return None if known is None else str(known["name"])

    return name_of


def _cancelled_run(
    session: Session, snapshot: base.Snapshot, proc: Args, args: Args, limits: Any, facts: Args, phase: str
) -> Outcome:
    """A run the client cancelled, stopped between blocks by the worker (which lives on): its observations
    retained as partial Evidence (status cancelled), named in the cancelled error's details.partial_observation."""
    result = emulation.answer(proc, facts, limits, _name_of(snapshot))
    where = ({"kind": "address", "address": proc["address"]},)
    created = base._record(
        session,
        snapshot,
        "emulate_native_function",
        args,
        result,
        limitations=emulation.LIMITATIONS,
        locations=where,
    )
    evidence = created.value_or(None)
    if evidence is None:  # nothing could be recorded: the cancel goes on as it came
        raise ProgramCancelled(phase)
    return inventories.kept_cancelled(
        session,
        evidence,
        phase,
        f"emulate_native_function was cancelled after {result.budgets.steps.used} blocks; the worker lives on.",
        "Read the partial run (status cancelled, coverage partial), or emulate again with a smaller budget.",
    )


PROGRAMS: Mapping[str, ToolProgram] = {
    "emulate_native_function": emulate_native_function,
    "trace_native_values": trace_native_values,
    "inspect_native_api": inspect_native_api,
    "trace_feature": trace_feature,
    "build_call_path": build_call_path,
}
