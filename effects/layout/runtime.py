"""Handlers of the layout effects: hash the file, read it with lief off the event loop, map failures to errors."""

from __future__ import annotations

import hashlib
import mmap
import os
import stat
import struct
from collections.abc import Callable
from typing import Any

import anyio.to_thread
import lief
from returns.result import Failure, Result, Success

from effects.fs import stamp_of
from effects.layout.codesign_read import read_signature
from effects.layout.failure import LayoutFailure
from effects.layout.macho import fat_slices, select_slice
from effects.layout.macho_inspect import macho_inspection
from effects.layout.reader import read_layout
from effects.layout.swift import HANDLERS as SWIFT_HANDLERS
from effects.progress import Progress
from rea.errors import ReaError, invalid_request
from rea.layout.model import ReadArchitectures, ReadBinaryLayout, ReadMacho, ReadSignature

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


def failure_error(path: str, failure: LayoutFailure, accepted: str = ACCEPTED) -> ReaError:
    if failure.reason in ("needs-slice", "no-slice"):
        return invalid_request(
            f"{path}: {failure.message}.",
            field="architecture",
            accepted="one of: " + ", ".join(failure.details.get("available", [])) if failure.details else ACCEPTED,
            reason=failure.reason,
            **failure.details,
        )
    return invalid_request(
        f"{path} cannot be read: {failure.message}.",
        field="path",
        accepted=accepted,
        reason=failure.reason,
    )


MACHO_THIN = {b"\xfe\xed\xfa\xce": ">", b"\xfe\xed\xfa\xcf": ">", b"\xce\xfa\xed\xfe": "<", b"\xcf\xfa\xed\xfe": "<"}
MACHO_MAGICS = (*MACHO_THIN, b"\xca\xfe\xba\xbe", b"\xca\xfe\xba\xbf")
MACHO_ACCEPTED = "a Mach-O file, thin or universal"
Reader = Callable[[str, dict[str, Any]], dict[str, Any]]


def known_identity(path: str, sha256: str | None, stamp: str | None) -> dict[str, Any] | None:
    """The open target's identity without reading its bytes again, when its stamp has not moved."""
    if sha256 is None or stamp is None or stamp_of(path) != stamp:
        return None
    return {"path": path, "sha256": sha256, "bytes": os.stat(path).st_size}


def guarded(
    path: str, read: Reader, accepted: str = ACCEPTED, known: tuple[str | None, str | None] = (None, None)
) -> Result[dict[str, Any], ReaError]:
    """Identity of the file, then `read(path, artifact)`; every failure of either becomes a canonical error."""
    try:
        artifact = known_identity(path, *known) or file_identity(path)
        return Success({"artifact": artifact, **read(path, artifact), "reader_version": lief.__version__})  # type: ignore[attr-defined]  # lief's stubs omit __version__
    except LayoutFailure as failure:
        return Failure(failure_error(path, failure, accepted))
    except (struct.error, IndexError) as exc:  # a table that lies about its own extent
        return Failure(
            failure_error(path, LayoutFailure("malformed", f"a header table is truncated ({exc})"), accepted)
        )
    except (OSError, ValueError) as exc:
        return Failure(unavailable(path, getattr(exc, "strerror", None) or str(exc)))


def _mapped_macho(path: str, artifact: dict[str, Any], minimum: int) -> tuple[Any, Any, Any]:
    """An open, mapped Mach-O file (checked magic and size): (handle, map, view) for a with-block."""
    if artifact["bytes"] < minimum:
        raise LayoutFailure("unsupported", f"the file has {artifact['bytes']} bytes, too few for a Mach-O header")
    handle = open(path, "rb")
    mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    view = memoryview(mapped)
    if bytes(view[:4]) not in MACHO_MAGICS:
        view.release()
        mapped.close()
        handle.close()
        raise LayoutFailure("unsupported", "the file is not a Mach-O image or universal binary")
    return handle, mapped, view


def _layout(effect: ReadBinaryLayout) -> Reader:
    caps = {"max_symbols": effect.max_symbols, "max_relocations": effect.max_relocations}
    return lambda path, artifact: {"facts": read_layout(path, effect.architecture, caps)}


def _slices(path: str, artifact: dict[str, Any]) -> dict[str, Any]:
    handle, mapped, data = _mapped_macho(path, artifact, 12)
    with handle, mapped, data:
        head = bytes(data[:12])
        if head[:4] in MACHO_THIN:
            cpu, sub = struct.unpack_from(MACHO_THIN[head[:4]] + "ii", head, 4)
            thin = {"cputype": cpu, "cpusubtype": sub, "offset": 0, "size": artifact["bytes"], "align": None}
            return {"slices": [{**thin, "universal": False}], "universal": False}
        slices = fat_slices(data) or []
    return {"slices": [{**s, "universal": True} for s in slices], "universal": True}


def _macho(effect: ReadMacho) -> Reader:
    def read(path: str, artifact: dict[str, Any]) -> dict[str, Any]:
        handle, mapped, data = _mapped_macho(path, artifact, 28)
        with handle, mapped, data:
            binary, chosen = select_slice(path, data, effect.architecture)
            return {"facts": macho_inspection(binary, chosen, data, effect.max_symbols)}

    return read


def _signature(effect: ReadSignature) -> Reader:
    def read(path: str, artifact: dict[str, Any]) -> dict[str, Any]:
        handle, mapped, data = _mapped_macho(path, artifact, 28)
        with handle, mapped, data:
            pass  # magic and size checked; the signature reader maps the file itself
        return read_signature(effect.path, effect.architecture)

    return read


def _threaded(reader: Callable[[Any], Reader], accepted: str = ACCEPTED) -> Callable[..., Any]:
    """A reader run off the event loop (the program has already reported what it is reading)."""

    async def handle(effect: Any, progress: Progress) -> Result[Any, ReaError]:
        known = (getattr(effect, "known_sha256", None), getattr(effect, "known_stamp", None))
        return await anyio.to_thread.run_sync(guarded, effect.path, reader(effect), accepted, known)

    return handle


HANDLERS: dict[type, Callable[..., Any]] = {
    ReadBinaryLayout: _threaded(_layout),
    ReadArchitectures: _threaded(lambda effect: _slices, MACHO_ACCEPTED),
    ReadMacho: _threaded(_macho, MACHO_ACCEPTED),
    ReadSignature: _threaded(_signature, MACHO_ACCEPTED),
    **SWIFT_HANDLERS,
}
