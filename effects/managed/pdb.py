"""The portable PDB beside an assembly, read without running anything (Portable PDB v1.0 over ECMA-335 II.24).

dnfile reads an assembly's metadata but not a standalone PDB (its #~ reader knows the type-system
tables only), so the few structures the companion needs are read here with struct: the metadata root,
the #Pdb stream (PDB id, entry point, referenced type-system row counts), the #~ row counts, the
Document rows (name blob, hash algorithm, hash, language) and the MethodDebugInformation rows (which
have sequence points). Every read is bounds-checked; damage ends in `issues`, never an exception.
"""

from __future__ import annotations

import hashlib
import os
import struct
import uuid

from effects.fs import NotRegular, open_regular
from rea.managed.facts import ManagedLimits, PdbDocument, PdbFacts

DOCUMENT, METHOD_DEBUG = 0x30, 0x31  # the first two PDB tables: their rows start right after the row counts


class _Damaged(Exception):
    """A structure that does not fit the file: reported as an issue."""


def _u(data: bytes, fmt: str, at: int) -> tuple[int, ...]:
    if at < 0 or at + struct.calcsize(fmt) > len(data):
        raise _Damaged(f"a {struct.calcsize(fmt)}-byte field at {at} runs past the {len(data)}-byte file")
    return struct.unpack_from(fmt, data, at)


def _compressed(data: bytes, at: int) -> tuple[int, int]:
    """(value, next offset) of an ECMA-335 II.23.2 compressed unsigned integer."""
    (first,) = _u(data, "B", at)
    if first < 0x80:
        return first, at + 1
    if first < 0xC0:
        return ((first & 0x3F) << 8) | _u(data, "B", at + 1)[0], at + 2
    b1, b2, b3 = _u(data, "BBB", at + 1)
    return ((first & 0x1F) << 24) | (b1 << 16) | (b2 << 8) | b3, at + 4


def _streams(data: bytes) -> dict[str, tuple[int, int]]:
    signature, _, _, _, length = _u(data, "<IHHII", 0)
    if signature != 0x424A5342:
        raise _Damaged("no BSJB metadata root signature: not a portable PDB (a Windows PDB is an MSF file)")
    at = 16 + length + 2
    (count,) = _u(data, "<H", at)
    at += 2
    out = {}
    for _ in range(count):
        offset, size = _u(data, "<II", at)
        end = data.find(b"\0", at + 8, at + 8 + 32)
        if end < 0:
            raise _Damaged("a stream name runs past 32 bytes")
        name = data[at + 8 : end].decode("latin-1")
        if offset + size > len(data):
            raise _Damaged(f"stream {name} ({size} bytes at {offset}) runs past the file")
        out[name] = (offset, size)
        at = end + 1 + (-(end + 1 - at - 8) % 4)
    return out


class _Heap:
    def __init__(self, data: bytes, where: tuple[int, int] | None) -> None:
        self.data, (self.start, self.size) = data, where or (0, 0)

    def blob(self, index: int, cap: int) -> bytes:
        if index == 0:
            return b""
        if index >= self.size:
            raise _Damaged(f"blob index {index} is past the {self.size}-byte #Blob heap")
        length, at = _compressed(self.data, self.start + index)
        if at + length > self.start + self.size or length > cap:
            raise _Damaged(f"blob {index} of {length} bytes runs past the heap or max_heap_item_bytes")
        return self.data[at : at + length]

    def guid(self, index: int) -> str | None:
        if index == 0 or index * 16 > self.size:
            return None
        return str(uuid.UUID(bytes_le=self.data[self.start + (index - 1) * 16 : self.start + index * 16]))


def _document_name(blobs: _Heap, index: int, cap: int) -> str:
    raw = blobs.blob(index, cap)
    if not raw:
        return ""
    separator, at, parts = chr(raw[0]), 1, []
    while at < len(raw):
        part, at = _compressed(raw, at)
        parts.append(blobs.blob(part, cap).decode("utf-8", "replace"))
    return (separator if separator != "\0" else "").join(parts)


def _index_size(rows: int) -> int:
    return 2 if rows < 1 << 16 else 4


def _tables(data: bytes, start: int) -> tuple[dict[int, int], int, int]:
    """(row counts, offset of the first row, heap sizes) of the #~ stream."""
    _, _, _, heap_sizes, _, valid, _ = _u(data, "<IBBBBQQ", start)
    if valid & ((1 << 0x30) - 1):
        raise _Damaged("#~ holds type-system tables, which a portable PDB keeps in the assembly")
    at, rows = start + 24, {}
    for table in range(64):
        if valid >> table & 1:
            (rows[table],) = _u(data, "<I", at)
            at += 4
    return rows, at, heap_sizes


