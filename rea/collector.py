"""The cyclic garbage collector paused around building a large acyclic document.

A 20 MB index snapshot parsed by orjson, or a semantic graph of hundreds of thousands of dicts,
sets off full collections that walk the whole growing heap and find no cycle. Reference counting
still frees everything; the collector resumes as it was. Shared by the pure core (the semantic
graph) and effects (the native index), so it lives below both.

Resuming is not free: the first allocation after it starts a young-generation collection over
everything the pause built (0.3 s of CPU for a 2 MB bundle's 430,000-dict semantic graph), and
later collections walk it again. A process that answers one command and exits (the CLI, the
JavaScript parse worker) says so with `one_shot_process`: a pause then ends by freezing the heap
(`gc.freeze`), which takes what it built out of every later collection. Frozen objects are still
freed by reference counting; only a cycle that is garbage at that moment is kept, until the
process exits. A server never freezes here: its cycles must stay collectable."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

_ONE_SHOT = [False]  # set by one_shot_process, for this process


@contextmanager
def collector_paused() -> Iterator[None]:
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if _ONE_SHOT[0]:
            gc.freeze()
        if was:
            gc.enable()


@contextmanager
def one_shot_process() -> Iterator[None]:
    """While in the block, each pause ends by freezing what it built (see the module docstring): only for a
    process that exits after the block, whose heap lives until then anyway."""
    was = _ONE_SHOT[0]
    _ONE_SHOT[0] = True
    try:
        yield
    finally:
        _ONE_SHOT[0] = was
