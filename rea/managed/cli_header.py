"""Whether a PE is a .NET assembly, from the first bytes every identity read already holds."""

from __future__ import annotations


def cli_header_present(head: bytes) -> bool:
    """Whether a PE's COM descriptor (CLI header) directory is set, from the first bytes identity read.

    Data directory 14 sits within the first 512 bytes of every PE the mono, Roslyn and MSVC toolchains
    write; when the head is too short to hold it, the answer is False (not known to be managed)."""
    if len(head) < 0x40 or not head.startswith(b"MZ"):
        return False
    pe = int.from_bytes(head[0x3C:0x40], "little")
    optional = pe + 24
    if len(head) < optional + 2 or head[pe : pe + 4] != b"PE\0\0":
        return False
    magic = int.from_bytes(head[optional : optional + 2], "little")
    base = optional + {0x10B: 96, 0x20B: 112}.get(magic, 0)
    if base == optional or len(head) < base + 15 * 8:
        return False
    count = int.from_bytes(head[base - 4 : base], "little")
    return count > 14 and int.from_bytes(head[base + 14 * 8 : base + 14 * 8 + 4], "little") != 0


__all__ = ["cli_header_present"]
