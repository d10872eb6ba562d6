"""Handler of ReadPlist: decode an XML, binary or JSON property list into a bounded JSON tree.

plistlib refuses XML entity declarations (no entity expansion). A binary plist may point
many times at one object, so an innocent-looking file can unfold into an exponential tree:
the conversion counts every node it emits and stops at max_nodes and max_depth, reporting
where it stopped.
"""

from __future__ import annotations

import base64
import datetime
import hashlib
import json
import os
import plistlib
import stat
from typing import Any, Literal
from xml.parsers.expat import ExpatError

import anyio
from returns.result import Failure, Result, Success

from effects.layout.runtime import unavailable
from effects.progress import Progress
from rea.errors import ReaError, invalid_request
from rea.layout.model import ReadPlist
from rea.layout.plist import PlistRead
from rea.layout.records import LayoutArtifact

MAX_PLIST_BYTES = 16 << 20
SAFE = 2**53 - 1
ACCEPTED = "an XML (<plist>), binary (bplist00) or JSON property list"


class _Budget:
    def __init__(self, max_nodes: int, max_depth: int) -> None:
        self.left, self.max_depth, self.cut = max_nodes, max_depth, [] if max_nodes else ["max_nodes is 0"]

    def take(self, path: str, depth: int) -> bool:
        if depth > self.max_depth:
            self.cut.append(f"{path or '/'}: deeper than max_depth {self.max_depth}; replaced by null")
            return False
        if self.left <= 0:
            if len(self.cut) < 20:
                self.cut.append(f"{path or '/'}: past max_nodes; replaced by null")
            return False
        self.left -= 1
        return True


def _json(value: Any, budget: _Budget, path: str = "", depth: int = 0) -> Any:
    if not budget.take(path, depth):
        return None
    if isinstance(value, dict):
        return {str(k): _json(v, budget, f"{path}/{k}", depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json(v, budget, f"{path}/{i}", depth + 1) for i, v in enumerate(value)]
    if isinstance(value, (bytes, bytearray)):
        return {"$data": base64.b64encode(value).decode("ascii")}
    if isinstance(value, datetime.datetime):
        return {"$date": value.isoformat()}
    if isinstance(value, plistlib.UID):
        return {"$uid": value.data}
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return value if -SAFE <= value <= SAFE else {"$integer": str(value)}
    if isinstance(value, float):
        return value if value == value and abs(value) != float("inf") else {"$real": repr(value)}
    return {"$unknown": type(value).__name__}


def _format(raw: bytes) -> Literal["xml", "binary", "json", "unknown"]:
    head = raw.lstrip()[:8]
    if raw.startswith(b"bplist"):
        return "binary"
    if head.startswith((b"<?xml", b"<plist", b"<!DOCTY")) or raw.startswith(b"\xef\xbb\xbf<"):
        return "xml"
    if head[:1] in (b"{", b"["):
        return "json"
    return "unknown"


def _read_once(path: str) -> tuple[LayoutArtifact, bytes]:
    """The file's identity and bytes from one bounded read; an oversized file is refused from its size,
    before any byte is read."""
    info = os.stat(path)
    if not stat.S_ISREG(info.st_mode):
        raise ValueError("it is not a regular file")
    if info.st_size > MAX_PLIST_BYTES:
        raise _Refused("too-large", f"it has {info.st_size} bytes, more than the {MAX_PLIST_BYTES}-byte limit")
    with open(path, "rb") as handle:
        raw = handle.read(MAX_PLIST_BYTES + 1)
    if len(raw) > MAX_PLIST_BYTES:
        raise _Refused("too-large", f"it grew past the {MAX_PLIST_BYTES}-byte limit while being read")
    return LayoutArtifact(path=path, sha256=hashlib.sha256(raw).hexdigest(), bytes=len(raw)), raw


def _decode(effect: ReadPlist) -> PlistRead:
    artifact, raw = _read_once(effect.path)
    fmt = _format(raw)
    try:
        value = json.loads(raw) if fmt == "json" else plistlib.loads(raw)
    except (
        plistlib.InvalidFileException,
        ExpatError,
        ValueError,
        TypeError,
        LookupError,  # KeyError, IndexError, and an XML declaration naming an unknown encoding
        OverflowError,
    ) as exc:
        raise _Refused("malformed", f"it is not a readable {fmt} property list ({type(exc).__name__}: {exc})") from exc
    except RecursionError as exc:
        raise _Refused("malformed", "it nests too deeply to decode") from exc
    budget = _Budget(effect.max_nodes, effect.max_depth)
    converted = _json(value, budget)
    return PlistRead(artifact=artifact, format=fmt, value=converted, limitations=tuple(budget.cut))


class _Refused(ValueError):
    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


async def read_plist(effect: ReadPlist, progress: Progress) -> Result[Any, ReaError]:
    await progress.report("reading property list", effect.path)
    try:
        return Success(await anyio.to_thread.run_sync(_decode, effect))
    except _Refused as refused:
        return Failure(
            invalid_request(
                f"{effect.path} cannot be read: {refused}.", field="path", accepted=ACCEPTED, reason=refused.reason
            )
        )
    except (OSError, ValueError) as exc:
        return Failure(unavailable(effect.path, getattr(exc, "strerror", None) or str(exc)))


HANDLERS = {ReadPlist: read_plist}
