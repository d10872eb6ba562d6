"""The Electron ASAR format, read once for every family.

Layout: a 4-byte size field (4), the header pickle's size, then the pickle (payload size, JSON length,
JSON); member bytes start after the header pickle at their recorded `offset`. Members marked `unpacked`
live in the `.asar.unpacked` directory beside the archive. The artifact family streams every member
through `parse_header` and `declared`; the JavaScript family lists members and reads the ones its
analysis asks for.
"""

from __future__ import annotations

import hashlib
import os
import struct
from collections.abc import Iterable, Iterator
from typing import IO, Any

import orjson

from rea.artifacts.asar_blocks import DeclaredBlocks, block_mismatch, declared_blocks

MAX_HEADER_BYTES = 64 * 1024 * 1024


class AsarError(Exception):
    pass


def parse_header(handle: IO[bytes], size: int | None = None) -> tuple[int, dict[str, Any]]:
    """(offset of member bytes from the archive start, header tree), reading from the handle's position.
    `size` (the archive's length, when known) bounds the header."""
    head = handle.read(16)
    if len(head) < 16:
        raise AsarError("shorter than an ASAR header")
    field, pickle_size, _payload, json_size = struct.unpack("<4I", head)
    if (
        field != 4
        or json_size > pickle_size
        or pickle_size > MAX_HEADER_BYTES
        or (size is not None and 8 + pickle_size > size)
    ):
        raise AsarError("the header sizes are not those of an ASAR archive")
    raw = handle.read(json_size)
    try:
        header = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise AsarError(f"the header is not JSON: {exc}") from exc
    if not isinstance(header, dict) or not isinstance(header.get("files"), dict):
        raise AsarError("the header has no files tree")
    return 8 + pickle_size, header


def read_header(path: str, start: int = 0, length: int | None = None) -> tuple[int, dict[str, Any], int]:
    """(base offset of member bytes, relative to start; header tree; archive size) of the archive at
    [start, start + length) of the file (a nested archive lies inside its parent's bytes)."""
    size = os.path.getsize(path) - start if length is None else length
    with open(path, "rb") as handle:
        handle.seek(start)
        base, header = parse_header(handle, size)
    return base, header, size


def walk(header: dict[str, Any], max_depth: int) -> Iterator[tuple[str, dict[str, Any] | None, str | None]]:
    """(relative path, file node, omission reason) in path order; directories are descended."""
    stack: list[tuple[str, dict[str, Any], int]] = [("", header, 0)]
    while stack:
        prefix, node, depth = stack.pop()
        children = node.get("files", {})
        for name in sorted(children, reverse=True):
            child = children[name]
            rel = f"{prefix}/{name}" if prefix else name
            if not isinstance(child, dict) or "/" in name or name in ("", ".", ".."):
                yield rel, None, "invalid-entry"
            elif "files" in child:
                if depth + 1 > max_depth:
                    yield rel, None, "max_depth"
                else:
                    stack.append((rel, child, depth + 1))
            elif "link" in child:
                yield rel, None, "symlink"
            else:
                yield rel, child, None


def read_at(disk: str, offset: int, size: int, limit: int) -> bytes | str:
    try:
        with open(disk, "rb") as handle:
            handle.seek(offset)
            return handle.read(min(size, limit + 1))
    except OSError as exc:
        return exc.strerror or str(exc)


def chunks_at(disk: str, offset: int, size: int) -> Iterator[bytes]:
    """A member's bytes in 1 MiB pieces (streamed: nested archives can be large)."""
    with open(disk, "rb") as handle:
        handle.seek(offset)
        left = size
        while left > 0:
            block = handle.read(min(left, 1 << 20))
            if not block:
                break
            left -= len(block)
            yield block


def declared(node: dict[str, Any]) -> str | None:
    """The member's declared SHA-256 (its `integrity` record), or None when it declares none."""
    integrity = node.get("integrity")
    if not isinstance(integrity, dict) or str(integrity.get("algorithm", "")).upper() != "SHA256":
        return None
    digest = integrity.get("hash")
    return digest if isinstance(digest, str) else None


class BlockDigests:
    """SHA-256 of every `block_size` block of a stream fed in arbitrary pieces (the header's `blocks`)."""

    def __init__(self, block_size: int) -> None:
        self.block_size = block_size
        self.done: list[str] = []
        self.current = hashlib.sha256()
        self.filled = 0

    def update(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            take = min(len(view), self.block_size - self.filled)
            self.current.update(view[:take])
            self.filled += take
            view = view[take:]
            if self.filled == self.block_size:
                self.done.append(self.current.hexdigest())
                self.current, self.filled = hashlib.sha256(), 0

    def hexdigests(self) -> list[str]:
        """All blocks; the short last block (or the one empty block of an empty file) included."""
        return self.done + [self.current.hexdigest()] if self.filled or not self.done else list(self.done)


def block_check(node: dict[str, Any]) -> tuple[DeclaredBlocks | str, BlockDigests | None] | None:
    """The member's declared blocks and a hasher for them, or None when it declares none."""
    declared_list = declared_blocks(node.get("integrity"))
    if declared_list is None:
        return None
    return declared_list, BlockDigests(declared_list.block_size) if isinstance(declared_list, DeclaredBlocks) else None


def block_verdict(check: tuple[DeclaredBlocks | str, BlockDigests | None] | None, size: int) -> str | None:
    if check is None:
        return None
    declared_list, hasher = check
    return block_mismatch(declared_list, hasher.hexdigests() if hasher is not None else [], size)


def verify(node: dict[str, Any], chunks: Iterable[bytes]) -> dict[str, Any] | None:
    """A contradiction record when the bytes contradict the node's declared SHA-256 or block hashes, else None
    (also when it declares no SHA-256)."""
    integrity = node.get("integrity")
    if not isinstance(integrity, dict) or str(integrity.get("algorithm", "")).upper() != "SHA256":
        return None
    digest, size = hashlib.sha256(), 0
    blocks = block_check(node)
    for chunk in chunks:
        digest.update(chunk)
        size += len(chunk)
        if blocks is not None and blocks[1] is not None:
            blocks[1].update(chunk)
    observed = digest.hexdigest()
    detail = block_verdict(blocks, size)
    if observed == integrity.get("hash") and detail is None:
        return None
    record = {
        "declared_sha256": integrity.get("hash"),
        "observed_sha256": observed,
        "unpacked": bool(node.get("unpacked")),
        "trust": "contradicted",
        "provenance": "asar-header-integrity",
    }
    if detail is not None:
        record["blocks"] = detail
    return record
