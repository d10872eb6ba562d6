"""A large x86 code region swept in two halves at once (rea.native.sweep): where to cut it, each half's sweep,
and the two joined where the first half's stream meets the second's."""

from __future__ import annotations

import bisect
from collections.abc import Mapping, Sequence
from typing import Any, cast

import attrs

from rea.native.sweep import (
    Found,
    Mapped,
    Meeting,
    Reference,
    Region,
    Sweep,
    batches,
    decoder,
    finished,
    sized_pair,
    sweep_x86,
)

SPLIT_BYTES = 1 << 20  # an x86 code region at least this large is swept as two halves (by two processes)
MEETING_WINDOW = 4096  # instructions of the second half's stream the first half may meet


@attrs.frozen(kw_only=True)
class Cut:
    """Where a sweep is cut: the second half decodes the region at `regions[index]` from `at`."""

    index: int
    at: int


@attrs.frozen(kw_only=True)
class Head:
    """The first half of a cut sweep: every region, the cut one only up to where the halves met."""

    found: Found
    cut: Cut
    meeting: Meeting
    marks: tuple[int, int, int, int, int]  # list lengths when the cut region was done: where the second half goes
    window: list[tuple[int, int, str, str]]  # the first rows of the second half's stream


def plan_cut(architecture: str, regions: Sequence[Region]) -> Cut | None:
    """The middle of the largest executable region, for x86 code of at least SPLIT_BYTES (AArch64's adrp pages
    carry state from one instruction to the next: its sweep is never cut)."""
    if architecture not in ("x86_64", "x86"):
        return None
    sizes = [(len(r.data), i) for i, r in enumerate(regions) if r.executable]
    if not sizes or max(sizes)[0] < SPLIT_BYTES:
        return None
    index = max(sizes)[1]
    return Cut(index=index, at=regions[index].start + len(regions[index].data) // 2)


def _second(regions: Sequence[Region], cut: Cut) -> Region:
    region = regions[cut.index]
    return attrs.evolve(region, start=cut.at, data=region.data[cut.at - region.start :])


def sweep_tail(
    architecture: str, regions: Sequence[Region], mapped: Sequence[tuple[int, int]], *, pic: bool, cut: Cut
) -> dict[str, Any]:
    """The second half of a cut sweep, as plain lists (what marshal carries between processes)."""
    cs = decoder(architecture)
    assert cs is not None  # plan_cut cuts only x86
    found = Found()
    sweep_x86(cs, _second(regions, cut), Mapped(mapped), pic and architecture == "x86_64", found)
    return {
        "sites": [r.site for r in found.refs],
        "targets": [r.target for r in found.refs],
        "kinds": [r.kind for r in found.refs],
        "sized": found.sized,
        "sized_at": found.sized_at,
        "calls": found.calls,
        "jumps": found.jumps,
        "kept": list(found.kept),
        "counts": found.counts[:2],
    }


def sweep_head(
    architecture: str, regions: Sequence[Region], mapped: Sequence[tuple[int, int]], *, pic: bool, cut: Cut
) -> Head:
    """The first half of a cut sweep: every region as `sweep` reads it, the cut one until its stream meets the
    second half's."""
    cs = decoder(architecture)
    assert cs is not None
    window: list[tuple[int, int, str, str]] = []
    for rows in batches(cs, _second(regions, cut), [0, 0, 0], 1):
        window += rows
        if len(window) >= MEETING_WINDOW:
            break
    meeting = Meeting(cut.at, (row[0] for row in window[:MEETING_WINDOW]))
    inside, found = Mapped(mapped), Found()
    marks = (0, 0, 0, 0, 0)
    for index, region in enumerate(regions):
        if not region.executable:
            continue
        found.counts[2] += len(region.data)
        sweep_x86(cs, region, inside, pic and architecture == "x86_64", found, meeting if index == cut.index else None)
        if index == cut.index:
            marks = (len(found.refs), len(found.calls), len(found.jumps), len(found.sized), len(found.kept.addresses))
    return Head(found=found, cut=cut, meeting=meeting, marks=marks, window=window)


def joined(head: Head, tail: Mapping[str, Any] | None) -> Sweep | None:
    """The sweep the two halves make together, equal to `sweep` of the whole; None when the first half met the
    second and the second's lists are missing (the caller sweeps the rest itself)."""
    found, met = head.found, head.meeting.met
    if met is None:
        return finished(found)
    if tail is None:
        return None
    before = [row for row in head.window if row[0] < met]  # the second half's rows that are not the first's
    sites = tail["sites"]
    first = bisect.bisect_left(sites, met)
    refs = [Reference(*row) for row in zip(sites[first:], tail["targets"][first:], tail["kinds"][first:], strict=True)]
    sized = [pair for pair, at in zip(tail["sized"], tail["sized_at"], strict=True) if at > met]
    pending = head.meeting.pending
    at_meeting = next(row for row in head.window if row[0] == met)
    pair = sized_pair(pending[1], at_meeting[3]) if pending[0] == met and at_meeting[2] == "mov" else None
    if pair is not None:  # the first half's lea and the mov where the halves met
        sized.insert(0, pair)
    kept = tail["kept"]
    low = bisect.bisect_left(kept[0], met)
    marks = head.marks
    found.refs[marks[0] : marks[0]] = refs
    found.calls[marks[1] : marks[1]] = [a for a in tail["calls"] if a >= met]
    found.jumps[marks[2] : marks[2]] = [a for a in tail["jumps"] if a >= met]
    found.sized[marks[3] : marks[3]] = sized
    for column, extra in zip(found.kept, kept, strict=True):
        cast(list[Any], column)[marks[4] : marks[4]] = extra[low:]  # each column is a list; zip sees object
    found.counts[0] += tail["counts"][0] - len(before)
    found.counts[1] += tail["counts"][1] - (met - head.cut.at - sum(row[1] for row in before))
    return finished(found)
