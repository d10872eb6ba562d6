"""compare_process_captures: where two captures of one scenario first differ (pure).

Each dimension is a list of normalized observations (host paths, pids, loopback ports and the
declared patterns replaced), compared exactly. Times are reported, never compared: two runs
of one program read their output in different chunks at different milliseconds. A dimension
that either capture could not observe completely (a residual unknown in its scope), or any
dimension when the two normalizations differ, is `unknown`: missing evidence never reads as
unchanged. The first divergence is the earliest (by the earlier side's time, then by the
fixed dimension order) of the dimensions' first differing indexes, so it does not depend on
which capture is left.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from rea.canonical_json import canonicalize
from rea.process_capture.results import (
    CaptureComparison,
    Dimension,
    DivergenceFound,
    DivergenceNone,
    DivergenceUnknown,
    Status,
)
from rea.process_capture.stored import StoredCapture, StoredEntry, StoredProtocolEvent
from rea.wire.convert import to_wire

DIMENSIONS: tuple[Dimension, ...] = ("terminal", "interaction", "exit", "filesystem", "protocol", "process", "shim")
CHANGED = ("changed", "added", "removed")
LIMITATIONS = (
    "Observations are compared after normalization; times are reported, not compared.",
    "Process observations are periodic samples: a process shorter than the sample interval may be missing on one side.",
    "A dimension either capture did not observe completely is unknown, and the overall status is then at best unknown.",
)
Divergence = DivergenceNone | DivergenceUnknown | DivergenceFound
PORT = re.compile(r"((?:127\.\d+\.\d+\.\d+|localhost|\[::1\]):)\d{1,5}\b")


class Normalizer:
    """One capture's text normalization: declared patterns, host paths, pids (first-seen ordinals), ports."""

    def __init__(self, capture: StoredCapture) -> None:
        norm = capture.normalization
        self.patterns = [(re.compile(p.pattern), p.replacement) for p in norm.patterns]
        paths = capture.host_paths if norm.paths else {}
        self.paths = sorted(((v, k) for k, v in paths.items() if v and v != "/"), key=lambda kv: -len(kv[0]))
        self.ports = bool(norm.ports)
        self.pids: dict[int, str] = {}
        if norm.pids:
            for sample in capture.process_samples:
                self.pids.setdefault(sample.pid, f"<pid{len(self.pids)}>")
        self.pid_word = re.compile(r"\b(" + "|".join(str(p) for p in self.pids) + r")\b") if self.pids else None

    def text(self, value: str) -> str:
        for pattern, replacement in self.patterns:
            value = pattern.sub(replacement, value)
        for path, placeholder in self.paths:
            value = value.replace(path, placeholder)
        if self.ports:
            value = PORT.sub(r"\1<port>", value)
        if self.pid_word is not None:
            value = self.pid_word.sub(lambda m: self.pids[int(m.group(1))], value)
        return value

    def pid(self, pid: int) -> Any:
        return self.pids.get(pid, "<outside>") if self.pids else pid


Observation = tuple[Any, int | None]  # (compared value, time reported)


def _terminal(c: StoredCapture, n: Normalizer) -> list[Observation]:
    out: list[Observation] = []
    line, started = "", None
    for frame in c.frames:
        for piece in re.split(r"(\n)", frame.data):
            if started is None and piece:
                started = frame.at_ms
            if piece == "\n":
                out.append(({"line": n.text(line.replace("\r", ""))}, started))
                line, started = "", None
            else:
                line += piece
    if line:
        out.append(({"line": n.text(line.replace("\r", ""))}, started))
    if c.last_screen is not None:
        last = c.last_screen
        out.append(({"screen": [n.text(x) for x in last.lines]}, last.at_ms))
    return out


def _interaction(c: StoredCapture, n: Normalizer) -> list[Observation]:
    return [({"type": e.type, "data": n.text(e.data), "outcome": e.outcome}, e.dispatched_at_ms)
            for e in c.interaction_events]  # fmt: skip


