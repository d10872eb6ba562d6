"""Hostile input for the web family's offline tools: PNGs and HAR documents.

Laws: a PNG written by an independent encoder (here, zlib and the filter
definitions) decodes to exactly its pixels under every filter choice; a truncated
PNG, a chunk whose length lies, or any flipped byte is a PngError or a correctly
sized image, never another exception. Any HAR text is a canonical error or
records; a declared sensitive value never survives in a reported value or a
retained body; base64 bodies that do not decode fail the capture.
"""

from __future__ import annotations

import base64
import json
import struct
import tempfile
import zlib
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from returns.result import Failure, Success

from effects.web_network.runtime import decode_json, read_har
from rea.web_network.capture import Malformed
from rea.web_network.capture import har_records as _har_records
from rea.web_network.png import PngError, decode_png
from rea.wire.convert import to_wire

# ------------------------------------------------------------------ PNG encoder (the independent side)


def _paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else b if pb <= pc else c


def _filtered(row: bytes, prior: bytes, kind: int, bpp: int = 4) -> bytes:
    out = bytearray()
    for i, x in enumerate(row):
        a = row[i - bpp] if i >= bpp else 0
        b = prior[i]
        c = prior[i - bpp] if i >= bpp else 0
        predictor = [0, a, b, (a + b) // 2, _paeth(a, b, c)][kind]
        out.append((x - predictor) & 0xFF)
    return bytes(out)


def _chunk(kind: bytes, payload: bytes) -> bytes:
    return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload))


def encode_rgba(width: int, height: int, pixels: bytes, filters: list[int]) -> bytes:
    stride = width * 4
    raw, prior = bytearray(), bytes(stride)
    for y in range(height):
        row = pixels[y * stride : (y + 1) * stride]
        kind = filters[y % len(filters)]
        raw += bytes([kind]) + _filtered(row, prior, kind)
        prior = row
    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    idat = zlib.compress(bytes(raw))
    return b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", idat) + _chunk(b"IEND", b"")


@st.composite
def images(draw: Any) -> tuple[int, int, bytes, list[int]]:
    width = draw(st.integers(1, 12))
    height = draw(st.integers(1, 8))
    pixels = draw(st.binary(min_size=width * height * 4, max_size=width * height * 4))
    filters = draw(st.lists(st.integers(0, 4), min_size=1, max_size=4))
    return width, height, pixels, filters


@settings(max_examples=150, deadline=None)
@given(images())
def test_every_filter_round_trips(image):
    width, height, pixels, filters = image
    decoded = decode_png(encode_rgba(width, height, pixels, filters), 10_000)
    assert (decoded.width, decoded.height, decoded.rgba) == (width, height, pixels)


def _decodes_or_refuses(data: bytes) -> None:
    try:
        image = decode_png(data, 10_000)
    except PngError:
        return
    assert len(image.rgba) == image.width * image.height * 4


@settings(max_examples=150, deadline=None)
@given(images(), st.data())
def test_truncated_png_is_refused(image, data):
    png = encode_rgba(*image)
    cut = data.draw(st.integers(0, len(png) - 1))
    try:
        decode_png(png[:cut], 10_000)
    except PngError:
        return
    raise AssertionError(f"a PNG cut at {cut} of {len(png)} bytes decoded")


@settings(max_examples=150, deadline=None)
@given(images(), st.integers(0, 2), st.integers(0, 2**32 - 1))
def test_lying_chunk_length_is_refused(image, which, length):
    png = bytearray(encode_rgba(*image))
    at = 8
    for _ in range(which):  # the IHDR, IDAT or IEND length field
        at += 12 + struct.unpack_from(">I", png, at)[0]
    true = struct.unpack_from(">I", png, at)[0]
    struct.pack_into(">I", png, at, length)
    if length == true:
        assert decode_png(bytes(png), 10_000).width == image[0]
        return
    try:
        decode_png(bytes(png), 10_000)
    except PngError:
        return
    raise AssertionError(f"chunk length {length} (true {true}) was accepted")


@settings(max_examples=200, deadline=None)
@given(images(), st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 255)), min_size=1, max_size=8))
def test_flipped_bytes_never_escape(image, flips):
    png = bytearray(encode_rgba(*image))
    for at, value in flips:
        png[at % len(png)] = value
    _decodes_or_refuses(bytes(png))


