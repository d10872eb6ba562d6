"""Artifact readers: ZIP family (incl. CRX), ASAR (+ .asar.unpacked), tar (gz/bz2/xz/zst), ar/.deb,
directories, nested containers. They stream every member once, hash it, enforce the traversal
limits while reading, and report facts; graph identity and coverage are decided in `rea.artifacts`.

Nothing is written except spooled nested containers (anonymous temp files) and, for extraction,
files inside one fresh `tempfile.mkdtemp` directory opened with O_EXCL|O_NOFOLLOW.
"""

from __future__ import annotations

import contextlib
import hashlib
import lzma
import os
import shutil
import stat
import struct
import tarfile
import tempfile
import time
import zipfile
import zlib
from concurrent.futures import ThreadPoolExecutor
from typing import IO, Any
from collections.abc import Iterator

import anyio.lowlevel
import orjson
from returns.result import Failure, Result, Success

from effects import asar
from effects.progress import Progress
from rea.artifacts.model import (
    CONTAINER_FORMATS,
    ROOT_ONLY_FORMATS,
    ZIP_FORMATS,
    EntryFact,
    ExtractArtifact,
    ExtractedFile,
    ExtractionFacts,
    InventoryArtifact,
    InventoryFacts,
    LimitHit,
    Limits,
    Omission,
    format_for_name,
    managed_role,
    normalize_member_name,
)
from rea.artifacts.integrity import RERUN, integrity_mismatch
from rea.errors import ReaError
from rea.text import printable

BLOCK = 1 << 20
SPOOL_IN_MEMORY = 16 << 20
# TypeError too: the standard library's gzip header parser raises it on a header cut short
# (b"\x1f\x8b\x08"), and a malformed archive must become a canonical error, never a crash.
_READ_ERRORS = (
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
)
UNPACKED_HINT = (
    "Packaging tools commonly sign or strip .asar.unpacked native binaries after writing the archive "
    "header, so their declared hashes no longer match (Electron does not check them at runtime). "
    'Rerun with integrity_policy "record-and-continue" to record the contradiction and continue.'
)


class _IntegrityFailure(Exception):
    def __init__(self, error: ReaError) -> None:
        super().__init__(error.message)
        self.error = error


class _Stop(Exception):
    """A global limit (entries or total bytes) ended the traversal."""


def _zstd_reader(raw: IO[bytes]) -> IO[bytes]:
    import zstandard

    return zstandard.ZstdDecompressor().stream_reader(raw, read_across_frames=True)


class _Counting:
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


class _Hasher:
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
def _opened(path: str | None, handle: IO[bytes] | None) -> Iterator[IO[bytes]]:
    """A container's bytes: opened (and closed) here from a path, or borrowed from the parent's stream."""
    if path is None:
        assert handle is not None
        yield handle
        return
    with open(path, "rb") as raw:
        yield raw


