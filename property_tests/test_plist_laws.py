"""Hostile plists: fuzzed XML, binary and JSON bytes are decoded or refused canonically, and the
conversion never emits more than max_nodes values, however the file's references unfold."""

from __future__ import annotations

import os
import plistlib
import tempfile

import anyio
from hypothesis import given, settings
from hypothesis import strategies as st
from returns.result import Failure, Success

from effects.layout.plist_read import read_plist
from effects.progress import Progress
from rea.layout.model import ReadPlist

SEEDS = [
    plistlib.dumps({"k": [1, "two", b"\x03", 4.5, True]}, fmt=plistlib.FMT_BINARY),
    plistlib.dumps({"k": [1, "two", b"\x03", 4.5, True]}, fmt=plistlib.FMT_XML),
    b'{"CFBundleIdentifier": "x", "a": [1, 2, 3]}',
]


def _count(value) -> int:
    if isinstance(value, dict):
        return 1 + sum(_count(v) for v in value.values())
    if isinstance(value, list):
        return 1 + sum(_count(v) for v in value)
    return 1


def _read(raw: bytes, max_nodes: int = 50):
    fd, path = tempfile.mkstemp(suffix=".plist")
    try:
        os.write(fd, raw)
        os.close(fd)
        return anyio.run(read_plist, ReadPlist(path=path, max_nodes=max_nodes, max_depth=8), Progress(None))
    finally:
        os.unlink(path)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(SEEDS), st.data())
def test_fuzzed_plists_are_decoded_or_refused(seed, data):
    raw = bytearray(seed)
    for _ in range(data.draw(st.integers(1, 5))):
        raw[data.draw(st.integers(0, len(raw) - 1))] = data.draw(st.integers(0, 255))
    got = _read(bytes(raw[: data.draw(st.integers(1, len(raw)))]))
    if isinstance(got, Failure):
        err = got.failure()
        assert err.code == "invalid_request" and err.details["reason"] == "malformed", err
    else:
        assert isinstance(got, Success)


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 6), st.integers(2, 6), st.integers(1, 200))
def test_shared_references_never_unfold_past_max_nodes(depth, fan, max_nodes):
    node: list = ["leaf"]
    for _ in range(depth):
        node = [node] * fan
    got = _read(plistlib.dumps(node, fmt=plistlib.FMT_BINARY), max_nodes=max_nodes).unwrap()
    assert _count(got.value) <= max_nodes + (fan**depth + 1)  # cut values are nulls, one per refused slot
    total = sum(fan**i for i in range(depth + 1)) + fan**depth  # the lists, and a "leaf" in each innermost one
    assert (total <= max_nodes) == (not any("max_nodes" in t for t in got.limitations))


def test_an_xml_declaration_naming_an_unknown_encoding_is_refused():
    # found by the fuzz law above: expat raises LookupError for the declared encoding
    got = _read(b'<?xml version="1.0" encoding="U-F-8"?>\n<plist version="1.0"><dict/></plist>')
    assert isinstance(got, Failure) and got.failure().code == "invalid_request"
    assert "LookupError" in got.failure().message
