"""Finished items' Evidence, kept in the analysis cache so `--resume` skips a digest that another
batch (or this one, before a crash) already analysed, whichever bundle it went to.

An entry is one JSON list of Evidence records under `<cache>/batch/`, written atomically; a
missing, oversized or damaged entry is only a miss (the item is analysed again), and a recalled
entry is parsed strictly, ids recomputed, before anything of it reaches the bundle.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from effects.environment import build_commit
from effects.native.cache import cache_root, read_entry, write_entry
from rea import __version__
from rea.batch.items import Work

MAX_ENTRY = 256 * 1024 * 1024


@functools.cache
def _build() -> str:
    """The build that answers (read once: every item of a batch is keyed by it)."""
    return f"{__version__}+{build_commit() or 'release'}"


def _entry(work: Work) -> Path:
    return cache_root() / "batch" / f"{work.answer_key(_build())}.json"


def recall(work: Work) -> list[Any] | None:
    """The records a finished run of this work answered; the bundle writer parses them strictly
    and takes all or none."""
    records = read_entry(_entry(work), MAX_ENTRY)
    return records if isinstance(records, list) and records else None


def keep(work: Work, records: list[Any]) -> None:
    """Keep a successful answer; a cache that cannot be written only costs a later re-analysis."""
    write_entry(_entry(work), records)
