"""Member listings of the archive formats (ZIP family, tar, ar, ASAR): each member's facts are reported to the
traversal, and the members it admits are streamed through the walker's `_consume`."""

from __future__ import annotations

import os
import stat
import tarfile
import zipfile
from collections.abc import Callable, Iterator
from typing import IO, Any

from effects import asar
from effects.artifacts.streams import Bounded, Counting, Stop, ar_member, opened, zstd_reader
from rea.artifacts.traversal import Traversal
from rea.text import printable


class ArchiveReaders:
    """The format readers of `Walker` (effects.artifacts.walker), which supplies `t`, `_consume` and `_add`."""

    t: Traversal
    _consume: Callable[..., Iterator[str]]  # Walker._consume: hash one member, walk it when it is a container

    def _add(self, parent: int | None, name: str, kind: str, **fields: Any) -> int:
        index = self.t.add(parent, name, kind, **fields)
        if index is None:
            raise Stop()
        return index

    def _zip(self, source: Any, parent: int | None, depth: int) -> Iterator[str]:
        with zipfile.ZipFile(source) as zf:
            for info in zf.infolist():
                if not len(self.t.entries) & 63:  # members read yield per block; the rest every 64 entries
                    yield info.filename
                mode = info.external_attr >> 16
                unix = info.create_system == 3
                kind = (
                    "directory" if info.filename.endswith("/") else "symlink" if stat.S_ISLNK(mode) and unix else "file"
                )
                if stat.S_IFMT(mode) in (stat.S_IFCHR, stat.S_IFBLK, stat.S_IFIFO, stat.S_IFSOCK) and unix:
                    self.t.omit(self.t.beneath(parent, info.filename), "device or FIFO member", "never opened")
                    continue
                clean = self.t.name(parent, info.filename, kind)
                if clean is None:
                    continue
                encrypted = bool(info.flag_bits & 0x1)
                index = self._add(
                    parent,
                    clean,
                    kind,
                    declared_size=info.file_size,
                    compressed_size=info.compress_size,
                    executable=bool(mode & 0o111) and unix and kind == "file",
                    encrypted=encrypted,
                    source_offset=info.header_offset,
                    source_length=info.compress_size,
                    hash_status="unavailable",
                )
                if kind == "symlink":
                    target = zf.read(info)[:4096].decode("utf-8", "replace") if info.file_size <= 4096 else "?"
                    self.t.update(index, link_target=target)
                elif kind == "file" and self.t.zip_reads(index, info.file_size, info.compress_size, encrypted):
                    with zf.open(info) as member:
                        yield from self._consume(member, index, depth, info.file_size, info.compress_size)

    def _tar(self, path: str | None, handle: IO[bytes] | None, parent: int | None, depth: int) -> Iterator[str]:
        with opened(path, handle) as raw:
            magic = raw.read(4)
            raw.seek(0)
            counting = Counting(raw)
            start_total = self.t.total_bytes
            zstd = magic == b"\x28\xb5\x2f\xfd"
            source: Any = zstd_reader(counting) if zstd else counting
            with tarfile.open(fileobj=source, mode="r|" if zstd else "r|*") as tf:
                for member in tf:
                    if not len(self.t.entries) & 63:
                        yield member.name
                    index = self._tar_member(member, parent)
                    if index is None or self.t.entries[index]["entry_kind"] != "file":
                        continue
                    extracted = tf.extractfile(member)
                    if extracted is not None:
                        yield from self._consume(extracted, index, depth, member.size, None)
                    if self.t.stream_expanded(index, self.t.total_bytes - start_total, counting.count):
                        raise Stop()

    def _tar_member(self, member: tarfile.TarInfo, parent: int | None) -> int | None:
        """Record one tar member (None: a special member, omitted, or a refused name)."""
        if member.isdir():
            kind = "directory"
        elif member.issym() or member.islnk():
            kind = "symlink"
        elif member.isreg():
            kind = "file"
        else:
            special = "device" if member.ischr() or member.isblk() else "FIFO" if member.isfifo() else "special member"
            self.t.omit(self.t.beneath(parent, member.name), special, "never opened")
            return None
        clean = self.t.name(parent, member.name, kind)
        if clean is None:
            return None
        return self._add(
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

    def _ar(self, path: str | None, handle: IO[bytes] | None, parent: int | None, depth: int) -> Iterator[str]:
        with opened(path, handle) as raw:
            if raw.read(8) != b"!<arch>\n":
                raise ValueError("not an ar archive")
            longnames = b""
            while header := raw.read(60):
                member = ar_member(raw, header, longnames)
                if member is None:
                    continue
                if isinstance(member, bytes):
                    longnames = member
                    continue
                name, size, mode, offset = member
                clean = self.t.name(parent, name, "file")
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
                yield from self._consume(Bounded(raw, size), index, depth, size, None)
                raw.seek(offset + size + (size & 1))
                yield clean

    def _asar(self, path: str | None, handle: IO[bytes] | None, parent: int | None, depth: int) -> Iterator[str]:
        with opened(path, handle) as raw:
            try:
                base, header = asar.parse_header(raw)
            except asar.AsarError as exc:
                raise ValueError(f"not a readable ASAR archive: {exc}") from exc
            unpacked_root = (path + ".unpacked") if path is not None else None
            yield from self._asar_dir(raw, header, "", (base, unpacked_root), parent, depth)

    def _asar_dir(
        self,
        raw: IO[bytes],
        node: dict[str, Any],
        rel: str,
        where: tuple[int, str | None],
        parent: int | None,
        depth: int,
    ) -> Iterator[str]:
        """`where`: the archive's data offset and its .asar.unpacked directory (None for a nested archive)."""
        files = node.get("files")
        if not isinstance(files, dict):
            raise ValueError(f"ASAR directory {rel or '/'} has no files table")
        for name in sorted(files):
            child = files[name]
            logical = f"{rel}/{name}" if rel else name
            if not isinstance(child, dict):
                raise ValueError(f"ASAR entry {logical} is not an object")
            if "files" in child:
                clean = self.t.name(parent, logical, "directory")
                if clean is not None:
                    unpacked = bool(child.get("unpacked"))
                    self._add(parent, clean, "directory", hash_status="unavailable", unpacked=unpacked)
                    yield from self._asar_dir(raw, child, logical, where, parent, depth)
            elif "link" in child:
                clean = self.t.name(parent, logical, "symlink")
                if clean is not None:
                    self._add(parent, clean, "symlink", link_target=str(child["link"]), hash_status="unavailable")
            else:
                clean = self.t.name(parent, logical, "file")
                if clean is not None:
                    yield from self._asar_file(raw, child, clean, where, parent, depth)

    def _asar_file(
        self,
        raw: IO[bytes],
        child: dict[str, Any],
        clean: str,
        where: tuple[int, str | None],
        parent: int | None,
        depth: int,
    ) -> Iterator[str]:
        base, unpacked_root = where
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
                self.t.companion_absent(index)
                return
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
            blocks = asar.block_check(child)
            yield from self._consume(
                Bounded(raw, size), index, depth, size, None, declared_sha256=declared, blocks=blocks
            )
        yield f"listed {clean}"
