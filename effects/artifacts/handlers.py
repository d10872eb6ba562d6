"""The artifact effects' handlers: drive one walk with cancellation checkpoints and progress, and turn what it
found (or why it failed) into facts or a canonical error."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from typing import Any

import anyio.lowlevel
from returns.result import Failure, Result, Success

from effects import fs
from effects.artifacts.streams import READ_ERRORS, IntegrityFailure
from effects.artifacts.walker import Walker
from effects.progress import Progress
from rea.artifacts.model import ExtractArtifact, ExtractionFacts, InventoryArtifact, InventoryFacts
from rea.errors import ReaError
from rea.results import either


def _failed(path: str, exc: BaseException) -> ReaError:
    if isinstance(exc, FileNotFoundError):
        return ReaError(code="target_unavailable", message=f"{path} does not exist.", details={"path": path})
    if isinstance(exc, PermissionError):
        return ReaError(
            code="target_unavailable", message=f"{path} is not readable (permission denied).", details={"path": path}
        )
    return ReaError(
        code="artifact_operation_failed",
        message=f"{path} could not be read as an artifact: {type(exc).__name__}: {exc}",
        details={"path": path, "exception": type(exc).__name__},
        action="Check that the file is a complete, supported archive (zip family, ASAR, tar, ar, "
        "directory); other files are inventoried by their root digest only.",
    )


CHECKPOINT_EVERY_S = 0.005


async def _drive(walker: Walker, progress: Progress) -> Result[None, ReaError]:
    """Checkpoint (cancellation) and report at most every 5 ms: a per-member await would cost more than
    hashing small members."""
    clock = time.perf_counter
    try:
        due = clock()
        for message in walker.steps():
            if clock() >= due:
                await anyio.lowlevel.checkpoint()
                await progress.report("inventorying artifact", message)
                due = clock() + CHECKPOINT_EVERY_S
        walker.t.digested(walker.hasher.finish())
    except IntegrityFailure as failure:
        return Failure(failure.error)  # the reference's strict details: nothing is added to them
    except READ_ERRORS as exc:
        return Failure(_failed(walker.path, exc))
    finally:
        walker.hasher.close()
    return Success(None)


def _facts(walker: Walker) -> InventoryFacts:
    return walker.t.facts(os.path.basename(walker.path.rstrip("/")) or "root")


def _known(effect: InventoryArtifact | ExtractArtifact) -> tuple[str, int] | None:
    """The root digest open_binary took, so the walk does not hash the root again."""
    return (effect.known_sha256, effect.known_size) if effect.known_sha256 and effect.known_size is not None else None


async def inventory(effect: InventoryArtifact, progress: Progress) -> Result[InventoryFacts, ReaError]:
    walker = Walker(effect.path, effect.limits, effect.integrity_policy, known=_known(effect))
    driven = await _drive(walker, progress)
    return driven.map(lambda _: _facts(walker))


def _contained(output_root: str) -> bool:
    """Nothing written under the output root is a link or resolves outside it."""
    real_root = os.path.realpath(output_root)
    contained = True
    for _, listing in fs.walk_tree(output_root):
        for entry in listing:
            if os.path.islink(entry.path) or not os.path.realpath(entry.path).startswith(real_root + os.sep):
                contained = False
    return contained


async def extract(effect: ExtractArtifact, progress: Progress) -> Result[Any, ReaError]:
    output_root = tempfile.mkdtemp(prefix="rea-extract-")
    selection = {chain: "!/".join(chain) for chain in effect.chains}
    walker = Walker(effect.path, effect.limits, effect.integrity_policy, selection, output_root, known=_known(effect))
    cancelled = anyio.get_cancelled_exc_class()
    try:
        driven = await _drive(walker, progress)
    except cancelled:
        shutil.rmtree(output_root, ignore_errors=True)
        raise
    written = driven.bind(lambda _: walker.t.all_written(effect.chains))
    return either(
        written,
        lambda _: Success(
            (
                _facts(walker),
                ExtractionFacts(
                    output_root=output_root,
                    files=tuple(walker.t.extracted),
                    containment_verified=_contained(output_root),
                ),
            )
        ),
        lambda error: _unpublished(output_root, error),
    )


def _unpublished(output_root: str, error: ReaError) -> Result[Any, ReaError]:
    """Nothing partial is published: the output root goes with the error."""
    shutil.rmtree(output_root, ignore_errors=True)
    return Failure(error)


HANDLERS = {InventoryArtifact: inventory, ExtractArtifact: extract}
