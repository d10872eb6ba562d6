"""The fs-verity Merkle tree root an APK Signature Scheme v4 `.idsig` commits to.

v4 signs the tree's root hash, not the APK's bytes, so a signature that verifies says nothing
about the file until the root is recomputed from it: SHA-256 over each block (salt first, the
last block zero-padded), the digests concatenated and zero-padded to whole blocks, level over
level until one block is left, whose digest is the root. Pure: bytes in, digest out.
"""

from __future__ import annotations

import hashlib

SHA256_ID = 1  # the only v4 hash algorithm: kHashAlgorithmSha256
MIN_LOG2, MAX_LOG2 = 9, 16


def _level(data: bytes | memoryview, block: int, salt: bytes) -> bytes:
    view = memoryview(data)
    out = bytearray()
    for at in range(0, len(view), block):
        chunk = view[at : at + block]
        h = hashlib.sha256(salt)
        h.update(chunk)
        if len(chunk) < block:
            h.update(bytes(block - len(chunk)))
        out += h.digest()
    if len(out) % block:
        out += bytes(block - len(out) % block)
    return bytes(out)


def verity_root(data: bytes | memoryview, log2_block: int = 12, salt: bytes = b"") -> bytes:
    """The root hash of `data`'s tree with 2**log2_block-byte blocks; the empty file's is the zero block's."""
    if not MIN_LOG2 <= log2_block <= MAX_LOG2:
        raise ValueError(f"block size 2**{log2_block} is outside 2**{MIN_LOG2}..2**{MAX_LOG2}")
    block = 1 << log2_block
    level = _level(data, block, salt) if len(data) else bytes(block)
    while len(level) > block:
        level = _level(level, block, salt)
    return hashlib.sha256(salt + level).digest()
