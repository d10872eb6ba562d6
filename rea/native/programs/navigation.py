"""The native navigation programs: the cursor (headless providers check and normalize an address), the
macOS-only user-interface tools (typed unavailability on this host) and a DWARF data type."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rea.effect_types import ToolProgram
from rea.errors import ReaError, invalid_request
from rea.native import image
from rea.native import queries as q
from rea.native.addresses import value
from rea.native.effects import ReadDwarfType
from rea.native.programs.memory import _boundaries
from rea.native.programs.surface_steps import NO_CURSOR, Args, Steps, _answer, _mapped, _resolved, _snapshot
from rea.native.records import arguments as wa
from rea.native.records import surface as w
from rea.native.records.surface import DataTypeArgs
from rea.program import Context, Outcome, failed, need, refusable, refuse, typed
from rea.session import Session
from rea.wire.convert import to_wire

# -------------------------------------------------------------- navigation


@typed
@refusable
def goto_address(session: Session, args: wa.AddressArgs, ctx: Context) -> Steps:
    params = to_wire(args)
    snapshot = yield from _snapshot(session, params, "loader")
    where = yield from _mapped(session, snapshot, args.address)
    return _answer(session, snapshot, "goto_address", params, where, NO_CURSOR, at=where)


def _stepper(name: str, step: int) -> ToolProgram:
    """The next/previous instruction start inside a procedure (the engine's disassembly); a byte away elsewhere."""

    @refusable
    def program(session: Session, args: Args, ctx: Context) -> Steps:
        snapshot = yield from _snapshot(session, args, "index")
        where = yield from _mapped(session, snapshot, args.get("address"))
        at, proc = value(where), q.containing(snapshot, where)
        starts = (yield from _boundaries(session, snapshot, proc)) if proc else None
        if starts:
            after = [s for s in starts if s > at] if step > 0 else [s for s in starts if s < at]
            if after:
                found = min(after) if step > 0 else max(after)
                return _answer(
                    session,
                    snapshot,
                    name,
                    args,
                    image.hexa(found),
                    "Instruction starts from the engine's disassembly.",
                    at=where,
                )
            return _answer(
                session,
                snapshot,
                name,
                args,
                image.hexa(at + step),
                "At the procedure's edge: one byte away.",
                at=where,
            )
        return _answer(
            session,
            snapshot,
            name,
            args,
            image.hexa(max(0, at + step)),
            "Outside any procedure: one byte away.",
            at=where,
        )

    program.__name__ = name
    return program


PROGRAMS: Mapping[str, ToolProgram] = {
    "goto_address": goto_address,
    "next_address": _stepper("next_address", 1),
    "prev_address": _stepper("prev_address", -1),
}


def _macos_only(name: str) -> ToolProgram:
    """Typed unavailability: the UI tools need macOS accessibility (and Hopper's IB metadata)."""

    def program(session: Session, args: Args, ctx: Context) -> Outcome:
        return failed(
            session,
            ReaError(
                code="capability_unavailable",
                message=f"{name} needs macOS accessibility (and Hopper for Interface Builder metadata); "
                "this host is not macOS, so nothing was observed.",
                details={"reason": "host_unsupported", "operation": name, "platforms": ["darwin"]},
                action="Run REA on macOS with accessibility permission granted (and Hopper installed for "
                "trace_native_ui_action); on Linux, use inspect_native_instruction and analyze_function.",
            ),
        )

    program.__name__ = name
    return program


PROGRAMS = {
    **PROGRAMS,
    **{n: _macos_only(n) for n in ("observe_native_ui", "capture_native_ui_scenario", "trace_native_ui_action")},
}


def _data_type(found: Mapping[str, Any]) -> w.DataType:
    members = [w.TypeField(**m) for m in found.get("members", ())]
    return w.DataType(
        status=found["status"],
        reason=found.get("reason"),
        id=found.get("id"),
        name=found.get("name"),
        kind=found.get("kind"),
        size=found.get("size"),
        alignment=found.get("alignment"),
        packing=None,
        fields=tuple(m for m in members if m.bit_size is None),
        bitfields=tuple(m for m in members if m.bit_size is not None),
        enum_values=tuple(w.EnumValue(**e) for e in found.get("enumerators", ())),
        child_type_ids=tuple(found.get("child_type_ids", ())),
        variable=found.get("variable"),
    )


@typed
@refusable
def inspect_native_data_type(session: Session, args: DataTypeArgs, ctx: Context) -> Steps:
    params = to_wire(args)
    if (args.type is None) == (args.address is None):
        refuse(
            invalid_request(
                "inspect_native_data_type needs exactly one of type and address",
                field="type",
                accepted="type: a type name, or address: a global variable's address",
            )
        )
    snapshot = yield from _snapshot(session, params, "loader")
    address = None
    if args.address is not None:
        address = value((yield from _resolved(session, snapshot, args.address)))
    assert session.target is not None
    found: Mapping[str, Any] = yield from need(ReadDwarfType(path=session.target.path, type=args.type, address=address))
    notes_ = () if found["status"] == "found" else (str(found["reason"]),)
    at = None if address is None else image.hexa(address)
    return _answer(session, snapshot, "inspect_native_data_type", params, _data_type(found), *notes_, at=at)


PROGRAMS = {**PROGRAMS, "inspect_native_data_type": inspect_native_data_type}
