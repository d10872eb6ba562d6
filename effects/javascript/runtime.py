"""Handlers of the JavaScript effects: walk the tree, read files, extract facts."""

from __future__ import annotations

import os
import pickle
import stat
from importlib import metadata
from typing import Any

import anyio
import anyio.lowlevel
import anyio.to_thread
from returns.result import Failure, Result, Success

from effects import asar
from effects.javascript.extract import file_facts
from effects.progress import Progress
from rea.errors import ReaError, invalid_request
from rea.javascript.effects import ExtractFiles, ScanApplication
from rea.javascript.graph_kinds import TEXT_KINDS
from rea.javascript.text_facts import classify
from rea.text import printable


def _unavailable(path: str, why: str) -> ReaError:
    return ReaError(
        code="target_unavailable",
        message=f"Cannot read the application at {path!r}: {why}.",
        details={"path": path, "reason": why},
        action="Check the path exists and is a readable directory (or .asar), then call again.",
    )


async def scan(effect: ScanApplication, progress: Progress) -> Result[Any, ReaError]:
    root = os.path.abspath(effect.path)
    try:
        info = os.stat(root)
    except OSError as exc:
        return Failure(_unavailable(effect.path, exc.strerror or str(exc)))
    if stat.S_ISREG(info.st_mode):
        return _scan_file(root, effect)
    if not stat.S_ISDIR(info.st_mode):
        return Failure(_unavailable(effect.path, "not a directory or regular file"))
    if effect.format == "asar":
        return Failure(
            invalid_request(
                f"{effect.path!r} is a directory but format is asar",
                field="format",
                accepted="directory or auto for a directory",
            )
        )
    return Success(await _scan_directory(root, effect, progress))


def _scan_file(root: str, effect: ScanApplication) -> Result[Any, ReaError]:
    """A regular file is read only as an .asar archive (by its name, or when the format says so)."""
    if effect.format == "directory":
        return Failure(
            invalid_request(
                f"{effect.path!r} is a file but format is directory",
                field="format",
                accepted="asar or auto for an .asar file",
            )
        )
    if effect.format == "asar" or root.lower().endswith(".asar"):
        return _scan_asar(root, effect)
    return Failure(
        invalid_request(
            f"{effect.path!r} is a file, not an application directory or .asar",
            field="input_path",
            accepted="a directory (an unpacked app) or an .asar file",
        )
    )


async def _scan_directory(root: str, effect: ScanApplication, progress: Progress) -> dict[str, Any]:
    """The directory's entries, then the members of every .asar archive found in it, in path order."""
    listing = _Listing(effect)
    await listing.walk(root, progress)
    files, omitted = listing.files, listing.omitted
    archives = _Archives(effect, files, omitted)
    for on_disk, rel in listing.archives:
        disk = os.path.join(root, on_disk)
        unpacked = disk + ".unpacked"
        try:
            archives.expand(rel + "/", disk, 0, None, unpacked if os.path.isdir(unpacked) else None, 1)
        except (asar.AsarError, OSError) as exc:
            archives.containers.append({"path": rel, "status": "unreadable", "depth": 1, "detail": str(exc)[:256]})
        await anyio.lowlevel.checkpoint()
    files.sort(key=lambda f: f["path"])
    omitted.sort(key=lambda o: o["path"])
    return {
        "root": root,
        "kind": "directory",
        "files": files,
        "omitted": omitted,
        "containers": archives.containers,
        "integrity_contradictions": archives.contradictions,
        "text_kinds": list(TEXT_KINDS),
        "parser": _PARSERS,
    }


Pending = tuple[str, str, int]  # (path on disk, path as recorded, depth): they differ for names that are not Unicode


