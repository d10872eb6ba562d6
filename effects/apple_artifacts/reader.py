"""Handlers of the Apple artifacts family: find the files, read each under a byte limit, parse in process.

Nothing here follows a symbolic link out of the bundle or opens anything but a regular
file; a walk stops at MAX_ENTRIES entries and says so. plistlib refuses XML entity
declarations, so an XML plist cannot expand itself.
"""

from __future__ import annotations

import hashlib
import os
import plistlib
import stat
from typing import Any
from xml.parsers.expat import ExpatError

import anyio.to_thread
from returns.result import Failure, Result, Success

from effects.layout.runtime import unavailable
from effects.progress import Progress
from rea.apple_artifacts import car, keyed, nib
from rea.apple_artifacts.effects import (
    MAX_ENTRIES,
    MAX_FILE_BYTES,
    ReadAssetCatalogs,
    ReadInterfaceBuilder,
    ReadKeyedArchive,
)
from rea.apple_artifacts.interface_graph import DecodedDocument, DocumentKind
from rea.errors import ReaError, invalid_request

NIB_FILES = ("keyedobjects.nib", "runtime.nib", "objects.nib")


class _Refused(Exception):
    def __init__(self, error: ReaError) -> None:
        super().__init__(error.message)
        self.error = error


def _read(path: str) -> tuple[bytes, str]:
    """A regular file's bytes and SHA-256, refused from its size before reading when past the limit."""
    info = os.stat(path, follow_symlinks=False)
    if not stat.S_ISREG(info.st_mode):
        raise _Refused(invalid_request(f"{path} is not a regular file", field="path", reason="not-a-file"))
    if info.st_size > MAX_FILE_BYTES:
        raise _Refused(invalid_request(f"{path} has {info.st_size} bytes, more than {MAX_FILE_BYTES}",
                                       field="path", reason="too-large"))  # fmt: skip
    with open(path, "rb") as handle:
        data = handle.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise _Refused(invalid_request(f"{path} grew past {MAX_FILE_BYTES} bytes while read", field="path"))
    return data, hashlib.sha256(data).hexdigest()


def _plist(data: bytes) -> Any:
    try:
        return plistlib.loads(data)
    except (plistlib.InvalidFileException, ExpatError, ValueError, TypeError, LookupError, OverflowError,
            RecursionError) as exc:  # fmt: skip
        raise _Refused(invalid_request(f"it is not a readable property list ({type(exc).__name__}: {exc})",
                                       field="path", accepted=keyed.ACCEPTED, reason="malformed")) from exc  # fmt: skip


def _keyed(effect: ReadKeyedArchive) -> dict[str, Any]:
    data, sha256 = _read(effect.path)
    if data.startswith(nib.MAGIC):
        raise _Refused(invalid_request(
            f"{effect.relative} is a compiled NIBArchive, not a Foundation keyed archive",
            field="path", reason="nib-archive",
            accepted="decode_interface_builder reads compiled NIBArchive files"))  # fmt: skip
    binary = data.startswith(b"bplist00")
    try:
        archive, bad_reals = keyed.plist_json(_plist(data), binary, len(data) + 16)
    except keyed.TooDeep as exc:
        raise _Refused(invalid_request(str(exc), field="path", reason="too-deep")) from exc
    return {"archive": archive, "sha256": sha256, "format": "binary-plist" if binary else "xml-plist",
            "bad_reals": bad_reals}  # fmt: skip


def _walk(root: str, wanted: Any) -> tuple[list[str], bool]:
    """Relative paths under root that `wanted` accepts, sorted; True when the walk was cut at MAX_ENTRIES."""
    found: list[str] = []
    seen = 0
    for top, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted(dirs + files):
            seen += 1
            if seen > MAX_ENTRIES:
                return sorted(found), True
            full = os.path.join(top, name)
            kind = wanted(full, name)
            if kind:
                found.append(os.path.relpath(full, root))
        dirs[:] = [d for d in dirs if not d.endswith(".nib") and not os.path.islink(os.path.join(top, d))]
    return sorted(found), False


