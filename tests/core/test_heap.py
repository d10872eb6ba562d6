"""The startup heap is frozen out of the cyclic collector (effects/heap.py), in the process a server or CLI runs."""

from __future__ import annotations

import os
import subprocess
import sys

from effects.heap import YOUNG_THRESHOLD

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

_PROBE = r"""
import gc
before = gc.get_freeze_count()
from effects.environment import load_context
load_context("cli").unwrap()
after = gc.get_freeze_count()
cycle = []
cycle.append(cycle)
del cycle
print(before, after, gc.get_threshold()[0], gc.collect() >= 1)
"""


def test_load_context_freezes_the_startup_heap_and_cycles_are_still_collected() -> None:
    env = dict(os.environ, PYTHONPATH=ROOT)
    out = subprocess.run([sys.executable, "-c", _PROBE], env=env, capture_output=True, text=True, check=True, cwd=ROOT)
    before, after, young, collected = out.stdout.split()
    assert int(before) == 0
    assert int(after) > 10_000  # the imports' objects: catalog, records, libraries
    assert int(young) == YOUNG_THRESHOLD
    assert collected == "True"  # a cycle made after startup is still found


_PAUSE_PROBE = r"""
import gc
from rea.collector import collector_paused, one_shot_process

def build():
    with collector_paused():
        return [{"range": [i, i + 1]} for i in range(50_000)]

served = build()  # a server's pause hands what it built back to the collector
print(gc.get_freeze_count())
with one_shot_process():
    built = build()
    print(gc.get_freeze_count() >= 100_000, gc.isenabled())
frozen = gc.get_freeze_count()
again = build()  # the block is over: this process is no longer one-shot
print(gc.get_freeze_count() == frozen)
cycle = []
cycle.append(cycle)
del cycle
print(gc.collect() >= 1)
"""


def test_a_one_shot_process_freezes_what_a_pause_built_and_a_server_does_not() -> None:
    env = dict(os.environ, PYTHONPATH=ROOT)
    out = subprocess.run(
        [sys.executable, "-c", _PAUSE_PROBE], env=env, capture_output=True, text=True, check=True, cwd=ROOT
    )
    served, frozen, enabled, restored, collected = out.stdout.split()
    assert int(served) == 0
    assert (frozen, enabled) == ("True", "True")  # the dicts and lists built, frozen; the collector running
    assert restored == "True"
    assert collected == "True"  # a cycle made after a freeze is still found