class _Listing:
    """A directory tree's entries, depth first in name order, under the entry and depth bounds: its regular
    files (with a locator when the name on disk is not the name recorded), what was left out and why, and the
    .asar archives among the files."""

    def __init__(self, effect: ScanApplication) -> None:
        self.effect = effect
        self.files: list[dict[str, Any]] = []
        self.omitted: list[dict[str, Any]] = []
        self.seen = 0
        self.archives: list[tuple[str, str]] = []

    async def walk(self, root: str, progress: Progress) -> None:
        pending: list[Pending] = [("", "", 0)]
        while pending:
            disk_dir, rel_dir, depth = pending.pop()
            full_dir = os.path.join(root, disk_dir) if disk_dir else root
            try:
                with os.scandir(full_dir) as it:
                    entries = sorted(it, key=lambda e: e.name)
            except OSError as exc:
                self.omitted.append(
                    {"path": rel_dir or ".", "reason": "unreadable", "detail": exc.strerror or str(exc)}
                )
                continue
            subdirs = [d for d in (self.entry(e, disk_dir, rel_dir, depth) for e in entries) if d is not None]
            pending.extend(reversed(subdirs))
            if self.seen % 512 < len(entries):
                await progress.report("scanning", f"{self.seen} entries listed")
            await anyio.lowlevel.checkpoint()

    def entry(self, entry: os.DirEntry[str], disk_dir: str, rel_dir: str, depth: int) -> Pending | None:
        """Record one entry; a directory to walk is returned, not recorded."""
        shown = printable(entry.name)
        rel = f"{rel_dir}/{shown}" if rel_dir else shown
        disk = f"{disk_dir}/{entry.name}" if disk_dir else entry.name
        self.seen += 1
        if self.seen > self.effect.max_entries:
            self.omitted.append({"path": rel, "reason": "max_entries"})
            return None
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError as exc:
            self.omitted.append({"path": rel, "reason": "unreadable", "detail": exc.strerror or str(exc)})
            return None
        if stat.S_ISLNK(st.st_mode):
            self.omitted.append({"path": rel, "reason": "symlink", "target": printable(os.readlink(entry.path))[:512]})
        elif stat.S_ISDIR(st.st_mode):
            if depth + 1 <= self.effect.max_depth:
                return (disk, rel, depth + 1)
            self.omitted.append({"path": rel, "reason": "max_depth"})
        elif stat.S_ISREG(st.st_mode):
            self.file(entry.path, st.st_size, disk, rel)
        else:
            self.omitted.append({"path": rel, "reason": "special-file"})
        return None

    def file(self, full: str, size: int, disk: str, rel: str) -> None:
        self.files.append({"path": rel, "size": size, "kind": classify(rel)})
        if disk != rel:  # read by its real name: a locator, as for an archive member
            self.files[-1]["locator"] = {"disk": full, "offset": 0, "size": size, "sha256": None, "integrity": None}
        if self.files[-1]["kind"] == "asar":
            self.archives.append((disk, rel))


def _archive_error(path: str, exc: BaseException) -> ReaError:
    return ReaError(
        code="artifact_operation_failed",
        message=f"{path!r} is not a readable ASAR archive: {exc}.",
        details={"path": path, "format": "asar"},
        action="Check the file is an Electron ASAR archive (npx @electron/asar list FILE).",
    )


