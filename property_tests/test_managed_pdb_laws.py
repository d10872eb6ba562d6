"""Hostile portable PDBs beside an assembly: truncated or fuzzed files never crash the companion reader.

Each case reads as PdbFacts (with issues naming what could not be read) and its artifact-result form
validates against the advertised PortablePdb schema.
"""

from __future__ import annotations

import hashlib
import sys
import tempfile
from pathlib import Path

import jsonschema
from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from effects.managed.pdb import read_companion  # noqa: E402
from managed_fixtures import portable_pdb  # noqa: E402
from rea.managed.facts import AssemblyFacts, ManagedLimits  # noqa: E402
from rea.managed.pdb import portable_pdb as pdb_result  # noqa: E402
from rea.managed.records.artifact import PortablePdb  # noqa: E402
from rea.wire.convert import to_wire  # noqa: E402
from rea.wire.schema import schema_of  # noqa: E402

LIMITS = ManagedLimits(max_file_bytes=1 << 20, max_metadata_bytes=1 << 20, max_heap_item_bytes=1 << 12,
                       max_table_rows=1000)  # fmt: skip
VALIDATOR = jsonschema.Draft202012Validator(schema_of(PortablePdb))
_DIR = Path(tempfile.mkdtemp(prefix="rea-pdb-laws-"))
SEED = portable_pdb(_DIR / "seed.pdb", [("/src/A.cs", hashlib.sha256(b"a").digest())] * 3, methods=9, with_points=4)
SEED_BYTES = SEED.read_bytes()


def _read(data: bytes) -> dict:
    (_DIR / "Case.pdb").write_bytes(data)
    facts = read_companion(str(_DIR / "Case.dll"), LIMITS)
    assert facts is not None
    assembly = AssemblyFacts(path=str(_DIR / "Case.dll"), size=0, sha256="0" * 64, pe=None, cli=None,
                             metadata_version=None, metadata_present=False, streams=(), tables={}, resources=(),
                             bodies=(), issues=(), pdb=facts)  # fmt: skip
    wire = to_wire(pdb_result(assembly))
    VALIDATOR.validate(wire)
    return wire


def test_the_seed_reads_completely():
    wire = _read(SEED_BYTES)
    assert wire["status"] == "read" and len(wire["documents"]) == 3
    assert wire["method_debug_information"] == {"rows": 9, "with_sequence_points": 4}


@settings(max_examples=150, deadline=None)
@given(st.integers(min_value=0, max_value=len(SEED_BYTES) - 1))
def test_truncated_pdbs_end_in_issues(cut):
    wire = _read(SEED_BYTES[:cut])
    assert wire["status"] in ("unreadable", "partial", "read")
    assert wire["status"] == "read" or wire["issues"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(min_value=0, max_value=len(SEED_BYTES) - 1), st.integers(0, 255)),
                min_size=1, max_size=8))  # fmt: skip
def test_fuzzed_pdbs_never_crash(flips):
    data = bytearray(SEED_BYTES)
    for at, value in flips:
        data[at] = value
    _read(bytes(data))


def test_row_counts_past_the_file_are_an_issue():
    data = bytearray(SEED_BYTES)
    at = data.index(b"#~\0\0")  # its stream header: offset, size precede the name
    tables = int.from_bytes(data[at - 8 : at - 4], "little")
    data[tables + 24 : tables + 28] = (0x7FFF_FFFF).to_bytes(4, "little")  # Document rows
    wire = _read(bytes(data))
    assert wire["status"] == "unreadable" and "run past the file" in wire["issues"][0]
