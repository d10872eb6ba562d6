"""Addresses as REA shows them: the binary's link-time virtual address, lowercase 0x hex;
other spaces as `<space>:0x<hex>`."""

from __future__ import annotations

import re

_ADDRESS = re.compile(r"^(?:(?P<space>[a-z][a-z0-9_]*):)?(?P<hex>0x[0-9a-fA-F]+|[0-9a-fA-F]+)$")


def normalize(text: str) -> str | None:
    """Canonical form of a user-supplied address (`0x401000`, `401000`, `extern:0x10`), or None."""
    match = _ADDRESS.match(text.strip())
    if match is None:
        return None
    value = int(match["hex"], 16)
    space = match["space"]
    return f"{space}:0x{value:x}" if space else f"0x{value:x}"


def hexa(value: int) -> str:
    """An address as the snapshots spell it (lowercase hex, `0x` first)."""
    return f"0x{value:x}"


def value(address: str) -> int:
    return int(address.rpartition(":")[2], 16)


def space(address: str) -> str:
    return address.rpartition(":")[0] or "ram"