class Walker:
    """One traversal. `steps()` is a sync generator yielding progress text after each unit of work,
    so the async handler can checkpoint for cancellation between them."""

    def __init__(
        self,
        path: str,
        limits: Limits,
        policy: str,
        extract: dict[tuple[str, ...], str] | None = None,
        output_root: str | None = None,
        known: tuple[str, int] | None = None,
    ) -> None:
        self.path = path
        self.known = known
        self.limits = limits
        self.policy = policy
        self.entries: list[dict[str, Any]] = []  # EntryFact fields, frozen when the walk ends
        self.hits: list[LimitHit] = []
        self.omissions: list[Omission] = []
        self.limitations: list[str] = []
        self.total_bytes = 0
        self.extract = extract or {}
        # extraction reads only the selected members and the containers on their chains
        self.wanted = None if extract is None else {c[:i] for c in extract for i in range(1, len(c) + 1)}
        self.output_root = output_root
        self.extracted: list[ExtractedFile] = []
        self.hasher = _Hasher()
        self.chains: dict[int | None, tuple[str, ...]] = {None: ()}
        self.root_facts: tuple[str, str, int] | None = None  # format, sha256, size
        self.root_role: str | None = None  # .NET role of the root file (rea.artifacts.model.managed_role)

    # ------------------------------------------------------------ recording

    def _hit(self, limit: str, logical_path: str | None, message: str) -> None:
        self.hits.append(
            LimitHit(limit=limit, value=getattr(self.limits, limit), logical_path=logical_path, message=message)
        )

    def _name(self, parent: int | None, raw: str, entry_type: str) -> str | None:
        raw = printable(raw)  # a name that is not Unicode (tar, directories) is recorded with \xNN escapes
        name, problem = normalize_member_name(raw, self.limits.max_path_bytes)
        if name is None:
            where = "/".join(self.chains[parent] + (raw[:200],))
            if "max_path_bytes" in (problem or ""):
                self._hit("max_path_bytes", None, f"a member name {problem}")
            self.omissions.append(
                Omission(logical_path=where, entry_type=entry_type, reason=f"refused: the member name {problem}")
            )
        return name

    def _add(self, parent: int | None, name: str, kind: str, **fields: Any) -> int:
        if len(self.entries) >= self.limits.max_entries:
            self._hit(
                "max_entries",
                "/".join(self.chains[parent] + (name,)),
                "traversal stopped; later members were not observed",
            )
            raise _Stop()
        index = len(self.entries)
        self.entries.append({"index": index, "parent": parent, "logical_path": name, "entry_kind": kind, **fields})
        self.chains[index] = self.chains[parent] + (name,)
        return index

    def _update(self, index: int, **fields: Any) -> None:
        self.entries[index].update(fields)

    # ------------------------------------------------------------ content

    def _open_output(self, chain: tuple[str, ...]) -> IO[bytes] | None:
        rel = self.extract.get(chain)
        if rel is None or self.output_root is None:
            return None
        root = self.output_root
        parts = rel.split("/")
        current = root
        for part in parts[:-1]:
            current = os.path.join(current, part)
            try:
                os.mkdir(current, 0o700)
            except FileExistsError:
                if not stat.S_ISDIR(os.lstat(current).st_mode):
                    raise ValueError(f"{rel}: a parent path is not a directory")
        target = os.path.join(current, parts[-1])
        if os.path.commonpath([os.path.realpath(os.path.dirname(target)), os.path.realpath(root)]) != os.path.realpath(
            root
        ):
            raise ValueError(f"{rel} would escape the output directory")
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
        return os.fdopen(fd, "wb")

    def _consume(
        self,
        stream: IO[bytes],
        index: int,
        depth: int,
        declared: int | None,
        compressed: int | None,
        declared_sha256: str | None = None,
        unpacked: bool = False,
        disk_path: str | None = None,
        blocks: tuple[Any, Any] | None = None,
    ) -> Iterator[str]:
        """Hash one member while reading it (and its ASAR integrity blocks, when declared); spool it when it may
        be a nested container."""
        entry = self.entries[index]
        chain = self.chains[index]
        if self.wanted is not None and chain not in self.wanted:
            return
        logical = "/".join(chain)
        limits = self.limits
        if declared is not None and declared > limits.max_entry_bytes:
            self._hit("max_entry_bytes", logical, f"declared size {declared} exceeds the limit; not read")
            self._update(index, hash_status="not-hashed-limit")
            return
        out = self._open_output(chain)
        # a digest nobody waits for (no declared hash to check, no extracted file to report) is
        # computed on the hasher's worker thread, overlapping SHA-256 with this thread's parsing
        deferred = out is None and declared_sha256 is None
        digest = self.hasher.digest(index) if deferred else hashlib.sha256()
        size = 0
        head = b""
        spool: Any = None
        status = "verified"
        sniffed = "file"
        try:
            while True:
                block = stream.read(BLOCK)
                if not block:
                    break
                if not head:
                    head = block[:512]
                    fmt = format_for_name(entry["logical_path"], head)
                    sniffed = fmt
                    if disk_path is None and depth < limits.max_depth and fmt in CONTAINER_FORMATS | {"asar"}:
                        spool = tempfile.SpooledTemporaryFile(max_size=SPOOL_IN_MEMORY)
                size += len(block)
                self.total_bytes += len(block)
                reason = None
                if size > limits.max_entry_bytes:
                    reason = ("max_entry_bytes", "member grew past the limit while streaming; reading stopped")
                elif (
                    compressed is not None and size > max(compressed, 1) * limits.max_compression_ratio and size > BLOCK
                ):
                    reason = (
                        "max_compression_ratio",
                        f"expanded past {limits.max_compression_ratio}x its compressed "
                        f"size {compressed}; reading stopped (possible decompression bomb)",
                    )
                elif declared is not None and size > declared:
                    reason = (
                        "max_entry_bytes",
                        f"produced more bytes than its declared size {declared}; reading stopped",
                    )
                elif self.total_bytes > limits.max_total_bytes:
                    self._hit("max_total_bytes", logical, "traversal stopped; later members were not observed")
                    status = "not-hashed-limit"
                    raise _Stop()
                if reason is not None:
                    self._hit(reason[0], logical, reason[1])
                    status = "not-hashed-limit"
                    break
                if deferred:
                    self.hasher.add(digest, block)
                else:
                    digest.update(block)
                if blocks is not None and blocks[1] is not None:
                    blocks[1].update(block)
                if spool is not None:
                    spool.write(block)
                if out is not None:
                    out.write(block)
                yield logical
        except _Stop:
            self._update(index, hash_status="not-hashed-limit")
            self._discard_output(out, chain)
            raise
        except _READ_ERRORS as exc:
            self._discard_output(out, chain)
            self._update(
                index,
                hash_status="unavailable",
                limitations=tuple(entry.get("limitations", ())) + (f"reading failed: {type(exc).__name__}: {exc}",),
            )
            self.omissions.append(
                Omission(
                    logical_path=logical,
                    entry_type="file",
                    reason=f"its bytes could not be read ({type(exc).__name__})",
                )
            )
            return
        if status != "verified":
            self._update(index, hash_status=status, size=None)
            self._discard_output(out, chain)
            return
        observed = None if deferred else digest.hexdigest()
        fmt = sniffed if head else format_for_name(entry["logical_path"], head)
        block_detail = asar.block_verdict(blocks, size)
        mismatch = (declared_sha256 is not None and declared_sha256 != observed) or block_detail is not None
        if mismatch:
            status = "mismatched"
            if self.policy != "record-and-continue":
                self._discard_output(out, chain)
                raise _IntegrityFailure(
                    integrity_mismatch(
                        logical,
                        declared_sha256,
                        observed,
                        unpacked,
                        f"{logical}: the observed bytes (sha256 {observed}) contradict the declared integrity "
                        + (
                            f"hash {declared_sha256}."
                            if block_detail is None
                            else f"record (hash {declared_sha256}). {block_detail}"
                        )
                        + (" " + UNPACKED_HINT if unpacked else f" {RERUN[:-1]} with verified siblings."),
                    )
                )
        if out is not None:
            out.close()
            self.extracted.append(
                ExtractedFile(chain=chain, relative_path=self.extract[chain], sha256=observed, bytes_written=size)
            )
        self._update(
            index,
            sha256=observed,
            size=size,
            hash_status=status,
            format=fmt,
            managed_role=managed_role(head),
            declared_sha256=declared_sha256,
            integrity_detail=block_detail,
        )
        if mismatch:
            if spool is not None:
                spool.close()
            return
        if fmt in CONTAINER_FORMATS | {"asar"} and depth < limits.max_depth:
            if disk_path is not None:
                yield from self._container(disk_path, None, fmt, index, depth + 1)
            elif spool is not None:
                spool.seek(0)
                try:
                    yield from self._container(None, spool, fmt, index, depth + 1)
                finally:
                    spool.close()
        elif fmt in CONTAINER_FORMATS and depth >= limits.max_depth:
            self._hit("max_depth", logical, "nested container not expanded")
        if spool is not None and not spool.closed:
            spool.close()

    def _discard_output(self, out: IO[bytes] | None, chain: tuple[str, ...]) -> None:
        if out is not None:
            out.close()
            try:
                os.unlink(os.path.join(self.output_root or "", self.extract[chain]))
            except OSError:
                pass

    # ------------------------------------------------------------ containers

    def _container(
        self, path: str | None, handle: IO[bytes] | None, fmt: str, parent: int | None, depth: int
    ) -> Iterator[str]:
        where = "/".join(self.chains[parent]) or os.path.basename(self.path)
        produced = len(self.entries)
        try:
            if fmt == "directory":
                yield from self._directory(path or "", "", parent, depth)
            elif fmt in ZIP_FORMATS:
                yield from self._zip(path if path is not None else handle, parent, depth)
            elif fmt == "tar":
                yield from self._tar(path, handle, parent, depth)
            elif fmt == "ar":
                yield from self._ar(path, handle, parent, depth)
            elif fmt == "asar":
                yield from self._asar(path, handle, parent, depth)
        except (_Stop, _IntegrityFailure):
            raise
        except _READ_ERRORS as exc:
            if parent is None and len(self.entries) == produced:
                raise
            self.omissions.append(
                Omission(
                    logical_path=where,
                    entry_type=fmt,
                    reason=f"its {fmt} structure could not be read completely ({type(exc).__name__}: {exc})",
                )
            )

    def _directory(self, base: str, rel: str, parent: int | None, depth: int, shown: str = "") -> Iterator[str]:
        """`rel` is the directory's path on disk (names as the OS gives them); `shown`, the same path as the
        records show it."""
        current = os.path.join(base, rel) if rel else base
        try:
            with os.scandir(current) as it:
                names = sorted(e.name for e in it)
        except OSError as exc:
            self.omissions.append(
                Omission(
                    logical_path=rel or ".",
                    entry_type="directory",
                    reason=f"it could not be listed ({exc.strerror or exc})",
                )
            )
            return
        for name in names:
            full = os.path.join(current, name)
            on_disk = f"{rel}/{name}" if rel else name
            logical = f"{shown}/{printable(name)}" if shown else printable(name)
            info = os.lstat(full)
            mode = info.st_mode
            if stat.S_ISLNK(mode):
                clean = self._name(parent, logical, "symlink")
                if clean is not None:
                    self._add(
                        parent, clean, "symlink", link_target=printable(os.readlink(full)), hash_status="unavailable"
                    )
            elif stat.S_ISDIR(mode):
                clean = self._name(parent, logical, "directory")
                if clean is not None:
                    self._add(parent, clean, "directory", hash_status="unavailable")
                    yield from self._directory(base, on_disk, parent, depth, logical)
            elif stat.S_ISREG(mode):
                clean = self._name(parent, logical, "file")
                if clean is None:
                    continue
                index = self._add(parent, clean, "file", declared_size=info.st_size, executable=bool(mode & 0o111))
                fmt = self._sniff_disk(full, clean)
                if fmt in CONTAINER_FORMATS | {"asar"}:
                    with open(full, "rb") as fh:
                        yield from self._consume(fh, index, depth, info.st_size, None, disk_path=full)
                else:
                    with open(full, "rb") as fh:
                        yield from self._consume(fh, index, depth, info.st_size, None, disk_path=full)
            else:
                kind = (
                    "FIFO"
                    if stat.S_ISFIFO(mode)
                    else "socket"
                    if stat.S_ISSOCK(mode)
                    else "character device"
                    if stat.S_ISCHR(mode)
                    else "block device"
                    if stat.S_ISBLK(mode)
                    else "special file"
                )
                self.omissions.append(
                    Omission(logical_path=logical, entry_type=kind, reason="special files are never opened")
                )
            yield f"listed {logical}"

    @staticmethod
    def _sniff_disk(path: str, name: str) -> str:
        with open(path, "rb") as fh:
            return format_for_name(name, fh.read(512))

    def _zip(self, source: Any, parent: int | None, depth: int) -> Iterator[str]:
        with zipfile.ZipFile(source) as zf:
            infos = zf.infolist()
            for info in infos:
                if not len(self.entries) & 63:  # members read yield per block; the rest every 64 entries
                    yield info.filename
                mode = info.external_attr >> 16
                is_link = stat.S_ISLNK(mode) and info.create_system == 3
                kind = "directory" if info.filename.endswith("/") else "symlink" if is_link else "file"
                if (
                    stat.S_IFMT(mode) in (stat.S_IFCHR, stat.S_IFBLK, stat.S_IFIFO, stat.S_IFSOCK)
                    and info.create_system == 3
                ):
                    self.omissions.append(
                        Omission(
                            logical_path="/".join(self.chains[parent] + (info.filename,)),
                            entry_type="device or FIFO member",
                            reason="never opened",
                        )
                    )
                    continue
                clean = self._name(parent, info.filename, kind)
                if clean is None:
                    continue
                encrypted = bool(info.flag_bits & 0x1)
                index = self._add(
                    parent,
                    clean,
                    kind,
                    declared_size=info.file_size,
                    compressed_size=info.compress_size,
                    executable=bool(mode & 0o111) and info.create_system == 3 and kind == "file",
                    encrypted=encrypted,
                    source_offset=info.header_offset,
                    source_length=info.compress_size,
                    hash_status="unavailable",
                )
                if kind == "symlink":
                    target = zf.read(info)[:4096].decode("utf-8", "replace") if info.file_size <= 4096 else "?"
                    self._update(index, link_target=target)
                elif kind == "file":
                    if encrypted:
                        self._update(index, limitations=("encrypted member; its bytes were not read",))
                        self.omissions.append(
                            Omission(
                                logical_path="/".join(self.chains[index]),
                                entry_type="encrypted file",
                                reason="not decrypted",
                            )
                        )
                        continue
                    if info.file_size > self.limits.max_entry_bytes:
                        self._hit(
                            "max_entry_bytes",
                            "/".join(self.chains[index]),
                            f"declared size {info.file_size} exceeds the limit; not read",
                        )
                        self._update(index, hash_status="not-hashed-limit")
                        continue
                    if info.compress_size and info.file_size / info.compress_size > self.limits.max_compression_ratio:
                        self._hit(
                            "max_compression_ratio",
                            "/".join(self.chains[index]),
                            f"declared ratio {info.file_size / info.compress_size:.0f}x; not decompressed "
                            "(possible decompression bomb)",
                        )
                        self._update(index, hash_status="not-hashed-limit")
                        continue
                    with zf.open(info) as member:
                        yield from self._consume(member, index, depth, info.file_size, info.compress_size)

    def _tar(self, path: str | None, handle: IO[bytes] | None, parent: int | None, depth: int) -> Iterator[str]:
        with _opened(path, handle) as raw:
            magic = raw.read(4)
            raw.seek(0)
            counting = _Counting(raw)
            start_total = self.total_bytes
            source: Any = _zstd_reader(counting) if magic == b"\x28\xb5\x2f\xfd" else counting
            with tarfile.open(fileobj=source, mode="r|*" if magic != b"\x28\xb5\x2f\xfd" else "r|") as tf:
                for member in tf:
                    if not len(self.entries) & 63:
                        yield member.name
                    if member.isdir():
                        kind = "directory"
                    elif member.issym() or member.islnk():
                        kind = "symlink"
                    elif member.isreg():
                        kind = "file"
                    else:
                        self.omissions.append(
                            Omission(
                                logical_path="/".join(self.chains[parent] + (member.name,)),
                                entry_type="device"
                                if member.ischr() or member.isblk()
                                else "FIFO"
                                if member.isfifo()
                                else "special member",
                                reason="never opened",
                            )
                        )
                        continue
                    clean = self._name(parent, member.name, kind)
                    if clean is None:
                        continue
                    index = self._add(
                        parent,
                        clean,
                        kind,
                        declared_size=member.size if kind == "file" else None,
                        executable=kind == "file" and bool(member.mode & 0o111),
                        source_offset=member.offset_data if kind == "file" else None,
                        source_length=member.size if kind == "file" else None,
                        hash_status="unavailable",
                        link_target=printable(member.linkname) if kind == "symlink" else None,
                        limitations=("hard link",) if member.islnk() else (),
                    )
                    if kind == "file":
                        extracted = tf.extractfile(member)
                        if extracted is not None:
                            yield from self._consume(extracted, index, depth, member.size, None)
                        expanded = self.total_bytes - start_total
                        if (
                            counting.count
                            and expanded > counting.count * self.limits.max_compression_ratio
                            and expanded > BLOCK
                        ):
                            self._hit(
                                "max_compression_ratio",
                                "/".join(self.chains[index]),
                                "the archive expanded past the ratio limit; traversal stopped",
                            )
                            raise _Stop()

    def _ar(self, path: str | None, handle: IO[bytes] | None, parent: int | None, depth: int) -> Iterator[str]:
        with _opened(path, handle) as raw:
            if raw.read(8) != b"!<arch>\n":
                raise ValueError("not an ar archive")
            longnames = b""
            while True:
                header = raw.read(60)
                if not header:
                    break
                if len(header) < 60 or header[58:60] != b"`\n":
                    raise ValueError("truncated ar member header")
                name = header[:16].decode("utf-8", "replace").rstrip()
                size = int(header[48:58].decode().strip() or "0")
                mode = int(header[40:48].decode().strip() or "0", 8)
                offset = raw.tell()
                if name in ("/", "/SYM64/"):
                    raw.seek(size + (size & 1), 1)
                    continue
                if name == "//":
                    longnames = raw.read(size)
                    raw.seek(size & 1, 1)
                    continue
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
                clean = self._name(parent, name, "file")
                if clean is None:
                    raw.seek(size + (size & 1), 1)
                    continue
                index = self._add(
                    parent,
                    clean,
                    "file",
                    declared_size=size,
                    executable=bool(mode & 0o111),
                    source_offset=offset,
                    source_length=size,
                    hash_status="unavailable",
                )
                yield from self._consume(_Bounded(raw, size), index, depth, size, None)
                raw.seek(offset + size + (size & 1))
                yield clean

    def _asar(self, path: str | None, handle: IO[bytes] | None, parent: int | None, depth: int) -> Iterator[str]:
        with _opened(path, handle) as raw:
            try:
                base, header = asar.parse_header(raw)
            except asar.AsarError as exc:
                raise ValueError(f"not a readable ASAR archive: {exc}") from exc
            unpacked_root = (path + ".unpacked") if path is not None else None
            yield from self._asar_dir(raw, header, "", base, unpacked_root, parent, depth)

    def _asar_dir(
        self,
        raw: IO[bytes],
        node: dict[str, Any],
        rel: str,
        base: int,
        unpacked_root: str | None,
        parent: int | None,
        depth: int,
    ) -> Iterator[str]:
        files = node.get("files")
        if not isinstance(files, dict):
            raise ValueError(f"ASAR directory {rel or '/'} has no files table")
        for name in sorted(files):
            child = files[name]
            logical = f"{rel}/{name}" if rel else name
            if not isinstance(child, dict):
                raise ValueError(f"ASAR entry {logical} is not an object")
            if "files" in child:
                clean = self._name(parent, logical, "directory")
                if clean is not None:
                    self._add(
                        parent, clean, "directory", hash_status="unavailable", unpacked=bool(child.get("unpacked"))
                    )
                    yield from self._asar_dir(raw, child, logical, base, unpacked_root, parent, depth)
                continue
            if "link" in child:
                clean = self._name(parent, logical, "symlink")
                if clean is not None:
                    self._add(parent, clean, "symlink", link_target=str(child["link"]), hash_status="unavailable")
                continue
            clean = self._name(parent, logical, "file")
            if clean is None:
                continue
            size = int(child.get("size", 0))
            declared = asar.declared(child)
            unpacked = bool(child.get("unpacked"))
            offset = None if unpacked else int(child.get("offset", "0"))
            index = self._add(
                parent,
                clean,
                "file",
                declared_size=size,
                executable=bool(child.get("executable")),
                unpacked=unpacked,
                source_offset=None if offset is None else base + offset,
                source_length=None if unpacked else size,
                hash_status="unavailable",
                declared_sha256=declared,
            )
            if unpacked:
                companion = os.path.join(unpacked_root, *clean.split("/")) if unpacked_root else None
                if companion is None or not os.path.isfile(companion) or os.path.islink(companion):
                    self._update(
                        index,
                        limitations=(
                            "unpacked entry: its companion file in .asar.unpacked is absent, so its bytes were not read",
                        ),
                    )
                    self.omissions.append(
                        Omission(
                            logical_path="/".join(self.chains[index]),
                            entry_type="unpacked file",
                            reason="companion file absent",
                        )
                    )
                    continue
                with open(companion, "rb") as fh:
                    yield from self._consume(
                        fh,
                        index,
                        depth,
                        None,
                        None,
                        declared_sha256=declared,
                        unpacked=True,
                        blocks=asar.block_check(child),
                    )
            else:
                raw.seek(base + (offset or 0))
                yield from self._consume(
                    _Bounded(raw, size),
                    index,
                    depth,
                    size,
                    None,
                    declared_sha256=declared,
                    blocks=asar.block_check(child),
                )
            yield f"listed {clean}"

    # ------------------------------------------------------------ root

    def steps(self) -> Iterator[str]:
        path = self.path
        info = os.stat(path)
        name = os.path.basename(path.rstrip("/")) or path
        if stat.S_ISDIR(info.st_mode):
            self.root_facts = ("directory", *(self.known or ("", 0)))
            try:
                yield from self._container(path, None, "directory", None, 0)
            except _Stop:
                pass
            return
        if not stat.S_ISREG(info.st_mode):
            raise ValueError("not a regular file or directory (device, FIFO and socket files are never opened)")
        if self.known is not None and self.known[1] == info.st_size:
            # open_binary hashed this file; reading it twice would double the cost of a large archive
            with open(path, "rb") as fh:
                head = fh.read(512)
            sha, size = self.known
        else:
            digest = hashlib.sha256()
            size = 0
            head = b""
            with open(path, "rb") as fh:
                while block := fh.read(BLOCK):
                    head = head or block[:512]
                    digest.update(block)
                    size += len(block)
                    yield f"hashed {size} bytes of {name}"
            sha = digest.hexdigest()
        fmt = format_for_name(name, head)
        self.root_facts = (fmt, sha, size)
        self.root_role = managed_role(head)
        if fmt in ROOT_ONLY_FORMATS or fmt not in CONTAINER_FORMATS | {"asar"}:
            return
        try:
            yield from self._container(path, None, fmt, None, 0)
        except _Stop:
            pass


