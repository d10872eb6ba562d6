"""Hostile inputs to the layout reader: truncated and fuzzed ELF, PE, Mach-O and universal headers.

Law: the reader answers every byte string with either a layout the pure builder
turns into a complete result, or a canonical error (invalid_request naming the
reason, or target_unavailable); it never raises. Seeds are real binaries built
here (gcc, mingw) and the Go toolchain's Mach-O test data when installed.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from returns.result import Success

from effects.layout.runtime import _layout, guarded
from prop_support import mutated, seeds
from rea.layout.build import layout_result
from rea.layout.model import ReadBinaryLayout

CODES = {"invalid_request", "target_unavailable"}


def _check(data: bytes, tmp: Path) -> None:
    path = tmp / "subject"
    path.write_bytes(data)
    effect = ReadBinaryLayout(path=str(path), architecture=None, max_symbols=5000, max_relocations=5000)
    got = guarded(str(path), _layout(effect))
    if isinstance(got, Success):
        value = got.unwrap()
        result = layout_result(value["facts"], value["artifact"], {})
        assert result.artifact.bytes == len(data)
    else:
        assert got.failure().code in CODES, got.failure()


@settings(max_examples=60)
@given(mutated())
def test_fuzzed_headers_give_a_layout_or_a_canonical_error(data):
    with tempfile.TemporaryDirectory() as tmp:
        _check(data, Path(tmp))


@settings(max_examples=40)
@given(st.data())
def test_truncations_give_a_layout_or_a_canonical_error(data):
    seed = data.draw(st.sampled_from(seeds()))
    cut = data.draw(st.integers(0, min(len(seed), 8192)))
    with tempfile.TemporaryDirectory() as tmp:
        _check(seed[:cut], Path(tmp))


@given(st.binary(max_size=256), st.sampled_from((b"\x7fELF", b"MZ", b"\xcf\xfa\xed\xfe", b"\xca\xfe\xba\xbe")))
def test_magic_then_noise(noise, magic):
    with tempfile.TemporaryDirectory() as tmp:
        _check(magic + noise, Path(tmp))


@given(st.binary(max_size=2048), st.integers(0, 2**32 - 1), st.integers(0, 200))
def test_signature_blobs_with_lying_lengths_never_raise(tail, length, count):
    from rea.layout.codesign import parse_superblob, signature_result

    blob = (0xFADE0CC0).to_bytes(4, "big") + length.to_bytes(4, "big") + count.to_bytes(4, "big") + tail
    parsed = parse_superblob(blob)
    parsed.pop("cms")
    result = signature_result(parsed, None, "Mach-O thin (arm64)")
    assert isinstance(result.signed, bool) and isinstance(result.limitations, tuple)
