"""Hostile Mach-O metadata: fuzzed bytes under fuzzed section tables never crash the readers; every
record either decodes or says, as invalid, which address left the image."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from rea.apple_metadata.dispatch import Artifact, dispatch_result
from rea.apple_metadata.image import MachImage, Section, Segment
from rea.apple_metadata.results import Reading, objc_classes, objc_protocols, swift_types

BASE = 0x1000
NAMES = [
    ("__DATA", "__objc_classlist"),
    ("__DATA_CONST", "__objc_protolist"),
    ("__DATA", "__objc_catlist"),
    ("__TEXT", "__swift5_types"),
    ("__TEXT", "__swift5_protos"),
]

sections = st.lists(
    st.tuples(st.sampled_from(NAMES), st.integers(0, 0x600), st.integers(0, 0x200)), min_size=1, max_size=5
)


def _image(data: bytes, table, chained) -> MachImage:
    return MachImage(
        data=data,
        segments=(Segment(name="__TEXT", vmaddr=BASE, vmsize=len(data), fileoff=0, filesize=len(data)),),
        sections=tuple(Section(segment=seg, name=name, addr=BASE + at, size=size) for (seg, name), at, size in table),
        chained_format=chained,
        base=BASE,
    )


@settings(max_examples=150, deadline=None)
@given(
    data=st.binary(min_size=0, max_size=0x800),
    table=sections,
    chained=st.sampled_from([None, 2, 6, 1, 99]),
)
def test_fuzzed_images_decode_or_say_what_did_not(data, table, chained):
    reading = Reading(_image(data, table, chained), None, 64)
    classes = objc_classes(reading, "")
    assert classes.count == len(classes.classes) <= 64
    for row in classes.classes:
        assert (row.decode.status == "decoded") == (row.decode.reason is None)
    objc_protocols(reading)
    swift_types(reading, None, None)
    result = dispatch_result(reading, Artifact(path="/fuzz", sha256="0" * 64), 64)
    assert {c.facet for c in result.result.coverage} >= {"objc_classes", "swift_declarations"}


@settings(max_examples=60, deadline=None)
@given(words=st.lists(st.integers(0, 2**64 - 1), min_size=64, max_size=256))
def test_self_referencing_pointer_soup_terminates(words):
    """Every slot points somewhere inside the image: chains and cycles everywhere, and still an answer."""
    data = b"".join(
        (BASE + (w % (len(words) * 8))).to_bytes(8, "little") if w % 3 else w.to_bytes(8, "little") for w in words
    )
    table = [(("__DATA", "__objc_classlist"), 0, len(data) // 2), (("__TEXT", "__swift5_types"), len(data) // 2, 64)]
    reading = Reading(_image(data, table, None), None, 1000)
    assert objc_classes(reading, "").coverage.examined == len(data) // 2 // 8