class _Bounded:
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


def _directory_digest(walker: Walker) -> tuple[str, int]:
    """A directory root's identity: the digest of its canonical entry listing."""
    from rea.canonical_json import canonical_sha256

    top = [e for e in walker.entries if e["parent"] is None]
    listing = [
        {
            "path": e["logical_path"],
            "kind": e["entry_kind"],
            "sha256": e.get("sha256"),
            "size": e.get("size"),
            "link": e.get("link_target"),
        }
        for e in top
    ]
    return canonical_sha256(sorted(listing, key=lambda x: x["path"])), sum(e.get("size") or 0 for e in top)


def _failed(path: str, exc: BaseException) -> ReaError:
    if isinstance(exc, FileNotFoundError):
        return ReaError(code="target_unavailable", message=f"{path} does not exist.", details={"path": path})
    if isinstance(exc, PermissionError):
        return ReaError(
            code="target_unavailable", message=f"{path} is not readable (permission denied).", details={"path": path}
        )
    return ReaError(
        code="artifact_operation_failed",
        message=f"{path} could not be read as an artifact: {type(exc).__name__}: {exc}",
        details={"path": path, "exception": type(exc).__name__},
        action="Check that the file is a complete, supported archive (zip family, ASAR, tar, ar, "
        "directory); other files are inventoried by their root digest only.",
    )


