"""The hardening indicators a binary layout reports, decided from reader facts alone (effects.layout only reads):
position independence, NX and executable stack for every format; RELRO, CET and ARM BTI/PAC for ELF; DLL
characteristics, Control Flow Guard and SafeSEH for PE; header flags, code signature and hardened runtime for
Mach-O; stack-canary and FORTIFY indicators from the names the image defines or imports."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Literal

import attrs

from rea.layout import names as n
from rea.layout import records as r
from rea.layout.hextext import hx, opt_hex
from rea.layout.macho_names import CS_RUNTIME, MH_ALLOW_STACK_EXECUTION, MH_NO_HEAP_EXECUTION, MH_PIE

Row = Mapping[str, Any]


def _referenced(facts: Row) -> set[str]:
    """Symbol names the image defines or imports (bare of leading underscores)."""
    found = {n.bare(s["name"]["display"]) for s in facts["symbols"]}
    for extra in (facts["pe"], facts["macho"]):
        if extra is not None:
            found.update(n.bare(x) for x in extra["imported_names"])
    found.update(n.bare(s["name"]) for s in facts["import_slots"] if s["name"])
    return found


def _fortified(names: set[str]) -> tuple[str, ...]:
    return tuple(sorted(x for x in names if x.endswith("_chk") and not x.startswith("stack_chk")))


@attrs.frozen(kw_only=True)
class _Indicators:
    """What one format's headers indicate; the shared symbol indicators are added by `mitigations`."""

    position_independent: bool
    nx_indicator: bool | None
    executable_stack_indicator: bool
    relro: Literal["Partial", "Full"] | None = None
    cet: r.CetFeatures | None = None
    arm: r.ArmFeatures | None = None
    pe: r.PeMitigations | None = None
    macho: r.MachoMitigations | None = None


def _elf_mitigations(facts: Row) -> _Indicators:
    by_type = {s["type"]: s for s in facts["segments"]}
    stack = by_type.get(n.PT_GNU_STACK)
    flags = facts["dynamic_flags"] or {"FLAGS": 0, "FLAGS_1": 0, "BIND_NOW": False}
    bind_now = flags["BIND_NOW"] or bool(flags["FLAGS"] & n.DF_BIND_NOW) or bool(flags["FLAGS_1"] & n.DF_1_NOW)
    relro: Literal["Partial", "Full"] | None = (
        None if n.PT_GNU_RELRO not in by_type else ("Full" if bind_now else "Partial")
    )
    props = facts["gnu_properties"]
    machine = facts["machine_number"]
    x86 = props.get(n.X86_FEATURE_1_AND) if machine in (n.EM_X86_64, n.EM_386) else None
    arm = props.get(n.AARCH64_FEATURE_1_AND) if machine == n.EM_AARCH64 else None
    return _Indicators(
        position_independent=facts["image_type"] == "ET_DYN",
        nx_indicator=None if stack is None else not stack["flags"] & n.PF_X,
        executable_stack_indicator=stack is not None and bool(stack["flags"] & n.PF_X),
        relro=relro,
        cet=None if x86 is None else r.CetFeatures(ibt=bool(x86 & 1), shstk=bool(x86 & 2)),
        arm=None if arm is None else r.ArmFeatures(bti=bool(arm & 1), pac=bool(arm & 2)),
    )


def _pe_mitigations(facts: Row) -> _Indicators:
    pe = facts["pe"]
    chars = pe["dll_characteristics"]
    guard = pe["guard_flags"]
    return _Indicators(
        position_independent=bool(chars & n.DYNAMIC_BASE) and pe["has_relocations"],
        nx_indicator=bool(chars & n.NX_COMPAT),
        executable_stack_indicator=not chars & n.NX_COMPAT,
        pe=r.PeMitigations(
            dll_characteristics=hx(chars),
            flags=tuple(f"IMAGE_DLLCHARACTERISTICS_{v}" for k, v in sorted(n.DLL_CHARACTERISTICS.items()) if chars & k),
            guard_flags=opt_hex(guard),
            control_flow_guard=bool(chars & n.GUARD_CF)
            and guard is not None
            and bool(guard & n.IMAGE_GUARD_CF_INSTRUMENTED),
            safe_seh=pe["safe_seh"],
        ),
    )


def _macho_mitigations(facts: Row) -> _Indicators:
    m = facts["macho"]
    flags = m["flags"]
    cs = m["cs_flags"]
    return _Indicators(
        position_independent=bool(flags & MH_PIE) or facts["image_type"] in ("MH_DYLIB", "MH_BUNDLE"),
        nx_indicator=not flags & MH_ALLOW_STACK_EXECUTION,
        executable_stack_indicator=bool(flags & MH_ALLOW_STACK_EXECUTION),
        macho=r.MachoMitigations(
            header_flags=tuple(m["flag_names"]),
            pie=bool(flags & MH_PIE),
            allow_stack_execution=bool(flags & MH_ALLOW_STACK_EXECUTION),
            no_heap_execution=bool(flags & MH_NO_HEAP_EXECUTION),
            code_signature=m["code_signature"],
            hardened_runtime=None if cs is None else bool(cs & CS_RUNTIME),
        ),
    )


_MITIGATIONS: Mapping[str, Callable[[Row], _Indicators]] = {
    "elf": _elf_mitigations,
    "pe": _pe_mitigations,
    "macho": _macho_mitigations,
}


def mitigations(facts: Row) -> r.Mitigations:
    names = _referenced(facts)
    found = _MITIGATIONS[facts["format"]](facts)
    return r.Mitigations(
        evidence_kind="inferred",
        position_independent=found.position_independent,
        nx_indicator=found.nx_indicator,
        executable_stack_indicator=found.executable_stack_indicator,
        stack_canary_indicator=bool(names & {n.bare(x) for x in n.CANARY_SYMBOLS}),
        relro=found.relro,
        fortify_symbols=_fortified(names),
        cet=found.cet,
        arm=found.arm,
        pe=found.pe,
        macho=found.macho,
    )
