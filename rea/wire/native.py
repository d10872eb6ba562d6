"""Wire records of the native family: REA 6.x argument and result shapes.

Field names, types and enums follow the reference (officialToolContracts,
enhancedInputs, toolOutputSchemaGroups, hopperValues); our extras are optional
arguments or additional result fields, never a different shape for a shared name.
"""

from __future__ import annotations

from typing import Literal

import attrs

from rea.wire.schema import field

_DOCUMENT = "The open target's name or path (headless providers have one document)"
_PROCEDURE = "Procedure start address (0x...) or exact name"
_ADDRESS = "Link-time virtual address, 0x hex (other spaces as space:0x...)"


# ------------------------------------------------------------------ arguments


@attrs.frozen(kw_only=True)
class DocumentArgs:
    document: str | None = field(_DOCUMENT, omit_none=True, minLength=1)


@attrs.frozen(kw_only=True)
class ProcedureArgs:
    procedure: str = field(_PROCEDURE, minLength=1)
    document: str | None = field(_DOCUMENT, omit_none=True, minLength=1)


@attrs.frozen(kw_only=True)
class ListingArgs:
    """A complete listing by default (the reference's answer); offset/limit page it when asked."""

    document: str | None = field(_DOCUMENT, omit_none=True, minLength=1)
    offset: int = field("First item to return (our extra; default 0)", default=0, minimum=0, maximum=2**53 - 1)
    limit: int | None = field(
        "Items to return (our extra; default: all of them)", omit_none=True, minimum=1, maximum=2**53 - 1
    )


# -------------------------------------------------------------------- results


@attrs.frozen(kw_only=True)
class ProcedureFlags:
    external: bool = field("An import: its body is outside this binary")
    thunk: bool = field("A jump stub to another procedure")
    thunk_target: str | None = field("The address a thunk jumps to, when known")


@attrs.frozen(kw_only=True)
class ProcedureRow:
    """list_procedures: `value` is the name, as the reference names it."""

    address: str = field("Entry address")
    value: str = field("Procedure name")
    procedure: ProcedureFlags | None = field("Kind facts", omit_none=True)
    kind: Literal["function", "thunk", "external"] = field("Our classification (extra)")
    size: int = field("Bytes covered by the procedure's blocks (extra)", minimum=0)
