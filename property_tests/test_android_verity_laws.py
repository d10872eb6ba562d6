"""Laws of the v4 Merkle tree root (rea.android.verity), checked on arbitrary bytes."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rea.android.verity import verity_root

small = st.binary(min_size=1, max_size=5000)


@given(small, st.data())
def test_every_byte_is_covered(data, draw):
    at = draw.draw(st.integers(0, len(data) - 1))
    changed = data[:at] + bytes([data[at] ^ 1]) + data[at + 1 :]
    assert verity_root(data, 9) != verity_root(changed, 9)


@given(small)
def test_the_last_block_is_zero_padded(data):
    padded = data + bytes(-len(data) % 512)
    assert verity_root(data, 9) == verity_root(padded, 9)


@given(st.binary(max_size=512), st.binary(max_size=16))
def test_one_block_is_the_digest_of_its_padded_digest(data, salt):
    leaf = hashlib.sha256(salt + data + bytes(512 - len(data))).digest() if data else bytes(512)
    top = leaf + bytes(512 - len(leaf)) if data else leaf
    assert verity_root(data, 9, salt) == hashlib.sha256(salt + top).digest()


@given(st.integers().filter(lambda n: not 9 <= n <= 16))
def test_block_sizes_outside_the_range_are_refused(log2):
    with pytest.raises(ValueError, match="outside"):
        verity_root(b"x", log2)
