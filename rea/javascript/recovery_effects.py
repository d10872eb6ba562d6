"""Effects of recover_javascript_sources: read the bundle and its map, publish the recovered tree."""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from rea.javascript.recovery import Planned

MAX_INPUT_BYTES = 64 << 20  # the reference's input ceiling
MAX_OUTPUT_BYTES = 128 << 20
MAX_ENTRIES = 10_000


@attrs.frozen(kw_only=True)
class ReadRecoveryInput:
    """Read one script, its module boundaries, its source map and the originals the map names."""

    path: str
    source_root: str | None
    output_directory: str | None  # checked absent (or chosen fresh) before any work


@attrs.frozen(kw_only=True)
class PublishRecovery:
    """Write `files` into a staging directory beside `output_directory`, then rename it into place."""

    output_directory: str
    files: Sequence[Planned]
