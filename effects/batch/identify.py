"""Inputs to identified items: walk directories (sorted, links not followed), read manifests,
then hash and classify every file with the one target identification open_binary uses."""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence

import anyio
from returns.result import Failure, Result, Success

from effects import fs
from rea.batch.inputs import MANIFEST_PREFIX, manifest_paths
from rea.batch.items import Identified
from rea.errors import ReaError, invalid_request
from rea.results import all_of, either

MAX_MANIFEST_BYTES = 64 << 20


def _walk(root: str) -> list[str]:
    found = []
    for _, listing in fs.walk_tree(root):
        for entry in listing:
            if entry.points_to_directory:
                continue
            if entry.info is None:
                raise entry.error or OSError(entry.path)
            if stat.S_ISREG(entry.info.st_mode):  # links, FIFOs and devices are never opened
                found.append(entry.path)
    return found


def _manifest(path: str) -> Result[list[str], ReaError]:
    try:
        with open(path, "rb") as handle:
            text = handle.read(MAX_MANIFEST_BYTES + 1)
    except OSError as exc:
        return Failure(
            invalid_request(
                f"the manifest {path!r} cannot be read: {exc.strerror or exc}",
                field="inputs",
                accepted="@FILE naming a readable list of paths",
            )
        )
    if len(text) > MAX_MANIFEST_BYTES:
        return Failure(
            invalid_request(
                f"the manifest {path!r} is larger than {MAX_MANIFEST_BYTES} bytes",
                field="inputs",
                accepted="a manifest of at most 64 MiB",
            )
        )
    return manifest_paths(text.decode("utf-8", "surrogateescape"), path)


def expand(inputs: Sequence[str]) -> Result[list[str], ReaError]:
    """Every file the inputs name, absolute, each once, in sorted order."""
    paths: set[str] = set()
    # each input in turn (a generator: the first refusal ends the expansion, as a loop returning on it)
    return all_of(_expand_one(raw, paths) for raw in inputs).map(lambda _: sorted(paths))


def _expand_one(raw: str, paths: set[str]) -> Result[None, ReaError]:
    """Add the files one input names to `paths` (a manifest's entries, a directory's tree, or the file)."""
    named = _manifest(os.path.abspath(raw[1:])) if raw.startswith(MANIFEST_PREFIX) else Success([os.path.abspath(raw)])
    return named.bind(lambda candidates: _add(raw, candidates, paths))


def _add(raw: str, candidates: list[str], paths: set[str]) -> Result[None, ReaError]:
    for path in candidates:
        if os.path.isdir(path) and not os.path.islink(path):
            paths.update(_walk(path))
        elif os.path.lexists(path) or raw.startswith(MANIFEST_PREFIX):
            paths.add(path)  # a missing manifest entry becomes that item's failure, not the batch's
        else:
            return Failure(
                invalid_request(
                    f"{raw!r} does not exist",
                    field="inputs",
                    accepted="existing files, directories or @manifest files",
                )
            )
    return Success(None)


async def quiet(phase: str, message: str) -> None:
    """A progress report nobody reads: the batch's own bar counts items, not bytes."""


def identify_one(path: str) -> Identified:
    facts = anyio.run(fs.identify_target, path, quiet)
    return either(
        facts,
        lambda f: Identified(path=path, sha256=f.sha256, size=f.size, format=f.format, managed=f.managed),
        lambda error: Identified(path=path, error=error.to_json()),
    )
