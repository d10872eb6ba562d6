"""Effects of the Apple artifacts family: bounded reads of archives, compiled nibs and asset catalogs.

Each handler reads files under a limit and runs the pure parsers of this package on
the bytes, so programs receive decoded facts, never bulk bytes.
"""

from __future__ import annotations

import attrs

MAX_FILE_BYTES = 64 << 20  # one keyed archive, nib or catalog
MAX_ENTRIES = 100_000  # directory entries walked looking for nibs or catalogs


@attrs.frozen(kw_only=True)
class ReadKeyedArchive:
    """The archive at `path` (`relative`: as the request named it) decoded to JSON."""

    path: str
    relative: str


@attrs.frozen(kw_only=True)
class ReadInterfaceBuilder:
    """Every compiled nib and storyboard scene under `root` (or `root` itself), the first max_documents decoded."""

    root: str
    max_documents: int


@attrs.frozen(kw_only=True)
class ReadAssetCatalogs:
    """Every .car file under `root` (or `root` itself), parsed."""

    root: str
