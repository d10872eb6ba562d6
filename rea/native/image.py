"""Mapped memory and one instruction, decided from facts: which load segment holds an address,
where it sits in the file, how many bytes a read can return, and what a decoded instruction
does (flow, references, call targets). effects/native/image.py supplies the facts."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import attrs

from rea.native.addresses import hexa as hexa  # the image answers spell addresses so; kept here for its readers
from rea.native.image_facts import Decoded, LoadMap, Operand, Region
from rea.native.records import surface as w


def region(facts: LoadMap, address: int, table: str = "segments") -> Region | None:
    """The load segment (or code section, table "code") whose memory range holds `address`."""
    rows = facts.code if table == "code" else facts.segments
    return next((r for r in rows if r.vaddr <= address < r.vaddr + r.memsize), None)


def file_backed(r: Region, address: int) -> int:
    """Bytes of `r` from `address` on that come from the file (0 inside zero-fill such as .bss)."""
    return max(0, r.vaddr + r.filesize - address)


def held_by_file(facts: LoadMap, file_size: int) -> LoadMap:
    """The load map with every region's file bytes cut to what the file really holds.

    A header may claim any offset and length (a damaged or hostile file lies); a read planned
    from a claim past the end would seek outside the file, so those bytes count as not backed."""

    def cut(r: Region) -> Region:
        held = max(0, min(r.filesize, file_size - r.offset)) if 0 <= r.offset < file_size else 0
        return attrs.evolve(r, filesize=held)

    return attrs.evolve(facts, segments=tuple(map(cut, facts.segments)), code=tuple(map(cut, facts.code)))


def file_offset(r: Region, address: int) -> int:
    return r.offset + (address - r.vaddr)


MAX_CHUNK = 64 * 1024  # the most one ReadImage returns


def read_plan(facts: LoadMap, address: int, length: int) -> tuple[int, int, str | None] | None:
    """(file offset, bytes the file holds there, why fewer than asked) or None outside every segment.

    A read stops at the end of the segment's file-backed bytes; the next segment is not assumed
    contiguous."""
    r = region(facts, address)
    if r is None:
        return None
    backed = min(length, file_backed(r, address))
    reason = None
    if backed < length:
        reason = (
            "the address is in zero-filled memory (no file bytes)"
            if backed == 0
            else f"the read reached the end of {r.name}'s file-backed bytes"
        )
    return file_offset(r, address), backed, reason


# ------------------------------------------------------------------ decode

_JUMPS = ("jump",)
_CONDITIONAL_X86 = ("jmp", "ljmp")


def _components(op: Operand, bits: int) -> tuple[w.Component, ...]:
    width = op.size * 8 or None
    if op.type == "register":
        return (w.Component(kind="register", text=op.register, value=None, bit_width=width),)
    if op.type == "immediate":
        return (
            w.Component(
                kind="immediate",
                text=hexa(op.value & (2**bits - 1)),
                value=hexa(op.value & (2**bits - 1)),
                bit_width=width,
            ),
        )
    if op.type == "memory":
        parts = [
            w.Component(kind="register", text=name, value=None, bit_width=bits)
            for name in (op.base, op.index_register)
            if name
        ]
        disp = op.displacement
        parts.append(w.Component(kind="immediate", text=hex(disp), value=hexa(disp & (2**bits - 1)), bit_width=None))
        return tuple(parts)
    return (w.Component(kind="unknown", text="?", value=None, bit_width=None),)


def _pointer_slot(op: Operand, next_address: int) -> int | None:
    """The memory a [rip + disp] (or absolute [disp]) operand reads: the pointer slot of an indirect call."""
    if op.type != "memory" or op.index_register:
        return None
    if op.base == "rip":
        return next_address + op.displacement
    if op.base is None:
        return op.displacement
    return None


def flow_of(decoded: Decoded, address: int) -> tuple[w.Flow, str]:
    """The instruction's control flow and its mechanism (direct/indirect/computed/unavailable)."""
    groups = set(decoded.groups)
    mnemonic = decoded.mnemonic
    ops = decoded.operands
    kind = (
        "call"
        if "call" in groups
        else "return"
        if "ret" in groups or "iret" in groups
        else "jump"
        if "jump" in groups
        else "terminal"
        if mnemonic in ("hlt", "ud2", "int3")
        else "fallthrough"
    )
    conditional = kind == "jump" and mnemonic not in _CONDITIONAL_X86 and mnemonic not in ("b", "br")
    direct: tuple[str, ...] = ()
    mechanism = "unavailable"
    if kind in ("call", "jump") and ops:
        first = ops[0]
        if first.type == "immediate":
            direct, mechanism = (hexa(first.value),), "direct"
        elif first.type == "memory":
            mechanism = "indirect"
        else:
            mechanism = "computed"
    evidence = (
        w.ClassificationFact(source="capstone.groups", value=",".join(sorted(groups)) or "none"),
        w.ClassificationFact(source="capstone.mnemonic", value=mnemonic),
    )
    return (
        w.Flow(
            kind=kind,  # type: ignore[arg-type]
            conditional=conditional,
            computed=mechanism in ("indirect", "computed"),
            direct_destinations=direct,
            classification_evidence=evidence,
        ),
        mechanism,
    )


