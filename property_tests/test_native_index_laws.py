"""Laws of the fast index's pure parts over hostile input: the sweep always ends and accounts for every byte, the
`.eh_frame` walker never reads past its section, Go string recovery only reports text inside data, and the
composed snapshot never has overlapping procedures or strings, whatever the code and metadata say."""

from __future__ import annotations

import marshal
import struct

from hypothesis import given, settings
from hypothesis import strategies as st

from rea.native import gostrings, index
from rea.native import sweep as sweep_module
from rea.native.eh_frame import fde_ranges
from rea.native.sweep import Region, decode, sweep
from rea.native.sweep_halves import Cut, joined, sweep_head, sweep_tail

ARCHES = st.sampled_from(["x86_64", "x86", "arm64"])
BASE = 0x401000


@settings(max_examples=150, deadline=None)
@given(ARCHES, st.binary(max_size=600))
def test_decode_covers_every_byte_once(architecture, data):
    rows = list(decode(architecture, data, BASE))
    assert sum(r.size for r in rows) == len(data)
    addresses = [r.address for r in rows]
    assert addresses == sorted(set(addresses))
    for row, following in zip(rows, rows[1:]):
        assert row.address + row.size == following.address


@settings(max_examples=150, deadline=None)
@given(ARCHES, st.binary(max_size=600), st.booleans())
def test_sweep_counts_every_byte_and_references_come_from_decoded_sites(architecture, data, pic):
    region = Region(name=".text", start=BASE, data=data, executable=True)
    swept = sweep(architecture, [region], [(BASE, BASE + len(data)), (0x600000, 0x601000)], pic=pic)
    assert swept is not None and swept.code_bytes == len(data)
    sites = {r.address for r in decode(architecture, data, BASE) if r.mnemonic != ".byte"}
    assert swept.instructions == len(sites)
    assert swept.undecoded_bytes == sum(r.size for r in decode(architecture, data, BASE) if r.mnemonic == ".byte")
    assert {r.site for r in swept.references} <= sites
    assert set(swept.indirect_calls) <= sites and set(swept.indirect_jumps) <= sites


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=400), st.sampled_from([4, 8]))
def test_eh_frame_walker_is_total_on_garbage(data, pointer_size):
    assert isinstance(fde_ranges(data, 0x500000, pointer_size), list)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 0x4000), st.integers(1, 0x400)), max_size=30))
def test_eh_frame_walker_reads_the_fdes_it_is_given(fdes):
    """A CIE with augmentation "zR" and pcrel|sdata4, then one FDE per (start offset, size): each comes back."""
    section = 0x500000
    cie_body = b"\x00\x00\x00\x00" + b"\x01zR\x00" + b"\x01\x78\x10" + b"\x01\x1b"
    data = bytearray(struct.pack("<I", len(cie_body)) + cie_body)
    expected = []
    for offset, size in fdes:
        at = len(data)
        field = at + 8  # where pc_begin sits: after the length and the CIE pointer
        start = 0x401000 + offset
        body = struct.pack("<I", at + 4) + struct.pack("<i", start - (section + field)) + struct.pack("<i", size)
        body += b"\x00"  # augmentation data length
        data += struct.pack("<I", len(body)) + body
        expected.append((start, size))
    assert fde_ranges(bytes(data), section, 8) == expected


@settings(max_examples=100, deadline=None)
@given(
    st.binary(min_size=16, max_size=300),
    st.lists(st.tuples(st.integers(0x600000, 0x600140), st.integers(0, 80)), max_size=20),
)
def test_go_strings_are_printable_text_inside_data_without_overlap(data, sized):
    region = Region(name=".rodata", start=0x600000, data=data, executable=False)
    rows, headers = gostrings.recover([region], sized, [0x600000 + i for i in range(0, len(data), 8)])
    for row in rows:
        start = int(row["address"], 16) - 0x600000
        raw = data[start : start + row["length"]]
        assert len(raw) == row["length"] and raw.decode("utf-8").startswith(row["value"])
    assert set(headers.values()) <= {int(r["address"], 16) for r in rows}
    kept = gostrings.without_overlaps(rows)
    spans = sorted((int(r["address"], 16), r["length"]) for r in kept)
    assert all(a + n <= b for (a, n), (b, _) in zip(spans, spans[1:]))


