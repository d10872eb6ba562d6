"""The fast index program: one owned process that reads a binary with lief, sweeps its code with capstone
and prints the index snapshot as one JSON document on stdout.

It imports no engine (angr's import alone takes longer than objdump takes to disassemble busybox), so a
first answer about strings, references, callers and instructions arrives in seconds. It runs as its own
process so a cancelled or runaway index is stopped by killing its group, like the angr worker.

    python -m effects.native.indexer PATH [SLICE_OFFSET SLICE_SIZE]
"""

from __future__ import annotations

import bisect
import gc
import marshal
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import orjson

from effects.native import metadata, origin_facts
from effects.native.binary_facts import Unreadable, load
from rea.native import gostrings, origin, stackstrings
from rea.native import index as pure_index
from rea.native import strings as native_strings
from rea.native.addresses import hexa
from rea.native.sweep import Region, Sweep, sweep
from rea.native.sweep_halves import joined, plan_cut, sweep_head, sweep_tail

MAX_SCANNED_STRINGS = 200_000


def strings(regions: list[Region]) -> Iterator[dict[str, Any]]:
    """Terminated text runs in every mapped data section (the same scan the angr worker makes)."""
    count = 0
    for region in regions:
        if region.executable or len(region.data) > 64 << 20:
            continue
        for run in native_strings.runs(region.data):
            yield native_strings.row(hexa(region.start + run.offset), run, section=region.name)
            count += 1
            if count >= MAX_SCANNED_STRINGS:
                return


def _go_strings(facts: dict[str, Any], regions: list[Region], swept: Any) -> None:
    """A Go binary's strings are the ones its code names with a length (rea.native.gostrings); the scanned
    runs they lie in are Go's unterminated string blob, not strings, and give way to them."""
    targets = [r.target for r in swept.references if r.kind in ("read", "offset")]
    rows, headers = gostrings.recover(regions, swept.sized, targets)
    if not rows:
        return
    rows = gostrings.without_overlaps(rows)
    spans = sorted((int(r["address"], 16), int(r["address"], 16) + r["length"]) for r in rows)
    starts = [s for s, _ in spans]

    def overlaps(row: dict[str, Any]) -> bool:
        start = int(row["address"], 16)
        index = bisect.bisect_left(starts, start + row["length"]) - 1
        return index >= 0 and spans[index][1] > start

    kept = [s for s in facts["scanned_strings"] if not overlaps(s)]
    facts["scanned_strings"] = sorted([*kept, *rows], key=lambda r: int(r["address"], 16))
    facts["go_string_headers"] = {f"0x{h:x}": f"0x{p:x}" for h, p in sorted(headers.items())}


def build(path: str, fat_slice: tuple[int, int] | None) -> dict[str, Any]:
    started = time.monotonic()
    if fat_slice is None:
        source: str | bytes = path
    else:
        with open(path, "rb") as handle:
            handle.seek(fat_slice[0])
            source = handle.read(fat_slice[1])
    facts, regions, slots = load(source)
    swept_all = _sweep(facts["architecture"], regions, facts["pic"])  # a second half may start sweeping now
    text = next((r for r in regions if r.executable and r.name in (".text", "__text")), None)
    facts["go"] = metadata.go_tables(source, text.start if text is not None else 0)
    facts["scanned_strings"] = list(strings(regions))
    swept = swept_all()
    if facts["go"] is not None and swept is not None:
        _go_strings(facts, regions, swept)
    executable = [(r.name, r.start, r.start + len(r.data)) for r in regions if r.executable]
    placed = pure_index.layout(facts, swept, slots, executable)
    # the stack-string pass needs only the procedures' extents: it runs while the snapshot is composed
    found = _stack_strings(placed.spans, facts["architecture"], swept, regions) if swept is not None else None
    snapshot = pure_index.snapshot(facts, swept, slots, executable, placed)
    _classify(snapshot, source)
    if found is not None:
        snapshot.update(found())
        snapshot["index"]["stack_strings_ms"] = snapshot.pop("stack_strings_ms")
    snapshot["index"]["elapsed_ms"] = int((time.monotonic() - started) * 1000)
    return snapshot


