"""The firmware handlers: a chunk scan, and an extraction published all at once.

Both copy the selected bytes into a private work directory first (the source is opened
only when it is a regular file, and never changed), then run unblob there once
(effects.firmware.engine). Extraction stages into a hidden sibling of the absent
output_directory, polls the staging tree against the byte and entry budgets while unblob
runs, takes symlinks and special files out (recorded, never published), and renames the
tree into place with RENAME_NOREPLACE: a reader sees no directory, or the whole one.
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
import shutil
import stat
import tempfile
from collections.abc import Callable
from typing import Any

import anyio
import attrs
from returns.result import Failure, Result, Success

from effects.firmware import engine
from effects.firmware.engine import Refused, granted
from effects.fs import fsync_dir, open_path_argument
from effects.native.cache import cache_root
from effects.progress import Progress
from rea.errors import ReaError, invalid_request
from rea.firmware.effects import EngineRun, ExtractFirmware, PublishedFile, ScanFirmware, Unpublished
from rea.firmware.records import MAX_FIRMWARE_BYTES

REPORT_MAX_BYTES = 8 << 20
RENAME_NOREPLACE = 1


def _copy_selection(path: str, offset: int | None, length: int | None, into: str) -> dict[str, Any]:
    """Hash the whole file and copy the selected bytes to `into`; refusals name `path` or `range`."""
    with os.fdopen(granted(open_path_argument(path)), "rb") as source:
        size = os.fstat(source.fileno()).st_size
        if size == 0 or size > MAX_FIRMWARE_BYTES:
            raise Refused(
                invalid_request(
                    f"{path!r} has {size} bytes; firmware inputs hold 1 to {MAX_FIRMWARE_BYTES} bytes", field="path"
                )
            )
        start, count = (0, size) if offset is None or length is None else (offset, length)
        if start + count > size:
            raise Refused(
                invalid_request(
                    f"range {start}+{count} runs past the end of the {size}-byte file",
                    field="range",
                    accepted="offset + length <= file size",
                )
            )
        whole, chosen = hashlib.sha256(), hashlib.sha256()
        with open(into, "xb") as out:
            at = 0
            while block := source.read(1 << 20):
                whole.update(block)
                piece = block[max(0, start - at) : max(0, start + count - at)]
                out.write(piece)
                chosen.update(piece)
                at += len(block)
    return {"size": size, "sha256": whole.hexdigest(), "offset": start, "length": count, "selected": chosen.hexdigest()}


def _read_report(path: str) -> Any:
    try:
        if os.path.getsize(path) > REPORT_MAX_BYTES:
            raise Refused(ReaError(code="resource_constraint", message="unblob's report passed 8 MiB", details={}))
        with open(path, "rb") as handle:
            return json.loads(handle.read())
    except (OSError, ValueError) as exc:
        raise Refused(
            ReaError(
                code="unreadable_output",
                message=f"unblob left no readable report: {exc}",
                details={"provider": "unblob"},
                action="Run `rea doctor`; check unblob runs on its own.",
            )
        )


def _measure(root: str, max_bytes: int, max_entries: int) -> Callable[[], str | None]:
    def over() -> str | None:
        total, entries = 0, 0
        for folder, dirs, names in os.walk(root):
            entries += len(dirs) + len(names)
            for name in names:
                try:
                    total += os.lstat(os.path.join(folder, name)).st_size
                except OSError:
                    continue
        if total > max_bytes:
            return f"max_output_bytes ({max_bytes})"
        if entries > max_entries:
            return f"max_output_files ({max_entries})"
        return None

    return over


async def _engine_run(
    effect: ScanFirmware | ExtractFirmware, work: str, out_root: str, extra: list[str], over: Callable[[], str | None]
) -> EngineRun:
    cmd = engine.locate()
    if cmd is None:
        raise Refused(engine.missing_unblob())
    selected = os.path.join(work, "input", os.path.basename(effect.path) or "firmware.bin")
    os.makedirs(os.path.dirname(selected))
    offset = getattr(effect, "offset", None)
    length = getattr(effect, "length", None)
    facts = await anyio.to_thread.run_sync(_copy_selection, effect.path, offset, length, selected)
    env = engine.environment(cmd, work)
    banner = await engine.version(cmd, env, work)
    report = os.path.join(work, "report.json")
    argv = [cmd, "-e", out_root, "-p", "1", "-n", "0", "--report", report, "--log", os.path.join(work, "unblob.log")]
    code, tail = await engine.run([*argv, *extra, selected], env, work, effect.timeout_s, over)
    return EngineRun(
        path=effect.path,
        sha256=facts["sha256"],
        size=facts["size"],
        engine=engine.engine_record(cmd, banner),
        report=_read_report(report),
        input_path=selected,
        output_root=out_root,
        selection_offset=facts["offset"],
        selection_length=facts["length"],
        selection_sha256=facts["selected"],
        exit_code=code,
        output_tail=tail[-4000:],
    )


async def scan(effect: ScanFirmware, progress: Progress) -> Result[Any, ReaError]:
    # unblob's scratch lives under REA's cache directory (REA_CACHE_DIR), never in a shared temp dir
    scratch = cache_root() / "firmware-scan"
    scratch.mkdir(parents=True, exist_ok=True)
    work = tempfile.mkdtemp(prefix="scan-", dir=scratch)
    try:
        return Success(await _engine_run(effect, work, os.path.join(work, "carved"), ["-s", "-d", "1"], lambda: None))
    except Refused as refused:
        return Failure(refused.error)
    finally:
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(shutil.rmtree, work, True)


def _destination(requested: str) -> str:
    destination = os.path.normpath(requested)
    if os.path.lexists(destination):
        raise Refused(
            invalid_request(
                f"output_directory {requested!r} already exists; it is never overwritten",
                field="output_directory",
                accepted="an absent directory whose parent exists",
            )
        )
    if not os.path.isdir(os.path.dirname(destination)):
        raise Refused(
            invalid_request(
                f"the parent of output_directory {requested!r} does not exist",
                field="output_directory",
                accepted="an absent directory whose parent exists",
            )
        )
    return destination


def _sweep(root: str) -> tuple[list[str], list[Unpublished]]:
    """Regular files kept (relative paths); symlinks and special files recorded and removed."""
    kept: list[str] = []
    dropped: list[Unpublished] = []
    for folder, dirs, names in os.walk(root):
        for name in [*names, *[d for d in dirs if os.path.islink(os.path.join(folder, d))]]:
            full = os.path.join(folder, name)
            rel = os.path.relpath(full, root)
            mode = os.lstat(full).st_mode
            if stat.S_ISREG(mode):
                kept.append(rel)
            elif stat.S_ISLNK(mode):
                dropped.append(Unpublished(relative_path=rel, kind="symlink", link_target=os.readlink(full)))
                os.unlink(full)
            elif not stat.S_ISDIR(mode):
                dropped.append(Unpublished(relative_path=rel, kind="special", link_target=None))
                os.unlink(full)
    return sorted(kept), sorted(dropped, key=lambda u: u.relative_path)


def _rename_noreplace(source: str, destination: str) -> None:
    """rename(2) that fails when the destination exists (renameat2 RENAME_NOREPLACE); plain rename after a check
    where the C library lacks it."""
    libc = ctypes.CDLL(None, use_errno=True)
    renameat2 = getattr(libc, "renameat2", None)
    if renameat2 is None:
        if os.path.lexists(destination):
            raise FileExistsError(destination)
        os.rename(source, destination)
        return
    at_fdcwd = -100
    if renameat2(at_fdcwd, os.fsencode(source), at_fdcwd, os.fsencode(destination), RENAME_NOREPLACE) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err), destination)


def _publish(staging: str, destination: str, limit_bytes: int, limit_files: int) -> tuple[Any, Any]:
    kept, dropped = _sweep(staging)
    over = _measure(staging, limit_bytes, limit_files)()
    if over is not None:
        raise Refused(
            ReaError(
                code="resource_constraint",
                message=f"the extraction passed {over}; nothing was published",
                details={"limit": over},
                action="Raise the named limit, or select a smaller range.",
            )
        )
    try:
        _rename_noreplace(staging, destination)
        fsync_dir(os.path.dirname(destination))
    except OSError as exc:
        raise Refused(
            ReaError(
                code="execution_failure",
                message=f"publishing {destination!r} failed: {exc.strerror or exc}; nothing was published",
                details={"output_directory": destination},
                action="Choose a writable, absent output_directory.",
            )
        )
    files = []
    for rel in kept:  # read back from where they now are
        full = os.path.join(destination, rel)
        files.append(PublishedFile(relative_path=rel, size=os.path.getsize(full), sha256=engine.sha256_file(full)))
    return tuple(files), tuple(dropped)


async def extract(effect: ExtractFirmware, progress: Progress) -> Result[Any, ReaError]:
    try:
        destination = _destination(effect.output_directory)
    except Refused as refused:
        return Failure(refused.error)
    parent = os.path.dirname(destination)
    work = tempfile.mkdtemp(prefix=".rea-firmware-work-", dir=parent)
    staging = tempfile.mkdtemp(prefix=".rea-firmware-", dir=parent)
    try:
        over = _measure(staging, effect.max_output_bytes, effect.max_output_files)
        ran = await _engine_run(effect, work, staging, ["-d", str(effect.max_depth)], over)
        files, dropped = await anyio.to_thread.run_sync(
            _publish, staging, destination, effect.max_output_bytes, effect.max_output_files
        )
        return Success(attrs.evolve(ran, files=files, unpublished=dropped))
    except Refused as refused:
        return Failure(refused.error)
    finally:
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(shutil.rmtree, work, True)
            if os.path.isdir(staging):
                await anyio.to_thread.run_sync(shutil.rmtree, staging, True)


HANDLERS = {ScanFirmware: scan, ExtractFirmware: extract}
