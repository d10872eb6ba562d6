"""The target file as mapped memory: lief reads its load map (virtual ranges with file offsets),
the file gives bytes, capstone decodes one instruction. Facts only; rea/native/image.py decides."""

from __future__ import annotations

import os
from typing import Any

import anyio
import attrs
import capstone
import lief
from returns.result import Failure, Result, Success

from effects.progress import Progress
from rea.errors import ReaError
from rea.native import image
from rea.native.effects import ReadImage
from rea.native.image import MAX_CHUNK
from rea.native.image_facts import Decoded, ImageRead, LoadMap, Operand, Region

_MAPS: dict[tuple[str, str], LoadMap] = {}
MAX_READ = MAX_CHUNK

_ELF_ARCH = {"X86_64": ("x86", 64), "I386": ("x86", 32), "AARCH64": ("arm64", 64), "ARM": ("arm", 32)}
_CS = {
    ("x86", 64): (capstone.CS_ARCH_X86, capstone.CS_MODE_64, "x86-64"),
    ("x86", 32): (capstone.CS_ARCH_X86, capstone.CS_MODE_32, "x86-32"),
    ("arm64", 64): (capstone.CS_ARCH_ARM64, capstone.CS_MODE_ARM, "arm64"),
    ("arm", 32): (capstone.CS_ARCH_ARM, capstone.CS_MODE_ARM, "arm"),
}


def _region(name: str, vaddr: int, memsize: int, offset: int, filesize: int, r: bool, w: bool, x: bool) -> Region:
    return Region(
        name=name,
        vaddr=vaddr,
        memsize=memsize,
        offset=offset,
        filesize=filesize,
        readable=r,
        writable=w,
        executable=x,
    )


def _elf(binary: Any) -> LoadMap:
    arch, bits = _ELF_ARCH.get(str(binary.header.machine_type).rpartition(".")[2], ("unknown", 0))
    load = lief.ELF.Segment.TYPE.LOAD
    flags = lief.ELF.Segment.FLAGS
    segments = tuple(
        _region(
            f"segment_{i}",
            s.virtual_address,
            s.virtual_size,
            s.file_offset,
            s.physical_size,
            s.has(flags.R),
            s.has(flags.W),
            s.has(flags.X),
        )
        for i, s in enumerate(binary.segments)
        if s.type == load
    )
    code = tuple(
        _region(s.name, s.virtual_address, s.size, s.file_offset, s.size, True, False, True)
        for s in binary.sections
        if s.has(lief.ELF.Section.FLAGS.EXECINSTR) and s.virtual_address and s.size
    )
    return LoadMap(format="elf", architecture=arch, bits=bits, segments=segments, code=code)


def _pe(binary: Any) -> LoadMap:
    base = binary.optional_header.imagebase
    machine = str(binary.header.machine).rpartition(".")[2]
    arch, bits = {"AMD64": ("x86", 64), "I386": ("x86", 32), "ARM64": ("arm64", 64)}.get(machine, ("unknown", 0))
    chars = lief.PE.Section.CHARACTERISTICS
    segments = tuple(
        _region(
            s.name,
            base + s.virtual_address,
            s.virtual_size,
            s.pointerto_raw_data,
            min(s.sizeof_raw_data, s.virtual_size or s.sizeof_raw_data),
            s.has_characteristic(chars.MEM_READ),
            s.has_characteristic(chars.MEM_WRITE),
            s.has_characteristic(chars.MEM_EXECUTE),
        )
        for s in binary.sections
    )
    return LoadMap(format="pe", architecture=arch, bits=bits, segments=segments)