CHECKPOINT_EVERY_S = 0.005


async def _drive(walker: Walker, progress: Progress) -> ReaError | None:
    """Checkpoint (cancellation) and report at most every 5 ms: a per-member await would cost more than
    hashing small members."""
    clock = time.perf_counter
    try:
        due = clock()
        for message in walker.steps():
            if clock() >= due:
                await anyio.lowlevel.checkpoint()
                await progress.report("inventorying artifact", message)
                due = clock() + CHECKPOINT_EVERY_S
        for index, sha in walker.hasher.finish().items():
            entry = walker.entries[index]
            if entry.get("hash_status") == "verified" and entry.get("sha256") is None:
                entry["sha256"] = sha
    except _IntegrityFailure as failure:
        return failure.error  # the reference's strict details: nothing is added to them
    except _READ_ERRORS as exc:
        return _failed(walker.path, exc)
    finally:
        walker.hasher.close()
    return None


def _facts(walker: Walker) -> InventoryFacts:
    assert walker.root_facts is not None
    fmt, sha, size = walker.root_facts
    if fmt == "directory" and not sha:
        sha, size = _directory_digest(walker)
    return InventoryFacts(
        root_name=os.path.basename(walker.path.rstrip("/")) or "root",
        root_sha256=sha,
        root_size=size,
        root_format=fmt,
        root_managed_role=walker.root_role,
        entries=tuple(EntryFact(**e) for e in walker.entries),
        limit_hits=tuple(walker.hits),
        omissions=tuple(walker.omissions),
        limitations=tuple(walker.limitations),
    )


