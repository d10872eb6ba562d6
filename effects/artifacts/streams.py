"""The artifact readers' stream plumbing: bounded and counting views of an archive, the off-thread SHA-256, and
the errors a malformed archive raises. No decisions are made here (rea.artifacts.traversal makes them)."""

from __future__ import annotations

import contextlib
import hashlib
import lzma
import struct
import tarfile
import zipfile
import zlib
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import IO, Any, Protocol

import orjson

from effects import fs
from rea.errors import ReaError

SPOOL_IN_MEMORY = 16 << 20
# TypeError too: the standard library's gzip header parser raises it on a header cut short
# (b"\x1f\x8b\x08"), and a malformed archive must become a canonical error, never a crash.
READ_ERRORS = (
    zipfile.BadZipFile,
    tarfile.TarError,
    EOFError,
    zlib.error,
    lzma.LZMAError,
    OSError,
    ValueError,
    struct.error,
    KeyError,
    NotImplementedError,
    RuntimeError,
    UnicodeDecodeError,
    orjson.JSONDecodeError,
    RecursionError,
    TypeError,
    IndexError,
    fs.NotRegular,  # a file swapped for a FIFO or device after it was listed: refused, never opened
)


class IntegrityFailure(Exception):
    def __init__(self, error: ReaError) -> None:
        super().__init__(error.message)
        self.error = error


class Stop(Exception):
    """A global limit (entries or total bytes) ended the traversal."""


class Readable(Protocol):
    """What a decompressor reads from: a file, or a Counting wrapper around one."""

    def read(self, n: int = -1, /) -> bytes: ...


def zstd_reader(raw: Readable) -> IO[bytes]:
    import zstandard

    # zstandard reads any object with read(); its stubs ask for a whole IO[bytes]
    return zstandard.ZstdDecompressor().stream_reader(raw, read_across_frames=True)  # type: ignore[arg-type]


class Counting:
    """A read-only stream wrapper counting compressed bytes consumed (for the archive-level ratio)."""

    def __init__(self, raw: IO[bytes]) -> None:
        self.raw = raw
        self.count = 0

    def read(self, n: int = -1) -> bytes:
        data = self.raw.read(n)
        self.count += len(data)
        return data

    def readable(self) -> bool:
        return True


class Hasher:
    """SHA-256 on one worker thread, fed in batches of ~4 MiB (hashlib releases the GIL on large
    updates). At most four batches are in flight, so memory stays bounded; updates of one digest
    run in order because there is one worker."""

    BATCH = 4 << 20
    IN_FLIGHT = 4

    def __init__(self) -> None:
        self.pool: ThreadPoolExecutor | None = None
        self.batch: list[tuple[Any, bytes]] = []
        self.batch_bytes = 0
        self.pending: list[Any] = []
        self.digests: dict[int, Any] = {}

    def digest(self, index: int) -> Any:
        d = self.digests[index] = hashlib.sha256()
        return d

    def add(self, digest: Any, block: bytes) -> None:
        self.batch.append((digest, block))
        self.batch_bytes += len(block)
        if self.batch_bytes >= self.BATCH:
            self._flush()

    def _flush(self) -> None:
        if not self.batch:
            return
        if self.pool is None:
            self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rea-sha256")
        batch, self.batch, self.batch_bytes = self.batch, [], 0
        self.pending.append(self.pool.submit(_update_all, batch))
        while len(self.pending) > self.IN_FLIGHT:
            self.pending.pop(0).result()

    def finish(self) -> dict[int, str]:
        self._flush()
        for future in self.pending:
            future.result()
        self.close()
        return {index: d.hexdigest() for index, d in self.digests.items()}

    def close(self) -> None:
        self.pending = []
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)
            self.pool = None


def _update_all(batch: list[tuple[Any, bytes]]) -> None:
    for digest, block in batch:
        digest.update(block)


@contextlib.contextmanager
def opened(path: str | None, handle: IO[bytes] | None) -> Iterator[IO[bytes]]:
    """A container's bytes: opened (and closed) here from a path, or borrowed from the parent's stream."""
    if path is None:
        assert handle is not None
        yield handle
        return
    with open(path, "rb") as raw:
        yield raw


def ar_member(raw: IO[bytes], header: bytes, longnames: bytes) -> tuple[str, int, int, int] | bytes | None:
    """One ar member header: (name, size, mode, data offset); the long-name table (bytes); or None for a
    symbol table (skipped)."""
    if len(header) < 60 or header[58:60] != b"`\n":
        raise ValueError("truncated ar member header")
    name = header[:16].decode("utf-8", "replace").rstrip()
    size = int(header[48:58].decode().strip() or "0")
    mode = int(header[40:48].decode().strip() or "0", 8)
    offset = raw.tell()
    if name in ("/", "/SYM64/"):
        raw.seek(size + (size & 1), 1)
        return None
    if name == "//":
        table = raw.read(size)
        raw.seek(size & 1, 1)
        return table
    if name.startswith("#1/"):
        length = int(name[3:])
        name = raw.read(length).decode("utf-8", "replace").rstrip("\x00")
        size -= length
        offset += length
    elif name.startswith("/") and name[1:].isdigit():
        start = int(name[1:])
        name = longnames[start : longnames.find(b"/\n", start)].decode("utf-8", "replace")
    elif name.endswith("/"):
        name = name[:-1]
    return name, size, mode, offset


class Read:
    """One member being read: where its bytes go and what has been seen of them so far."""

    def __init__(self, chain: tuple[str, ...], out: IO[bytes] | None, unchecked: bool) -> None:
        self.chain = chain
        self.out = out
        # a digest nobody waits for (no declared hash to check, no extracted file to report) is computed on the
        # hasher's worker thread, overlapping SHA-256 with this thread's parsing
        self.deferred = out is None and unchecked
        self.digest: Any = None
        self.size = 0
        self.head = b""
        self.spool: Any = None


class Bounded:
    """Exactly `size` bytes from the current position of a seekable stream."""

    def __init__(self, raw: IO[bytes], size: int) -> None:
        self.raw = raw
        self.left = size

    def read(self, n: int = -1) -> bytes:
        if self.left <= 0:
            return b""
        n = self.left if n < 0 else min(n, self.left)
        data = self.raw.read(n)
        self.left -= len(data)
        if not data and self.left > 0:
            raise EOFError("member extends past the end of the archive")
        return data