def _stack_strings(
    extents: list[tuple[int, int]], architecture: str, swept: Any, regions: list[Region]
) -> Callable[[], dict[str, Any]]:
    """Stack strings and decoder candidates (rea.native.stackstrings) from the sweep's kept instructions and
    the procedures' extents, started now and read by calling what this returns; the pass's wall time rides
    along (`stack_strings_ms`).

    Why a forked process: the pass needs nothing of the snapshot but the extents, and the snapshot, the origin
    classification and the pass each take about half a second on a Go executable, while the index otherwise
    keeps one of the machine's cores idle. Where forking is not possible, safe or worth it (`_forks`) it runs
    here. A pass that fails says so in `stack_scan` rather than reporting no stack strings as if none
    were there."""
    spans = sorted((r.start, r.start + len(r.data)) for r in regions if not r.executable)
    starts = [s for s, _ in spans]

    def data(address: int) -> bool:
        index = bisect.bisect_right(starts, address) - 1
        return index >= 0 and address < spans[index][1]

    procedures = [{"address": hexa(start), "size": end - start, "kind": "function"} for start, end in extents]
    jumps = [(r.site, r.target) for r in swept.references if r.kind == "jump"]

    def run() -> dict[str, Any]:
        started = time.monotonic()
        try:
            found = stackstrings.recover(procedures, swept.kept, jumps, architecture, data)
        except Exception:  # noqa: BLE001 - the rest of the index still answers; the coverage says what did not run
            found = stackstrings.not_scanned(architecture, FAILED_PASS)
        return {**found, "stack_strings_ms": int((time.monotonic() - started) * 1000)}

    if not _forks():
        done = run()
        return lambda: done
    return _forked(run, architecture)


def _forks() -> bool:
    """Is a part of the index worth running in a forked child? Only where forking is possible and safe (no
    threads running) and a core is spare.

    Why a spare core: a child pays for itself only by running beside this process. On a machine whose cores
    are all busy it runs in turn with everything else, and as this process's session shares one slice of the
    processor with everything it starts (Linux's autogroup scheduling), the child adds no share: it only adds
    work, the halves' lists copied between the processes and the pages the fork makes both copy (0.45 s of
    CPU on a Go executable's 3.5 s index, measured on a loaded 2-core machine, where the forked index took as
    long as the one-process index)."""
    return hasattr(os, "fork") and threading.active_count() == 1 and _spare_core()


def _spare_core() -> bool:
    """Does the last minute's load leave at least one of this process's cores idle?"""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on every platform
        cores = os.cpu_count() or 1
    try:
        return cores > 1 and os.getloadavg()[0] <= cores - 1
    except OSError:
        return cores > 1


FAILED_PASS = "the stack-string pass failed"


def _forked(run: Callable[[], dict[str, Any]], architecture: str) -> Callable[[], dict[str, Any]]:
    """`run()` in a child process; calling what this returns waits for its JSON (a pass that failed there
    reads as not scanned)."""
    waiting = _in_child(lambda: orjson.dumps(run()))
    if waiting is None:
        done = run()
        return lambda: done

    def finish() -> dict[str, Any]:
        try:
            answer: dict[str, Any] = orjson.loads(waiting())
            return answer
        except orjson.JSONDecodeError:
            return {**stackstrings.not_scanned(architecture, FAILED_PASS), "stack_strings_ms": 0}

    return finish


