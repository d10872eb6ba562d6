"""Batch inputs named on the command line: a file, a directory tree, or a manifest (`@list.txt`).

The manifest's text is parsed here (the runner reads the file and walks directories): one path
per line, blank lines and `#` comments skipped, a relative path taken against the manifest's
own directory (never the working directory).
"""

from __future__ import annotations

import posixpath

from returns.result import Failure, Result, Success

from rea.errors import ReaError, invalid_request
from rea.local_paths import is_local_path

MANIFEST_PREFIX = "@"


def manifest_paths(text: str, manifest: str) -> Result[list[str], ReaError]:
    """The paths a manifest names, absolute; a line that cannot be a path is refused with its number."""
    base = posixpath.dirname(manifest)
    paths = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        path = posixpath.normpath(line if line.startswith("/") else posixpath.join(base, line))
        if not is_local_path(path):
            return Failure(
                invalid_request(
                    f"line {number} of {manifest!r} is not a usable path (it holds a control or "
                    "bidirectional-override character)",
                    field="inputs",
                    accepted="one path per line; blank lines and # comments are skipped",
                    line=number,
                )
            )
        paths.append(path)
    return Success(paths)
