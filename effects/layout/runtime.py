"""Handlers of the layout effects: hash the file, read it with lief off the event loop, map failures to errors."""

from __future__ import annotations

import hashlib
import os
import stat
import struct
from typing import Any

import anyio.to_thread
import lief
from returns.result import Failure, Result, Success

from effects.layout.failure import LayoutFailure
from effects.layout.reader import read_layout
from effects.progress import Progress
from rea.errors import ReaError, invalid_request
from rea.layout.model import ReadBinaryLayout

READ_BLOCK = 1 << 20
ACCEPTED = "an ELF, PE/PE32+ or Mach-O (thin or universal) file"


def file_identity(path: str) -> dict[str, Any]:
    """{path, sha256, bytes} of a regular file, streamed; raises OSError or ValueError for anything else."""
    info = os.stat(path)
    if not stat.S_ISREG(info.st_mode):
        raise ValueError("it is not a regular file")
    digest = hashlib.sha256()
    size = 0
    with open(path, "rb") as handle:
        while block := handle.read(READ_BLOCK):
            digest.update(block)
            size += len(block)
    return {"path": path, "sha256": digest.hexdigest(), "bytes": size}


def unavailable(path: str, why: str) -> ReaError:
    return ReaError(
        code="target_unavailable",
        message=f"Cannot read {path!r}: {why}.",
        details={"path": path, "reason": why},
        action="Check the path names an existing, readable regular file, then call again.",
    )


def failure_error(path: str, failure: LayoutFailure) -> ReaError:
    if failure.reason in ("needs-slice", "no-slice"):
        return invalid_request(
            f"{path}: {failure.message}.",
            field="architecture",
            accepted="one of: " + ", ".join(failure.details.get("available", [])) if failure.details else ACCEPTED,
            reason=failure.reason,
            **failure.details,
        )
    return invalid_request(
        f"{path} cannot be read as a binary layout: {failure.message}.",
        field="path",
        accepted=ACCEPTED,
        reason=failure.reason,
    )


def _read(effect: ReadBinaryLayout) -> Result[dict[str, Any], ReaError]:
    try:
        artifact = file_identity(effect.path)
        caps = {"max_symbols": effect.max_symbols, "max_relocations": effect.max_relocations}
        facts = read_layout(effect.path, effect.architecture, caps)
    except LayoutFailure as failure:
        return Failure(failure_error(effect.path, failure))
    except (OSError, ValueError) as exc:
        return Failure(unavailable(effect.path, getattr(exc, "strerror", None) or str(exc)))
    except (struct.error, IndexError) as exc:  # a table that lies about its own extent
        return Failure(failure_error(effect.path, LayoutFailure("malformed", f"a header table is truncated ({exc})")))
    return Success({"artifact": artifact, "facts": facts, "reader_version": lief.__version__})


async def read_binary_layout(effect: ReadBinaryLayout, progress: Progress) -> Result[Any, ReaError]:
    await progress.report("reading binary layout", effect.path)
    return await anyio.to_thread.run_sync(_read, effect)


HANDLERS = {ReadBinaryLayout: read_binary_layout}
