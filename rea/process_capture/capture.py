"""A capture's result, built purely from what the run observed (rea.process_capture.effects.ScenarioRun).

Secrets (the values of the environment names in secret_aliases) are redacted from every
recorded text before anything else reads it. Residual unknowns name each dimension this run
could not observe completely, with the reason, so a comparison reads it as unknown, never as
unchanged.
"""

from __future__ import annotations

import bisect
import hashlib
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from rea.canonical_json import canonicalize
from rea.process_capture.effects import ScenarioRun, Snapshot, Taken
from rea.process_capture.protocol import protocol_events, protocol_gaps, protocol_truncated
from rea.process_capture.reactive import report
from rea.process_capture.reactive_records import ReactiveRun
from rea.process_capture.records import CaptureArgs
from rea.process_capture.results import (
    Cleanup,
    ExitFacts,
    FileEffect,
    FileEntry,
    FilesystemCheckpoint,
    Frame,
    InteractionEvent,
    JournalEntry,
    Manifest,
    ProcessCapture,
    ProcessSample,
    ResidualUnknown,
    Settlement,
    ShimEvent,
)
from rea.process_capture.terminal import Chunk, Resize, render
from rea.wire.convert import to_wire

PROVIDER_VERSION = "1"
LIMITATIONS = (
    "Process samples are taken every {interval} ms: a process that starts and ends between two samples is not seen.",
    "The run has a private network namespace. With network_access none no interface is up, so no protocol can run "
    "and protocol_events is empty; with loopback, the frames on its own lo are recorded (an AF_PACKET socket opened "
    "in the namespace before the executable starts) and decoded into TCP/UDP events, HTTP/1.x request and status "
    "lines and WebSocket upgrades; TLS and other protocols are recorded as bytes. No replay server runs, so "
    "replay_transitions is empty.",
    "Rendered frames come from pyte, which keeps no alternate screen buffer; a frame is rendered at the end of each "
    "burst of output, so their number follows the program's pauses.",
    "Filesystem effects compare a snapshot before launch with one after settlement (and each checkpoint with the "
    "one before it): an entry created and removed in between, and changes outside filesystem_roots, are not seen.",
    "stdin_close sends the terminal's EOF character; the terminal itself stays open.",
)


def _digest(value: Any) -> str:
    return hashlib.sha256(canonicalize(value)).hexdigest()


def secrets_of(args: CaptureArgs) -> tuple[str, ...]:
    """The values to redact, longest first (so a secret inside another is not half-redacted)."""
    values = {args.environment[a] for a in args.secret_aliases if args.environment.get(a)}
    return tuple(sorted(values, key=len, reverse=True))


def redact(text: str, secrets: Sequence[str]) -> str:
    for value in secrets:
        text = text.replace(value, "<secret>")
    return text


def unsensitive(value: Any) -> Any:
    """Declared input marked sensitive (an input event, a machine's send_input action) with its data replaced by
    <sensitive>, so the recorded scenario and contract do not carry what the interactions hide."""
    if isinstance(value, Mapping):
        out = {k: unsensitive(v) for k, v in value.items()}
        if out.get("sensitive") is True and "data" in out:
            out["data"] = "<sensitive>"
        return out
    if isinstance(value, (list, tuple)):
        return [unsensitive(v) for v in value]
    return value


def scenario_of(args: CaptureArgs) -> dict[str, Any]:
    """The declared scenario, secret environment values and sensitive input replaced."""
    wire: dict[str, Any] = dict(to_wire(args))
    hidden = set(args.secret_aliases)
    wire["environment"] = {k: ("<secret>" if k in hidden else v) for k, v in args.environment.items()}
    wire["events"] = unsensitive(wire["events"])
    wire["reactive"] = unsensitive(wire["reactive"])
    return wire


def comparison_contract(args: CaptureArgs) -> dict[str, Any]:
    """What two captures must share to be compared (the executable and its arguments may differ)."""
    return {
        "events": unsensitive(to_wire(args.events)),
        "command_shims": to_wire(args.command_shims),
        "terminal": to_wire(args.terminal),
        "limits": to_wire(args.limits),
        "network_access": args.network_access,
        "filesystem_root_count": len(args.filesystem_roots),
        "normalization": to_wire(args.normalization),
        # only when declared, so the contract (and its digest) of a capture without them is what it was
        **({"checkpoints": list(args.checkpoints)} if args.checkpoints else {}),
        **({"reactive": unsensitive(args.reactive)} if args.reactive is not None else {}),
    }


