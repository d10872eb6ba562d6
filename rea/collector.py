"""The cyclic garbage collector paused around building a large acyclic document.

A 20 MB index snapshot parsed by orjson, or a semantic graph of hundreds of thousands of dicts,
sets off full collections that walk the whole growing heap and find no cycle. Reference counting
still frees everything; the collector resumes as it was. Shared by the pure core (the semantic
graph) and effects (the native index), so it lives below both."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
