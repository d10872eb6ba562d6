"""The reactive machine of capture_process_scenario, pure: a machine declared in the reference's shape
(rea.process_capture.reactive_records.Machine) is checked and compiled once, then driven by `step` over
the observations of the live run (effects.process_capture.reactive_driver feeds them and performs the
actions it answers).

Observations are one append-only log in capture order: terminal reads (`terminal_raw`, each with the
decoded text it added to the terminal text), dispatched interactions (`interaction`), the root's exit
(`lifecycle`) and checkpoints taken (`filesystem`). A position in it is a Cursor: the next observation
index and the next terminal-text offset, so a trigger that follows another (sequence, repeat, since)
only sees what came after it, and a consumed match is never matched again.

`step` fires at most one transition per call: among the active state's transitions that have uses left
and whose goto target has visits left, the ones whose trigger holds; the highest priority wins, a tie is
`ambiguous_match`. Without a candidate the machine ends on the root's exit (`target_lost`), on its state's
deadline (`predicate_timeout`) or on its own deadline (`scenario_deadline`). It is bounded: at most
MAX_TRANSITIONS transitions (then `capture_incomplete`), and a trigger's evaluation cost is refused past
MAX_COST when the machine is checked, so a step never scans without end.
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping, Sequence
from typing import Any, Literal

import attrs
from returns.result import Failure, Result, Success

from rea.errors import ReaError, invalid_request
from rea.process_capture.reactive_records import (
    Action,
    CheckpointAction,
    ControlKind,
    Goto,
    Machine,
    Outcome,
    ReactiveControl,
    ReactiveRun,
    ReactiveTransition,
    SendSignal,
)

MAX_TRANSITIONS = 128
MAX_IDS = 64
MAX_COST = 1024  # leaf evaluations per trigger: a repeat multiplies its trigger's cost by its max
MAX_DEPTH = 8
OBSERVED = ("terminal_raw", "interaction", "lifecycle", "filesystem")


@attrs.frozen(kw_only=True)
class Observation:
    id: str  # frame.N, interaction.N, lifecycle.N, checkpoint.N: indexes into the capture's own lists
    source: Literal["terminal_raw", "interaction", "lifecycle", "filesystem"]
    at_ms: int
    record: Mapping[str, Any]  # what an event trigger's `exact` is compared with
    text_at: int  # terminal-text length before it
    text_end: int  # and after it (only a terminal read adds text)


@attrs.frozen(order=True)
class Cursor:
    obs: int
    text: int


@attrs.frozen(kw_only=True)
class Since:
    kind: str
    name: str = ""


@attrs.frozen(kw_only=True)
class TextLeaf:
    literal: str
    occurrence: int
    since: Since
    consume: bool


@attrs.frozen(kw_only=True)
class EventLeaf:
    source: str
    exact: Any
    ignore: frozenset[str]
    since: Since
    consume: bool
    low: int
    high: int


@attrs.frozen(kw_only=True)
class Group:
    kind: Literal["all", "any", "sequence"]
    parts: tuple[Predicate, ...]


@attrs.frozen(kw_only=True)
class Repeat:
    part: Predicate
    low: int
    high: int


Predicate = TextLeaf | EventLeaf | Group | Repeat


@attrs.frozen(kw_only=True)
class Step:
    id: str
    priority: int
    max_uses: int
    when: Predicate
    actions: tuple[Action, ...]
    goto: str | None  # None: finish passed


@attrs.frozen(kw_only=True)
class Node:
    id: str
    max_visits: int
    deadline_ms: int
    on: tuple[Step, ...]


@attrs.frozen(kw_only=True)
class Compiled:
    initial: str
    deadline_ms: int
    states: Mapping[str, Node]


@attrs.frozen(kw_only=True)
class MachineState:
    state: str
    entered_ms: int
    entry: Cursor
    visits: Mapping[str, int]
    uses: Mapping[str, int]  # "state/transition" -> times fired
    consumed_text: int
    consumed_events: frozenset[int]
    transitions: tuple[ReactiveTransition, ...]
    controls: tuple[tuple[ControlKind, int], ...]  # (kind, at_ms)
    outcome: Outcome | None


@attrs.frozen(kw_only=True)
class Fired:
    sequence: int
    actions: tuple[Action, ...]


@attrs.frozen(kw_only=True)
class _Match:
    end: Cursor
    ids: tuple[str, ...]
    text_consumed: int
    events_consumed: frozenset[int]


@attrs.frozen(kw_only=True)
class _View:
    log: Sequence[Observation]
    text: str
    entry: Cursor
    consumed_text: int
    consumed_events: frozenset[int]


# ---- parsing and checking -------------------------------------------------------------------------------


def _since(raw: Any) -> Since:
    raw = raw if isinstance(raw, Mapping) else {}
    return Since(kind=str(raw.get("kind", "scenario_start")), name=str(raw.get("name", raw.get("event_id", ""))))


def parse(raw: Any) -> Predicate:
    """A `when` that passed PREDICATE_SCHEMA as a Predicate (defensive: anything else never matches)."""
    raw = raw if isinstance(raw, Mapping) else {}
    kind = raw.get("kind")
    if kind == "terminal_text":
        return TextLeaf(literal=str(raw.get("literal") or "\0"), occurrence=max(1, int(raw.get("occurrence", 1))),
                        since=_since(raw.get("since")), consume=bool(raw.get("consume")))  # fmt: skip
    if kind in ("all", "any", "sequence"):
        parts = raw.get("triggers")
        return Group(kind=kind, parts=tuple(parse(p) for p in (parts if isinstance(parts, list) else [])))
    if kind == "repeat":
        return Repeat(part=parse(raw.get("trigger")), low=max(1, int(raw.get("min", 1))), high=int(raw.get("max", 1)))
    card = raw.get("cardinality") if isinstance(raw.get("cardinality"), Mapping) else {}
    ignore = raw.get("ignore_fields")
    return EventLeaf(source=str(raw.get("source", "")), exact=raw.get("exact"),
                     ignore=frozenset(str(i) for i in (ignore if isinstance(ignore, list) else [])),
                     since=_since(raw.get("since")), consume=bool(raw.get("consume")),
                     low=max(1, int(card.get("min", 1))), high=int(card.get("max", 1)))  # fmt: skip


def cost(p: Predicate) -> int:
    """Leaf evaluations one match attempt may take."""
    if isinstance(p, Group):
        return sum(cost(q) for q in p.parts)
    if isinstance(p, Repeat):
        return p.high * cost(p.part)
    return 1


def _depth(raw: Any) -> int:
    if not isinstance(raw, Mapping):
        return 0
    listed = raw.get("triggers")
    subs: list[Any] = listed if isinstance(listed, list) else [raw.get("trigger")]
    return 1 + max((_depth(s) for s in subs), default=0)


def _leaf_problem(p: Predicate, names: frozenset[str]) -> str | None:
    since = p.since if isinstance(p, (TextLeaf, EventLeaf)) else None
    if since is not None and since.kind == "checkpoint" and since.name not in names:
        return f"since names checkpoint {since.name!r}, which no checkpoint or checkpoint action declares"
    if isinstance(p, EventLeaf):
        if p.source not in OBSERVED:
            return f"source {p.source!r} is not observed by this build (observed: {', '.join(OBSERVED)})"
        if p.low > p.high:
            return f"cardinality min {p.low} is above max {p.high}"
    if isinstance(p, Repeat) and p.low > p.high:
        return f"repeat min {p.low} is above max {p.high}"
    parts = p.parts if isinstance(p, Group) else (p.part,) if isinstance(p, Repeat) else ()
    return next((found for q in parts if (found := _leaf_problem(q, names)) is not None), None)


def _when_problem(raw: Any, names: frozenset[str]) -> str | None:
    if _depth(raw) > MAX_DEPTH:
        return f"the trigger nests deeper than {MAX_DEPTH} levels"
    pred = parse(raw)
    if cost(pred) > MAX_COST:
        return (
            f"the trigger costs {cost(pred)} evaluations per attempt (repeat max times its trigger), above {MAX_COST}"
        )
    return _leaf_problem(pred, names)


def _action_problem(action: Action) -> str | None:
    if isinstance(action, SendSignal) and action.target.kind == "subject_id":
        return "this build has no subjects to signal: target root or process_group"
    return None


def _refusal(where: str, message: str) -> ReaError:
    return invalid_request(
        f"{where}: {message}", field=where, accepted="a machine as docs/process_capture.md describes"
    )


def _state_problem(i: int, state: Any, ids: set[str], names: frozenset[str]) -> tuple[str, str] | None:
    """The first (field, problem) of one state's transitions, if any."""
    seen: set[str] = set()
    for j, t in enumerate(state.on):
        at = f"reactive.states[{i}].on[{j}]"
        if t.id in seen:
            return f"{at}.id", f"transition {t.id!r} is declared twice in state {state.id!r}"
        seen.add(t.id)
        if isinstance(t.target, Goto) and t.target.state not in ids:
            return f"{at}.target.state", f"no state {t.target.state!r} (states: {', '.join(sorted(ids))})"
        for k, action in enumerate(t.actions):
            if (problem := _action_problem(action)) is not None:
                return f"{at}.actions[{k}].target", problem
        if (problem := _when_problem(t.when, names)) is not None:
            return f"{at}.when", problem
    return None


