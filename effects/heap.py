"""The process's garbage-collector settings, set once at startup.

A server or CLI process holds ~200,000 long-lived objects after its imports (the catalog, lief,
angr's and androguard's modules). CPython's cyclic collector walks every one of them on each
full collection, and a traversal that allocates a record per archive entry triggers several:
on a 3,841-entry APK that was a fifth of the first inventory page. Freezing the startup heap
takes it out of every later collection, and a larger young-generation threshold lets a
traversal's short-lived records die by reference count before the collector looks at them.
Cycles are still collected; only how often the collector runs changes."""

from __future__ import annotations

import functools
import gc

YOUNG_THRESHOLD = 20_000


@functools.cache
def settle_startup_heap() -> None:
    """Called once the startup imports are done (load_context); only the first call freezes.

    A later call (a test process builds many contexts) must not freeze the garbage made since,
    or every cycle alive at that moment (an angr project, say) would never be collected."""
    gc.freeze()
    young, middle, old = gc.get_threshold()
    gc.set_threshold(max(YOUNG_THRESHOLD, young), middle, old)
