"""Handlers of the layout effects: hash the file, read it with lief off the event loop, map failures to errors."""

from __future__ import annotations

import hashlib
import mmap
import os
import stat
import struct
from typing import Any

import anyio.to_thread
import lief
from returns.result import Failure, Result, Success

from effects.layout.failure import LayoutFailure
from effects.layout.reader import read_layout
from effects.layout.swift import HANDLERS as SWIFT_HANDLERS
from effects.progress import Progress
from rea.errors import ReaError, invalid_request
from effects.layout.macho import fat_slices
from effects.layout.macho import select_slice
from effects.layout.macho_inspect import macho_inspection
from effects.layout.codesign_read import read_signature
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


MACHO_THIN = {b"\xfe\xed\xfa\xce": ">", b"\xfe\xed\xfa\xcf": ">", b"\xce\xfa\xed\xfe": "<", b"\xcf\xfa\xed\xfe": "<"}


def _slices(effect: ReadArchitectures) -> Result[dict[str, Any], ReaError]:
    try:
        artifact = file_identity(effect.path)
        if artifact["bytes"] < 12:
            raise LayoutFailure("unsupported", f"the file has {artifact['bytes']} bytes, too few for a Mach-O header")
        with open(effect.path, "rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
            with memoryview(mapped) as data:
                head = bytes(data[:12])
                if head[:4] in MACHO_THIN:
                    cpu, sub = struct.unpack_from(MACHO_THIN[head[:4]] + "ii", head, 4)
                    thin = {"cputype": cpu, "cpusubtype": sub, "offset": 0, "size": artifact["bytes"], "align": None}
                    found = {"artifact": artifact, "slices": [{**thin, "universal": False}], "universal": False}
                    return Success({**found, "reader_version": lief.__version__})
                slices = fat_slices(data)
        if slices is None:
            raise LayoutFailure("unsupported", "the file is not a Mach-O image or universal binary")
    except LayoutFailure as failure:
        return Failure(failure_error(effect.path, failure, "a Mach-O file, thin or universal"))
    except (OSError, ValueError) as exc:
        return Failure(unavailable(effect.path, getattr(exc, "strerror", None) or str(exc)))
    rows = [{**s, "universal": True} for s in slices]
    return Success({"artifact": artifact, "slices": rows, "universal": True, "reader_version": lief.__version__})


async def read_architectures(effect: ReadArchitectures, progress: Progress) -> Result[Any, ReaError]:
    return await anyio.to_thread.run_sync(_slices, effect)


def _macho(effect: ReadMacho) -> Result[dict[str, Any], ReaError]:
    try:
        artifact = file_identity(effect.path)
        if artifact["bytes"] < 28:
            raise LayoutFailure("unsupported", f"the file has {artifact['bytes']} bytes, too few for a Mach-O header")
        with open(effect.path, "rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
            with memoryview(mapped) as data:
                if bytes(data[:4]) not in (*MACHO_THIN, b"\xca\xfe\xba\xbe", b"\xca\xfe\xba\xbf"):
                    raise LayoutFailure("unsupported", "the file is not a Mach-O image or universal binary")
                binary, chosen = select_slice(effect.path, data, effect.architecture)
                facts = macho_inspection(binary, chosen, data, effect.max_symbols)
    except LayoutFailure as failure:
        return Failure(failure_error(effect.path, failure, "a Mach-O file, thin or universal"))
    except (struct.error, IndexError) as exc:
        return Failure(failure_error(effect.path, LayoutFailure("malformed", f"a header table is truncated ({exc})")))
    except (OSError, ValueError) as exc:
        return Failure(unavailable(effect.path, getattr(exc, "strerror", None) or str(exc)))
    return Success({"artifact": artifact, "facts": facts, "reader_version": lief.__version__})


async def read_macho(effect: ReadMacho, progress: Progress) -> Result[Any, ReaError]:
    await progress.report("reading Mach-O", effect.path)
    return await anyio.to_thread.run_sync(_macho, effect)


def _signature(effect: ReadSignature) -> Result[dict[str, Any], ReaError]:
    try:
        artifact = file_identity(effect.path)
        if artifact["bytes"] < 28:
            raise LayoutFailure("unsupported", f"the file has {artifact['bytes']} bytes, too few for a Mach-O header")
        with open(effect.path, "rb") as handle:
            if handle.read(4) not in (*MACHO_THIN, b"\xca\xfe\xba\xbe", b"\xca\xfe\xba\xbf"):
                raise LayoutFailure("unsupported", "the file is not a Mach-O image or universal binary")
        return read_signature(effect, artifact)
    except LayoutFailure as failure:
        return Failure(failure_error(effect.path, failure, "a Mach-O file, thin or universal"))
    except (struct.error, IndexError) as exc:
        return Failure(failure_error(effect.path, LayoutFailure("malformed", f"a header table is truncated ({exc})")))
    except (OSError, ValueError) as exc:
        return Failure(unavailable(effect.path, getattr(exc, "strerror", None) or str(exc)))


async def read_signature_effect(effect: ReadSignature, progress: Progress) -> Result[Any, ReaError]:
    await progress.report("reading code signature", effect.path)
    return await anyio.to_thread.run_sync(_signature, effect)


HANDLERS = {
    ReadSignature: read_signature_effect,
    ReadBinaryLayout: read_binary_layout,
    ReadArchitectures: read_architectures,
    ReadMacho: read_macho,
    **SWIFT_HANDLERS,
}