def compile_machine(machine: Machine, checkpoint_names: frozenset[str]) -> Result[Compiled, ReaError]:
    """The machine, checked beyond its schema: unique ids, known targets, observed sources, bounded triggers."""
    ids: set[str] = set()
    for i, state in enumerate(machine.states):
        if state.id in ids:
            return Failure(_refusal(f"reactive.states[{i}].id", f"state {state.id!r} is declared twice"))
        ids.add(state.id)
    if machine.initial_state not in ids:
        return Failure(_refusal("reactive.initial_state", f"no state {machine.initial_state!r}"))
    names = checkpoint_names | {a.name for s in machine.states for t in s.on for a in t.actions
                                if isinstance(a, CheckpointAction)}  # fmt: skip
    for i, state in enumerate(machine.states):
        if (found := _state_problem(i, state, ids, names)) is not None:
            return Failure(_refusal(*found))
    nodes = {
        s.id: Node(id=s.id, max_visits=s.max_visits, deadline_ms=s.deadline_ms,
                   on=tuple(Step(id=t.id, priority=t.priority, max_uses=t.max_uses, when=parse(t.when),
                                 actions=t.actions, goto=t.target.state if isinstance(t.target, Goto) else None)
                            for t in s.on))
        for s in machine.states
    }  # fmt: skip
    return Success(Compiled(initial=machine.initial_state, deadline_ms=machine.deadline_ms, states=nodes))


