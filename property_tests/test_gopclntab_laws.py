"""Laws of the Go pclntab and build-info parsers over hostile bytes: every layout round-trips, and
lying offsets, counts and sizes give a Problem or fewer rows with reasons, never an exception."""

from __future__ import annotations

import struct
import sys
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from rea.native import gopclntab as g

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from gopclntab_fixtures import MAGIC, rows, table  # noqa: E402

LAYOUTS = st.sampled_from(sorted(MAGIC))


@given(layout=LAYOUTS, count=st.integers(1, 40), ptr=st.sampled_from([4, 8]), big=st.booleans())
def test_every_layout_round_trips(layout, count, ptr, big):
    expected = rows(count)
    parsed = g.parse(table(layout, expected, ptr=ptr, big=big))
    assert isinstance(parsed, g.PcLnTable) and parsed.layout == layout and parsed.problems == ()
    assert [(f.entry, f.size, f.name) for f in parsed.functions] == expected
    assert parsed.pointer_size == ptr and parsed.big_endian == big


@given(layout=LAYOUTS, cut=st.integers(0, 400))
def test_truncated_tables_never_raise(layout, cut):
    data = table(layout, rows(8))
    parsed = g.parse(data[:cut])
    if isinstance(parsed, g.PcLnTable):
        assert all(f.size >= 0 and f.name for f in parsed.functions)
    else:
        assert parsed.reason


@given(layout=LAYOUTS, position=st.integers(8, 200), value=st.integers(0, 2**32 - 1))
def test_lying_header_and_row_words_never_raise(layout, position, value):
    data = bytearray(table(layout, rows(6)))
    if position + 4 <= len(data):
        data[position : position + 4] = struct.pack("<I", value)
    parsed = g.parse(bytes(data))
    assert isinstance(parsed, (g.PcLnTable, g.Problem))
    if isinstance(parsed, g.PcLnTable):
        assert len(parsed.functions) <= 6 or len(parsed.functions) <= value
        assert all(f.size >= 0 for f in parsed.functions)


@given(layout=LAYOUTS, nfunc=st.integers(1000, 2**40))
def test_a_count_past_the_end_is_a_problem(layout, nfunc):
    data = bytearray(table(layout, rows(6)))
    data[8:16] = struct.pack("<Q", nfunc)
    parsed = g.parse(bytes(data))
    assert isinstance(parsed, g.Problem) and "past the table's end" in parsed.reason


@given(st.binary(max_size=600))
def test_noise_never_raises(noise):
    assert isinstance(g.parse(noise), (g.PcLnTable, g.Problem))
    g.locate(noise)
    assert g.build_info(noise) is None or isinstance(g.build_info(noise), (g.BuildInfo, g.Problem))


@given(prefix=st.binary(max_size=64), tail=st.binary(max_size=200), flags=st.integers(0, 255))
def test_build_info_with_lying_lengths_never_raises(prefix, tail, flags):
    blob = prefix + g.BUILDINFO_MAGIC + bytes([8, flags]) + b"\x00" * 16 + tail
    found = g.build_info(blob)
    assert isinstance(found, (g.BuildInfo, g.Problem))


def test_build_info_reads_version_module_and_replaced_dependencies():
    modinfo = (
        "0123456789abcdef"
        "path\texample.com/app\nmod\texample.com/app\t(devel)\t\n"
        "dep\texample.com/dep\tv1.2.3\th1:x\n=>\t../dep\t(devel)\t\nbuild\tGOOS=linux\n"
        "fedcba9876543210"
    )

    def inline(text: str) -> bytes:
        raw, length, prefix = text.encode(), len(text.encode()), b""
        while length >= 0x80:
            prefix, length = prefix + bytes([length & 0x7F | 0x80]), length >> 7
        return prefix + bytes([length]) + raw

    blob = b"\x00" * 32 + g.BUILDINFO_MAGIC + bytes([8, 2]) + b"\x00" * 16 + inline("go1.21.0") + inline(modinfo)
    info = g.build_info(blob)
    assert info == g.BuildInfo(
        go_version="go1.21.0",
        module_path="example.com/app",
        main_version="(devel)",
        dependencies=(("example.com/dep", "v1.2.3 => ../dep (devel)"),),
        settings=(("GOOS", "linux"),),
    )