def effects_between(before: Snapshot, after: Snapshot) -> tuple[FileEffect, ...]:
    """Created, deleted and modified entries (by path), sorted by path."""
    old = {e.path: e for e in before.entries}
    new = {e.path: e for e in after.entries}
    out = []
    for path in sorted(old.keys() | new.keys()):
        b, a = old.get(path), new.get(path)
        if b is None:
            out.append(FileEffect(path=path, status="created", before=None, after=a))
        elif a is None:
            out.append(FileEffect(path=path, status="deleted", before=b, after=None))
        elif _changed(b, a):
            out.append(FileEffect(path=path, status="modified", before=b, after=a))
    return tuple(out)


def _changed(b: FileEntry, a: FileEntry) -> bool:
    return (b.type, b.size, b.mode, b.sha256, b.symlink_target) != (a.type, a.size, a.mode, a.sha256, a.symlink_target)


def _unknowns(args: CaptureArgs, run: ScenarioRun) -> list[ResidualUnknown]:
    out = [ResidualUnknown(scope="protocol", reason=r) for r in protocol_gaps(args.network_access, run.loopback)]
    if run.output_dropped_bytes:
        out.append(ResidualUnknown(scope="terminal", reason=f"{run.output_dropped_bytes} bytes past the output limits"))
    for name, snap in (("before", run.before), *((t.name, t.snapshot) for t in run.checkpoints), ("after", run.after)):
        if snap.truncated:
            out.append(ResidualUnknown(scope="filesystem", reason=f"the {name} snapshot hit the files or depth limit"))
        if snap.hash_omissions:
            out.append(ResidualUnknown(scope="filesystem",
                                       reason=f"{snap.hash_omissions} files of the {name} snapshot were not hashed"))  # fmt: skip
    taken = {t.name for t in run.checkpoints}
    for c in args.checkpoints:
        if c["name"] not in taken:
            out.append(ResidualUnknown(scope="filesystem", reason=f"checkpoint {c['name']} was not reached"))
    if not run.root_sampled:
        out.append(ResidualUnknown(scope="process", reason="the executable ended before the first process sample"))
    if run.processes_dropped:
        out.append(ResidualUnknown(scope="process", reason=f"{run.processes_dropped} processes past the limit"))
    if not run.shim_journal_complete:
        out.append(ResidualUnknown(scope="shim", reason="the shim journal has unreadable lines"))
    return out


Collection = Literal["frames", "interaction_events", "process_samples", "shim_events", "protocol_events"]


def _journal(result: Mapping[Collection, Sequence[Any]]) -> tuple[JournalEntry, ...]:
    rows = [(item.at_ms if name != "interaction_events" else item.dispatched_at_ms, order, name, i)
            for order, (name, items) in enumerate(result.items()) for i, item in enumerate(items)]  # fmt: skip
    rows.sort()
    return tuple(JournalEntry(capture_order=n, collection=name, index=i) for n, (_, _, name, i) in enumerate(rows))


def _manifest(args: CaptureArgs, run: ScenarioRun, rea_version: str) -> Manifest:
    scenario, contract = scenario_of(args), comparison_contract(args)
    shims = [to_wire(s) for s in args.command_shims]
    replay = to_wire(args.replay)
    return Manifest(
        rea_version=rea_version,
        provider_version=PROVIDER_VERSION,
        platform=run.platform,
        architecture=run.architecture,
        pty_backend="os.openpty",
        started_at=run.started_at,
        completed_at=run.completed_at,
        executable_sha256=run.executable_sha256,
        scenario=scenario,
        full_scenario_sha256=_digest(scenario),
        comparison_contract=contract,
        comparison_contract_sha256=_digest(contract),
        shim_plan=tuple(shims),
        shim_plan_sha256=_digest(shims),
        replay_plan=replay,
        replay_plan_sha256=_digest(replay),
        normalization_sha256=_digest(to_wire(args.normalization)),
        network_isolation=run.network_isolation,
        host_paths=dict(run.scratch_paths),
    )


def _checkpoints(run: ScenarioRun) -> tuple[FilesystemCheckpoint, ...]:
    """before, the checkpoints taken (in order) and after_settlement, each with its effects since the previous."""
    named = (
        Taken(name="before", snapshot=run.before),
        *run.checkpoints,
        Taken(name="after_settlement", snapshot=run.after),
    )
    return tuple(
        FilesystemCheckpoint(name=t.name, at_ms=t.snapshot.at_ms, files=t.snapshot.entries,
                             effects=effects_between(named[i - 1].snapshot, t.snapshot) if i else (),
                             truncated=t.snapshot.truncated)
        for i, t in enumerate(named)
    )  # fmt: skip