def _exit(c: StoredCapture, n: Normalizer) -> list[Observation]:
    e = c.exit
    return [({"code": e.code, "signal": e.signal, "reason": e.reason, "settlement": e.settlement}, None)]


def _entry(e: StoredEntry | None, n: Normalizer) -> Any:
    if e is None:
        return None
    target = e.symlink_target
    return {"type": e.type, "size": e.size, "mode": e.mode, "sha256": e.sha256,
            "symlink_target": n.text(target) if target is not None else None}  # fmt: skip


def _filesystem(c: StoredCapture, n: Normalizer) -> list[Observation]:
    rows = [{"path": n.text(e.path), "status": e.status, "before": _entry(e.before, n),
             "after": _entry(e.after, n)} for e in c.filesystem_effects]  # fmt: skip
    return [(r, None) for r in sorted(rows, key=lambda r: r["path"])]


def _process(c: StoredCapture, n: Normalizer) -> list[Observation]:
    commands = {s.pid: n.text(s.command) for s in c.process_samples}
    rows = [({"command": n.text(s.command), "parent": commands.get(s.parent_pid, "<outside>")}, s.at_ms)
            for s in c.process_samples]  # fmt: skip
    return sorted(rows, key=lambda r: canonicalize(r[0]))


TEARDOWN = ("close", "reset")


def _protocol(c: StoredCapture, n: Normalizer) -> list[Observation]:
    """Per connection (in order of first sight), its events in order: how two connections' events interleave is
    scheduling, not behaviour, and so is which side's close comes first when both close at the end (the
    connection's closing run of close and reset events is read in one canonical order). A complete preview is
    compared as normalized text (a port or path inside it would make the digest differ between identical runs);
    a cut one adds its byte count and digest."""
    rows: list[Observation] = []
    for e in _teardown_canonical(sorted(c.protocol_events, key=lambda e: e.connection)):
        skip = {"at_ms"} | (set() if e.data_truncated else {"bytes", "sha256"})
        fields = attrs.asdict(e, recurse=False).items()
        rows.append(({k: (n.text(v) if isinstance(v, str) else v) for k, v in fields if k not in skip}, e.at_ms))
    return rows


def _teardown_canonical(events: list[StoredProtocolEvent]) -> list[StoredProtocolEvent]:
    """`events` (grouped by connection) with each connection's final run of TEARDOWN events sorted by kind and
    direction; a close followed by more data (a half-close) keeps its place."""
    out: list[StoredProtocolEvent] = []
    for _, group in itertools.groupby(events, key=lambda e: e.connection):
        run = list(group)
        cut = len(run)
        while cut and run[cut - 1].kind in TEARDOWN:
            cut -= 1
        out += run[:cut] + sorted(run[cut:], key=lambda e: (str(e.kind), str(e.direction)))
    return out


def _shim(c: StoredCapture, n: Normalizer) -> list[Observation]:
    return [({"command": e.command, "arguments": [n.text(a) for a in e.arguments],
              "route_index": e.route_index, "outcome": e.outcome}, e.at_ms) for e in c.shim_events]  # fmt: skip


READERS: Mapping[Dimension, Callable[[StoredCapture, Normalizer], list[Observation]]] = {
    "terminal": _terminal,
    "interaction": _interaction,
    "exit": _exit,
    "filesystem": _filesystem,
    "protocol": _protocol,
    "process": _process,
    "shim": _shim,
}


def _same(a: Any, b: Any) -> bool:
    return canonicalize(a) == canonicalize(b)


def classify(left: Sequence[Observation], right: Sequence[Observation], dimension: Dimension) -> Status:
    if _same([v for v, _ in left], [v for v, _ in right]):
        return "unchanged"
    if dimension != "exit" and not left:
        return "added"
    if dimension != "exit" and not right:
        return "removed"
    return "changed"


