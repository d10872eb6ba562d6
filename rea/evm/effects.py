"""The EVM family's one effect: a bytecode carrier's bytes, refused when it is not a regular file."""

from __future__ import annotations

import attrs

from rea.evm.bytecode import MAX_CARRIER_BYTES


@attrs.frozen(kw_only=True)
class ReadEvmCarrier:
    path: str
    max_bytes: int = MAX_CARRIER_BYTES


@attrs.frozen(kw_only=True)
class CarrierFacts:
    path: str
    sha256: str
    data: bytes
