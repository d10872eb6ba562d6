"""Hostile and well-formed DOS images through the pure loader (rea.native.load_image).

Laws: any byte string read as dos-mz or dos-com gives a complete result or the one canonical
truncated-header error, never an exception; status is verified exactly when every check matched;
nothing loaded exceeds the file; every failed check names a coordinate inside the file. A
well-formed image with relocations inside its module always verifies, and each relocated word is
the file's word plus 0x1000, computed here independently."""

from __future__ import annotations

import hashlib
import struct

from hypothesis import given, settings
from hypothesis import strategies as st
from returns.pipeline import is_successful

from rea.errors import ReaError
from rea.native.dos import com_by_name, is_dos_mz, windows_header_offset
from rea.native.load_image import load_image
from rea.wire.convert import to_wire


def _run(data: bytes, fmt: str) -> dict | ReaError:
    got = load_image(data, fmt, "x", hashlib.sha256(data).hexdigest())
    return to_wire(got.unwrap()) if is_successful(got) else got.failure()


header_fields = st.lists(st.integers(0, 0xFFFF), min_size=13, max_size=13)


@st.composite
def hostile_mz(draw: st.DrawFn) -> bytes:
    """An MZ signature, fuzzed header words (small values more often), then arbitrary bytes."""
    small = st.one_of(st.integers(0, 8), st.integers(0, 0x40), st.integers(0, 0xFFFF))
    words = draw(st.lists(small, min_size=13, max_size=13))
    tail = draw(st.binary(max_size=600))
    return (b"MZ" + struct.pack("<13H", *words) + tail)[: draw(st.integers(0, 700))]


@settings(max_examples=400, deadline=None)
@given(hostile_mz(), st.sampled_from(("dos-mz", "dos-com")))
def test_any_bytes_give_a_result_or_the_truncated_header_error(data, fmt):
    got = _run(data, fmt)
    if isinstance(got, ReaError):
        assert fmt == "dos-mz" and len(data) < 28 and got.details["reason"] == "truncated_header"
        return
    matched = all(c["matched"] for c in got["checks"])
    assert (got["status"] == "verified") == matched
    assert got["module_bytes"] <= len(data) and got["target_sha256"] == hashlib.sha256(data).hexdigest()
    for m in got["observations"]["mappings"]:
        if m["file_offset"] is not None:
            assert m["length"] >= 1 and m["file_offset"] + m["length"] <= len(data)
    for c in got["checks"]:
        assert c["matched"] or c["file_offset"] is None or 0 <= c["file_offset"] <= max(len(data), 0x1A)


@st.composite
def well_formed_mz(draw: st.DrawFn) -> tuple[bytes, list[int]]:
    module = draw(st.binary(min_size=2, max_size=1500))
    targets = draw(st.lists(st.integers(0, len(module) - 2), max_size=12))
    paragraphs = 2 + (len(targets) * 4 + 15) // 16
    image = paragraphs * 16 + len(module)
    entry = draw(st.integers(0, len(module) - 1))
    fixed = struct.pack(
        "<2s13H", b"MZ", image % 512, (image + 511) // 512, len(targets), paragraphs, 0, 0xFFFF, 0, 0, 0,
        entry % 16, entry // 16, 0x1C, 0,
    )  # fmt: skip
    table = b"".join(struct.pack("<HH", t % 16, t // 16) for t in targets)
    header = (fixed + table).ljust(paragraphs * 16, b"\0")
    return header + module + draw(st.binary(max_size=40)), targets


@settings(max_examples=200, deadline=None)
@given(well_formed_mz())
def test_a_well_formed_image_verifies_and_each_fixup_adds_the_load_segment(case):
    data, targets = case
    got = _run(data, "dos-mz")
    assert not isinstance(got, ReaError)
    assert got["status"] == "verified", [c for c in got["checks"] if not c["matched"]]
    header = got["header_bytes"]
    memory = bytearray(data[header : header + got["module_bytes"]])
    for t in targets:  # sequentially, as DOS does: a repeated target is relocated twice
        struct.pack_into("<H", memory, t, (struct.unpack_from("<H", memory, t)[0] + 0x1000) & 0xFFFF)
    module = next(m for m in got["observations"]["mappings"] if m["block"] == "MODULE")
    assert module["sha256"] == hashlib.sha256(memory).hexdigest()
    assert [r["address"] for r in got["observations"]["relocations"]] == [hex(0x10000 + t) for t in targets]


@given(st.binary(max_size=300), st.text(max_size=12), st.integers(-1, 0x10000))
def test_sniffing_never_raises(head, name, size):
    assert isinstance(is_dos_mz(head), bool)
    offset = windows_header_offset(head)
    assert offset is None or offset > 0
    assert com_by_name(name, size, "file") in ("file", "dos-com")