def _orders(run: ScenarioRun, times: Sequence[int]) -> dict[int, int]:
    """For each time, the capture order of the last event_journal entry at or before it (-1: none)."""
    seen = sorted([f.at_ms for f in run.frames] + [d.dispatched_at_ms for d in run.interactions]
                  + [p.at_ms for p in run.processes] + [c.at_ms for c in run.shim_calls])  # fmt: skip
    return {at: bisect.bisect_right(seen, at) - 1 for at in times}


def _reactive(run: ScenarioRun) -> ReactiveRun | None:
    if run.machine is None:
        return None
    return report(run.machine, _orders(run, [at for _, at in run.machine.controls]))


def build_capture(args: CaptureArgs, run: ScenarioRun, rea_version: str) -> ProcessCapture:
    secrets = secrets_of(args)
    frames = tuple(Frame(sequence=i, at_ms=f.at_ms, data=redact(f.data.decode("utf-8", "replace"), secrets))
                   for i, f in enumerate(run.frames))  # fmt: skip
    resizes = [Resize(at_ms=d.dispatched_at_ms, columns=int(d.data.split("x")[0]), rows=int(d.data.split("x")[1]))
               for d in run.interactions if d.type == "resize" and d.outcome == "dispatched"]  # fmt: skip
    chunks = [
        Chunk(at_ms=f.at_ms, data=redact(f.data.decode("utf-8", "replace"), secrets).encode()) for f in run.frames
    ]
    t = args.terminal
    rendered = render(chunks, resizes, t.columns, t.rows, t.scrollback, max(args.settle_ms, 50))
    interactions = tuple(InteractionEvent(sequence=d.sequence, type=d.type, data=redact(d.data, secrets),
                                          scheduled_at_ms=d.scheduled_at_ms, dispatched_at_ms=d.dispatched_at_ms,
                                          outcome=d.outcome) for d in run.interactions)  # fmt: skip
    samples = tuple(ProcessSample(at_ms=p.at_ms, pid=p.pid, parent_pid=p.parent_pid, process_group_id=p.process_group_id,
                                  session_id=p.session_id, command=redact(p.command, secrets)) for p in run.processes)  # fmt: skip
    shims = tuple(ShimEvent(sequence=i, at_ms=c.at_ms, command=c.command,
                            arguments=tuple(redact(a, secrets) for a in c.arguments),
                            working_directory=c.working_directory, route_index=c.route_index,
                            outcome=c.outcome) for i, c in enumerate(sorted(run.shim_calls, key=lambda c: c.at_ms)))  # fmt: skip
    effects = effects_between(run.before, run.after)
    unknowns = _unknowns(args, run)
    snaps = (run.before, *(t.snapshot for t in run.checkpoints), run.after)
    truncated = bool(run.output_dropped_bytes or any(s.truncated for s in snaps) or run.processes_dropped)
    truncated = truncated or protocol_truncated(run.loopback)
    protocol = protocol_events(run.loopback, lambda text: redact(text, secrets))
    return ProcessCapture(
        schema_version=4,
        manifest=_manifest(args, run, rea_version),
        normalization=args.normalization,
        frames=frames,
        rendered_frames=rendered,
        interaction_events=interactions,
        exit=ExitFacts(code=run.exit_code, signal=run.exit_signal, reason=run.reason),
        settlement=Settlement(
            state=run.settle_state,
            elapsed_ms=run.settle_elapsed_ms,
            cleanup_outcome=run.settle_cleanup,
        ),  # fmt: skip
        process_samples=samples,
        files_before=run.before.entries,
        files_after=run.after.entries,
        filesystem_effects=effects,
        filesystem_checkpoints=_checkpoints(run),
        protocol_events=protocol,
        shim_events=shims,
        replay_transitions=(),
        reactive_run=_reactive(run),
        event_journal=_journal(
            {
                "frames": frames,
                "interaction_events": interactions,
                "process_samples": samples,
                "shim_events": shims,
                "protocol_events": protocol,
            }
        ),  # fmt: skip
        truncated=truncated,
        limitations=tuple(line.format(interval=run.sample_interval_ms) for line in LIMITATIONS),
        residual_unknowns=tuple(unknowns),
        cleanup=Cleanup(owned_process_group="verified", temporary_root="removed"),
    )
