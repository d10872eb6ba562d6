"""A bounded snapshot of the declared filesystem roots: every entry's lstat facts, and each regular file's
SHA-256 while the byte budget lasts (a file past the budget, or one that cannot be read, keeps a null digest
and is counted, so a comparison can say its content is unknown rather than unchanged)."""

from __future__ import annotations

import hashlib
import os
import stat
from typing import Literal

from rea.process_capture.effects import Snapshot
from rea.process_capture.results import FileEntry

CHUNK = 1 << 20


class _Walk:
    def __init__(self, files: int, depth: int, budget: int) -> None:
        self.files, self.depth, self.budget = files, depth, budget
        self.entries: list[FileEntry] = []
        self.truncated = False
        self.omissions = 0

    def digest(self, path: str, size: int) -> str | None:
        """The file's SHA-256, read without following a link (O_NOFOLLOW), within the remaining budget."""
        if size > self.budget:
            self.omissions += 1
            return None
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError:
            self.omissions += 1
            return None
        h = hashlib.sha256()
        with os.fdopen(fd, "rb") as handle:
            read = 0
            while block := handle.read(CHUNK):
                read += len(block)
                if read > self.budget:  # it grew while read: the digest would describe no snapshot
                    self.omissions += 1
                    return None
                h.update(block)
        self.budget -= read
        return h.hexdigest()

    def entry(self, path: str, info: os.stat_result) -> FileEntry:
        mode = info.st_mode
        if stat.S_ISLNK(mode):
            return FileEntry(path=path, type="symlink", size=info.st_size, mode=mode, sha256=None,
                             symlink_target=os.readlink(path))  # fmt: skip
        if stat.S_ISREG(mode):
            digest = self.digest(path, info.st_size)
            return FileEntry(path=path, type="file", size=info.st_size, mode=mode, sha256=digest, symlink_target=None)
        kind: Literal["directory", "other"] = "directory" if stat.S_ISDIR(mode) else "other"
        return FileEntry(path=path, type=kind, size=info.st_size, mode=mode, sha256=None, symlink_target=None)

    def visit(self, folder: str, level: int) -> None:
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            return
        for name in names:
            if len(self.entries) >= self.files:
                self.truncated = True
                return
            path = os.path.join(folder, name)
            try:
                info = os.lstat(path)
            except OSError:
                continue  # gone between listing and lstat
            self.entries.append(self.entry(path, info))
            if stat.S_ISDIR(info.st_mode):
                if level >= self.depth:
                    self.truncated = True
                else:
                    self.visit(path, level + 1)


def snapshot(roots: tuple[str, ...], files: int, depth: int, budget: int, at_ms: int) -> Snapshot:
    """Entries below each root (depth 1: its children), sorted by path, never following a symlink."""
    walk = _Walk(files, depth, budget)
    for root in roots:
        if os.path.isdir(root) and not os.path.islink(root):
            walk.visit(os.path.normpath(root), 1)
    return Snapshot(
        at_ms=at_ms,
        entries=tuple(sorted(walk.entries, key=lambda e: e.path)),
        truncated=walk.truncated,
        hash_omissions=walk.omissions,
    )
