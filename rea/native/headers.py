"""What the first bytes of a target say before angr's loader sees it: a Mach-O bundle (which CLE
refuses, though it is laid out as a dylib) and PE machines CLE cannot map (ARM64 and its variants)."""

from __future__ import annotations

import struct

import attrs

MH_DYLIB, MH_BUNDLE = 6, 8
THIN_MACHO = {b"\xfe\xed\xfa\xce": ">", b"\xfe\xed\xfa\xcf": ">", b"\xce\xfa\xed\xfe": "<", b"\xcf\xfa\xed\xfe": "<"}
# IMAGE_FILE_MACHINE_* values angr's PE loader has no architecture for, with their names
UNSUPPORTED_PE_MACHINES = {0xAA64: "ARM64", 0xA641: "ARM64EC", 0xA64E: "ARM64X", 0x01C4: "ARMNT", 0x5064: "RISCV64"}


@attrs.frozen(kw_only=True)
class Probe:
    bundle_filetype_at: int | None = None  # offset of a MH_BUNDLE filetype word to load as MH_DYLIB
    bundle_order: str = "<"
    pe_machine: str | None = None  # an unsupported PE machine's name


def probe(head: bytes) -> Probe:
    """Facts from the first bytes (4 KiB is plenty); anything unrecognised says nothing."""
    order = THIN_MACHO.get(head[:4])
    if order is not None and len(head) >= 16:
        if struct.unpack_from(order + "I", head, 12)[0] == MH_BUNDLE:
            return Probe(bundle_filetype_at=12, bundle_order=order)
        return Probe()
    if head[:2] == b"MZ" and len(head) >= 0x40:
        at = struct.unpack_from("<I", head, 0x3C)[0]
        if at + 6 <= len(head) and head[at : at + 4] == b"PE\x00\x00":
            machine = struct.unpack_from("<H", head, at + 4)[0]
            return Probe(pe_machine=UNSUPPORTED_PE_MACHINES.get(machine))
    return Probe()


def as_dylib(image: bytes, found: Probe) -> bytes:
    """The bundle's bytes with its filetype word saying MH_DYLIB: the same segments and commands."""
    assert found.bundle_filetype_at is not None
    at = found.bundle_filetype_at
    return image[:at] + struct.pack(found.bundle_order + "I", MH_DYLIB) + image[at + 4 :]
