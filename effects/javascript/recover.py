"""recover_javascript_sources IO: read a bundle, its module table and source map; publish a directory.

The bundle is parsed by the family's own extractor (tree-sitter module tables, esbuild and
webpack path comments, sourceMappingURL); the map is read from its inline data: URL, the
relative file it names, or `<bundle>.map`. A source without embedded content is read
from the file the map names only when that file resolves inside `source_root`. The tree
is written into a staging directory beside the destination and renamed into place, so a
failure or a cancel leaves nothing half-written.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
import shutil
import tempfile
import uuid
from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import unquote

import anyio
from returns.result import Failure, Result, Success

from effects.javascript.extract import MAX_RUNS, file_facts
from effects.progress import Progress
from rea.errors import ReaError, invalid_request
from rea.javascript.recovery import Planned
from rea.javascript.recovery_effects import (
    MAX_ENTRIES,
    MAX_INPUT_BYTES,
    MAX_OUTPUT_BYTES,
    PublishRecovery,
    ReadRecoveryInput,
)
from rea.javascript.sourcemap import source_runs, without_scheme
from rea.javascript.text_facts import MAPPING_URL

MAX_AST_NODES = 5_000_000


def _read_limited(path: str, what: str) -> Result[bytes, ReaError]:
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_INPUT_BYTES + 1)
    except OSError as exc:
        return Failure(invalid_request(f"{what} {path!r} cannot be read: {exc.strerror or exc}", field="path"))
    if len(data) > MAX_INPUT_BYTES:
        return Failure(
            ReaError(
                code="resource_constraint",
                message=f"{what} {path!r} is larger than {MAX_INPUT_BYTES} bytes",
                details={"path": path, "limit": MAX_INPUT_BYTES},
            )
        )
    return Success(data)


def _why_not(read: Result[bytes, ReaError]) -> str | None:
    """The message of a read that failed (None when it succeeded): the answer records it as a reason."""
    return read.swap().map(lambda error: error.message).value_or(None)


def _inside(path: str, root: str) -> bool:
    real, top = os.path.realpath(path), os.path.realpath(root)
    return real == top or real.startswith(top.rstrip("/") + "/")


def _inline_map(url: str) -> bytes | None:
    head, _, payload = url.partition(",")
    try:
        return base64.b64decode(payload, validate=False) if head.endswith(";base64") else unquote(payload).encode()
    except (binascii.Error, ValueError):
        return None


def _find_map(path: str, url: str | None, root: str) -> tuple[str, bytes | None, str | None]:
    """(location, bytes or None, why not)."""
    if url is not None and url.startswith("data:"):
        data = _inline_map(url)
        return "inline", data, None if data is not None else "the inline source map is not valid base64"
    candidates = []
    if url is not None and "://" not in url:
        candidates.append(os.path.normpath(os.path.join(os.path.dirname(path), unquote(url))))
    candidates.append(path + ".map")
    for candidate in candidates:
        if os.path.isfile(candidate):
            if not _inside(candidate, root):
                return candidate, None, f"the map {candidate} is outside source_root {root}"
            read = _read_limited(candidate, "source map")
            return candidate, read.value_or(None), _why_not(read)
    return "", None, None


def _source_file(name: str, map_dir: str, source_root: str | None, root: str) -> tuple[bytes | None, str]:
    relative = without_scheme(name)
    if os.path.isabs(relative) and "://" not in name:
        candidate = relative
    else:
        candidate = os.path.normpath(os.path.join(map_dir, source_root or "", relative))
    if not os.path.isfile(candidate):
        return None, f"the map embeds no content and {candidate} does not exist"
    if not _inside(candidate, root):
        return None, f"the map embeds no content and {candidate} is outside source_root {root} (not read)"
    read = _read_limited(candidate, "source")
    return read.value_or(None), _why_not(read) or ""


def _map_facts(location: str, data: bytes, map_dir: str, root: str) -> dict[str, Any]:
    out: dict[str, Any] = {"location": location, "sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}
    try:
        doc = json.loads(data)
    except ValueError as exc:
        return {**out, "error": f"the source map is not JSON ({exc})"}
    if not isinstance(doc, dict) or not isinstance(doc.get("sources", []), list):
        return {**out, "error": "the source map has no sources list"}
    names = [s if isinstance(s, str) else None for s in doc.get("sources", [])][:MAX_ENTRIES]
    embedded = doc.get("sourcesContent")
    contents: list[Any] = embedded if isinstance(embedded, list) else []
    source_root = doc.get("sourceRoot") if isinstance(doc.get("sourceRoot"), str) else None
    sources = []
    for i, name in enumerate(names):
        content = contents[i] if i < len(contents) and isinstance(contents[i], str) else None
        if content is not None:
            sources.append({"name": name, "content": content.encode("utf-8", "surrogatepass"), "origin": "embedded"})
        elif name is None:
            sources.append({"name": None, "content": None, "reason": "the map lists a null source"})
        else:
            read, why = _source_file(name, map_dir, source_root, root)
            sources.append({"name": name, "content": read, "origin": "file", "reason": why})
    out["sources"] = sources
    if isinstance(doc.get("mappings"), str):
        runs = source_runs(doc["mappings"], len(names), MAX_RUNS)
        out.update(runs=[list(r) for r in runs.runs], invalid_segments=runs.invalid, runs_truncated=runs.truncated)
    return out


def _engine_file() -> dict[str, Any]:
    """This module is the code that recovers: its identity stands where the reference names an executable."""
    with open(__file__, "rb") as f:
        code = f.read()
    return {"path": os.path.abspath(__file__), "sha256": hashlib.sha256(code).hexdigest(), "bytes": len(code)}


def _read(effect: ReadRecoveryInput) -> Result[dict[str, Any], ReaError]:
    path = effect.path
    if not os.path.isfile(path):
        return Failure(
            invalid_request(f"{path!r} is not a regular file", field="path", accepted="a local JavaScript file")
        )
    return (
        _read_limited(path, "script")
        .bind(lambda data: _utf8(path, data))
        .bind(lambda data: _destination(effect.output_directory).map(lambda into: _input(effect, data, into)))
    )


def _utf8(path: str, data: bytes) -> Result[bytes, ReaError]:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return Failure(
            invalid_request(f"{path!r} is not UTF-8 ({exc})", field="path", accepted="a UTF-8 JavaScript file")
        )
    return Success(data)


def _input(effect: ReadRecoveryInput, data: bytes, destination: str) -> dict[str, Any]:
    """The bundle's facts, its module table, and the source map it names (or the one beside it)."""
    path = effect.path
    root = effect.source_root or os.path.dirname(path)
    facts = file_facts(data, "javascript", MAX_AST_NODES, MAX_ENTRIES, 0)
    table = facts.get("bundle_table")
    bundlers = list(facts.get("bundlers", ()))
    out: dict[str, Any] = {
        "bundle": {"path": path, "sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data), "data": data},
        "bundlers": bundlers,
        "table": {"kind": "browserify" if "browserify" in bundlers else "webpack", "modules": table["modules"]}
        if table
        else None,
        "comment_modules": facts.get("bundled_modules") or [],
        "map": None,
        "output_directory": destination,
        "engine_file": _engine_file(),
    }
    matches = list(MAPPING_URL.finditer(data))
    last = matches[-1] if matches else None
    url = last.group(1).decode("utf-8", "replace") if last is not None else None
    location, map_bytes, why = _find_map(path, url, root)
    if map_bytes is not None:
        map_dir = os.path.dirname(location) if location != "inline" else os.path.dirname(path)
        out["map"] = _map_facts(location, map_bytes, map_dir, root)
    elif why is not None:
        out["map"] = {"location": location or "inline", "error": why}
    return out


async def read_input(effect: ReadRecoveryInput, progress: Progress) -> Result[Any, ReaError]:
    return await anyio.to_thread.run_sync(_read, effect, abandon_on_cancel=False)


def _destination(requested: str | None, fresh: str = "rea-recovered") -> Result[str, ReaError]:
    """Where to publish: the requested directory when it is absent and its parent exists, else a fresh one
    under the temporary directory."""
    if requested is None:
        return Success(os.path.join(tempfile.gettempdir(), f"{fresh}-{uuid.uuid4().hex[:12]}"))
    destination = os.path.abspath(requested)
    if os.path.lexists(destination):
        return Failure(
            invalid_request(
                f"output_directory {requested!r} already exists; REA publishes only into an absent directory",
                field="output_directory",
                accepted="an absent directory whose parent exists, or omit it for a fresh one",
            )
        )
    if not os.path.isdir(os.path.dirname(destination)):
        return Failure(
            invalid_request(
                f"the parent of output_directory {requested!r} does not exist",
                field="output_directory",
                accepted="an absent directory whose parent exists",
            )
        )
    return Success(destination)


def _write(staging: str, files: Sequence[Planned]) -> None:
    for planned in files:
        target = os.path.join(staging, planned.rel)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "xb") as f:
            f.write(planned.data)
            f.flush()
            os.fsync(f.fileno())


