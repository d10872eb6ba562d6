"""What confines one item's process, whether spawned fresh (Ray) or forked from a warm parent."""

from __future__ import annotations

import ctypes
import os
import resource
import signal

PR_SET_PDEATHSIG = 1


def confine(memory_mb: int | None) -> None:
    """Default SIGINT, an own process group (a terminal's SIGINT reaches the runner, which stops
    items itself), the memory ceiling (RLIMIT_AS, inherited by engines it starts), and death with
    the thread that started it, so a killed Ray worker or pool takes its item with it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # a backgrounded parent may have it ignored
    os.setpgrp()
    if memory_mb is not None:
        limit = memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    try:  # Linux only
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (AttributeError, OSError):
        pass