class _Archives:
    """Lists ASAR members (nested archives too) with a locator each: where its bytes are on disk."""

    def __init__(self, effect: ScanApplication, files: list[dict[str, Any]], omitted: list[dict[str, Any]]) -> None:
        self.effect, self.files, self.omitted = effect, files, omitted
        self.containers: list[dict[str, Any]] = []
        self.contradictions: list[dict[str, Any]] = []

    def expand(
        self, prefix: str, disk: str, start: int, length: int | None, unpacked_dir: str | None, depth: int
    ) -> None:
        base, header, size = asar.read_header(disk, start, length)
        self.containers.append({"path": prefix.rstrip("/") or ".", "status": "expanded", "depth": depth})
        for rel, node, reason in asar.walk(header, self.effect.max_depth):
            path = prefix + rel
            if len(self.files) + len(self.omitted) >= self.effect.max_entries:
                self.omitted.append({"path": path, "reason": "max_entries"})
                continue
            if node is None:
                self.omitted.append({"path": path, "reason": reason})
                continue
            declared_size = node.get("size")
            member_size = declared_size if isinstance(declared_size, int) else 0
            if node.get("unpacked"):
                companion = os.path.join(unpacked_dir, *rel.split("/")) if unpacked_dir else None
                locator = {
                    "disk": companion,
                    "offset": 0,
                    "size": member_size,
                    "unpacked": True,
                    "sha256": asar.declared(node),
                    "integrity": node.get("integrity"),
                }
            else:
                try:
                    offset = int(node.get("offset", ""))
                except ValueError:
                    self.omitted.append({"path": path, "reason": "invalid-entry"})
                    continue
                if base + offset + member_size > size:
                    self.omitted.append({"path": path, "reason": "invalid-entry", "detail": "beyond the archive end"})
                    continue
                locator = {
                    "disk": disk,
                    "offset": start + base + offset,
                    "size": member_size,
                    "sha256": asar.declared(node),
                    "integrity": node.get("integrity"),
                }
            kind = classify(path)
            self.files.append({"path": path, "size": member_size, "kind": kind, "locator": locator})
            if kind == "asar":
                self.nested(path, locator, depth)

    def nested(self, path: str, locator: dict[str, Any], depth: int) -> None:
        if depth + 1 > NESTED_ASAR_DEPTH:
            self.containers.append({"path": path, "status": "max_depth", "depth": depth + 1})
            return
        if locator["disk"] is None:
            self.containers.append({"path": path, "status": "unreadable", "depth": depth + 1})
            return
        contradiction = asar.verify(locator, asar.chunks_at(locator["disk"], locator["offset"], locator["size"]))
        if contradiction is not None:
            self.contradictions.append({"path": path, **contradiction, "nested_archive": True})
            self.containers.append({"path": path, "status": "contradicted", "depth": depth + 1})
            return
        companion = locator["disk"] + ".unpacked" if locator.get("unpacked") else None
        try:
            self.expand(
                path + "/",
                locator["disk"],
                locator["offset"],
                locator["size"],
                companion if companion and os.path.isdir(companion) else None,
                depth + 1,
            )
        except (asar.AsarError, OSError) as exc:
            self.containers.append({"path": path, "status": "unreadable", "depth": depth + 1, "detail": str(exc)[:256]})


NESTED_ASAR_DEPTH = 4


def _scan_asar(root: str, effect: ScanApplication) -> Result[Any, ReaError]:
    files: list[dict[str, Any]] = []
    omitted: list[dict[str, Any]] = []
    archives = _Archives(effect, files, omitted)
    unpacked = root + ".unpacked"
    try:
        archives.expand("", root, 0, None, unpacked if os.path.isdir(unpacked) else None, 0)
    except (asar.AsarError, OSError) as exc:
        return Failure(_archive_error(effect.path, exc))
    files.sort(key=lambda f: f["path"])
    omitted.sort(key=lambda o: o["path"])
    return Success(
        {
            "root": root,
            "kind": "asar",
            "files": files,
            "omitted": omitted,
            "unpacked_directory": os.path.isdir(unpacked),
            "containers": archives.containers,
            "integrity_contradictions": archives.contradictions,
            "text_kinds": list(TEXT_KINDS),
            "parser": _PARSERS,
        }
    )


def _version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:  # pragma: no cover - installed with REA
        return None


_PARSERS = {
    "tree_sitter": _version("tree-sitter"),
    "javascript": _version("tree-sitter-javascript"),
    "typescript": _version("tree-sitter-typescript"),
}


def _read(path: str, limit: int) -> bytes | str:
    try:
        with open(path, "rb") as handle:
            data = handle.read(limit + 1)
    except OSError as exc:
        return exc.strerror or str(exc)
    return data


