"""The annotation store on disk: one JSON file per target digest and analysis profile in the
analysis cache directory, changed under an exclusive lock (read, apply the pure edit, write
atomically), so concurrent writers never lose an update and a crash leaves the old file."""

from __future__ import annotations

import fcntl
import os
import tempfile
from pathlib import Path
from typing import Any

import anyio
import orjson
from returns.result import Failure, Result, Success

from effects.native.cache import cache_root
from effects.progress import Progress
from rea.errors import ReaError
from rea.native import annotations as notes
from rea.native.effects import EditAnnotations, ReadAnnotations


def _root(progress: Progress) -> Path:
    """The connection's analysis cache (its engines know it), else the environment's."""
    return progress.native.cache_root if progress.native is not None else cache_root()


def store_path(root: Path, sha256: str, profile_digest: str) -> Path:
    return root / "annotations" / f"{sha256}.{profile_digest[:16]}.json"


def _failed(path: Path, exc: OSError) -> ReaError:
    return ReaError(
        code="artifact_operation_failed",
        message=f"The annotation store {path} cannot be used: {exc.strerror or exc}.",
        details={"reason": "annotation_store_io", "path": str(path)},
        action="Check that the analysis cache directory (REA_CACHE_DIR) is writable, then retry.",
    )


def _read(path: Path, sha256: str, digest: str) -> Result[notes.Annotations, ReaError]:
    try:
        if path.stat().st_size > notes.MAX_STORE_BYTES:
            return Failure(notes.corrupted(str(path), f"it is larger than {notes.MAX_STORE_BYTES} bytes"))
        raw = path.read_bytes()
    except FileNotFoundError:
        return Success(notes.EMPTY)
    try:
        document = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        return Failure(notes.corrupted(str(path), f"not JSON: {exc}"))
    return notes.from_json(document, str(path), sha256, digest)


def _write(path: Path, document: dict[str, Any]) -> None:
    fd, staging = tempfile.mkstemp(prefix=".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(orjson.dumps(document, option=orjson.OPT_INDENT_2))
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(staging, path)
    except BaseException:
        Path(staging).unlink(missing_ok=True)
        raise


def _locked_edit(path: Path, effect: EditAnnotations) -> Result[notes.Annotations, ReaError]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_suffix(".lock"), "a+b") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)  # released when the file closes
        return (
            _read(path, effect.sha256, effect.profile_digest)
            .bind(lambda state: _edited(state, effect))
            .map(lambda edited: _written(path, edited, effect))
        )


def _edited(state: notes.Annotations, effect: EditAnnotations) -> Result[notes.Annotations, ReaError]:
    """The edit applied, or an imported store merged in (a restore from an Evidence bundle)."""
    if isinstance(effect.edit, notes.Annotations):
        return Success(notes.merge(state, effect.edit))
    return notes.apply(state, effect.edit)


def _written(path: Path, edited: notes.Annotations, effect: EditAnnotations) -> notes.Annotations:
    _write(path, notes.to_json(edited, effect.sha256, effect.profile_digest))
    return edited


async def _read_effect(effect: ReadAnnotations, progress: Progress) -> Result[Any, ReaError]:
    path = store_path(_root(progress), effect.sha256, effect.profile_digest)
    try:
        return await anyio.to_thread.run_sync(_read, path, effect.sha256, effect.profile_digest)
    except OSError as exc:
        return Failure(_failed(path, exc))


async def _edit_effect(effect: EditAnnotations, progress: Progress) -> Result[Any, ReaError]:
    path = store_path(_root(progress), effect.sha256, effect.profile_digest)
    try:
        return await anyio.to_thread.run_sync(_locked_edit, path, effect)
    except OSError as exc:
        return Failure(_failed(path, exc))


HANDLERS = {ReadAnnotations: _read_effect, EditAnnotations: _edit_effect}