def _load_map(path: str) -> Result[LoadMap, ReaError]:
    try:
        binary = lief.parse(path)
        size = os.path.getsize(path)
        if isinstance(binary, lief.ELF.Binary):
            return Success(image.held_by_file(_elf(binary), size))
        if isinstance(binary, lief.PE.Binary):
            return Success(image.held_by_file(_pe(binary), size))
    except Exception as exc:  # lief raises many types on damaged tables  # noqa: BLE001
        return Failure(
            ReaError(
                code="target_unavailable",
                message=f"The target's load map cannot be read: {type(exc).__name__}: {exc}",
                details={"reason": "unreadable_load_map"},
                action="Check that the file is a complete ELF or PE binary, then reopen it.",
            )
        )
    return Failure(
        ReaError(
            code="capability_unavailable",
            message="read_bytes and instruction decoding read ELF and PE load maps; this target is neither.",
            details={"reason": "unsupported_format"},
            action="Open an ELF or PE binary, or use procedure_assembly for what the engine disassembled.",
        )
    )


def _read(path: str, offset: int, length: int) -> bytes:
    with open(path, "rb") as handle:
        handle.seek(offset)
        return handle.read(min(length, MAX_READ))


def _operand(insn: Any, index: int, op: Any) -> Operand:
    kind = {capstone.CS_OP_REG: "register", capstone.CS_OP_IMM: "immediate", capstone.CS_OP_MEM: "memory"}.get(
        op.type, "unknown"
    )
    common = Operand(index=index, type=kind, provider_type=int(op.type), size=getattr(op, "size", 0))
    if kind == "register":
        return attrs.evolve(common, register=insn.reg_name(op.reg))
    if kind == "immediate":
        return attrs.evolve(common, value=int(op.imm))
    if kind == "memory":
        mem = op.mem
        return attrs.evolve(
            common,
            base=insn.reg_name(mem.base) if mem.base else None,
            index_register=insn.reg_name(mem.index) if getattr(mem, "index", 0) else None,
            displacement=int(mem.disp),
        )
    return common


def _decode(arch: str, bits: int, data: bytes, address: int) -> Decoded:
    mode = _CS.get((arch, bits))
    if mode is None:
        return Decoded(status="unsupported", mode=f"{arch}-{bits}")
    md = capstone.Cs(mode[0], mode[1])
    md.detail = True
    insn = next(md.disasm(data, address, 1), None)
    if insn is None:
        return Decoded(status="undecodable", mode=mode[2])
    groups = {insn.group_name(g) for g in insn.groups}
    return Decoded(
        status="decoded",
        mode=mode[2],
        size=insn.size,
        data_hex=bytes(insn.bytes).hex(),
        mnemonic=insn.mnemonic,
        op_str=insn.op_str,
        groups=tuple(sorted(g for g in groups if g)),
        operands=tuple(_operand(insn, i, op) for i, op in enumerate(insn.operands)),
        operand_texts=tuple(t.strip() for t in insn.op_str.split(",")) if insn.op_str else (),
    )


def _image(effect: ReadImage) -> Result[ImageRead, ReaError]:
    """The target's load map (read once per file and digest), with the bytes and decoding asked for."""
    key = (effect.path, effect.sha256)
    facts = _MAPS.get(key)
    if facts is not None:
        return Success(_read_at(effect, facts))
    return _load_map(effect.path).map(lambda loaded: _read_at(effect, _MAPS.setdefault(key, loaded)))


def _read_at(effect: ReadImage, facts: LoadMap) -> ImageRead:
    if effect.length <= 0:
        return ImageRead(load_map=facts)
    data = _read(effect.path, effect.file_offset, effect.length)
    decoded = _decode(facts.architecture, facts.bits, data, effect.address) if effect.decode else None
    return ImageRead(load_map=facts, bytes_hex=data.hex(), decoded=decoded)


async def _read_image(effect: ReadImage, progress: Progress) -> Result[Any, ReaError]:
    try:
        return await anyio.to_thread.run_sync(_image, effect)
    except OSError as exc:
        return Failure(
            ReaError(
                code="artifact_operation_failed",
                message=f"The target file cannot be read: {exc}",
                details={"reason": "image_read_failed"},
                action="Check that the file still exists and is readable, then reopen it.",
            )
        )


HANDLERS = {ReadImage: _read_image}