def publish_tree(
    requested: str | None,
    files_of: Callable[[str], Sequence[Planned]],
    fresh: str = "rea-recovered",
    staging_prefix: str = ".rea-recovery-",
) -> Result[str, ReaError]:
    """Write the files `files_of(destination)` plans into a staging directory beside the absent destination
    (`requested`, or a fresh one under the temporary directory), then rename it into place: all or nothing."""
    return _destination(requested, fresh).bind(lambda destination: _publish_into(destination, files_of, staging_prefix))


def _publish_into(
    destination: str, files_of: Callable[[str], Sequence[Planned]], staging_prefix: str
) -> Result[str, ReaError]:
    files = files_of(destination)
    total = sum(len(f.data) for f in files)
    if total > MAX_OUTPUT_BYTES or len(files) > MAX_ENTRIES:
        return Failure(
            ReaError(
                code="resource_constraint",
                message=f"the publication would write {len(files)} files, {total} bytes (limits "
                f"{MAX_ENTRIES} files, {MAX_OUTPUT_BYTES} bytes); nothing was written",
                details={"files": len(files), "bytes": total},
            )
        )
    staging = tempfile.mkdtemp(prefix=staging_prefix, dir=os.path.dirname(destination))
    try:
        _write(staging, files)
        os.rename(staging, destination)  # atomic; refuses a non-empty destination created meanwhile
    except OSError as exc:
        shutil.rmtree(staging, ignore_errors=True)
        return Failure(
            ReaError(
                code="execution_failure",
                message=f"publishing {destination} failed: {exc.strerror or exc}; nothing was published",
                details={"output_directory": destination},
                action="Choose a writable, absent output_directory.",
            )
        )
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return Success(destination)


def _publish(effect: PublishRecovery) -> Result[str, ReaError]:
    return publish_tree(effect.output_directory, lambda _destination: effect.files)


async def publish(effect: PublishRecovery, progress: Progress) -> Result[Any, ReaError]:
    return await anyio.to_thread.run_sync(_publish, effect, abandon_on_cancel=False)


HANDLERS = {ReadRecoveryInput: read_input, PublishRecovery: publish}
