"""Laws of universal-slice selection over hostile fat headers: the checked header either refuses the file
(LayoutFailure) or yields slices inside it, and any selector then gets exactly one slice or a canonical
invalid_request on `architecture` that lists every accepted name."""

from __future__ import annotations

import struct

from hypothesis import given
from hypothesis import strategies as st
from returns.pipeline import is_successful

from effects.layout.failure import LayoutFailure
from effects.layout.macho import fat_slices
from rea.native.fat_slice import PREFERRED, choose_slice, loader_slice

CPUS = st.sampled_from([7, 0x01000007, 12, 0x0100000C, 18, -1, 0x7FFFFFFF])
SELECTOR = st.one_of(st.none(), st.sampled_from(["x86_64", "arm64", "i386", "armv7", "ppc", "arm64e"]))


@st.composite
def fat_headers(draw):
    """A fat header whose rows may lie (offsets and sizes anywhere, counts above the rows, short bodies) or,
    half the time, a consistent one: page-aligned slices of 28 bytes or more inside the file."""
    consistent = draw(st.booleans())
    cpu_rows = draw(st.lists(st.tuples(CPUS, st.integers(-4, 4)), min_size=int(consistent), max_size=5))
    if consistent:
        rows = [(cpu, sub, 4096 * (i + 1), draw(st.integers(28, 4096))) for i, (cpu, sub) in enumerate(cpu_rows)]
        count, tail = len(rows), 4096 * (len(rows) + 1)
    else:
        rows = [(cpu, sub, draw(st.integers(0, 1 << 17)), draw(st.integers(0, 1 << 17))) for cpu, sub in cpu_rows]
        count, tail = draw(st.one_of(st.just(len(rows)), st.integers(0, 70))), draw(st.integers(0, 1 << 16))
    header = struct.pack(">II", 0xCAFEBABE, count)
    for cpu, sub, offset, size in rows:
        header += struct.pack(">iiIII", cpu, sub, offset, size, 12)
    return header + b"\0" * max(tail - len(header), 0)


@given(fat_headers(), SELECTOR)
def test_a_hostile_header_gets_a_refusal_or_one_slice_inside_the_file(data, selector):
    try:
        slices = fat_slices(data)
    except (LayoutFailure, struct.error):
        return  # the effect layer turns both into invalid_request (reason malformed)
    assert slices
    chosen = choose_slice(slices, selector)
    if is_successful(chosen):
        got = chosen.unwrap()
        row = got["rows"][got["index"]]
        assert sum(r["selected"] for r in got["rows"]) == 1
        assert 0 < row["offset"] and row["offset"] + row["size"] <= len(data)
        assert loader_slice(row)["offset"] == row["offset"]
        names = [r["architecture"] for r in got["rows"]]
        if selector is None:
            preferred = [n for n in PREFERRED if n in names]
            assert row["architecture"] == (preferred[0] if preferred else names[0])
        else:
            assert row["architecture"] == selector
    else:
        error = chosen.failure()
        assert error.code == "invalid_request" and error.details is not None
        assert error.details["field"] == "architecture" and selector not in error.details["available"]
        assert error.details["available"] == [s["architecture"] for s in got_names(slices)]


def got_names(slices):
    return choose_slice(slices, None).unwrap()["rows"]
