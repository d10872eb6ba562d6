"""Hostile managed assemblies: truncated, fuzzed or lying metadata never crash or hang the reader.

Every case ends as a canonical error or as a result that validates against the advertised schema,
with partial coverage naming what is missing. The seed assembly is built by mcs (skipped without it).
"""

from __future__ import annotations

import functools
import struct
import sys
import tempfile
import time
from pathlib import Path

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st
from returns.pipeline import is_successful

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from effects.managed.reader import read_assembly  # noqa: E402
from managed_fixtures import library, needs_mono  # noqa: E402
from rea.errors import ReaError  # noqa: E402
from rea.managed.artifact import artifact_result  # noqa: E402
from rea.managed.boundaries import boundaries_result  # noqa: E402
from rea.managed.facts import ManagedLimits, ReadManagedAssembly  # noqa: E402
from rea.managed.members import members_result  # noqa: E402
from rea.managed.records.artifact import ArtifactArgs, ArtifactResult, BoundaryArgs, MembersArgs  # noqa: E402
from rea.managed.records.boundaries import BoundariesResult  # noqa: E402
from rea.managed.records.members import MembersResult  # noqa: E402
from rea.managed.signatures import decode  # noqa: E402
from rea.wire.convert import to_wire  # noqa: E402
from rea.wire.schema import schema_of  # noqa: E402

pytestmark = needs_mono
LIMITS = ManagedLimits(max_file_bytes=1 << 24, max_metadata_bytes=1 << 22, max_heap_item_bytes=1 << 16,
                       max_table_rows=100_000)  # fmt: skip
PAGING = ArtifactArgs()  # every listing whole
VALIDATOR = jsonschema.Draft202012Validator(schema_of(ArtifactResult))
MEMBERS = jsonschema.Draft202012Validator(schema_of(MembersResult))
BOUNDARIES = jsonschema.Draft202012Validator(schema_of(BoundariesResult))
BOUNDARY_ARGS = BoundaryArgs()
MEMBER_ARGS = MembersArgs()  # 100 instruction anchors per body


@functools.cache
def seed() -> bytes:
    out = Path(tempfile.mkdtemp(prefix="rea-managed-laws-"))
    return library(out).read_bytes()


@functools.cache
def layout() -> dict[str, int]:
    """File offsets of the #~ stream and its TypeDef row count, and the first MethodDef row (via dnfile)."""
    import dnfile

    pe = dnfile.dnPE(data=seed())
    tables = pe.net.mdtables
    counts = tables.file_offset + 24  # after the fixed #~ header: one u32 row count per present table
    present = [t.number for t in tables.tables_list]
    typedef_count = counts + 4 * present.index(2)
    return {
        "tables": tables.file_offset,
        "typedef_count": typedef_count,
        "method_row": tables.MethodDef.rows[0].struct.get_file_offset(),
        "metadata": pe.get_offset_from_rva(pe.net.struct.MetaDataRva),
        "metadata_size": pe.net.struct.MetaDataSize,
    }


def check(data: bytes, tmp: Path, bodies: bool = True) -> None:
    path = tmp / "hostile.dll"
    path.write_bytes(data)
    # a hostile length must not make the reader loop: bounded in this thread's CPU seconds, which a loaded host
    # does not inflate (wall-clock time did: CI with two busy cores took 37 s for one read)
    started = time.thread_time()
    got = read_assembly(ReadManagedAssembly(path=str(path), limits=LIMITS, bodies=bodies))
    assert time.thread_time() - started < 20
    if not is_successful(got):
        assert isinstance(got.failure(), ReaError)
        return
    facts = got.unwrap()
    if facts.pe is None or facts.pe.machine not in (0x14C, 0x8664, 0x1C4, 0xAA64):
        return
    result = to_wire(artifact_result(facts, "x86", PAGING))
    VALIDATOR.validate(result)
    if result["coverage"]["state"] == "complete":
        assert result["coverage"]["issues"] == []
    MEMBERS.validate(to_wire(members_result(facts, "x86", MEMBER_ARGS)))
    BOUNDARIES.validate(to_wire(boundaries_result(facts, "x86", BOUNDARY_ARGS)))


