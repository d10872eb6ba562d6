"""The Apple metadata effect: what the programs ask the reader for."""

from __future__ import annotations

import attrs


@attrs.frozen(kw_only=True)
class ReadAppleMetadata:
    """One Mach-O image (a universal file: the named slice) as bytes, segments, sections, binds and symbols."""

    path: str
    architecture: str | None