# ---- matching -------------------------------------------------------------------------------------------


def _find(log: Sequence[Observation], ident: str) -> int | None:
    return next((i for i, o in enumerate(log) if o.id == ident), None)


def _start(since: Since, view: _View) -> Cursor | None:
    """Where a leaf's `since` lets it look from; None while what it names has not happened."""
    if since.kind == "state_entry":
        return view.entry
    if since.kind == "checkpoint":
        taken = [i for i, o in enumerate(view.log) if o.source == "filesystem" and o.record.get("name") == since.name]
        return Cursor(taken[-1] + 1, view.log[taken[-1]].text_end) if taken else None
    if since.kind == "event_id":
        found = _find(view.log, since.name)
        return None if found is None else Cursor(found + 1, view.log[found].text_end)
    return Cursor(0, 0)


def _frame_at(view: _View, offset: int) -> int:
    """The index of the terminal read that added the character at `offset`."""
    return max(0, bisect.bisect_right(view.log, offset, key=lambda o: o.text_at) - 1)


def _text(p: TextLeaf, cur: Cursor, view: _View) -> _Match | None:
    start = _start(p.since, view)
    if start is None:
        return None
    at = max(cur.text, start.text, view.consumed_text)
    first = -1
    for _ in range(p.occurrence):
        found = view.text.find(p.literal, at)
        if found < 0:
            return None
        first = found if first < 0 else first
        at = found + len(p.literal)
    a, b = _frame_at(view, first), _frame_at(view, at - 1)
    ids = tuple(o.id for o in view.log[a : b + 1] if o.source == "terminal_raw")[-MAX_IDS:]
    return _Match(end=Cursor(max(b + 1, cur.obs), at), ids=ids, text_consumed=at if p.consume else 0,
                  events_consumed=frozenset())  # fmt: skip


