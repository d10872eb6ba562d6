"""Filesystem effects: target identity and stamps, bounded JSON reads, atomic publication."""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Awaitable, Callable, Iterable, Iterator
from typing import Any, BinaryIO

import anyio
import anyio.lowlevel
import attrs
import orjson
from returns.result import Failure, Result, Success

from rea.artifacts.model import format_for_name
from rea.canonical_json import canonical_sha256
from rea.errors import ReaError, invalid_request
from rea.managed.cli_header import cli_header_present
from rea.native.dos import com_by_name
from rea.program import PublishReceipt, TargetFacts, TargetStamp
from rea.session import header_architecture
from rea.text import printable

READ_BLOCK = 1 << 20
FLUSH_BYTES = 1 << 20

Report = Callable[[str, str], Awaitable[None]]


def target_unavailable(path: str, why: str) -> ReaError:
    return ReaError(
        code="target_unavailable",
        message=f"Cannot open {path!r}: {why}.",
        details={"path": path, "reason": why},
        action="Check the path exists and is readable, then call again with it.",
    )


@attrs.frozen
class Entry:
    """One directory entry, lstat'ed (links are never followed): its stat, or the OSError that refused it."""

    name: str
    path: str
    info: os.stat_result | None
    error: OSError | None = None
    # a directory or a link to one, by the listing's own file type (os.walk's split of files from directories)
    points_to_directory: bool = False

    def is_directory(self) -> bool:
        """A real directory (not a link to one): what a walk descends into."""
        return self.info is not None and stat.S_ISDIR(self.info.st_mode)


def list_directory(path: str) -> list[Entry]:
    """The one directory listing every walker uses: each entry of `path` sorted by name and lstat'ed. Raises
    OSError when the directory itself cannot be listed; an entry that cannot be stat'ed carries its error."""
    with os.scandir(path) as it:
        items = sorted(it, key=lambda e: e.name)
    return [_entry(item) for item in items]


def _entry(item: os.DirEntry[str]) -> Entry:
    try:
        to_directory = item.is_dir()
    except OSError:
        to_directory = False
    try:
        info = os.lstat(item.path)
    except OSError as exc:
        return Entry(name=item.name, path=item.path, info=None, error=exc, points_to_directory=to_directory)
    return Entry(name=item.name, path=item.path, info=info, points_to_directory=to_directory)


def walk_tree(root: str) -> Iterator[tuple[str, list[Entry]]]:
    """Every directory under `root` as (its path relative to root, "" for root; its listing), each directory
    before its subdirectories, subdirectories in name order; links are never followed and a directory that
    cannot be listed is passed over (as os.walk does)."""
    pending = [""]
    while pending:
        rel = pending.pop()
        try:
            listing = list_directory(os.path.join(root, rel) if rel else root)
        except OSError:
            continue
        yield rel, listing
        pending.extend(reversed([f"{rel}/{e.name}" if rel else e.name for e in listing if e.is_directory()]))


def _stat_line(info: os.stat_result) -> str:
    return f"{info.st_mode:o}:{info.st_dev}:{info.st_ino}:{info.st_size}:{info.st_mtime_ns}:{info.st_ctime_ns}"


def _digest_lines(lines: Iterable[str]) -> str:
    return hashlib.sha256("\n".join(lines).encode("utf-8", "surrogateescape")).hexdigest()


