"""The live side of a capture's checkpoints and reactive machine: the runner's poll loop hands each poll to
`Live.poll`, which turns what the run observed since the last poll into observations (rea.process_capture
.reactive.Observation), takes the checkpoints that came due (a snapshot of the roots, off the event loop),
steps the pure machine and performs the actions it answers on the run's terminal and group. Deciding is the
pure machine's; this module only observes and acts.

Observation ids index the capture's own lists: `frame.N` (frames), `interaction.N` (interaction_events, the
machine's actions included), `checkpoint.N` (filesystem_checkpoints, before being 0), `lifecycle.0` (the
root's exit).
"""

from __future__ import annotations

import codecs
import os
import signal
from typing import Any, Literal

import anyio

from effects.process_capture.snapshot import snapshot
from rea.process_capture import checkpoints as planned
from rea.process_capture.effects import Dispatched, RunScenario, Snapshot, Taken
from rea.process_capture.reactive import (
    MAX_TRANSITIONS,
    Compiled,
    MachineState,
    Observation,
    attach,
    finish,
    start,
    step,
)
from rea.process_capture.reactive_records import (
    Action,
    CheckpointAction,
    CloseStdin,
    ResizeAction,
    SendInput,
    SendSignal,
)
from rea.process_capture.records import InputEvent, ResizeEvent, SignalEvent, StdinCloseEvent

MAX_TAKEN = 64  # checkpoints taken while the root runs (declared ones and checkpoint actions together)