def _fits(o: Observation, p: EventLeaf) -> bool:
    if o.source != p.source or not isinstance(p.exact, Mapping):
        return False
    return {k: v for k, v in o.record.items() if k not in p.ignore} == dict(p.exact)


def _event(p: EventLeaf, cur: Cursor, view: _View) -> _Match | None:
    start = _start(p.since, view)
    if start is None:
        return None
    hits = [i for i in range(max(cur.obs, start.obs), len(view.log))
            if i not in view.consumed_events and _fits(view.log[i], p)]  # fmt: skip
    if not p.low <= len(hits) <= p.high:
        return None
    last = view.log[hits[-1]]
    return _Match(end=Cursor(hits[-1] + 1, max(cur.text, last.text_end)), ids=tuple(view.log[i].id for i in hits),
                  text_consumed=0, events_consumed=frozenset(hits) if p.consume else frozenset())  # fmt: skip


def _join(matches: Sequence[_Match]) -> _Match:
    ids = tuple(dict.fromkeys(i for m in matches for i in m.ids))[-MAX_IDS:]
    return _Match(end=max(m.end for m in matches), ids=ids, text_consumed=max(m.text_consumed for m in matches),
                  events_consumed=frozenset().union(*(m.events_consumed for m in matches)))  # fmt: skip


def _chain(parts: Sequence[Predicate], cur: Cursor, view: _View) -> list[_Match] | None:
    found = []
    for part in parts:
        m = match(part, cur, view)
        if m is None:
            return None
        found.append(m)
        cur = m.end
    return found


def match(p: Predicate, cur: Cursor, view: _View) -> _Match | None:
    """Whether `p` holds on what the log holds from `cur` on, and what it matched."""
    if isinstance(p, TextLeaf):
        return _text(p, cur, view)
    if isinstance(p, EventLeaf):
        return _event(p, cur, view)
    if isinstance(p, Repeat):
        found: list[_Match] = []
        while len(found) < p.high and (m := match(p.part, found[-1].end if found else cur, view)) is not None:
            found.append(m)
        return _join(found) if len(found) >= p.low else None
    if p.kind == "sequence":
        chained = _chain(p.parts, cur, view)
        return _join(chained) if chained else None
    if p.kind == "any":
        return next((m for q in p.parts if (m := match(q, cur, view)) is not None), None)
    every = [match(q, cur, view) for q in p.parts]
    return _join([m for m in every if m is not None]) if every and all(m is not None for m in every) else None


# ---- stepping -------------------------------------------------------------------------------------------


def start(machine: Compiled) -> MachineState:
    return MachineState(state=machine.initial, entered_ms=0, entry=Cursor(0, 0), visits={machine.initial: 1},
                        uses={}, consumed_text=0, consumed_events=frozenset(), transitions=(), controls=(),
                        outcome=None)  # fmt: skip


def finish(st: MachineState, outcome: Outcome, control: ControlKind | None, at_ms: int) -> MachineState:
    """The machine ended (a no-op when it already had)."""
    if st.outcome is not None:
        return st
    controls = st.controls + (((control, at_ms),) if control is not None else ())
    return attrs.evolve(st, outcome=outcome, controls=controls)


