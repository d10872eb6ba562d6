"""Inputs sent to Ray workers as objects, for clusters without a shared filesystem.

The driver puts an item's bytes in Ray's object store (only items within `--ship-max-mb` whose
plan's Evidence does not record the path: rea.batch.items.Work.shipped). The worker checks the
bytes against the item's digest, writes them to a private directory of its own, analyses that
copy with the same task function, names the original path in the Evidence subjects (a field
outside every Evidence id), and removes the copy whatever happened.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from typing import Any

import orjson

from effects.batch.task import Runner, run_item, spawn_item
from rea.errors import ReaError


def _refused(request: dict[str, Any], got: str) -> dict[str, Any]:
    error = ReaError(
        code="target_unavailable",
        message=f"The bytes shipped for {request['path']} have sha256 {got}, not the identified {request['sha256']}.",
        details={"path": request["path"], "expected_sha256": request["sha256"], "actual_sha256": got},
        action="Run the batch again: the file changed, or its object was corrupted, after identification.",
    )
    return {"sha256": request["sha256"], "evidence": [], "error": error.to_json(), "not_run": False}


def _renamed(answer: dict[str, Any], copy: str, original: str) -> dict[str, Any]:
    """The answer as if the original path had been read: subjects and the error's text name it."""
    for record in answer["evidence"]:
        subject = record.get("subject")
        if isinstance(subject, dict) and subject.get("local_path") == copy:
            subject["local_path"] = original
    if answer["error"] is not None:
        answer = {**answer, "error": orjson.loads(orjson.dumps(answer["error"]).replace(_json(copy), _json(original)))}
    return answer


def _json(text: str) -> bytes:
    return orjson.dumps(text)[1:-1]


def run_item_anywhere(request: dict[str, Any], data: bytes | None, runner: Runner = spawn_item) -> dict[str, Any]:
    """What a Ray worker runs: `run_item` on the item's path, or on a private copy of the shipped bytes."""
    if data is None:
        return run_item(request, runner)
    got = hashlib.sha256(data).hexdigest()
    if got != request["sha256"]:
        return _refused(request, got)
    scratch = tempfile.mkdtemp(prefix="rea-shipped-")
    try:
        copy = os.path.join(scratch, os.path.basename(request["path"]) or "input")
        with open(copy, "xb") as out:
            out.write(data)
        answer = run_item({**request, "path": copy}, runner)
        return _renamed(answer, copy, request["path"])
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def shipped_bytes(request: dict[str, Any]) -> bytes:
    """The item's bytes, read on the driver when its task is submitted (so at most `--jobs` are held)."""
    with open(request["path"], "rb") as source:
        return source.read()