def _in_child(produce: Callable[[], bytes]) -> Callable[[], bytes] | None:
    """`produce()` in a child process (in this process's group, so a cancelled index stops it too); calling
    what this returns waits for its bytes (empty when it failed). None when no child could be started. The
    child never returns into the caller's code: it writes and leaves with os._exit, so nothing buffered or
    registered in this process runs twice."""
    readable, writable = os.pipe()
    try:
        child = os.fork()
    except OSError:
        os.close(readable)
        os.close(writable)
        return None
    if child == 0:  # pragma: no cover - the child's coverage is not collected
        try:
            os.close(readable)
            try:
                payload = produce()
            except BaseException:  # noqa: BLE001 - any failure is the parent's to handle
                payload = b""
            with os.fdopen(writable, "wb") as out:
                out.write(payload)
        finally:
            os._exit(0)  # also when the parent is gone and the write fails: never back into its code
    os.close(writable)

    def finish() -> bytes:
        with os.fdopen(readable, "rb") as handle:
            payload = handle.read()
        os.waitpid(child, 0)
        return payload

    return finish


def _sweep(architecture: str, regions: list[Region], pic: bool) -> Callable[[], Sweep | None]:
    """The sweep of every executable region, made by calling what this returns. A large x86 code section is
    swept in two halves at once, by this process and a child forked now (rea.native.sweep_halves.plan_cut): the
    sweep is most of the index's time, and one process leaves a core idle. The halves meet where their
    instruction streams join, so the answer is the one sweep's; where no child runs (`_forks`) or its half is
    lost, this process sweeps it all."""
    mapped = [(r.start, r.start + len(r.data)) for r in regions]
    cut = plan_cut(architecture, regions)
    waiting = None
    if cut is not None and _forks():
        waiting = _in_child(lambda: marshal.dumps(sweep_tail(architecture, regions, mapped, pic=pic, cut=cut)))
    if cut is None or waiting is None:
        return lambda: sweep(architecture, regions, mapped, pic=pic)

    def finish() -> Sweep | None:
        head = sweep_head(architecture, regions, mapped, pic=pic, cut=cut)
        payload = waiting()
        try:
            tail = marshal.loads(payload) if payload else None
        except (EOFError, ValueError, TypeError):
            tail = None
        whole = joined(head, tail)
        return whole if whole is not None else sweep(architecture, regions, mapped, pic=pic)

    return finish


def _classify(snapshot: dict[str, Any], source: str | bytes) -> None:
    """Each procedure's origin (rea.native.origin), from the file's FILE entries, DWARF units and byte matches
    of the index's own procedures against the installed static libraries."""
    functions = [
        {"address": p["address"], "size": p["size"], "name": p["name"]}
        for p in snapshot["procedures"]
        if p["kind"] == "function" and ":" not in p["address"]
    ]
    snapshot["origin_facts"] = origin_facts.origin_facts(source, origin.worth_comparing(functions, snapshot))
    classified = pure_index.inherit_fragment_origins(origin.annotate(snapshot["procedures"], snapshot))
    snapshot["procedures"] = pure_index.library_names(classified, snapshot["origin_facts"])


def main(argv: list[str]) -> int:
    # The build allocates millions of objects that all live until the snapshot is printed (references,
    # procedure rows, the kept columns) and makes no garbage cycles worth collecting; the cyclic collector's
    # full passes over them were a fifth of the CPU of a Go executable's index (4.8 s -> 3.8 s) for 505
    # objects collected. The process ends when the snapshot is written, which frees everything.
    gc.disable()
    if "index" in os.environ.get("REA_NATIVE_FAULT", "").split(","):  # a forced index fault, for tests
        sys.stdout.buffer.write(
            orjson.dumps({"ok": False, "reason": "index-failed", "message": "forced (REA_NATIVE_FAULT)"})
        )
        return 0
    try:
        fat = (int(argv[2]), int(argv[3])) if len(argv) >= 4 else None
        snapshot = build(argv[1], fat)
    except Unreadable as exc:
        sys.stdout.buffer.write(orjson.dumps({"ok": False, "reason": "unsupported-format", "message": str(exc)}))
        return 0
    except Exception as exc:  # noqa: BLE001 - a parser's failure on hostile input is an answer, not a crash
        message = f"{type(exc).__name__}: {exc}"[:500]
        sys.stdout.buffer.write(orjson.dumps({"ok": False, "reason": "index-failed", "message": message}))
        return 0
    sys.stdout.buffer.write(orjson.dumps({"ok": True, "snapshot": snapshot}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
