"""Hostile inputs to the layout reader: truncated and fuzzed ELF, PE, Mach-O and universal headers.

Law: the reader answers every byte string with either a layout the pure builder
turns into a complete result, or a canonical error (invalid_request naming the
reason, or target_unavailable); it never raises. Seeds are real binaries built
here (gcc, mingw) and the Go toolchain's Mach-O test data when installed.
"""

from __future__ import annotations

import base64
import shutil
import subprocess
import tempfile
from functools import cache
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from returns.result import Success

from effects.layout.runtime import _layout, guarded
from rea.layout.build import layout_result
from rea.layout.model import ReadBinaryLayout

GO_MACHO = Path("/usr/share/go-1.19/src/debug/macho/testdata")
CODES = {"invalid_request", "target_unavailable"}


@cache
def seeds() -> tuple[bytes, ...]:
    found = []
    work = Path(tempfile.mkdtemp(prefix="rea-layout-seeds-"))
    (work / "s.c").write_text("int g = 1; int main(void) { return g; }\n")
    for compiler, name in (("gcc", "a.out"), ("x86_64-w64-mingw32-gcc", "a.exe")):
        if shutil.which(compiler):
            subprocess.run([compiler, "-o", str(work / name), str(work / "s.c")], check=True, capture_output=True)
            found.append((work / name).read_bytes())
    for name in ("gcc-amd64-darwin-exec", "fat-gcc-386-amd64-darwin-exec"):
        encoded = GO_MACHO / f"{name}.base64"
        if encoded.exists():
            found.append(base64.b64decode(encoded.read_text()))
    if not found:
        pytest.skip("no compiler or Mach-O test data to seed the hostile inputs")
    return tuple(found)


def _check(data: bytes, tmp: Path) -> None:
    path = tmp / "subject"
    path.write_bytes(data)
    effect = ReadBinaryLayout(path=str(path), architecture=None, max_symbols=5000, max_relocations=5000)
    got = guarded(str(path), _layout(effect))
    if isinstance(got, Success):
        value = got.unwrap()
        result = layout_result(value["facts"], value["artifact"], {})
        assert result["artifact"]["bytes"] == len(data)
    else:
        assert got.failure().code in CODES, got.failure()


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    seed = draw(st.sampled_from(seeds()))
    data = bytearray(seed)
    # corrupt header-region bytes most often: that is where the tables are described
    for _ in range(draw(st.integers(1, 24))):
        span = draw(st.sampled_from((64, 512, 4096, len(data))))
        at = draw(st.integers(0, min(span, len(data)) - 1))
        data[at] = draw(st.integers(0, 255))
    cut = draw(st.one_of(st.none(), st.integers(0, len(data))))
    return bytes(data if cut is None else data[:cut])


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
    assert isinstance(result["signed"], bool) and isinstance(result["limitations"], list)