@given(cut=st.integers(min_value=0, max_value=4095))
def test_truncated_files_end_in_errors_or_partial_results(cut):
    with tempfile.TemporaryDirectory() as tmp:
        check(seed()[: min(cut, len(seed()))], Path(tmp))


@given(edits=st.lists(st.tuples(st.integers(min_value=0, max_value=1 << 16), st.integers(0, 255)), max_size=16))
def test_fuzzed_metadata_ends_in_errors_or_partial_results(edits):
    data = bytearray(seed())
    base, size = layout()["metadata"], layout()["metadata_size"]
    for at, value in edits:
        data[base + at % size] = value
    with tempfile.TemporaryDirectory() as tmp:
        check(bytes(data), Path(tmp))


@pytest.mark.parametrize("rows", [0x00FFFFFF, 100_000, 70_000])
def test_a_row_count_past_the_stream_is_reported_not_followed(rows, tmp_path):
    data = bytearray(seed())
    struct.pack_into("<I", data, layout()["typedef_count"], rows)
    check(bytes(data), tmp_path)
    path = tmp_path / "hostile.dll"
    got = read_assembly(ReadManagedAssembly(path=str(path), limits=LIMITS, bodies=True))
    if is_successful(got):
        result = to_wire(artifact_result(got.unwrap(), "x86", PAGING))
        assert result["coverage"]["state"] != "complete"


def test_a_body_rva_outside_the_file_is_a_malformed_body(tmp_path):
    data = bytearray(seed())
    struct.pack_into("<I", data, layout()["method_row"], 0x7FFF0000)
    path = tmp_path / "far.dll"
    path.write_bytes(bytes(data))
    facts = read_assembly(ReadManagedAssembly(path=str(path), limits=LIMITS, bodies=True)).unwrap()
    far = [b for b in facts.bodies if b.rva == 0x7FFF0000]
    assert far and far[0].issue and "outside the file" in far[0].issue and far[0].il_sha256 is None


@given(st.binary(max_size=64))
def test_any_signature_blob_decodes_totally(blob):
    got = decode(blob, lambda token: f"t{token:x}")
    assert got.raw_length == len(blob)
    assert got.parse_status in ("decoded", "partial", "unsupported", "malformed")


@given(count=st.integers(min_value=0x40, max_value=0x3FFF))
def test_a_lying_parameter_count_is_malformed(count):
    blob = bytes([0x00, 0x80 | count >> 8, count & 0xFF, 0x01, 0x08])
    assert decode(blob, lambda token: "t").parse_status == "malformed"


@functools.cache
def seed_members() -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "seed.dll"
        path.write_bytes(seed())
        facts = read_assembly(ReadManagedAssembly(path=str(path), limits=LIMITS, bodies=True)).unwrap()
    return to_wire(members_result(facts, "x86", MEMBER_ARGS))


@given(drop=st.sets(st.integers(min_value=0, max_value=40), max_size=8))
def test_comparison_laws(drop):
    """Self-comparison changes nothing; swapping sides swaps added and removed; every member is accounted for."""
    from rea.managed.compare import compare
    from rea.managed.records.compare import CompareLimits
    from rea.managed.retained_results import compared

    limits = CompareLimits(max_candidates=50, max_method_matches=10_000, max_field_matches=5_000)
    stored = seed_members()
    full = compared(stored)
    fewer = compared({**stored, "methods": [m for i, m in enumerate(stored["methods"]) if i not in drop]})
    same = to_wire(compare("ev_" + "1" * 64, full, "ev_" + "1" * 64, full, limits))
    assert same["summary"]["changed"] == same["summary"]["added"] == same["summary"]["removed"] == 0
    forward = to_wire(compare("ev_" + "1" * 64, full, "ev_" + "2" * 64, fewer, limits))["summary"]
    backward = to_wire(compare("ev_" + "2" * 64, fewer, "ev_" + "1" * 64, full, limits))["summary"]
    assert (forward["added"], forward["removed"]) == (backward["removed"], backward["added"])
    assert forward["changed"] == backward["changed"] == 0
