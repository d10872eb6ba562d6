"""Laws of ASAR integrity blocks: block digests do not depend on how the stream is cut, agreeing blocks are no
contradiction, any changed block is named, and malformed declarations are contradictions, never crashes."""

from __future__ import annotations

import hashlib

from hypothesis import given
from hypothesis import strategies as st

from effects.asar import BlockDigests
from rea.artifacts.asar_blocks import DeclaredBlocks, block_count, block_mismatch, declared_blocks


def _blocks(data: bytes, size: int) -> list[str]:
    return [hashlib.sha256(data[i : i + size]).hexdigest() for i in range(0, max(len(data), 1), size)]


@given(st.binary(max_size=300), st.integers(1, 64), st.lists(st.integers(1, 50), max_size=20))
def test_block_digests_do_not_depend_on_the_cuts(data, size, cuts):
    hasher, at = BlockDigests(size), 0
    for cut in cuts:
        hasher.update(data[at : at + cut])
        at += cut
    hasher.update(data[at:])
    assert hasher.hexdigests() == _blocks(data, size)
    assert len(hasher.hexdigests()) == block_count(len(data), size)


@given(st.binary(max_size=300), st.integers(1, 64), st.data())
def test_agreeing_blocks_are_no_contradiction_and_a_changed_one_is_named(data, size, draw):
    observed = _blocks(data, size)
    declared = DeclaredBlocks(size, tuple(observed))
    assert block_mismatch(declared, observed, len(data)) is None
    index = draw.draw(st.integers(0, len(observed) - 1))
    changed = list(observed)
    changed[index] = "0" * 64 if changed[index] != "0" * 64 else "1" * 64
    note = block_mismatch(DeclaredBlocks(size, tuple(changed)), observed, len(data))
    assert note is not None and (f"block {index} " in note or f"block {index}," in note)
    short = DeclaredBlocks(size, tuple(observed[:-1]) or ("0" * 64, "0" * 64))
    assert block_mismatch(short, observed, len(data)) is not None


@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=8),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    )
)
def test_any_declaration_parses_to_none_a_reason_or_blocks(value):
    for integrity in (value, {"blocks": value, "blockSize": 4}, {"blocks": ["a" * 64], "blockSize": value}):
        parsed = declared_blocks(integrity)
        assert parsed is None or isinstance(parsed, (str, DeclaredBlocks))
        if isinstance(parsed, str):
            assert block_mismatch(parsed, [], 0) is not None
