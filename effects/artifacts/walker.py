"""One artifact traversal's IO: list directories (fs.list_directory), open regular files (fs.open_regular),
stream every member once and hash it. Every decision (what is recorded or read, the limits, the integrity
policy, a directory's identity) is the pure `rea.artifacts.traversal.Traversal`'s.

Nothing is written except spooled nested containers (anonymous temp files) and, for extraction,
files inside one fresh `tempfile.mkdtemp` directory opened with O_EXCL|O_NOFOLLOW.
"""

from __future__ import annotations

import hashlib
import os
import stat
import tempfile
from collections.abc import Generator, Iterator
from typing import IO, Any, NoReturn

from effects import asar, fs
from effects.artifacts.archives import ArchiveReaders
from effects.artifacts.streams import READ_ERRORS, SPOOL_IN_MEMORY, Hasher, IntegrityFailure, Read, Stop
from rea.artifacts.model import ZIP_FORMATS, Limits, format_for_name
from rea.artifacts.traversal import BLOCK, Listed, Traversal
from rea.errors import ReaError


class Walker(ArchiveReaders):
    """One traversal's IO: it lists, opens, streams and hashes, and asks its `Traversal` (rea.artifacts.traversal)
    every question of policy. `steps()` is a sync generator yielding progress text after each unit of work, so
    the async handler can checkpoint for cancellation between them."""

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
        self.t = Traversal(limits, policy, extract)
        self.output_root = output_root
        self.hasher = Hasher()

    # ------------------------------------------------------------ content

    def _open_output(self, chain: tuple[str, ...]) -> IO[bytes] | None:
        rel = self.t.extract.get(chain)
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
        be a nested container, and walk it when the traversal says so."""
        if not self.t.opens(index, declared):
            return
        read = Read(self.t.chains[index], self._open_output(self.t.chains[index]), declared_sha256 is None)
        read.digest = self.hasher.digest(index) if read.deferred else hashlib.sha256()
        try:
            limited = yield from self._blocks(stream, read, depth, (declared, compressed), disk_path is None, blocks)
        except Stop:
            self.t.update(index, hash_status="not-hashed-limit")
            self._discard_output(read.out, read.chain)
            raise
        except READ_ERRORS as exc:
            self._discard_output(read.out, read.chain)
            self.t.unreadable(index, type(exc).__name__, str(exc))
            return
        if limited:
            self.t.limited(index)
            self._discard_output(read.out, read.chain)
            return
        expand = self._finish(read, index, depth, declared_sha256, unpacked, blocks)
        try:
            if expand and disk_path is not None:
                yield from self._container(disk_path, None, self.t.entries[index]["format"], index, depth + 1)
            elif expand and read.spool is not None:
                read.spool.seek(0)
                yield from self._container(None, read.spool, self.t.entries[index]["format"], index, depth + 1)
        finally:
            if read.spool is not None:
                read.spool.close()

    def _blocks(
        self,
        stream: IO[bytes],
        read: Read,
        depth: int,
        sizes: tuple[int | None, int | None],
        spoolable: bool,
        blocks: tuple[Any, Any] | None,
    ) -> Generator[str, None, bool]:
        """Stream a member block by block, each counted against the limits; True when a limit ended it."""
        logical = "/".join(read.chain)
        declared, compressed = sizes
        while block := stream.read(BLOCK):
            if not read.head:
                read.head = block[:512]
                if self.t.spools(format_for_name(read.chain[-1], read.head), depth, not spoolable):
                    read.spool = tempfile.SpooledTemporaryFile(max_size=SPOOL_IN_MEMORY)
            read.size += len(block)
            verdict = self.t.account(logical, read.size, len(block), compressed, declared)
            if verdict == "stop":
                raise Stop()
            if verdict == "limit":
                return True
            if read.deferred:
                self.hasher.add(read.digest, block)
            else:
                read.digest.update(block)
            if blocks is not None and blocks[1] is not None:
                blocks[1].update(block)
            if read.spool is not None:
                read.spool.write(block)
            if read.out is not None:
                read.out.write(block)
            yield logical
        return False

    def _finish(
        self,
        read: Read,
        index: int,
        depth: int,
        declared_sha256: str | None,
        unpacked: bool,
        blocks: tuple[Any, Any] | None,
    ) -> bool:
        """Check the bytes read against the declared integrity, publish the extracted file, record the member;
        whether it is a nested container to walk now."""
        observed = None if read.deferred else read.digest.hexdigest()
        detail = asar.block_verdict(blocks, read.size)
        checked = self.t.contradiction(index, declared_sha256, observed, detail, unpacked)
        mismatch = checked.alt(lambda error: self._refuse_integrity(read, error)).unwrap()
        if read.out is not None:
            read.out.close()
            assert observed is not None
            self.t.wrote(index, observed, read.size)
        return self.t.read(
            index,
            depth,
            observed,
            read.size,
            read.head,
            mismatch=mismatch,
            declared_sha256=declared_sha256,
            block_detail=detail,
        )

    def _refuse_integrity(self, read: Read, error: ReaError) -> NoReturn:
        """The policy fails on a contradiction: the member's output is removed and the traversal ends."""
        self._discard_output(read.out, read.chain)
        raise IntegrityFailure(error)

    def _discard_output(self, out: IO[bytes] | None, chain: tuple[str, ...]) -> None:
        if out is not None:
            out.close()
            try:
                os.unlink(os.path.join(self.output_root or "", self.t.extract[chain]))
            except OSError:
                pass

    # ------------------------------------------------------------ containers

    def _container(
        self, path: str | None, handle: IO[bytes] | None, fmt: str, parent: int | None, depth: int
    ) -> Iterator[str]:
        produced = len(self.t.entries)
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
        except (Stop, IntegrityFailure):
            raise
        except READ_ERRORS as exc:
            why = f"{type(exc).__name__}: {exc}"
            if self.t.container_failed(parent, fmt, produced, os.path.basename(self.path), why):
                raise

    def _directory(self, base: str, rel: str, parent: int | None, depth: int, shown: str = "") -> Iterator[str]:
        """`rel` is the directory's path on disk (names as the OS gives them); `shown`, the same path as the
        records show it."""
        try:
            listing = fs.list_directory(os.path.join(base, rel) if rel else base)
        except OSError as exc:
            self.t.unlistable(rel, exc.strerror or str(exc))
            return
        for item in listing:
            if item.error is not None or item.info is None:
                self.t.unexamined(shown, item.name, _why(item.error))
                continue
            try:
                link = os.readlink(item.path) if stat.S_ISLNK(item.info.st_mode) else None
            except OSError as exc:
                self.t.unexamined(shown, item.name, _why(exc))
                continue
            listed = Listed(name=item.name, mode=item.info.st_mode, size=item.info.st_size, link_target=link)
            visit = self.t.visit(parent, shown, listed)
            if visit.action == "stop":
                raise Stop()
            if visit.action == "descend":
                yield from self._directory(
                    base, f"{rel}/{item.name}" if rel else item.name, parent, depth, visit.logical
                )
            elif visit.action == "read" and visit.index is not None:
                yield from self._read_disk(item.path, visit.index, depth, listed.size)
            yield f"listed {visit.logical}"

    def _read_disk(self, full: str, index: int, depth: int, size: int) -> Iterator[str]:
        """A regular file found in a directory, opened only as one (fs.open_regular). A file that cannot be
        opened is that file's omission; its siblings are still walked."""
        try:
            handle = fs.open_regular(full)
        except OSError as exc:
            self.t.unreadable(index, type(exc).__name__, str(exc))
            return
        with os.fdopen(handle, "rb") as fh:
            yield from self._consume(fh, index, depth, size, None, disk_path=full)

    def _add(self, parent: int | None, name: str, kind: str, **fields: Any) -> int:
        index = self.t.add(parent, name, kind, **fields)
        if index is None:
            raise Stop()
        return index

    # ------------------------------------------------------------ root

    def steps(self) -> Iterator[str]:
        path = self.path
        info = os.stat(path)
        if stat.S_ISDIR(info.st_mode):
            self.t.root_directory(self.known)
            try:
                yield from self._container(path, None, "directory", None, 0)
            except Stop:
                pass
            return
        if not stat.S_ISREG(info.st_mode):
            raise ValueError("not a regular file or directory (device, FIFO and socket files are never opened)")
        name = os.path.basename(path.rstrip("/")) or path
        if self.known is not None and self.known[1] == info.st_size:
            # open_binary hashed this file; reading it twice would double the cost of a large archive
            with open(path, "rb") as fh:
                head = fh.read(512)
            sha, size = self.known
        else:
            sha, size, head = yield from _hash_root(path, name)
        fmt = self.t.root_file(name, head, sha, size)
        if fmt is None:
            return
        try:
            yield from self._container(path, None, fmt, None, 0)
        except Stop:
            pass


def _hash_root(path: str, name: str) -> Generator[str, None, tuple[str, int, bytes]]:
    """The root file's sha256, size and first bytes, read once."""
    digest = hashlib.sha256()
    size = 0
    head = b""
    with open(path, "rb") as fh:
        while block := fh.read(BLOCK):
            head = head or block[:512]
            digest.update(block)
            size += len(block)
            yield f"hashed {size} bytes of {name}"
    return digest.hexdigest(), size, head


def _why(exc: OSError | None) -> str:
    """An OSError as an omission reason names: its class and the OS's text."""
    return "unknown error" if exc is None else f"{type(exc).__name__}: {exc.strerror or exc}"
