"""Hypothesis laws of the pure reactive machine (rea.process_capture.reactive) over any machine that passes the
schema and any observation log: checking and stepping never raise; stepping is deterministic; a machine
always ends (at most MAX_TRANSITIONS transitions, finished by its deadline or by the root's exit); what it
reports fits the advertised result schema."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from returns.pipeline import is_successful

from rea.process_capture.reactive import MAX_TRANSITIONS, Observation, compile_machine, report, start, step
from rea.process_capture.reactive_records import PREDICATE_SCHEMA, Machine, ReactiveRun
from rea.validation import first_schema_error
from rea.wire.convert import structure, to_wire
from rea.wire.schema import Role, schema_of

WORDS = st.sampled_from(["ok", "Name? ", "> ", "done"])
SINCE = st.one_of(
    st.just({"kind": "scenario_start"}),
    st.just({"kind": "state_entry"}),
    st.just({"kind": "checkpoint", "name": "cp"}),
    st.builds(lambda n: {"kind": "event_id", "event_id": n}, st.sampled_from(["frame.0", "frame.3", "lifecycle.0"])),
)
TEXT = st.builds(
    lambda lit, n, since, consume: {"kind": "terminal_text", "view": "decoded", "encoding": "utf8", "literal": lit,
                                    "case_sensitive": True, "control_sequences": "include", "occurrence": n,
                                    "since": since, "consume": consume},  # fmt: skip
    WORDS, st.integers(1, 3), SINCE, st.booleans(),
)  # fmt: skip
EVENT = st.builds(
    lambda source, exact, since, consume, lo, more: {"kind": "event", "source": source, "exact": exact,
                                                     "ignore_fields": ["at_ms"], "since": since, "consume": consume,
                                                     "cardinality": {"min": lo, "max": lo + more}},  # fmt: skip
    st.sampled_from(["lifecycle", "interaction", "filesystem", "terminal_raw"]),
    st.sampled_from([{"kind": "root_exit", "code": 0, "signal": None}, {"name": "cp"}, {}]),
    SINCE, st.booleans(), st.integers(1, 2), st.integers(0, 2),
)  # fmt: skip
PREDICATES = st.recursive(
    st.one_of(TEXT, TEXT, EVENT),
    lambda inner: st.one_of(
        st.builds(
            lambda k, ts: {"kind": k, "triggers": ts},
            st.sampled_from(["all", "any", "sequence"]),
            st.lists(inner, min_size=2, max_size=3),
        ),  # fmt: skip
        st.builds(
            lambda t, lo, more: {"kind": "repeat", "trigger": t, "min": lo, "max": lo + more},
            inner,
            st.integers(1, 3),
            st.integers(0, 2),
        ),  # fmt: skip
    ),
    max_leaves=6,
)
ACTIONS = st.lists(
    st.one_of(
        st.just({"type": "send_input", "data": "y\n", "sensitive": False}),
        st.just({"type": "close_stdin"}),
        st.just({"type": "checkpoint", "name": "cp"}),
        st.just({"type": "send_signal", "signal": "SIGINT", "target": {"kind": "process_group"}}),
    ),
    max_size=2,
)


def _transition(draw: Any, ident: str, ids: list[str]) -> dict[str, Any]:
    goto = draw(st.one_of(st.none(), st.sampled_from(ids)))
    target = {"kind": "finish", "outcome": "passed"} if goto is None else {"kind": "goto", "state": goto}
    return {"id": ident, "priority": draw(st.integers(0, 2)), "max_uses": draw(st.integers(1, 3)),
            "when": draw(PREDICATES), "actions": draw(ACTIONS), "target": target}  # fmt: skip


@st.composite
def machines(draw: Any) -> dict[str, Any]:
    """Machines whose ids are unique and whose targets are declared (most of them compile), and a few with an
    unknown target (which are refused)."""
    ids = ["a", "b", "c", "d"][: draw(st.integers(1, 4))]
    known = ids + draw(st.lists(st.just("zz"), max_size=1))
    states = [{"id": i, "max_visits": draw(st.integers(1, 4)), "deadline_ms": draw(st.integers(1, 500)),
               "on": [_transition(draw, f"t{n}", known) for n in range(draw(st.integers(1, 3)))]}
              for i in ids]  # fmt: skip
    return {"version": 1, "initial_state": draw(st.sampled_from(ids)), "deadline_ms": draw(st.integers(1, 1000)),
            "states": states}  # fmt: skip


MACHINES = machines()
LOGS = st.lists(
    st.one_of(
        st.tuples(st.just("terminal_raw"), st.lists(WORDS, min_size=1, max_size=4).map("".join)),
        st.tuples(st.just("terminal_raw"), st.lists(WORDS, min_size=1, max_size=4).map("".join)),
        st.tuples(st.sampled_from(["interaction", "filesystem"]), st.just("")),
    ),
    max_size=20,
)
MACHINE_SCHEMA = schema_of(Machine, Role.INPUT)
RUN_SCHEMA = schema_of(ReactiveRun, Role.OUTPUT)
RECORDS = {
    "interaction": {"sequence": 0, "type": "input", "data": "y\n", "outcome": "dispatched"},
    "filesystem": {"name": "cp"},
    "lifecycle": {"kind": "root_exit", "code": 0, "signal": None},
}


def _passes_schema(raw: dict[str, Any]) -> bool:
    if first_schema_error(MACHINE_SCHEMA, raw) is not None:
        return False
    return all(first_schema_error(PREDICATE_SCHEMA, t["when"]) is None for s in raw["states"] for t in s["on"])


def _log(entries: list[tuple[str, str]]) -> tuple[list[Observation], str]:
    log, text, counts = [], "", {}
    for i, (source, added) in enumerate(entries):
        n = counts.get(source, 0)
        counts[source] = n + 1
        ident = {"terminal_raw": "frame", "filesystem": "checkpoint"}.get(source, source) + f".{n}"
        record = (
            {"sequence": n, "at_ms": i, "data": added} if source == "terminal_raw" else {**RECORDS[source], "at_ms": i}
        )
        log.append(Observation(id=ident, source=source, at_ms=i, record=record, text_at=len(text),  # type: ignore[arg-type]
                               text_end=len(text) + len(added)))  # fmt: skip
        text += added
    return log, text


def _drive(raw: dict[str, Any], entries: list[tuple[str, str]]) -> list[Any]:
    """Feed the log one observation at a time (10 ms apart), then the exit; every state the machine passed."""
    compiled = compile_machine(structure(raw, Machine).unwrap(), frozenset({"cp"}))
    if not is_successful(compiled):
        return [compiled.failure().details["field"]]
    machine = compiled.unwrap()
    log, text = _log([*entries, ("lifecycle", "")])  # the root's exit comes last
    state, seen = start(machine), []
    for n in range(len(log)):
        for _ in range(MAX_TRANSITIONS + 2):
            state, fired = step(machine, state, log[:n], text[: log[n - 1].text_end if n else 0], 10 * n, False)
            seen.append(state)
            if fired is None:
                break
        else:
            raise AssertionError("a step loop did not settle")
    for _ in range(MAX_TRANSITIONS + 2):
        state, fired = step(machine, state, log, text, 10 * len(log) + 1, True)
        seen.append(state)
        if fired is None:
            break
    return seen


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(MACHINES, LOGS)
def test_checking_and_stepping_never_raise_are_deterministic_and_always_end(raw, entries):
    if not _passes_schema(raw):
        return
    first = _drive(raw, entries)
    assert first == _drive(raw, entries)  # deterministic
    if isinstance(first[0], str):  # refused: the refusal names a field of the machine
        assert first[0].startswith("reactive.")
        return
    last = first[-1]
    assert last.outcome is not None  # the root's exit ends every machine
    assert len(last.transitions) <= MAX_TRANSITIONS
    assert [t.sequence for t in last.transitions] == list(range(len(last.transitions)))
    ids = {s["id"] for s in raw["states"]}
    assert all(s.state in ids for s in first)
    consumed = [s.consumed_text for s in first]
    assert consumed == sorted(consumed)  # consumption never goes back
    assert first_schema_error(RUN_SCHEMA, to_wire(report(last))) is None


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(MACHINES)
def test_a_machine_that_sees_nothing_ends_by_its_deadlines(raw):
    if not _passes_schema(raw):
        return
    compiled = compile_machine(structure(raw, Machine).unwrap(), frozenset({"cp"}))
    if not is_successful(compiled):
        return
    machine = compiled.unwrap()
    state, _ = step(machine, start(machine), [], "", 300_001, False)
    assert state.outcome in ("predicate_timeout", "scenario_deadline") and len(state.controls) == 1


@settings(max_examples=80, deadline=None)
@given(LOGS)
def test_a_consuming_self_loop_answers_each_occurrence_exactly_once(entries):
    when = {"kind": "terminal_text", "view": "decoded", "encoding": "utf8", "literal": "ok", "case_sensitive": True,
            "control_sequences": "include", "occurrence": 1, "since": {"kind": "scenario_start"}, "consume": True}  # fmt: skip
    loop = {
        "id": "t",
        "priority": 0,
        "max_uses": 256,
        "when": when,
        "actions": [],
        "target": {"kind": "goto", "state": "a"},
    }
    raw = {"version": 1, "initial_state": "a", "deadline_ms": 300_000,
           "states": [{"id": "a", "max_visits": 256, "deadline_ms": 300_000, "on": [loop]}]}  # fmt: skip
    assert _passes_schema(raw)
    last = _drive(raw, entries)[-1]
    text = "".join(added for source, added in entries if source == "terminal_raw")
    assert len(last.transitions) == min(text.count("ok"), MAX_TRANSITIONS)
    assert last.outcome == ("capture_incomplete" if text.count("ok") >= MAX_TRANSITIONS else "target_lost")
