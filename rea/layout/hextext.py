"""How the layout writes numbers: hex text, two's complement in 64 bits. Shared by the result builder and the
hardening indicators, so neither owns the other's formatting."""

from __future__ import annotations

MASK64 = (1 << 64) - 1


def hx(value: int) -> str:
    return f"0x{value & MASK64:x}"


def opt_hex(value: int | None) -> str | None:
    return None if value is None else hx(value)
