"""ASAR per-block integrity: the header's `blocks` list against the blocks read.

@electron/asar records, beside a file's SHA-256, the SHA-256 of every `blockSize` block
(the last one short; an empty file has one block, the hash of nothing). Electron checks
those block hashes when it reads an archive with integrity enabled, so a block that
disagrees is a contradiction even when the whole-file hash was rewritten to match, and
on a real modification the mismatching blocks say where the bytes changed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

MAX_BLOCK_SIZE = 1 << 30
_HEX64 = re.compile(r"^[0-9a-f]{64}$")
SHOWN = 16  # mismatching block indices listed in a note


@attrs.frozen
class DeclaredBlocks:
    block_size: int
    blocks: tuple[str, ...]


def declared_blocks(integrity: Any) -> DeclaredBlocks | str | None:
    """The declared blocks of an `integrity` record: None when it declares none, a reason string when the
    declaration is malformed (which is itself a contradiction: a packer never writes one)."""
    if not isinstance(integrity, Mapping) or "blocks" not in integrity:
        return None
    size, blocks = integrity.get("blockSize"), integrity.get("blocks")
    if not isinstance(size, int) or isinstance(size, bool) or not 0 < size <= MAX_BLOCK_SIZE:
        return f"blockSize {size!r} is not a positive integer of at most {MAX_BLOCK_SIZE}"
    if not isinstance(blocks, list) or not all(isinstance(b, str) and _HEX64.match(b.lower()) for b in blocks):
        return "blocks is not a list of SHA-256 hex digests"
    return DeclaredBlocks(size, tuple(b.lower() for b in blocks))


def block_count(size: int, block_size: int) -> int:
    return max(1, -(-size // block_size))


def block_mismatch(declared: DeclaredBlocks | str, observed: Sequence[str], size: int) -> str | None:
    """A sentence naming how the declared blocks contradict the observed ones, or None when they agree."""
    if isinstance(declared, str):
        return f"The header's integrity block list is malformed: {declared}."
    expected = block_count(size, declared.block_size)
    if len(declared.blocks) != expected:
        return (
            f"The header declares {len(declared.blocks)} integrity blocks of {declared.block_size} bytes; "
            f"the {size} bytes read make {expected}."
        )
    differ = [i for i, (d, o) in enumerate(zip(declared.blocks, observed)) if d != o]
    if not differ:
        return None
    shown = ", ".join(str(i) for i in differ[:SHOWN]) + (
        f" and {len(differ) - SHOWN} more" if len(differ) > SHOWN else ""
    )
    return (
        f"{len(differ)} of {expected} integrity blocks ({declared.block_size} bytes each) differ from the header: "
        f"block {shown} (byte offsets from {differ[0] * declared.block_size})."
    )
