"""Hostile Apple artifacts: lying lengths, truncation, mutated bytes and cyclic or dangling keyed-archive UIDs.

Laws: the NIBArchive and asset-catalog readers answer a table or a canonical malformed error for any
bytes, never an exception and never an unbounded walk; a keyed archive's links always name indices by
number (cycles are links, never expanded), every page keeps original indices, and the pages tile the table.
"""

from __future__ import annotations

import struct
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from returns.result import Failure, Success

from rea.apple_artifacts import car, keyed, nib
from rea.apple_artifacts.interface_graph import DecodedDocument, build
from rea.wire.convert import to_wire

RESOURCES = Path(__file__).parent.parent / "tests" / "fixtures" / "apple" / "Sample.app" / "Contents" / "Resources"
NIB = (RESOURCES / "About.nib").read_bytes()
CAR = (RESOURCES / "Assets.car").read_bytes()


def _mutated(base: bytes) -> st.SearchStrategy[bytes]:
    """The real file with a few bytes overwritten (header words included) and maybe cut short."""
    edits = st.lists(st.tuples(st.integers(0, len(base) - 1), st.binary(min_size=1, max_size=4)), max_size=6)

    def apply(pair: tuple[list[tuple[int, bytes]], int]) -> bytes:
        data = bytearray(base)
        for at, chunk in pair[0]:
            data[at : at + len(chunk)] = chunk
        return bytes(data[: pair[1]])

    return st.tuples(edits, st.integers(0, len(base))).map(apply)


def _lying_header(base: bytes, fmt: str, at: int) -> st.SearchStrategy[bytes]:
    words = struct.calcsize(fmt) // 4
    return st.lists(st.integers(0, 2**32 - 1), min_size=words, max_size=words).map(
        lambda values: base[:at] + struct.pack(fmt, *values) + base[at + struct.calcsize(fmt) :]
    )


@settings(max_examples=150, deadline=None)
@given(st.one_of(_mutated(NIB), _lying_header(NIB, "<8I", 18), st.binary(max_size=200).map(lambda b: nib.MAGIC + b)))
def test_any_nib_bytes_give_a_table_or_a_malformed_error(data):
    parsed = nib.parse_nib_archive(data)
    if isinstance(parsed, Failure):
        assert parsed.failure().details["reason"] == "malformed"
        return
    table = parsed.unwrap()
    assert all(0 <= o.index < len(table.objects) for o in table.objects)
    doc = DecodedDocument(relative_path="x.nib", sha256="0" * 64, kind="nib", table=table)
    graph = to_wire(build("0" * 64, [doc], {"max_objects": 50, "max_connections": 50}, 1))["graph"]
    ids = {n["id"] for n in graph["nodes"]}
    assert len(ids) <= 50 and all(e["to"] is None or e["to"] in ids for e in graph["edges"])


@settings(max_examples=150, deadline=None)
@given(st.one_of(_mutated(CAR), _lying_header(CAR, ">6I", 8), st.binary(max_size=300).map(lambda b: car.MAGIC + b)))
def test_any_catalog_bytes_give_records_or_a_malformed_error(data):
    parsed = car.parse_car(data)
    assert isinstance(parsed, (Success, Failure))
    if isinstance(parsed, Success):
        records = parsed.unwrap().records
        assert records[0].kind == "catalog" and len(records) <= car.MAX_RECORDS + 1
    else:
        assert parsed.failure().details["reason"] == "malformed"


uids = st.integers(-3, 12).map(lambda n: {"UID": n})
values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.text(max_size=4), uids),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=3), inner, max_size=3)),
    max_leaves=12,
)


@settings(max_examples=200, deadline=None)
@given(st.lists(values, min_size=1, max_size=10), st.integers(1, 4))
def test_keyed_archive_pages_tile_the_table_and_links_stay_numbers(table, limit):
    archive = {"$archiver": "NSKeyedArchiver", "$top": {"root": {"UID": 1}}, "$objects": ["$null", *table]}
    seen, offset, total = [], 0, None
    while offset is not None:
        page = to_wire(keyed.project(archive, None, offset, limit).unwrap())
        total = page["total_objects"]
        seen += [o["id"] for o in page["objects"]]
        for link in page["references"]:
            assert link["target"] is None or isinstance(link["target"], int)
            expected = "malformed" if link["target"] is None else None
            if link["target"] is not None and link["target"] >= total:
                expected = "unresolved"
            assert expected is None or link["status"] == expected
        offset = page["next_offset"]
    assert seen == list(range(total))


def test_a_plist_of_shared_references_cannot_unfold_without_bound():
    """Each level holds the next twice: 2**60 values from 60 objects; refused, never expanded."""
    level: list = ["leaf"]
    for _ in range(60):
        level = [level, level]
    try:
        keyed.plist_json(level, True, 10_000)  # the reader's budget for a 10 KB file
    except keyed.TooDeep:
        return
    raise AssertionError("a 2**60-value plist was expanded")
