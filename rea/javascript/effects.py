"""Effects of the JavaScript family: the interpreter reads and parses; the core decides."""

from __future__ import annotations

from typing import Any

import attrs


@attrs.frozen(kw_only=True)
class ScanApplication:
    """List an application tree (never following links): relative path, size and kind of every entry."""

    path: str
    format: str
    max_entries: int
    max_depth: int


@attrs.frozen(kw_only=True)
class ExtractFiles:
    """Read these files of the tree and extract their facts (tree-sitter for JavaScript and TypeScript)."""

    root: str
    files: tuple[tuple[Any, ...], ...]  # (relative path, kind) or (path, kind, locator) for archive members
    max_file_bytes: int
    max_ast_nodes: int
    max_source_map_sources: int
    max_original_source_bytes: int
    # share the batch with a second process: worth its start-up (~0.2 s) only on a large tree
    parallel: bool = False
    done: int
    total: int