def _one(
    root: str,
    entry: tuple[Any, ...],
    max_file_bytes: int,
    max_ast_nodes: int,
    max_sources: int,
    max_original_bytes: int,
) -> dict[str, Any]:
    """Read one file (or archive member) and extract its facts; never raises for bad content."""
    rel, kind = entry[0], entry[1]
    locator = entry[2] if len(entry) > 2 else None
    contradiction = None
    if locator is None:
        data = _read(os.path.join(root, rel), max_file_bytes)
    elif locator["disk"] is None:
        data = "an unpacked member of a nested archive is not read"
    else:
        data = asar.read_at(locator["disk"], locator["offset"], locator["size"], max_file_bytes)
        if isinstance(data, bytes) and len(data) <= max_file_bytes:
            contradiction = asar.verify(locator, (data,))
    if contradiction is not None:
        return {
            "path": rel,
            "parse": "quarantined",
            "bytes_read": len(data),
            "integrity_contradiction": {"path": rel, **contradiction},
        }
    if isinstance(data, str):
        return {"path": rel, "parse": "failed", "error": f"unreadable: {data}", "bytes_read": 0}
    if len(data) > max_file_bytes:
        return {"path": rel, "parse": "omitted", "omitted_reason": "max_text_file_bytes", "bytes_read": 0}
    facts = file_facts(data, kind, max_ast_nodes, max_sources, max_original_bytes)
    return {"path": rel, "bytes_read": len(data), **facts}


def _many(root: str, entries: tuple[tuple[Any, ...], ...], *limits: int) -> list[dict[str, Any]]:
    return [_one(root, entry, *limits) for entry in entries]


# tree-sitter holds the GIL, so a second core needs a second process (effects.javascript.parse_worker). The
# workflow asks for it on large trees (`parallel`); it then takes about half the bytes of every batch.
_HELPER: list[Any] = []


def _helper() -> Any | None:
    if not _HELPER:
        from effects.javascript.parse_worker import Helper

        _HELPER.append(Helper() if (os.cpu_count() or 1) >= 2 else None)
    return _HELPER[0]


def _split(effect: ExtractFiles) -> int:
    """How many of the batch's files stay here; the rest (about half the bytes) go to the helper process."""
    sizes = [
        (entry[2]["size"] if len(entry) > 2 else _size(os.path.join(effect.root, entry[0]))) for entry in effect.files
    ]
    total = sum(sizes)
    if not effect.parallel or len(sizes) < 2:
        return len(sizes)
    kept, running = 0, 0
    while kept < len(sizes) - 1 and running + sizes[kept] <= total / 2:
        running += sizes[kept]
        kept += 1
    return max(kept, 1)


def _submitted(helper: Any, *request: Any) -> bool:
    """Whether the worker took the request (it could not be started, or died): the caller parses alone if not."""
    try:
        helper.submit(*request)
    except (OSError, pickle.PicklingError):
        return False
    return True


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


async def extract(effect: ExtractFiles, progress: Progress) -> Result[Any, ReaError]:
    limits = (
        effect.max_file_bytes,
        effect.max_ast_nodes,
        effect.max_source_map_sources,
        effect.max_original_source_bytes,
    )
    keep = _split(effect)
    helper = _helper() if keep < len(effect.files) else None
    if helper is None:
        keep = len(effect.files)
    out: list[dict[str, Any]] = []
    rest: list[dict[str, Any]] = []
    try:
        if helper is not None and not _submitted(helper, effect.root, effect.files[keep:], *limits):
            helper, keep = None, len(effect.files)
        for index, entry in enumerate(effect.files[:keep]):
            out.append(_one(effect.root, entry, *limits))
            if index % 16 == 15:
                await progress.report("parsing", f"{effect.done + index + 1}/{effect.total} files parsed ({entry[0]})")
            await anyio.lowlevel.checkpoint()
        if helper is not None:
            try:
                rest = await anyio.to_thread.run_sync(helper.result, abandon_on_cancel=True)
                if effect.done + len(effect.files) >= effect.total:
                    helper.kill()  # the analysis' last batch: no idle process (and its memory) outlives it
            except (OSError, EOFError, pickle.UnpicklingError):  # the worker died: its half is parsed here
                for entry in effect.files[keep:]:
                    rest.append(_one(effect.root, entry, *limits))
                    await anyio.lowlevel.checkpoint()
    except BaseException:
        if helper is not None:
            helper.kill()  # cancelled or failed: its half is abandoned with it
        raise
    return Success(out + rest)


HANDLERS = {ScanApplication: scan, ExtractFiles: extract}