class Live:
    """One run's checkpoints and machine, fed by the runner (`run` is its effects.process_capture.runner._Run)."""

    def __init__(self, effect: RunScenario) -> None:
        self.effect = effect
        self.state = start(effect.machine) if effect.machine is not None else None
        self.active = bool(effect.checkpoints) or self.state is not None
        self.log: list[Observation] = []
        self.text = ""
        self.decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self.frames = 0
        self.interactions = 0
        self.actions = 0
        self.taken: list[Taken] = []

    def _add(self, ident: str, source: Any, at_ms: int, record: dict[str, Any], text: str = "") -> None:
        self.log.append(Observation(id=ident, source=source, at_ms=at_ms, record=record, text_at=len(self.text),
                                    text_end=len(self.text) + len(text)))  # fmt: skip
        self.text += text

    def _feed(self, run: Any) -> bool:
        """What the run retained since the last feed, as observations; whether there was any."""
        before = len(self.log)
        for d in run.interactions[self.interactions :]:
            self._add(f"interaction.{self.interactions}", "interaction", d.dispatched_at_ms,
                      {"sequence": d.sequence, "type": d.type, "data": d.data, "scheduled_at_ms": d.scheduled_at_ms,
                       "dispatched_at_ms": d.dispatched_at_ms, "outcome": d.outcome})  # fmt: skip
            self.interactions += 1
        for f in run.frames[self.frames :]:
            text = self.decoder.decode(f.data)
            self._add(f"frame.{self.frames}", "terminal_raw", f.at_ms,
                      {"sequence": self.frames, "at_ms": f.at_ms, "data": text}, text)  # fmt: skip
            self.frames += 1
        return len(self.log) > before

    async def _take(self, run: Any, name: str) -> str | None:
        """A snapshot of the roots under `name`; its observation id, or None past MAX_TAKEN."""
        if len(self.taken) >= MAX_TAKEN:
            return None
        at = run.ms()
        limits = self.effect.limits
        snap = await anyio.to_thread.run_sync(snapshot, self.effect.roots, limits.files, limits.filesystem_depth,
                                              limits.file_bytes, at)  # fmt: skip
        self.taken.append(Taken(name=name, snapshot=snap))
        ident = f"checkpoint.{len(self.taken)}"
        self._add(ident, "filesystem", at, {"name": name, "at_ms": at})
        return ident

    async def _due(self, run: Any, phase: planned.Phase) -> None:
        names = frozenset(t.name for t in self.taken)
        for name in planned.due(self.effect.checkpoints, names, self.text, run.ms(), phase):
            await self._take(run, name)

    def _signal(self, run: Any, action: SendSignal, sequence: int) -> None:
        at = run.ms()
        outcome: Literal["dispatched", "target_exited", "failed"] = "dispatched"
        if run.process.returncode is not None:
            outcome = "target_exited"
        else:
            try:
                os.kill(run.group, getattr(signal, action.signal))
            except OSError:
                outcome = "failed"
        run.interactions.append(Dispatched(sequence=sequence, type="signal", data=action.signal, scheduled_at_ms=at,
                                           dispatched_at_ms=at, outcome=outcome))  # fmt: skip

    async def _act(self, run: Any, action: Action) -> str | None:
        """Perform one action; the id of what it made, or None when it was rejected."""
        if isinstance(action, CheckpointAction):
            return await self._take(run, action.name)
        sequence, at = len(self.effect.events) + self.actions, run.ms()
        self.actions += 1
        if isinstance(action, SendSignal) and action.target.kind == "root":
            self._signal(run, action, sequence)
        else:
            run.dispatch(sequence, _event(action, at))
        made = run.interactions[-1]
        return None if made.outcome == "failed" else f"interaction.{len(run.interactions) - 1}"

    async def _steps(self, run: Any, fresh: bool, exited: bool) -> None:
        if self.effect.machine is None or self.state is None:
            return
        machine: Compiled = self.effect.machine
        state: MachineState = self.state
        for _ in range(MAX_TRANSITIONS + 1):
            # off the event loop (which serves the connection): a step is bounded, not necessarily quick
            state, fired = await anyio.to_thread.run_sync(
                step, machine, state, self.log, self.text, run.ms(), exited, fresh
            )
            if fired is not None:
                ids: list[str] = []
                for action in fired.actions:
                    made = await self._act(run, action)
                    if made is None:
                        state = finish(state, "action_rejected", None, run.ms())
                        break
                    ids.append(made)
                state = attach(state, fired.sequence, tuple(ids))
                self._feed(run)
                fresh = True
            self.state = state
            if fired is None:
                return

    async def poll(self, run: Any) -> bool:
        """One poll while the root runs; True when the machine ended other than passed (the run is stopped)."""
        if not self.active:
            return False
        before = len(self.log)
        self._feed(run)
        await self._due(run, "running")
        await self._steps(run, len(self.log) > before or before == 0, exited=False)
        return self.state is not None and self.state.outcome not in (None, "passed")

    async def exited(self, run: Any) -> None:
        """The root exited (its output drained): exit checkpoints, then the machine's last look."""
        if not self.active:
            return
        self._feed(run)
        await self._due(run, "exited")
        code = run.process.returncode
        self._add("lifecycle.0", "lifecycle", run.ms(), {"kind": "root_exit", "code": code if code >= 0 else None,
                                                          "signal": -code if code < 0 else None, "at_ms": run.ms()})  # fmt: skip
        await self._steps(run, True, exited=True)

    def ended(self, reason: str, at_ms: int) -> None:
        """The run ended without the root's exit (limits, cancel): a machine still running cannot finish."""
        if self.state is not None:
            cancelled = reason == "cancelled"
            self.state = finish(self.state, "cancelled" if cancelled else "capture_incomplete",
                                "cancelled" if cancelled else None, at_ms)  # fmt: skip

    def settled(self, after: Snapshot) -> None:
        """The `settled` checkpoints are the after_settlement snapshot, under their names."""
        for name in planned.due(self.effect.checkpoints, frozenset(t.name for t in self.taken), "", 0, "settled"):
            self.taken.append(Taken(name=name, snapshot=after))


def _event(action: Action, at: int) -> Any:
    """The runner's own event record for an action it dispatches like a declared event."""
    if isinstance(action, SendInput):
        return InputEvent(at_ms=at, type="input", data=action.data, sensitive=action.sensitive)
    if isinstance(action, ResizeAction):
        return ResizeEvent(at_ms=at, type="resize", columns=action.columns, rows=action.rows)
    if isinstance(action, CloseStdin):
        return StdinCloseEvent(at_ms=at, type="stdin_close")
    assert isinstance(action, SendSignal)
    return SignalEvent(at_ms=at, type="signal", signal=action.signal)
