"""Read one EVM bytecode carrier: a regular file only (FIFOs and devices are refused before any open), bounded."""

from __future__ import annotations

import hashlib
import os
from typing import Any

import anyio
from returns.result import Failure, Result, Success

from effects.fs import open_path_argument
from effects.progress import Progress
from rea.errors import ReaError
from rea.evm.effects import CarrierFacts, ReadEvmCarrier


def read_carrier(effect: ReadEvmCarrier) -> Result[CarrierFacts, ReaError]:
    return open_path_argument(effect.path).bind(lambda fd: _bounded(effect, fd))


def _bounded(effect: ReadEvmCarrier, fd: int) -> Result[CarrierFacts, ReaError]:
    """The carrier's bytes, refused past max_bytes (one byte more is read to tell)."""
    path = effect.path
    with os.fdopen(fd, "rb") as handle:
        data = handle.read(effect.max_bytes + 1)
    if len(data) > effect.max_bytes:
        return Failure(
            ReaError(
                code="resource_constraint",
                message=f"{path!r} is larger than the {effect.max_bytes}-byte bytecode limit",
                details={"path": path, "limit": effect.max_bytes, "field": "path"},
                action="Select the contract's bytecode alone.",
            )
        )
    return Success(CarrierFacts(path=path, sha256=hashlib.sha256(data).hexdigest(), data=data))


async def read(effect: ReadEvmCarrier, progress: Progress) -> Result[Any, ReaError]:
    return await anyio.to_thread.run_sync(read_carrier, effect, abandon_on_cancel=True)


HANDLERS = {ReadEvmCarrier: read}
