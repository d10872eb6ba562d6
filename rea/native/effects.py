"""Effect descriptions of the native family; handlers live in effects/native."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs


@attrs.frozen(kw_only=True)
class DiscoverProviders:
    """Host facts for every declared deep-analysis provider; starts nothing."""


@attrs.frozen(kw_only=True)
class NativeFacts:
    """The analysis snapshot of the bound target: loader facts, plus procedures,
    strings and references when `stage` is "cfg" (from memory, the disk cache or the worker).
    "symbols" takes the CFG snapshot when one exists and loader facts otherwise. "index" is the fast
    index (metadata plus a capstone sweep, no engine); where it cannot answer (another provider, code it
    cannot decode) the handler recovers the CFG instead. "decoded" is the index with its decoded strings
    (the decoder call sites emulated in the worker on first use, then cached)."""

    binding: Mapping[str, Any]
    path: str
    sha256: str
    stage: str  # "loader" | "symbols" | "index" | "decoded" | "cfg"
    # the question goes on to the live engine (an emulation): start the angr worker first, so importing angr
    # and loading the file overlap with building the index
    engine_ahead: bool = False


@attrs.frozen(kw_only=True)
class NativeQuery:
    """A per-function question only the live engine can answer (decompile, disassemble)."""

    binding: Mapping[str, Any]
    path: str
    sha256: str
    op: str
    params: Mapping[str, Any]


@attrs.frozen(kw_only=True)
class ReleaseNative:
    """Stop every owned engine process and report what, if anything, remains."""


@attrs.frozen(kw_only=True)
class NativeLineage:
    """Process-lineage snapshots of every provider started on this connection."""


@attrs.frozen(kw_only=True)
class NativeActivity:
    """Request activity of every started provider: the request in flight and those queued behind it."""


@attrs.frozen(kw_only=True)
class ReadAnnotations:
    """The analyst annotations stored for one target digest and analysis profile (empty when none)."""

    sha256: str
    profile_digest: str


@attrs.frozen(kw_only=True)
class EditAnnotations:
    """Apply one edit (rea.native.annotations.Edit, or a merge of an imported state) under the store's
    lock: read, apply, write atomically; answers the state after it."""

    sha256: str
    profile_digest: str
    edit: Any  # rea.native.annotations.Edit | rea.native.annotations.Annotations (merged)


@attrs.frozen(kw_only=True)
class ReadImage:
    """Mapped-memory facts of the target file (segments with file offsets) and, when `length` > 0,
    the file bytes at `file_offset`; with `decode`, capstone's decode of the first instruction there."""

    path: str
    sha256: str
    file_offset: int = 0
    length: int = 0
    address: int = 0
    decode: bool = False


@attrs.frozen(kw_only=True)
class ReadDwarfType:
    """One DWARF type of the target: by name, or the type of the variable at a link-time address."""

    path: str
    type: str | None = None
    address: int | None = None


@attrs.frozen(kw_only=True)
class ReadDosFile:
    """The whole target file for the DOS loader, or a failure when it is larger than `max_bytes`
    (a DOS image is at most 32 MiB; a larger file is overlay data this tool does not read)."""

    path: str
    max_bytes: int
