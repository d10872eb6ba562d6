"""Effects of the web family's script tools: parse captured sources, fetch declared source maps, read a
local file with its digest.

Parsing runs tree-sitter (the JavaScript family's parser) in the effect layer and answers plain facts
with UTF-16 positions; the pure core decides what they are. A source map is fetched only from an
origin the program allowed, without the browser's credentials; redirects are followed only within
those origins.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from rea.javascript.recovery import Planned


@attrs.frozen(kw_only=True)
class ParseWebScripts:
    """Facts of each `{script_key, text}`: imports, calls, properties, bundler marks; `max_ast_nodes` over all."""

    scripts: Sequence[Mapping[str, str]]
    max_ast_nodes: int


@attrs.frozen(kw_only=True)
class FetchSourceMaps:
    """GET each `{script_key, declared_url, fetch_url}` whose origin is in `allowed_origins`, within byte bounds."""

    requests: Sequence[Mapping[str, str]]
    allowed_origins: tuple[str, ...]
    max_maps: int
    max_map_bytes: int
    max_total_bytes: int


@attrs.frozen(kw_only=True)
class ReadLocalFile:
    """A local file's bytes and SHA-256; refusals name `argument`."""

    path: str
    max_bytes: int
    argument: str
    facts: Mapping[str, Any] = attrs.field(factory=dict)


@attrs.frozen(kw_only=True)
class PublishWebScripts:
    """Publish `files_of(destination)` into the absent `output_directory` (or a fresh one) all at once, then read
    every file back and answer its SHA-256 by relative path."""

    output_directory: str | None
    files_of: Callable[[str], Sequence[Planned]]