@settings(max_examples=60, deadline=None)
@given(
    st.binary(min_size=1, max_size=400),
    st.lists(st.tuples(st.integers(0, 420), st.integers(0, 64)), max_size=15),
)
def test_index_procedures_never_overlap_and_calls_name_procedures(code, starts):
    """Whatever the metadata claims (starts anywhere, lying sizes), procedure ranges are disjoint, stay inside
    the code section, and every call site's target is a listed procedure or an address outside the code."""
    loader = {
        "architecture": "x86_64",
        "entry": f"0x{BASE:x}",
        "symbols": [
            {
                "name": f"f{i}",
                "address": f"0x{BASE + s:x}",
                "kind": "function",
                "source": "primary",
                "size": n,
                "exported": False,
            }
            for i, (s, n) in enumerate(starts)
        ],
        "function_starts": [],
        "scanned_strings": [],
    }
    region = Region(name=".text", start=BASE, data=code, executable=True)
    swept = sweep("x86_64", [region], [(BASE, BASE + len(code))], pic=False)
    snap = index.snapshot(loader, swept, {}, [(".text", BASE, BASE + len(code))])
    spans = sorted((int(p["address"], 16), p["size"]) for p in snap["procedures"] if p["kind"] != "external")
    assert all(a + n <= b for (a, n), (b, _) in zip(spans, spans[1:]))
    assert all(BASE <= a and a + n <= BASE + len(code) for a, n in spans)
    listed = {p["address"] for p in snap["procedures"]}
    for p in snap["procedures"]:
        for site in p["call_sites"]:
            inside = BASE <= int(site["target"], 16) < BASE + len(code)
            assert site["target"] in listed or not inside
        assert set(p["callees"]) <= listed


# Go's way of passing a string: `lea rax, [rip + d]` then `mov ebx, <length>` (7 + 5 bytes)
LEA_MOV = bytes.fromhex("488d0510000000") + bytes.fromhex("bb05000000")
CODE = st.lists(st.one_of(st.just(LEA_MOV), st.binary(min_size=1, max_size=12)), min_size=1, max_size=40).map(b"".join)


@settings(max_examples=80, deadline=None)
@given(ARCHES, st.binary(max_size=600), st.booleans(), st.integers(1, 7))
def test_the_sweep_does_not_depend_on_how_many_instructions_capstone_decodes_per_call(architecture, data, pic, batch):
    region = Region(name=".text", start=BASE, data=data, executable=True)
    mapped = [(BASE, BASE + len(data)), (0x600000, 0x601000)]
    whole = sweep(architecture, [region], mapped, pic=pic)
    kept, sweep_module.BATCH = sweep_module.BATCH, batch
    try:
        assert sweep(architecture, [region], mapped, pic=pic) == whole
    finally:
        sweep_module.BATCH = kept


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(["x86_64", "x86"]), CODE, st.booleans(), st.data())
def test_a_sweep_cut_in_two_halves_is_the_whole_sweep(architecture, code, pic, data):
    """Wherever the second half starts decoding (inside an instruction, inside garbage, at an lea's mov), the
    halves joined through marshal (what the pipe between the processes carries) equal the one sweep; without
    the second half's lists the join is the whole sweep only if the halves never met."""
    cut = Cut(index=1, at=BASE + data.draw(st.integers(0, len(code) - 1)))
    regions = [
        Region(name=".rodata", start=0x600000, data=b"x" * 64, executable=False),
        Region(name=".text", start=BASE, data=code, executable=True),
        Region(name=".fini", start=BASE + 0x10000, data=LEA_MOV, executable=True),
    ]
    mapped = [(r.start, r.start + len(r.data)) for r in regions]
    whole = sweep(architecture, regions, mapped, pic=pic)
    tail = marshal.loads(marshal.dumps(sweep_tail(architecture, regions, mapped, pic=pic, cut=cut)))
    assert joined(sweep_head(architecture, regions, mapped, pic=pic, cut=cut), tail) == whole
    alone = joined(sweep_head(architecture, regions, mapped, pic=pic, cut=cut), None)
    assert alone is None or alone == whole


def test_an_lea_and_its_mov_on_either_side_of_the_meeting_stay_one_pair():
    """Every cut of a run of Go's lea/mov pairs, most of which make the halves meet at a mov whose lea the
    first half decoded: the pair is still found once."""
    code = LEA_MOV * 10
    regions = [Region(name=".text", start=BASE, data=code, executable=True)]
    mapped = [(BASE, BASE + len(code))]
    whole = sweep("x86_64", regions, mapped, pic=False)
    assert whole is not None and len(whole.sized) == 10
    for offset in range(len(code)):
        cut = Cut(index=0, at=BASE + offset)
        tail = sweep_tail("x86_64", regions, mapped, pic=False, cut=cut)
        assert joined(sweep_head("x86_64", regions, mapped, pic=False, cut=cut), tail) == whole
