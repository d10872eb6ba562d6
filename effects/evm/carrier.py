"""Read one EVM bytecode carrier: a regular file only (FIFOs and devices are refused before any open), bounded."""

from __future__ import annotations

import hashlib
import os
from typing import Any

import anyio
from returns.result import Failure, Result, Success

from effects.fs import NotRegular, open_regular
from effects.progress import Progress
from rea.errors import ReaError, invalid_request
from rea.evm.effects import CarrierFacts, ReadEvmCarrier


def read_carrier(effect: ReadEvmCarrier) -> Result[CarrierFacts, ReaError]:
    path = effect.path
    try:
        fd = open_regular(path)
    except FileNotFoundError:
        return Failure(invalid_request(f"{path!r} does not exist", field="path", accepted="an existing file"))
    except NotRegular:
        return Failure(invalid_request(f"{path!r} is not a regular file", field="path", accepted="a regular file"))
    except OSError as exc:
        return Failure(invalid_request(f"{path!r} cannot be read: {exc.strerror or exc}", field="path"))
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
