"""Laws of the annotation store model and the mapped-memory decisions (rea.native.annotations, rea.native.image):
hostile stored documents and names never crash and come back as canonical errors; edits round-trip; reads
never pass a segment's file bytes."""

from __future__ import annotations

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st
from returns.result import Failure, Result, Success

from prop_support import mutated, seeds
from rea.errors import ReaError
from rea.native import annotations as notes
from rea.native import image
from rea.native.image_facts import LoadMap, Region

SHA, DIGEST = "a" * 64, "b" * 64
addresses = st.integers(min_value=0, max_value=2**48).map(lambda v: f"0x{v:x}")
texts = st.text(max_size=80)
tables = st.sampled_from(notes.TABLES[:4])
changes = st.lists(st.tuples(tables, addresses, st.one_of(st.none(), texts)), max_size=12)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=20,
)


def _either(result: Result[notes.Annotations, ReaError]) -> notes.Annotations | ReaError:
    """The parsed store or the refusal, whichever the parse gave."""
    match result:
        case Success(state):
            return state
        case Failure(error):
            return error
    raise AssertionError(result)


def _valid(state: notes.Annotations) -> bool:
    document = orjson.loads(orjson.dumps(notes.to_json(state, SHA, DIGEST)))
    return notes.from_json(document, "store", SHA, DIGEST).value_or(None) == state


@given(changes)
def test_applied_edits_round_trip_through_the_stored_document(edits):
    state = notes.EMPTY
    for table, address, text in edits:
        check = notes.check_name if table == "names" else notes.check_text
        if text is not None and check(text).map(lambda _: False).value_or(True):
            continue  # the programs refuse these before an edit exists
        applied = notes.apply(state, notes.Edit(changes=((table, address, text),))).unwrap()
        assert isinstance(applied, notes.Annotations) and applied.revision == state.revision + 1
        state = applied
    assert _valid(state)


@given(json_values)
def test_any_stored_document_parses_or_is_refused_as_corruption(raw):
    got = _either(notes.from_json(raw, "store", SHA, DIGEST))
    assert isinstance(got, notes.Annotations) or (
        isinstance(got, ReaError)
        and got.code == "artifact_integrity_mismatch"
        and got.details is not None
        and got.details["reason"] == "annotation_store_corrupted"
    )


@given(st.data())
def test_a_mutated_store_is_refused_or_still_valid(data):
    state = notes.apply(notes.EMPTY, notes.Edit(changes=(("comments", "0x10", "ok"), ("names", "0x20", "n")))).unwrap()
    assert isinstance(state, notes.Annotations)
    document = notes.to_json(state, SHA, DIGEST)
    key = data.draw(st.sampled_from(sorted(document)))
    document[key] = data.draw(json_values)
    got = _either(notes.from_json(document, "store", SHA, DIGEST))
    assert isinstance(got, (notes.Annotations, ReaError))


@given(st.text(max_size=300))
def test_names_with_control_characters_or_too_long_are_refused(text):
    problem = notes.check_name(text).swap().value_or(None)
    controls = any(ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 or c in "\u2028\u2029" for c in text)
    assert (problem is None) == (bool(text.strip()) and len(text) <= notes.MAX_NAME and not controls)
    if problem is not None:
        assert problem.code == "invalid_request"


@given(
    st.integers(min_value=0, max_value=2**32),
    st.integers(min_value=0, max_value=2**16),
    st.integers(min_value=0, max_value=2**16),
    st.integers(min_value=0, max_value=2**20),
    st.integers(min_value=0, max_value=2**33),
    st.integers(min_value=1, max_value=4096),
)
def test_a_read_never_passes_the_file_bytes_of_its_segment(vaddr, filesz, extra, offset, address, length):
    segment = Region(name="s", vaddr=vaddr, memsize=filesz + extra, offset=offset, filesize=filesz)
    facts = LoadMap(format="elf", architecture="x86", bits=64, segments=(segment,))
    plan = image.read_plan(facts, address, length)
    inside = vaddr <= address < vaddr + filesz + extra
    assert (plan is None) == (not inside)
    if plan is not None:
        start, count, reason = plan
        assert start == offset + address - vaddr and 0 <= count <= length
        assert address + count <= vaddr + filesz or count == 0
        assert (reason is None) == (count == length)


@given(
    st.integers(min_value=0, max_value=2**64),
    st.integers(min_value=0, max_value=2**64),
    st.integers(min_value=0, max_value=2**20),
    st.integers(min_value=0, max_value=2**64 - 1),
    st.integers(min_value=1, max_value=4096),
)
def test_a_planned_read_stays_inside_the_file_whatever_the_header_claims(offset, filesz, size, address, length):
    segment = Region(name="s", vaddr=0, memsize=2**64, offset=offset, filesize=filesz)
    claimed = LoadMap(format="elf", architecture="x86", bits=64, segments=(segment,))
    plan = image.read_plan(image.held_by_file(claimed, size), address, length)
    assert plan is not None
    start, count, _ = plan
    assert count == 0 or (0 <= start and start + count <= size)


# ------------------------------------------------------- hostile binaries


def _image_or_error(data: bytes, address: int, length: int) -> None:
    import tempfile
    from pathlib import Path

    from effects.native.image import _MAPS, _image
    from rea.native.effects import ReadImage

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "subject"
        path.write_bytes(data)
        _MAPS.clear()
        loaded = _image(ReadImage(path=str(path), sha256="0" * 64))
        refused = loaded.swap().value_or(None)
        if refused is not None:
            assert refused.code in ("capability_unavailable", "target_unavailable"), refused
            return
        got = loaded.unwrap()
        plan = image.read_plan(got.load_map, address, length)
        if plan is None or plan[1] == 0:
            return
        read = _image(
            ReadImage(
                path=str(path), sha256="0" * 64, file_offset=plan[0], length=plan[1], address=address, decode=True
            )
        ).unwrap()
        assert read.decoded is not None
        assert len(read.bytes_hex) // 2 <= plan[1] and read.decoded.status in (
            "decoded",
            "undecodable",
            "unsupported",
        )


@settings(max_examples=40)
@given(mutated(), st.integers(0, 0x6000), st.integers(1, 64))
def test_fuzzed_binaries_give_a_load_map_or_a_canonical_error(data, address, length):
    _image_or_error(data, address, length)


@settings(max_examples=30)
@given(st.data())
def test_truncated_binaries_give_a_load_map_or_a_canonical_error(data):
    seed = data.draw(st.sampled_from(seeds()))
    _image_or_error(seed[: data.draw(st.integers(0, min(len(seed), 16384)))], data.draw(st.integers(0, 0x5000)), 16)


@settings(max_examples=40)
@given(mutated(), st.sampled_from(("int", "main", "point")))
def test_fuzzed_dwarf_gives_a_type_or_a_canonical_answer(data, name):
    import tempfile
    from pathlib import Path

    from effects.native.dwarf import guarded
    from rea.native.effects import ReadDwarfType

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "subject"
        path.write_bytes(data)
        match guarded(ReadDwarfType(path=str(path), type=name)):
            case Success(facts):
                assert facts["status"] in ("found", "not-found", "unavailable")
            case refused:
                assert refused.failure().code == "target_unavailable"
