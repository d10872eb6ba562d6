"""The one resolver of what a native tool is asked about.

A tool that takes a procedure accepts it as `procedure` or as `address`, and a tool that
takes an address accepts it as `address` or `procedure`; either way the value may be a
name, an address or an engine-style `sub_<hex>` name (what Ghidra, IDA and angr call an
unnamed function). Every native program resolves through here, so the two spellings
reach the same procedure, and the same Evidence subject, everywhere.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping
from typing import Any

from returns.result import Failure, Result, Success

from rea.errors import ReaError, invalid_request
from rea.native import queries as q
from rea.native.addresses import normalize

_SUB = re.compile(r"^(?:sub|fcn|FUN)_(?:0x)?([0-9a-fA-F]+)$")
_EXPLICIT = re.compile(r"^(?:[a-z][a-z0-9_]*:)?0x[0-9a-fA-F]+$")
ACCEPTED_PROCEDURE = "a procedure name, its entry address (0x..., see list_procedures) or a sub_<hex> name"
ACCEPTED_ADDRESS = (
    "an address like 0x401000 (space:0x10 for other spaces), or a procedure or symbol name or sub_<hex> name"
)


def chosen(
    args: Mapping[str, Any], first: str = "procedure", other: str = "address"
) -> Result[tuple[str, str], ReaError]:
    """(text, field) of the subject given as `first` or as `other`: one of them, or both saying the same."""
    given = {name: args[name] for name in (first, other) if args.get(name) is not None}
    if not given:
        return Failure(
            invalid_request(
                f"Give {first} (or {other}, the same argument by its other name).",
                field=first,
                accepted=ACCEPTED_PROCEDURE,
            )
        )
    if len(given) == 2 and given[first] != given[other]:
        return Failure(
            invalid_request(
                f"{first} {given[first]!r} and {other} {given[other]!r} differ: they are one argument, give one.",
                field=other,
                accepted=f"{first} or {other}, not both with different values",
            )
        )
    name = first if first in given else other
    return Success((str(given[name]), name))


def _sub_address(text: str) -> str | None:
    match = _SUB.match(text)
    return None if match is None else f"0x{int(match[1], 16):x}"


def procedure(snapshot: Mapping[str, Any], text: str) -> Mapping[str, Any] | None:
    """The procedure `text` names: an entry address, an exact name, or a sub_<hex> name of an entry."""
    found = q.find_procedure(snapshot, text)
    if found is None and (entry := _sub_address(text)) is not None:
        found = q.by_address(snapshot).get(entry)
    return found


def close_names(snapshot: Mapping[str, Any] | None, text: str) -> list[str]:
    """Up to three procedure or symbol names spelled like `text` (a typo's likely intent), best first."""
    if snapshot is None:
        return []
    known: Iterable[str] = {p["name"] for p in q.procedures(snapshot)} | {
        str(r["name"]) for r in snapshot.get("symbols", ())
    }
    return difflib.get_close_matches(text, known, n=3)


def _not_found(
    message: str, snapshot: Mapping[str, Any] | None, text: str, field: str, accepted: str, **details: Any
) -> ReaError:
    """The canonical unknown-subject error: what would be accepted, and close names when there are any."""
    close = close_names(snapshot, text)
    hint = f" Did you mean {', '.join(close)}?" if close else ""
    extra = {"close_matches": close} if close else {}
    return invalid_request(message + hint, field=field, accepted=accepted, **details, **extra)


def resolve_procedure(snapshot: Mapping[str, Any], text: str, field: str) -> Result[Mapping[str, Any], ReaError]:
    found = procedure(snapshot, text)
    if found is None:
        return Failure(
            _not_found(
                f"No procedure starts at or is named {text!r}.",
                snapshot,
                text,
                field,
                ACCEPTED_PROCEDURE,
                reason="no-procedure",
            )
        )
    return Success(found)


def written(text: str) -> str | None:
    """The address `text` spells out (0x..., space:0x...), canonical; None when it needs the names to read."""
    return normalize(text) if _EXPLICIT.match(text.strip()) else None


def address(snapshot: Mapping[str, Any] | None, text: str) -> str | None:
    """The address `text` denotes: written as one (0x..., space:0x...), or a procedure, symbol or sub_<hex>
    name, or bare hex. A name wins over bare hex (a function called `add` is not 0xadd)."""
    if (spelled := written(text)) is not None:
        return spelled
    if snapshot is not None:
        named = q.find_procedure(snapshot, text) if normalize(text) is None else None
        named = named or next((p for p in q.procedures(snapshot) if p["name"] == text), None)
        if named is not None:
            return str(named["address"])
        symbol = next((r for r in q.names(snapshot) if r.name == text and r.address), None)
        if symbol is not None:
            return symbol.address
    return _sub_address(text) or normalize(text)


def resolve_address(snapshot: Mapping[str, Any] | None, text: str, field: str) -> Result[str, ReaError]:
    found = address(snapshot, text)
    if found is None:
        return Failure(
            _not_found(f"{text!r} is not an address or a known name.", snapshot, text, field, ACCEPTED_ADDRESS)
        )
    return Success(found)


def among(entries: Iterable[tuple[str, str | None]], text: str, field: str) -> Result[str, ReaError]:
    """The address `text` denotes among named entries (address, name) that are not a whole snapshot, such as
    the procedures of the dossiers build_call_path is given: the same rules as resolve_address."""
    procedures = [{"address": a, "name": n, "kind": "function"} for a, n in entries if n is not None]
    return resolve_address({"procedures": procedures}, text, field)