def stamp_of(path: str) -> str | None:
    """A file's stat, or the lstat of a directory and of every entry under it (links not followed), as one
    digest; None when the path cannot be stat'ed. Nothing is opened, so it costs no read of the bytes."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    lines = [_stat_line(info)]
    if stat.S_ISDIR(info.st_mode):
        for rel, listing in walk_tree(path):
            for entry in listing:
                line = _stat_line(entry.info) if entry.info is not None else f"unreadable:{_errno(entry)}"
                lines.append(f"{rel}/{entry.name}\0{line}" if rel else f"{entry.name}\0{line}")
    return _digest_lines(lines)


def _errno(entry: Entry) -> int | None:
    return entry.error.errno if entry.error is not None else None


def stamp_target(path: str) -> TargetStamp:
    """The target's stamp, and its `.unpacked` companion's (an ASAR's unpacked files live beside it)."""
    companion = path.rstrip("/") + ".unpacked"
    return TargetStamp(own=stamp_of(path), companion=stamp_of(companion) if os.path.isdir(companion) else None)


async def identify_target(path: str, report: Report) -> Result[TargetFacts, ReaError]:
    """sha256 of a file (streamed), or of a directory's canonical listing (links not followed), with the stamp
    the bytes were read under: None when the stamp moved while they were hashed."""
    before = stamp_of(path)
    identified = await _identify(path, report)
    return identified.map(lambda facts: attrs.evolve(facts, stamp=before if before == stamp_of(path) else None))


async def _identify(path: str, report: Report) -> Result[TargetFacts, ReaError]:
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return Failure(target_unavailable(path, "no such file or directory"))
    except PermissionError:
        return Failure(target_unavailable(path, "permission denied"))
    except OSError as exc:
        return Failure(target_unavailable(path, exc.strerror or str(exc)))
    if stat.S_ISDIR(info.st_mode):
        return await _identify_directory(path, report)
    if not stat.S_ISREG(info.st_mode):
        return Failure(
            target_unavailable(
                path, "it is not a regular file or directory (device, FIFO or socket files are never opened)"
            )
        )
    digest = hashlib.sha256()
    size = 0
    head = b""
    try:
        with open(path, "rb") as handle:
            while block := handle.read(READ_BLOCK):
                if not head:
                    head = block[:512]
                digest.update(block)
                size += len(block)
                await report("identifying target", f"hashed {size} bytes")
                await anyio.lowlevel.checkpoint()
    except PermissionError:
        return Failure(target_unavailable(path, "permission denied"))
    except OSError as exc:
        return Failure(target_unavailable(path, exc.strerror or str(exc)))
    fmt = com_by_name(os.path.basename(path), size, format_for_name(os.path.basename(path), head))
    return Success(
        TargetFacts(
            path=path,
            kind="file",
            sha256=digest.hexdigest(),
            size=size,
            format=fmt,
            architecture=header_architecture(head, fmt),
            managed=fmt == "pe" and cli_header_present(head),
        )
    )


async def _identify_directory(path: str, report: Report) -> Result[TargetFacts, ReaError]:
    entries: list[dict[str, Any]] = []
    total = 0
    for rel_dir, listing in walk_tree(path):
        for item in _files_first(listing):
            full = item.path
            rel = printable(f"{rel_dir}/{item.name}" if rel_dir else item.name)
            info = item.info
            if info is None:
                exc = item.error or OSError()
                entries.append({"path": rel, "type": "unreadable", "reason": exc.strerror or str(exc)})
                continue
            if stat.S_ISLNK(info.st_mode):
                entries.append({"path": rel, "type": "symlink", "target": printable(os.readlink(full))})
            elif stat.S_ISREG(info.st_mode):
                digest = hashlib.sha256()
                try:
                    with open(full, "rb") as handle:
                        while block := handle.read(READ_BLOCK):
                            digest.update(block)
                except OSError as exc:
                    entries.append({"path": rel, "type": "unreadable", "reason": exc.strerror or str(exc)})
                    continue
                total += info.st_size
                entries.append({"path": rel, "type": "file", "size": info.st_size, "sha256": digest.hexdigest()})
            else:
                entries.append({"path": rel, "type": "special"})
        await report("identifying target", f"{len(entries)} entries, {total} bytes hashed")
        await anyio.lowlevel.checkpoint()
    return Success(
        TargetFacts(path=path, kind="directory", sha256=canonical_sha256(entries), size=total, format="directory")
    )


def _files_first(listing: list[Entry]) -> list[Entry]:
    """A directory's entries in the order its identity lists them: everything that is not a directory, then the
    links to directories (real directories are walked on their own)."""
    files = [e for e in listing if not e.points_to_directory]
    return files + [e for e in listing if e.points_to_directory and os.path.islink(e.path)]


def read_json_file(path: str, max_bytes: int) -> Result[Any, ReaError]:
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            return Failure(invalid_request(f"{path!r} is not a regular file", field="path", accepted="a JSON file"))
        if info.st_size > max_bytes:
            return Failure(
                ReaError(
                    code="truncated",
                    message=(f"{path!r} has {info.st_size} bytes, more than the {max_bytes}-byte import limit."),
                    details={"path": path, "bytes": info.st_size, "limit": max_bytes},
                )
            )
        with open(path, "rb") as handle:
            data = handle.read(max_bytes + 1)
    except FileNotFoundError:
        return Failure(invalid_request(f"{path!r} does not exist", field="path", accepted="an existing JSON file"))
    except OSError as exc:
        return Failure(
            invalid_request(
                f"{path!r} cannot be read: {exc.strerror or exc}", field="path", accepted="a readable JSON file"
            )
        )
    try:
        return Success(orjson.loads(data))
    except orjson.JSONDecodeError as exc:
        return Failure(
            ReaError(
                code="evidence_integrity_mismatch",
                message=f"{path!r} is not valid JSON: {exc}",
                details={"path": path, "reason": "invalid-json"},
                action="Use a bundle written by export_evidence_bundle.",
            )
        )


async def publish_atomically(
    path: str, chunks: Iterable[bytes], overwrite: bool, report: Report, phase: str
) -> Result[PublishReceipt, ReaError]:
    """Stage beside the destination, fsync, then rename (overwrite) or link (no-clobber).

    Cancellation or failure removes the staging file and leaves the destination
    untouched. Success with a failed staging cleanup returns cleanup_incomplete
    carrying the publication receipt.
    """
    destination = os.path.abspath(path)
    parent = os.path.dirname(destination)
    if not os.path.isdir(parent):
        return Failure(
            invalid_request(
                f"the directory of {path!r} does not exist", field="path", accepted="a path in an existing directory"
            )
        )
    if os.path.isdir(destination):
        return Failure(invalid_request(f"{path!r} is a directory", field="path", accepted="a file path"))
    if os.path.lexists(destination) and not overwrite:
        return Failure(
            invalid_request(
                f"{path!r} already exists", field="overwrite", accepted="overwrite: true to replace it, or another path"
            )
        )
    import tempfile  # only publication needs it; keeps it off the startup path

    try:
        fd, staging = tempfile.mkstemp(prefix=f".{os.path.basename(destination)}.", suffix=".rea-staging", dir=parent)
    except OSError as exc:
        return Failure(
            ReaError(
                code="execution_failure",
                message=f"Cannot create a staging file in {parent!r}: {exc.strerror or exc}",
                details={"path": path},
                action="Choose a writable directory.",
            )
        )
    digest = hashlib.sha256()
    written = 0
    published = False
    try:
        with os.fdopen(fd, "wb") as handle:
            written = await _write_synced(handle, chunks, digest, report, phase)
        await anyio.lowlevel.checkpoint()
        if overwrite:
            os.replace(staging, destination)
            published = True
        else:
            os.link(staging, destination)
            published = True
            os.unlink(staging)
        fsync_dir(parent)
    except FileExistsError:
        _remove(staging)
        return Failure(
            invalid_request(
                f"{path!r} appeared while exporting",
                field="overwrite",
                accepted="overwrite: true to replace it, or another path",
            )
        )
    except BaseException as exc:
        if published:
            if isinstance(exc, OSError):
                return Failure(_cleanup_incomplete(path, destination, staging, written))
            raise
        _remove(staging)
        if isinstance(exc, OSError):
            return Failure(
                ReaError(
                    code="execution_failure",
                    message=f"Writing {path!r} failed: {exc.strerror or exc}; the destination was not changed.",
                    details={"path": path},
                )
            )
        raise
    return Success(PublishReceipt(path=destination, bytes=written, sha256=digest.hexdigest()))


async def _write_synced(handle: BinaryIO, chunks: Iterable[bytes], digest: Any, report: Report, phase: str) -> int:
    """Write and hash `chunks` in FLUSH_BYTES blocks, with a progress note and a cancellation point after each
    block, then fsync; the bytes written."""
    written = 0
    pending: list[bytes] = []
    pending_bytes = 0
    for chunk in chunks:
        pending.append(chunk)
        pending_bytes += len(chunk)
        if pending_bytes >= FLUSH_BYTES:
            block = b"".join(pending)
            handle.write(block)
            digest.update(block)
            written += len(block)
            pending, pending_bytes = [], 0
            await report(phase, f"{written} bytes written")
            await anyio.lowlevel.checkpoint()
    block = b"".join(pending)
    handle.write(block)
    digest.update(block)
    written += len(block)
    handle.flush()
    os.fsync(handle.fileno())
    return written


def _cleanup_incomplete(path: str, destination: str, staging: str, written: int) -> ReaError:
    """The destination is published whole, but the staging file REA made could not be removed."""
    return ReaError(
        code="cleanup_incomplete",
        message=f"{path!r} was published completely, but the staging file {staging!r} could not be removed.",
        details={
            "published": True,
            "published_path": destination,
            "bytes": written,
            "owned_resources": ["staging-file"],
            "staging_path": staging,
        },
    )


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def fsync_dir(path: str) -> None:
    """Make a rename in `path` durable."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class NotRegular(Exception):
    """The path names a FIFO, socket, device or directory, which a file reader never opens."""


def open_regular(path: str) -> int:
    """A descriptor of `path` only when it is a regular file: FIFOs, sockets and devices are refused before any
    open (an open of a FIFO blocks until a writer comes), and the opened file is checked again (a swap between
    the two is refused too). Raises OSError, or NotRegular for anything but a regular file."""
    if not stat.S_ISREG(os.stat(path).st_mode):
        raise NotRegular(path)
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise NotRegular(path)
    return fd


def open_path_argument(path: str) -> Result[int, ReaError]:
    """open_regular for a file a caller named in its `path` argument: a missing, irregular or unreadable file
    is the caller's request to correct (invalid_request naming the field), not a failure of REA."""
    try:
        return Success(open_regular(path))
    except FileNotFoundError:
        return Failure(invalid_request(f"{path!r} does not exist", field="path", accepted="an existing file"))
    except NotRegular:
        return Failure(invalid_request(f"{path!r} is not a regular file", field="path", accepted="a regular file"))
    except OSError as exc:
        return Failure(invalid_request(f"{path!r} cannot be read: {exc.strerror or exc}", field="path"))