def _candidates(machine: Compiled, st: MachineState, view: _View) -> list[tuple[Step, _Match]]:
    out = []
    for t in machine.states[st.state].on:
        if st.uses.get(f"{st.state}/{t.id}", 0) >= t.max_uses:
            continue
        if t.goto is not None and st.visits.get(t.goto, 0) >= machine.states[t.goto].max_visits:
            continue
        m = match(t.when, Cursor(0, 0), view)
        if m is not None:
            out.append((t, m))
    return out


def _fire(st: MachineState, t: Step, m: _Match, log_len: int, text_len: int, now_ms: int) -> MachineState:
    record = ReactiveTransition(sequence=len(st.transitions), transition_id=t.id, state_before=st.state,
                                trigger_event_ids=m.ids, action_event_ids=(),
                                action_types=tuple(a.type for a in t.actions), state_after=t.goto,
                                outcome=None if t.goto else "passed")  # fmt: skip
    key = f"{st.state}/{t.id}"
    fired = attrs.evolve(st, uses={**st.uses, key: st.uses.get(key, 0) + 1}, transitions=st.transitions + (record,),
                         consumed_text=max(st.consumed_text, m.text_consumed),
                         consumed_events=st.consumed_events | m.events_consumed)  # fmt: skip
    if t.goto is None:
        return attrs.evolve(fired, outcome="passed")
    return attrs.evolve(fired, state=t.goto, entered_ms=now_ms, entry=Cursor(log_len, text_len),
                        visits={**st.visits, t.goto: st.visits.get(t.goto, 0) + 1})  # fmt: skip


def step(
    machine: Compiled,
    st: MachineState,
    log: Sequence[Observation],
    text: str,
    now_ms: int,
    exited: bool,
    fresh: bool = True,
) -> tuple[MachineState, Fired | None]:
    """At most one transition on what the log holds at `now_ms` (exited: the root's exit is in the log and
    nothing more will come), or the end the machine reached without one. `fresh` False says nothing was
    observed since the last step with the same state (a trigger cannot have come to hold): only the deadlines
    are checked."""
    if st.outcome is not None:
        return st, None
    if len(st.transitions) >= MAX_TRANSITIONS:
        return finish(st, "capture_incomplete", None, now_ms), None
    view = _View(log=log, text=text, entry=st.entry, consumed_text=st.consumed_text,
                 consumed_events=st.consumed_events)  # fmt: skip
    found = _candidates(machine, st, view) if fresh or exited else []
    if found:
        top = max(t.priority for t, _ in found)
        best = [(t, m) for t, m in found if t.priority == top]
        if len(best) > 1:
            return finish(st, "ambiguous_match", None, now_ms), None
        t, m = best[0]
        after = _fire(st, t, m, len(log), len(text), now_ms)
        return after, Fired(sequence=len(st.transitions), actions=t.actions)
    if exited:
        return finish(st, "target_lost", "target_lost", now_ms), None
    if now_ms - st.entered_ms >= machine.states[st.state].deadline_ms:
        return finish(st, "predicate_timeout", "state_deadline", now_ms), None
    if now_ms >= machine.deadline_ms:
        return finish(st, "scenario_deadline", "scenario_deadline", now_ms), None
    return st, None


def attach(st: MachineState, sequence: int, ids: tuple[str, ...]) -> MachineState:
    """The ids of what a fired transition's actions made, once the driver performed them."""
    rows = tuple(attrs.evolve(t, action_event_ids=ids[:16]) if t.sequence == sequence else t for t in st.transitions)
    return attrs.evolve(st, transitions=rows)


def report(st: MachineState, order_after: Mapping[int, int] | None = None) -> ReactiveRun:
    """The reactive_run result; `order_after` maps a control's time to the journal entry it followed."""
    order = order_after or {}
    controls = tuple(ReactiveControl(sequence=i, kind=kind, after_capture_order=order.get(at, -1))
                     for i, (kind, at) in enumerate(st.controls))  # fmt: skip
    return ReactiveRun(status="finished" if st.outcome else "running", outcome=st.outcome, active_state=st.state,
                       controls=controls, transitions=st.transitions)  # fmt: skip
