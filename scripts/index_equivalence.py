"""Check that a change to the fast index keeps its answers: the index of each binary, reduced to what the
agent reads (every string's `referenced_by`, and a digest of the whole snapshot without its timings), saved
from one checkout and compared with another's (issue 27: a faster sweep must answer exactly as before).

    python3 scripts/index_equivalence.py save BASELINE.json BINARY...     # with the old code
    python3 scripts/index_equivalence.py check BASELINE.json BINARY...    # with the new code

The index runs as the program the server starts (`python -m effects.native.indexer`), from the current
directory's checkout. `check` prints, per binary, how many strings it compared and how many differ, and the
first differences; it exits 1 when any string's referrers or the snapshot differ.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson

TIMINGS = ("elapsed_ms", "stack_strings_ms")


def summary(binary: str) -> dict[str, Any]:
    """The index snapshot of `binary`: its strings' referrers and a digest of everything but timings."""
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    out = subprocess.run(
        [sys.executable, "-m", "effects.native.indexer", binary], capture_output=True, check=True, env=env
    ).stdout
    snapshot = orjson.loads(out)["snapshot"]
    for key in TIMINGS:
        snapshot.get("index", {}).pop(key, None)
    digest = hashlib.sha256(orjson.dumps(snapshot, option=orjson.OPT_SORT_KEYS)).hexdigest()
    referrers = {s["address"]: s["referenced_by"] for s in snapshot["strings"]}
    return {"digest": digest, "referenced_by": referrers, "parts": _parts(snapshot)}


def _parts(snapshot: dict[str, Any]) -> dict[str, str]:
    """A digest per top-level key, so a difference says where it is."""
    return {k: hashlib.sha256(orjson.dumps(v, option=orjson.OPT_SORT_KEYS)).hexdigest() for k, v in snapshot.items()}


def check(baseline: dict[str, Any], binaries: list[str]) -> int:
    failed = 0
    for binary in binaries:
        old, new = baseline[binary], summary(binary)
        before, after = old["referenced_by"], new["referenced_by"]
        differing = [a for a in sorted(set(before) | set(after)) if before.get(a) != after.get(a)]
        parts = [k for k in sorted(set(old["parts"]) | set(new["parts"])) if old["parts"].get(k) != new["parts"].get(k)]
        same = new["digest"] == old["digest"]
        print(f"{binary}: {len(after)} strings compared, {len(differing)} differ; snapshot identical: {same}")
        for address in differing[:10]:
            print(f"  {address}: {before.get(address)} -> {after.get(address)}")
        if parts:
            print(f"  snapshot parts that differ: {parts}")
        failed |= bool(differing) or not same
    return int(failed)


def main(argv: list[str]) -> int:
    mode, store, binaries = argv[1], Path(argv[2]), argv[3:]
    if mode == "save":
        store.write_bytes(orjson.dumps({b: summary(b) for b in binaries}))
        return 0
    return check(orjson.loads(store.read_bytes()), binaries)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
