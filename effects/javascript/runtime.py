"""Handlers of the JavaScript effects: walk the tree, read files, extract facts."""

from __future__ import annotations

import os
import stat
from importlib import metadata
from typing import Any

import anyio
import anyio.lowlevel
from returns.result import Failure, Result, Success

from effects.javascript import asar
from effects.javascript.extract import TEXT_KINDS, classify, file_facts
from effects.progress import Progress
from rea.errors import ReaError, invalid_request
from rea.javascript.effects import ExtractFiles, ScanApplication


def _unavailable(path: str, why: str) -> ReaError:
    return ReaError(code="target_unavailable", message=f"Cannot read the application at {path!r}: {why}.",
                    details={"path": path, "reason": why},
                    action="Check the path exists and is a readable directory (or .asar), then call again.")


async def scan(effect: ScanApplication, progress: Progress) -> Result[Any, ReaError]:
    root = os.path.abspath(effect.path)
    try:
        info = os.stat(root)
    except OSError as exc:
        return Failure(_unavailable(effect.path, exc.strerror or str(exc)))
    if stat.S_ISREG(info.st_mode):
        if effect.format == "directory":
            return Failure(invalid_request(f"{effect.path!r} is a file but format is directory", field="format",
                                           accepted="asar or auto for an .asar file"))
        if effect.format == "asar" or root.lower().endswith(".asar"):
            return _scan_asar(root, effect)
        return Failure(invalid_request(f"{effect.path!r} is a file, not an application directory or .asar",
                                       field="input_path", accepted="a directory (an unpacked app) or an .asar file"))
    if not stat.S_ISDIR(info.st_mode):
        return Failure(_unavailable(effect.path, "not a directory or regular file"))
    if effect.format == "asar":
        return Failure(invalid_request(f"{effect.path!r} is a directory but format is asar", field="format",
                                       accepted="directory or auto for a directory"))
    files: list[dict[str, Any]] = []
    omitted: list[dict[str, Any]] = []
    pending = [("", 0)]
    seen = 0
    while pending:
        rel_dir, depth = pending.pop()
        full_dir = os.path.join(root, rel_dir) if rel_dir else root
        try:
            with os.scandir(full_dir) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            omitted.append({"path": rel_dir or ".", "reason": "unreadable", "detail": exc.strerror or str(exc)})
            continue
        subdirs = []
        for entry in entries:
            rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
            seen += 1
            if seen > effect.max_entries:
                omitted.append({"path": rel, "reason": "max_entries"})
                continue
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError as exc:
                omitted.append({"path": rel, "reason": "unreadable", "detail": exc.strerror or str(exc)})
                continue
            if stat.S_ISLNK(st.st_mode):
                omitted.append({"path": rel, "reason": "symlink", "target": os.readlink(entry.path)[:512]})
            elif stat.S_ISDIR(st.st_mode):
                if depth + 1 > effect.max_depth:
                    omitted.append({"path": rel, "reason": "max_depth"})
                else:
                    subdirs.append((rel, depth + 1))
            elif stat.S_ISREG(st.st_mode):
                files.append({"path": rel, "size": st.st_size, "kind": classify(rel)})
            else:
                omitted.append({"path": rel, "reason": "special-file"})
        pending.extend(reversed(subdirs))
        if seen % 512 < len(entries):
            await progress.report("scanning", f"{seen} entries listed")
        await anyio.lowlevel.checkpoint()
    files.sort(key=lambda f: f["path"])
    omitted.sort(key=lambda o: o["path"])
    return Success({"root": root, "kind": "directory", "files": files, "omitted": omitted,
                    "text_kinds": list(TEXT_KINDS), "parser": _PARSERS})


def _scan_asar(root: str, effect: ScanApplication) -> Result[Any, ReaError]:
    try:
        _base, header, _size = asar.read_header(root)
    except (asar.AsarError, OSError) as exc:
        return Failure(ReaError(code="artifact_operation_failed",
                                message=f"{effect.path!r} is not a readable ASAR archive: {exc}.",
                                details={"path": effect.path, "format": "asar"},
                                action="Check the file is an Electron ASAR archive (npx @electron/asar list FILE)."))
    files, omitted = [], []
    for count, (rel, node, reason) in enumerate(asar.walk(header, effect.max_depth)):
        if count >= effect.max_entries:
            omitted.append({"path": rel, "reason": "max_entries"})
        elif node is None:
            omitted.append({"path": rel, "reason": reason})
        else:
            size = node.get("size") if isinstance(node.get("size"), int) else 0
            files.append({"path": rel, "size": size, "kind": classify(rel),
                          **({"unpacked": True} if node.get("unpacked") else {})})
    files.sort(key=lambda f: f["path"])
    omitted.sort(key=lambda o: o["path"])
    return Success({"root": root, "kind": "asar", "files": files, "omitted": omitted,
                    "unpacked_directory": os.path.isdir(root + ".unpacked"), "text_kinds": list(TEXT_KINDS),
                    "parser": _PARSERS})


def _version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:  # pragma: no cover - installed with REA
        return None


_PARSERS = {"tree_sitter": _version("tree-sitter"), "javascript": _version("tree-sitter-javascript"),
            "typescript": _version("tree-sitter-typescript")}


def _read(path: str, limit: int) -> bytes | str:
    try:
        with open(path, "rb") as handle:
            data = handle.read(limit + 1)
    except OSError as exc:
        return exc.strerror or str(exc)
    return data


async def extract(effect: ExtractFiles, progress: Progress) -> Result[Any, ReaError]:
    out: list[dict[str, Any]] = []
    archive = None
    if os.path.isfile(effect.root):
        try:
            archive = asar.read_header(effect.root)
        except (asar.AsarError, OSError) as exc:
            return Failure(ReaError(code="artifact_operation_failed",
                                    message=f"The ASAR archive {effect.root!r} could not be reread: {exc}.",
                                    details={"path": effect.root}))
    for index, (rel, kind) in enumerate(effect.files):
        contradiction = None
        if archive is None:
            data = _read(os.path.join(effect.root, rel), effect.max_file_bytes)
        else:
            base, header, size = archive
            node = asar.member(header, rel) or {}
            data = asar.read_member(effect.root, base, size, node, rel, effect.max_file_bytes)
            if isinstance(data, bytes) and len(data) <= effect.max_file_bytes:
                contradiction = asar.check_integrity(node, data)
        if contradiction is not None:
            out.append({"path": rel, "parse": "quarantined", "bytes_read": len(data),
                        "integrity_contradiction": {"path": rel, **contradiction}})
        elif isinstance(data, str):
            out.append({"path": rel, "parse": "failed", "error": f"unreadable: {data}", "bytes_read": 0})
        elif len(data) > effect.max_file_bytes:
            out.append({"path": rel, "parse": "omitted", "omitted_reason": "max_text_file_bytes", "bytes_read": 0})
        else:
            facts = file_facts(data, kind, effect.max_ast_nodes, effect.max_source_map_sources)
            out.append({"path": rel, "bytes_read": len(data), **facts})
        if index % 16 == 15:
            await progress.report("parsing", f"{effect.done + index + 1}/{effect.total} files parsed ({rel})")
        await anyio.lowlevel.checkpoint()
    return Success(out)


HANDLERS = {ScanApplication: scan, ExtractFiles: extract}