def _read(data: bytes, limits: ManagedLimits) -> tuple[dict[str, object], list[str]]:
    streams = _streams(data)
    if "#Pdb" not in streams or "#~" not in streams:
        raise _Damaged("no #Pdb or #~ stream")
    pdb_at, _ = streams["#Pdb"]
    guid = str(uuid.UUID(bytes_le=bytes(_u(data, "16B", pdb_at))))
    stamp, entry, referenced_mask = _u(data, "<IIQ", pdb_at + 16)
    at, referenced = pdb_at + 32, {}
    for table in range(64):
        if referenced_mask >> table & 1:
            (referenced[table],) = _u(data, "<I", at)
            at += 4
    rows, at, heap_sizes = _tables(data, streams["#~"][0])
    blobs, guids = _Heap(data, streams.get("#Blob")), _Heap(data, streams.get("#GUID"))
    blob_width = 4 if heap_sizes & 4 else 2
    guid_width = 4 if heap_sizes & 2 else 2
    doc_rows, method_rows = rows.get(DOCUMENT, 0), rows.get(METHOD_DEBUG, 0)
    sizes = {DOCUMENT: 2 * blob_width + 2 * guid_width, METHOD_DEBUG: _index_size(doc_rows) + blob_width}
    offsets = {DOCUMENT: at, METHOD_DEBUG: at + doc_rows * sizes[DOCUMENT]}
    if offsets[METHOD_DEBUG] + method_rows * sizes[METHOD_DEBUG] > len(data):
        raise _Damaged(f"{doc_rows} Document and {method_rows} MethodDebugInformation rows run past the file")
    issues: list[str] = []
    documents = []
    cap = limits.max_heap_item_bytes
    if doc_rows > limits.max_table_rows:
        issues.append(f"Document: {doc_rows} rows, {limits.max_table_rows} read (max_table_rows)")
    width = {"b": blob_width, "g": guid_width}
    for row in range(min(doc_rows, limits.max_table_rows)):
        cells, pos = [], offsets[DOCUMENT] + row * sizes[DOCUMENT]
        for kind in "bgbg":
            cells.append(_u(data, "<I" if width[kind] == 4 else "<H", pos)[0])
            pos += width[kind]
        try:
            documents.append(PdbDocument(name=_document_name(blobs, cells[0], cap), hash_algorithm=guids.guid(cells[1]),
                                         hash=blobs.blob(cells[2], cap).hex(), language=guids.guid(cells[3])))  # fmt: skip
        except _Damaged as exc:
            issues.append(f"Document row {row + 1}: {exc}")
    with_points = 0
    doc_width = _index_size(doc_rows)
    for row in range(min(method_rows, limits.max_table_rows)):
        pos = offsets[METHOD_DEBUG] + row * sizes[METHOD_DEBUG] + doc_width
        points = _u(data, "<I" if blob_width == 4 else "<H", pos)[0]
        with_points += points != 0
    if method_rows > limits.max_table_rows:
        issues.append(f"MethodDebugInformation: {method_rows} rows, {limits.max_table_rows} read (max_table_rows)")
    facts = {"pdb_guid": guid, "pdb_stamp": stamp, "entry_point": entry, "documents": tuple(documents),
             "method_debug_rows": method_rows, "with_sequence_points": with_points,
             "row_counts": {hex(t): n for t, n in sorted(rows.items())}, "referenced_rows": referenced}  # fmt: skip
    return facts, issues


def companion_path(assembly: str) -> str:
    return os.path.splitext(assembly)[0] + ".pdb"


def read_companion(assembly: str, limits: ManagedLimits) -> PdbFacts | None:
    """The portable PDB named like the assembly beside it (Library.dll -> Library.pdb), None when absent."""
    path = companion_path(assembly)
    try:
        if not os.path.isfile(path):  # stat only: a FIFO, socket or device named like the PDB is no companion
            return None
        with os.fdopen(open_regular(path), "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size > limits.max_file_bytes:
                return PdbFacts(path=path, size=size, sha256=None, issues=(f"{size} bytes, above max_file_bytes",))
            data = handle.read(limits.max_file_bytes + 1)
    except NotRegular:  # swapped for a FIFO, socket or device after the stat: never read
        return PdbFacts(path=path, size=0, sha256=None, issues=("not a regular file: never opened",))
    except OSError as exc:
        return PdbFacts(path=path, size=0, sha256=None, issues=(f"unreadable: {exc.strerror or exc}",))
    digest = hashlib.sha256(data).hexdigest()
    try:
        facts, issues = _read(data, limits)
    except _Damaged as exc:
        return PdbFacts(path=path, size=len(data), sha256=digest, issues=(str(exc),))
    return PdbFacts(path=path, size=len(data), sha256=digest, issues=tuple(issues), **facts)  # type: ignore[arg-type]