def test_the_pixel_bound_is_checked_before_inflating():
    bomb = encode_rgba(1, 1, bytes(4), [0])
    header = struct.pack(">IIBBBBB", 60_000, 60_000, 8, 6, 0, 0, 0)
    lying = bomb[:8] + _chunk(b"IHDR", header) + bomb[8 + 25 :]
    try:
        decode_png(lying, 16_000_000)
    except PngError as exc:
        assert "maximum_pixels" in str(exc)
    else:
        raise AssertionError("a 3.6 gigapixel header was inflated")


# ------------------------------------------------------------------ HAR

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=20,
)
secrets = st.text(alphabet="QXZJqxzj#%", min_size=6, max_size=10)


def _entry(extra: Any, secret: str, body: str, encoding: str | None) -> dict[str, Any]:
    content: dict[str, Any] = {"size": 1, "mimeType": "x", "text": body}
    if encoding:
        content["encoding"] = encoding
    return {
        "request": {
            "method": "GET",
            "url": f"http://h/{secret}/7",
            "headers": [{"name": "Authorization", "value": secret}, {"name": f"x-{secret}", "value": "v"}],
            "postData": {"text": f"pre {secret} post"},
        },
        "response": {"status": 200, "headers": [], "content": content},
        "extra": extra,
        secret: "named by the secret",
    }


def har_records(document, secrets):
    """The reader's container and records as the JSON the Evidence carries (it builds records)."""
    container, records = _har_records(document, secrets)
    return to_wire(container), [to_wire(r) for r in records]


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in [k, *_strings(v)]]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return []


@settings(max_examples=150, deadline=None)
@given(json_values, secrets, st.binary(max_size=40), st.booleans())
def test_sensitive_values_never_survive(extra, secret, body, encoded):
    text = base64.b64encode(body + secret.encode()).decode() if encoded else f"{secret} text"
    har = {"log": {"version": "1.2", "creator": {"name": secret}, "entries": [_entry(extra, secret, text, None)]}}
    if encoded:
        har["log"]["entries"][0]["response"]["content"]["encoding"] = "base64"
    container, records = har_records(decode_json(json.dumps(har)), (secret,))
    for record in records:
        assert not any(secret in s for s in _strings(record["reported"]))
        for field in record["binary_fields"]:
            if field["state"] == "retained":
                assert secret.encode() not in base64.b64decode(field["content_base64"])
    assert not any(secret in s for s in _strings(container["reported"]))


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet="ABCabc012+/=*!-_ ", min_size=1, max_size=30))
def test_base64_bodies_decode_or_fail_the_capture(text):
    har = {"log": {"version": "1.2", "entries": [_entry(None, "SECRET", text, "base64")]}}
    try:
        _, records = har_records(decode_json(json.dumps(har)), ())
    except Malformed as exc:
        assert exc.pointer == "/log/entries/0/response/content/text"
        return
    assert base64.b64decode(records[0]["binary_fields"][0]["content_base64"]) == base64.b64decode(text, validate=True)


@settings(max_examples=150, deadline=None)
@given(json_values)
def test_any_entry_is_records_or_malformed(entry):
    har = {"log": {"version": "1.2", "entries": [entry, _entry(entry, "SECRET", "t", None)]}}
    try:
        _, records = har_records(decode_json(json.dumps(har)), ())
    except Malformed as exc:
        assert exc.pointer.startswith("/log/entries/0")
        return
    assert [r["ordinal"] for r in records] == [0, 1]


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=200), st.data())
def test_any_file_is_a_canonical_answer(noise, data):
    seed = json.dumps({"log": {"version": "1.2", "entries": [_entry(1, "SECRET", "AAEC", "base64")]}}).encode()
    cut = data.draw(st.integers(0, len(seed)))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "c.har"
        path.write_bytes(seed[:cut] + noise)
        got = read_har(str(path), 1 << 20)
    if isinstance(got, Failure):
        assert got.failure().code == "invalid_request"
        return
    assert isinstance(got, Success)
    try:
        har_records(got.unwrap()["document"], ())
    except Malformed:
        pass
