"""The target file's bytes for the DOS loader (rea/native/load_image.py decides what they mean)."""

from __future__ import annotations

import anyio
from returns.result import Failure, Result, Success

from effects.progress import Progress
from rea.errors import ReaError
from rea.native.effects import ReadDosFile


def _read(effect: ReadDosFile) -> Result[bytes, ReaError]:
    try:
        with open(effect.path, "rb") as handle:
            data = handle.read(effect.max_bytes + 1)
    except OSError as exc:
        return Failure(
            ReaError(
                code="target_unavailable",
                message=f"The target file cannot be read: {exc.strerror or exc}",
                details={"reason": "unreadable", "path": effect.path},
                action="Check that the file still exists and is readable, then call open_binary again.",
            )
        )
    if len(data) > effect.max_bytes:
        return Failure(
            ReaError(
                code="resource_constraint",
                message=f"{effect.path} is larger than the {effect.max_bytes} bytes the DOS loader reads; a DOS image "
                "is at most 32 MiB, so the rest would be overlay data.",
                details={"resource": "file_size", "limit": effect.max_bytes, "path": effect.path},
                action="Extract the DOS program itself (its header's declared image) and open that file.",
            )
        )
    return Success(data)


async def _read_dos_file(effect: ReadDosFile, progress: Progress) -> Result[bytes, ReaError]:
    return await anyio.to_thread.run_sync(_read, effect)


HANDLERS = {ReadDosFile: _read_dos_file}