def _known(effect: InventoryArtifact | ExtractArtifact) -> tuple[str, int] | None:
    """The root digest open_binary took, so the walk does not hash the root again."""
    return (effect.known_sha256, effect.known_size) if effect.known_sha256 and effect.known_size is not None else None


async def inventory(effect: InventoryArtifact, progress: Progress) -> Result[InventoryFacts, ReaError]:
    walker = Walker(effect.path, effect.limits, effect.integrity_policy, known=_known(effect))
    error = await _drive(walker, progress)
    return Failure(error) if error is not None else Success(_facts(walker))


def _unwritten(walker: Walker, chains: tuple[tuple[str, ...], ...]) -> ReaError | None:
    """truncated when a limit kept a selected member from being written, else artifact_operation_failed."""
    written = {f.chain for f in walker.extracted}
    missing = next((c for c in chains if c not in written), None)
    if missing is None:
        return None
    path = "/".join(missing)
    hit = next((h for h in walker.hits if h.logical_path == path), walker.hits[0] if walker.hits else None)
    if hit is not None:
        return ReaError(
            code="truncated",
            message=f"{path} was not materialized: limit {hit.limit}={hit.value} ({hit.message}). Nothing was "
            "written; raise the limit and retry.",
            details={"logical_path": path, "limit": hit.limit, "value": hit.value},
        )
    return ReaError(
        code="artifact_operation_failed",
        message=f"{path} was not materialized: its bytes could not be read (see the inventory limitations). "
        "Nothing was written.",
        details={"logical_path": path},
    )


