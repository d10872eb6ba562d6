"""Hostile modules for inspect_wasm_artifact: fuzzed and truncated bytes, section lengths past the end.

Law: WABT runs bounded and the answer is either a complete result the pure
builder accepts or a canonical invalid_request naming WABT's complaint; the
custom-section decoder never raises on any byte string.
"""

from __future__ import annotations

import io
import shutil
import subprocess
import tempfile
from functools import cache
from pathlib import Path

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from returns.result import Success

from effects.progress import Progress
from effects.wasm.customs import custom_sections
from effects.wasm.runtime import inspect_wasm
from rea.wasm.binary import decode_module
from rea.wasm.build import wasm_result
from rea.wasm.model import InspectWasm

WAT = '(module (func (export "f") (result i32) i32.const 1) (memory 1) (data (i32.const 0) "abc"))'


@cache
def seed() -> bytes:
    if shutil.which("wat2wasm") is None:
        pytest.skip("WABT is not installed (scripts/setup test installs it)")
    work = Path(tempfile.mkdtemp(prefix="rea-wasm-seed-"))
    (work / "m.wat").write_text(WAT)
    subprocess.run(["wat2wasm", str(work / "m.wat"), "-o", str(work / "m.wasm")], check=True, capture_output=True)
    return (work / "m.wasm").read_bytes()


def _inspect(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "m.wasm"
        path.write_bytes(data)
        effect = InspectWasm(path=str(path), glue_paths=(), candidate_paths=(), max_wat_inline_units=4096)
        got = anyio.run(inspect_wasm, effect, Progress(None))
    if isinstance(got, Success):
        result = wasm_result(got.unwrap(), 1, 1)
        assert result.validation == "valid" and result.artifact.bytes == len(data)
    else:
        assert got.failure().code == "invalid_request", got.failure()


@settings(max_examples=30)
@given(st.data())
def test_fuzzed_and_truncated_modules(data):
    raw = bytearray(seed())
    for _ in range(data.draw(st.integers(0, 6))):
        raw[data.draw(st.integers(0, len(raw) - 1))] = data.draw(st.integers(0, 255))
    cut = data.draw(st.integers(0, len(raw)))
    _inspect(bytes(raw[:cut]))


@settings(max_examples=15)
@given(st.integers(1, 0x0FFFFFFF))
def test_a_section_length_past_the_end_is_refused(length):
    raw = seed()
    leb = bytearray()
    while True:
        b, length = length & 0x7F, length >> 7
        leb.append(b | (0x80 if length else 0))
        if not length:
            break
    _inspect(raw + b"\x00" + bytes(leb) + b"\x04name")


@given(st.binary(max_size=512))
def test_custom_section_decoder_never_raises(noise):
    found = custom_sections(io.BytesIO(b"\0asm\x01\0\0\0" + noise))
    assert isinstance(found["names"], list) and isinstance(found["limitations"], list)


@given(st.dictionaries(st.sampled_from([1, 2, 3, 7]), st.binary(max_size=256)), st.binary(max_size=128))
def test_module_table_decoder_never_raises(payloads, names):
    """Hostile type/import/function/export payloads stop their table with a limitation, never an exception."""
    found = decode_module(payloads, {sid: 1 for sid in payloads}, names)
    counts = found.counts
    assert counts.functions == counts.imported_functions + counts.defined_functions == len(found.functions)
    assert [f.index for f in found.functions] == list(range(len(found.functions)))