def first_difference(
    dimension: Dimension, left: Sequence[Observation], right: Sequence[Observation]
) -> DivergenceFound | None:
    for index in range(max(len(left), len(right))):
        lv, lt = left[index] if index < len(left) else (None, None)
        rv, rt = right[index] if index < len(right) else (None, None)
        if not _same(lv, rv):
            return DivergenceFound(status="found", dimension=dimension, index=index, left_at_ms=lt, right_at_ms=rt,
                                   left=lv, right=rv)  # fmt: skip
    return None


def overall(statuses: Mapping[str, Status], truncated: bool) -> Status:
    values = set(statuses.values())
    if truncated or "truncated" in values:
        return "truncated"
    if values & set(CHANGED):
        return "changed"
    return "unknown" if "unknown" in values else "unchanged"


SAMPLED = frozenset({"process"})  # observed by periodic samples: a difference there may be a missed sample


def _earliest(found: list[DivergenceFound]) -> DivergenceFound:
    """The earliest difference, a sampled dimension's only when no other dimension differs: two runs of one
    scenario sample their short processes differently (a `sleep` seen in one, a `wget` in the other), and an
    agent sent to that first would chase the sampling instead of the changed output or traffic."""

    def key(d: DivergenceFound) -> tuple[bool, int, int]:
        times = [t for t in (d.left_at_ms, d.right_at_ms) if t is not None]
        return (d.dimension in SAMPLED, min(times) if times else 2**53, DIMENSIONS.index(d.dimension))

    return min(found, key=key)


def compare_captures(left: StoredCapture, right: StoredCapture, left_id: str, right_id: str) -> CaptureComparison:
    """The comparison of the captures retained as Evidence `left_id` and `right_id`."""
    same_norm = _same(to_wire(left.normalization), to_wire(right.normalization))
    unknown = left.unknown_scopes | right.unknown_scopes
    ln, rn = Normalizer(left), Normalizer(right)
    statuses: dict[str, Status] = {}
    found: list[DivergenceFound] = []
    for dimension in DIMENSIONS:
        if not same_norm or dimension in unknown:
            statuses[dimension] = "unknown"
            continue
        lo, ro = READERS[dimension](left, ln), READERS[dimension](right, rn)
        statuses[dimension] = classify(lo, ro, dimension)
        difference = first_difference(dimension, lo, ro)
        if difference is not None:
            found.append(difference)
    truncated = left.truncated or right.truncated
    status = overall(statuses, truncated)
    limitations = list(LIMITATIONS)
    if not same_norm:
        limitations.append("The two captures were normalized differently: every dimension is unknown.")
    return CaptureComparison(
        status=status,
        terminal=statuses["terminal"],
        interaction=statuses["interaction"],
        exit=statuses["exit"],
        filesystem=statuses["filesystem"],
        process=statuses["process"],
        protocol=statuses["protocol"],
        shim=statuses["shim"],
        first_divergence=_first(truncated, found, status, statuses),
        left_evidence_id=left_id,
        right_evidence_id=right_id,
        limitations=tuple(limitations),
    )


def _first(truncated: bool, found: list[DivergenceFound], status: Status, statuses: Mapping[str, Status]) -> Divergence:
    """The earliest divergence, or why none can be named: a truncated capture, or dimensions not compared."""
    if truncated:
        return DivergenceUnknown(status="unknown", reason="at least one capture is truncated")
    if found:
        return _earliest(found)
    if status == "unknown":
        names = ", ".join(d for d in DIMENSIONS if statuses[d] == "unknown")
        return DivergenceUnknown(status="unknown", reason=f"no divergence observed, but {names} could not be compared")
    return DivergenceNone(status="none")


def contract_differences(left: StoredCapture, right: StoredCapture) -> list[str]:
    """Top-level comparison-contract fields whose values differ (empty: comparable)."""
    lc, rc = left.comparison_contract, right.comparison_contract
    return sorted(k for k in set(lc) | set(rc) if k not in lc or k not in rc or not _same(lc[k], rc[k]))
