"""A read-only Electron ASAR member reader for the JavaScript family.

Layout: a 4-byte size field (4), the header pickle's size, then the pickle (payload size, JSON length,
JSON); member bytes start after the header pickle at their recorded `offset`. Members marked `unpacked`
live in the `.asar.unpacked` directory beside the archive. (The artifact family has the general
container reader; this one only lists members and reads the ones the analysis asks for.)
"""

from __future__ import annotations

import hashlib
import os
import struct
from typing import Any, Iterator

import orjson

MAX_HEADER_BYTES = 64 * 1024 * 1024


class AsarError(Exception):
    pass


def read_header(path: str) -> tuple[int, dict[str, Any], int]:
    """(base offset of member bytes, header tree, archive size)."""
    size = os.path.getsize(path)
    with open(path, "rb") as handle:
        head = handle.read(16)
        if len(head) < 16:
            raise AsarError("shorter than an ASAR header")
        field, pickle_size, _payload, json_size = struct.unpack("<4I", head)
        if field != 4 or json_size > pickle_size or pickle_size > MAX_HEADER_BYTES or 8 + pickle_size > size:
            raise AsarError("the header sizes are not those of an ASAR archive")
        raw = handle.read(json_size)
    try:
        header = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise AsarError(f"the header is not JSON: {exc}") from exc
    if not isinstance(header, dict) or not isinstance(header.get("files"), dict):
        raise AsarError("the header has no files tree")
    return 8 + pickle_size, header, size


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


def member(header: dict[str, Any], rel: str) -> dict[str, Any] | None:
    node: Any = header
    for part in rel.split("/"):
        node = node.get("files", {}).get(part) if isinstance(node, dict) else None
    return node if isinstance(node, dict) and "files" not in node else None


def read_member(archive: str, base: int, archive_size: int, node: dict[str, Any], rel: str, limit: int) -> bytes | str:
    """The member's bytes (at most limit + 1), or why they cannot be read."""
    size = node.get("size")
    if not isinstance(size, int) or size < 0:
        return "the header records no size"
    if node.get("unpacked"):
        companion = os.path.join(archive + ".unpacked", *rel.split("/"))
        try:
            with open(companion, "rb") as handle:
                return handle.read(limit + 1)
        except OSError as exc:
            return f"unpacked companion unreadable: {exc.strerror or exc}"
    try:
        offset = int(node.get("offset", ""))
    except ValueError:
        return "the header records no offset"
    if base + offset + size > archive_size:
        return "the member lies beyond the end of the archive"
    with open(archive, "rb") as handle:
        handle.seek(base + offset)
        return handle.read(min(size, limit + 1))


def check_integrity(node: dict[str, Any], data: bytes) -> dict[str, Any] | None:
    """A contradiction record when the declared SHA-256 does not match the bytes read, else None."""
    integrity = node.get("integrity")
    if not isinstance(integrity, dict) or integrity.get("algorithm") != "SHA256":
        return None
    observed = hashlib.sha256(data).hexdigest()
    if observed == integrity.get("hash"):
        return None
    return {"declared_sha256": integrity.get("hash"), "observed_sha256": observed, "unpacked": bool(node.get("unpacked")),
            "trust": "contradicted", "provenance": "asar-header-integrity"}