def _ib_kind(full: str, name: str) -> bool:
    parent = os.path.basename(os.path.dirname(full))
    if os.path.islink(full):
        return False
    if name.endswith(".nib"):
        return os.path.isfile(full) or any(os.path.isfile(os.path.join(full, f)) for f in NIB_FILES)
    return parent.endswith(".storyboardc") and os.path.isfile(full) and name.endswith(".nib")


def _nib_file(full: str) -> str:
    if os.path.isdir(full):
        return next(os.path.join(full, f) for f in NIB_FILES if os.path.isfile(os.path.join(full, f)))
    return full


def _decode(full: str, relative: str) -> DecodedDocument:
    kind: DocumentKind = "storyboard_scene" if ".storyboardc/" in f"/{relative}" else "nib"
    data, sha256 = _read(_nib_file(full))
    if data.startswith(nib.MAGIC):
        parsed = nib.parse_nib_archive(data)
        table = parsed.value_or(None)
        problem = None if table is not None else parsed.failure().message
        return DecodedDocument(relative_path=relative, sha256=sha256, kind=kind, table=table, problem=problem)
    try:
        archive, _ = keyed.plist_json(_plist(data), data.startswith(b"bplist00"), len(data) + 16)
    except (_Refused, keyed.TooDeep) as exc:
        return DecodedDocument(relative_path=relative, sha256=sha256, kind=kind, table=None, problem=str(exc))
    if not isinstance(archive, dict) or archive.get("$archiver") != "NSKeyedArchiver":
        return DecodedDocument(relative_path=relative, sha256=sha256, kind=kind, table=None,
                               problem="neither a NIBArchive nor an NSKeyedArchiver plist")  # fmt: skip
    return DecodedDocument(relative_path=relative, sha256=sha256, kind=kind, table=nib.keyed_table(archive))


def _interface(effect: ReadInterfaceBuilder) -> dict[str, Any]:
    root = effect.root
    if os.path.isfile(root) or (root.endswith(".nib") and os.path.isdir(root)):
        paths, cut = [""], False
    else:
        paths, cut = _walk(root, _ib_kind)
    documents = []
    for relative in paths[: effect.max_documents]:
        full = os.path.join(root, relative) if relative else root
        documents.append(_decode(full, relative or os.path.basename(root)))
    return {"documents": documents, "found": len(paths), "walk_cut": cut}


def _catalogs(effect: ReadAssetCatalogs) -> dict[str, Any]:
    root = effect.root
    if os.path.isfile(root):
        paths, cut = [""], False
    else:
        paths, cut = _walk(root, lambda full, name: name.endswith(".car") and os.path.isfile(full))
    out = []
    for relative in paths:
        data, sha256 = _read(os.path.join(root, relative) if relative else root)
        parsed = car.parse_car(data)
        catalog = parsed.value_or(None)
        problem = None if catalog is not None else parsed.failure().message
        out.append({"path": relative or os.path.basename(root), "sha256": sha256, "catalog": catalog,
                    "problem": problem})  # fmt: skip
    return {"catalogs": out, "walk_cut": cut}


async def _run(fn: Any, effect: Any, where: str, progress: Progress, phase: str) -> Result[Any, ReaError]:
    await progress.report(phase, where)
    try:
        return Success(await anyio.to_thread.run_sync(fn, effect))
    except _Refused as refused:
        return Failure(refused.error)
    except OSError as exc:
        return Failure(unavailable(where, exc.strerror or str(exc)))


async def read_keyed_archive(effect: ReadKeyedArchive, progress: Progress) -> Result[Any, ReaError]:
    return await _run(_keyed, effect, effect.path, progress, "reading keyed archive")


async def read_interface_builder(effect: ReadInterfaceBuilder, progress: Progress) -> Result[Any, ReaError]:
    return await _run(_interface, effect, effect.root, progress, "decoding compiled nibs")


async def read_asset_catalogs(effect: ReadAssetCatalogs, progress: Progress) -> Result[Any, ReaError]:
    return await _run(_catalogs, effect, effect.root, progress, "reading asset catalogs")


HANDLERS = {
    ReadKeyedArchive: read_keyed_archive,
    ReadInterfaceBuilder: read_interface_builder,
    ReadAssetCatalogs: read_asset_catalogs,
}