async def extract(effect: ExtractArtifact, progress: Progress) -> Result[Any, ReaError]:
    output_root = tempfile.mkdtemp(prefix="rea-extract-")
    selection = {chain: "!/".join(chain) for chain in effect.chains}
    walker = Walker(effect.path, effect.limits, effect.integrity_policy, selection, output_root, known=_known(effect))
    cancelled = anyio.get_cancelled_exc_class()
    try:
        error = await _drive(walker, progress)
    except cancelled:
        shutil.rmtree(output_root, ignore_errors=True)
        raise
    if error is None:
        error = _unwritten(walker, effect.chains)
    if error is not None:  # nothing partial is published
        shutil.rmtree(output_root, ignore_errors=True)
        return Failure(error)
    real_root = os.path.realpath(output_root)
    contained = True
    for dirpath, dirnames, filenames in os.walk(output_root):
        for entry in dirnames + filenames:
            full = os.path.join(dirpath, entry)
            if os.path.islink(full) or not os.path.realpath(full).startswith(real_root + os.sep):
                contained = False
    return Success(
        (
            _facts(walker),
            ExtractionFacts(output_root=output_root, files=tuple(walker.extracted), containment_verified=contained),
        )
    )


HANDLERS = {InventoryArtifact: inventory, ExtractArtifact: extract}
