"""The analysis cache: snapshots keyed by target sha256 + engine version + profile digest."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import orjson

MAX_CACHE_FILE = 512 * 1024 * 1024


def cache_root(environ: dict[str, str] | None = None) -> Path:
    env = os.environ if environ is None else environ
    if env.get("REA_CACHE_DIR"):
        return Path(env["REA_CACHE_DIR"])
    base = env.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "rea"


# the worker's snapshot layout: bumped when it records something new (v2: call instructions of call sites;
# v3: exports, no engine placeholders or syscalls, self calls only from call instructions;
# v4: origin facts and each procedure's origin; v5: strings exact from their bytes, with their terminator;
# v6: the index's stack strings, decoder candidates and what the stack-string pass scanned;
# v7: the index snapshot holds its strings once, as `strings`, without the loader's `scanned_strings`)
LAYOUT = 7


def _path(root: Path, sha256: str, binding: dict[str, Any], stage: str) -> Path:
    provider = binding["provider"]
    digest = binding["analysis_profile"]["digest"][:16]
    name = f"{sha256}.{provider['id']}-{provider['version']}.{digest}.{stage}.v{LAYOUT}.json"
    return root / "native" / name


def read_entry(path: Path, most: int = MAX_CACHE_FILE) -> Any:
    """A cache file's JSON, or None: a missing, oversized or damaged entry is only a cache miss."""
    try:
        if path.stat().st_size > most:
            return None
        return orjson.loads(path.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None


def write_entry(path: Path, value: Any) -> None:
    """Publish a cache file atomically; caching is an optimisation, so a failure is only a later miss."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, staging = tempfile.mkstemp(prefix=".", suffix=".tmp", dir=path.parent)
        with os.fdopen(fd, "wb") as handle:
            handle.write(orjson.dumps(value))
        os.replace(staging, path)
    except OSError:
        pass


def load(root: Path, sha256: str, binding: dict[str, Any], stage: str) -> dict[str, Any] | None:
    value = read_entry(_path(root, sha256, binding, stage))
    return value if isinstance(value, dict) else None


def exists(root: Path, sha256: str, binding: dict[str, Any], stage: str) -> bool:
    """Whether an entry is on disk (without reading it: a caller deciding whether work lies ahead)."""
    return _path(root, sha256, binding, stage).is_file()


def store(root: Path, sha256: str, binding: dict[str, Any], stage: str, value: dict[str, Any]) -> None:
    write_entry(_path(root, sha256, binding, stage), value)


def usage(root: Path) -> dict[str, Any]:
    files = list((root / "native").glob("*.json")) if (root / "native").is_dir() else []
    return {"path": str(root), "entries": len(files), "bytes": sum(f.stat().st_size for f in files)}