def references(decoded: Decoded, address: int, flow: w.Flow) -> list[w.Reference]:
    """Addresses the instruction encodes: branch destinations, pointer slots and rip-relative data."""
    out: list[w.Reference] = []
    source = hexa(address)
    following = address + decoded.size
    for op in decoded.operands:
        branch = flow.kind in ("call", "jump") and op.index == 0
        if op.type == "immediate" and branch:
            out.append(_ref(hexa(op.value), flow.kind, flow.kind, False, False, op.index, source))
        slot = _pointer_slot(op, following)
        if slot is not None and (op.base == "rip" or branch):
            kind = f"indirect-{flow.kind}" if branch else "data"
            out.append(_ref(hexa(slot), kind, flow.kind if branch else "", branch, branch, op.index, source))
    return out


def _ref(
    target: str, kind: str, role: str, indirect: bool, computed: bool, index: int, source: str, by: str = "capstone"
) -> w.Reference:
    return w.Reference(
        target_address=target,
        type=kind,
        call=role == "call",
        jump=role == "jump",
        indirect=indirect,
        computed=computed,
        operand_index=index,
        source_address=source,
        provenance=by,
    )


def operands(decoded: Decoded, bits: int) -> tuple[w.Operand, ...]:
    texts = decoded.operand_texts
    return tuple(
        w.Operand(
            index=op.index,
            raw=texts[op.index] if op.index < len(texts) else decoded.op_str,
            provider_type=op.provider_type,
            components=_components(op, bits),
            memory_addressing="unavailable",
        )
        for op in decoded.operands
    )


NO_FLOW = w.Flow(
    kind="unavailable", conditional=False, computed=False, direct_destinations=(), classification_evidence=()
)


def undecoded(
    address: str, status: str, procedure: str | None, architecture: str, mode: str, limitations: tuple[str, ...]
) -> w.InstructionFacts:
    return w.InstructionFacts(
        address=address,
        status=status,  # type: ignore[arg-type]
        procedure=procedure,
        architecture=architecture,
        mode=mode,
        bytes=None,
        length=None,
        mnemonic=None,
        raw_disassembly=None,
        operands=(),
        flow=NO_FLOW,
        references=(),
        limitations=limitations,
    )


def instruction(
    decoded: Decoded,
    address: int,
    procedure: str | None,
    architecture: str,
    bits: int,
    extra: Sequence[w.Reference],
    limitations: tuple[str, ...],
) -> w.InstructionFacts:
    flow, _ = flow_of(decoded, address)
    own = references(decoded, address, flow)
    seen = {(r.target_address, r.type) for r in own}
    merged = own + [r for r in extra if (r.target_address, r.type) not in seen]
    return w.InstructionFacts(
        address=hexa(address),
        status="decoded",
        procedure=procedure,
        architecture=architecture,
        mode=decoded.mode,
        bytes=decoded.data_hex,
        length=decoded.size,
        mnemonic=decoded.mnemonic,
        raw_disassembly=f"{decoded.mnemonic} {decoded.op_str}".strip(),
        operands=operands(decoded, bits),
        flow=flow,
        references=tuple(merged),
        limitations=limitations,
    )


def call_targets(
    facts: w.InstructionFacts,
    mechanism: str,
    analysed: Sequence[str],
    names: Mapping[str, str],
    limitations: tuple[str, ...],
) -> w.CallTargets:
    """Direct when the instruction encodes it; resolved-indirect when the analysis found exactly one
    target for an indirect call; ambiguous for several; unresolved for none."""
    base = dict(call_site=facts.address, procedure=facts.procedure, mechanism=mechanism, limitations=limitations)
    if facts.flow.kind != "call":
        return w.CallTargets(**base, status="not-call", targets=())  # type: ignore[arg-type]
    if mechanism == "direct":
        target = facts.flow.direct_destinations[0]
        refs = tuple(r for r in facts.references if r.target_address == target)
        row = w.CallTarget(
            address=target, procedure=names.get(target), status="direct", basis="provider-reference", references=refs
        )
        return w.CallTargets(**base, status="direct", targets=(row,))  # type: ignore[arg-type]
    slot_refs = tuple(r for r in facts.references if r.call and r.indirect)
    rows = tuple(
        w.CallTarget(
            address=t,
            procedure=names.get(t),
            status="resolved-indirect" if len(analysed) == 1 else "candidate",
            basis="provider-reference",
            references=(
                *slot_refs,
                _ref(t, "call", "call", True, True, -1, facts.address, "angr CFGFast"),
            ),
        )
        for t in analysed
    )
    status = "unresolved" if not rows else "resolved-indirect" if len(rows) == 1 else "ambiguous"
    return w.CallTargets(**base, status=status, targets=rows)  # type: ignore[arg-type]
