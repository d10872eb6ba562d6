"""Finished items' Evidence, kept in the analysis cache so `--resume` skips a digest that another
batch (or this one, before a crash) already analysed, whichever bundle it went to.

An entry is one JSON list of Evidence records under `<cache>/batch/`, written atomically; a
missing, oversized or damaged entry is only a miss (the item is analysed again), and a recalled
entry is parsed strictly, ids recomputed, before anything of it reaches the bundle.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from returns.result import Success

from effects.environment import build_commit
from effects.native.cache import cache_root, read_entry, write_entry
from rea import __version__
from rea.batch.items import Work
from rea.evidence import parse_evidence

MAX_ENTRY = 256 * 1024 * 1024


def _entry(work: Work) -> Path:
    build = f"{__version__}+{build_commit() or 'release'}"
    return cache_root() / "batch" / f"{work.answer_key(build)}.json"


def recall(work: Work) -> list[Any] | None:
    """The records a finished run of this work answered, when every one of them still parses."""
    records = read_entry(_entry(work), MAX_ENTRY)
    if not isinstance(records, list) or not records:
        return None
    if not all(isinstance(parse_evidence(r), Success) for r in records):
        return None
    return records


def keep(work: Work, records: list[Any]) -> None:
    """Keep a successful answer; a cache that cannot be written only costs a later re-analysis."""
    write_entry(_entry(work), records)
