"""Whether the processes a capture started are gone: a zombie counts as dead (it waits only for its reaper)."""

from __future__ import annotations

import os

import psutil


def _gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def _group_gone(group: int) -> bool:
    """No live member of the group (a zombie is dead: it waits for its reaper, which may be a slow PID 1)."""
    for proc in psutil.process_iter():
        try:
            if os.getpgid(proc.pid) == group and proc.status() != psutil.STATUS_ZOMBIE:
                return False
        except (ProcessLookupError, psutil.Error):
            continue
    return True
