"""Ghidra's per-procedure answers (listing, decompiler, signature) in the shapes the angr worker gives.

The worker hands over plain data from Instruction (getAddress, getBytes, getMnemonicString,
getDefaultOperandRepresentation), DecompileResults (decompileCompleted, isTimedOut,
getErrorMessage, getDecompiledFunction().getC()) and Function's calling convention, parameters
and return (getVariableStorage). Each function here is pure and never raises on malformed data.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Mapping
from typing import Any

from returns.result import Failure, Result, Success

from rea.errors import ReaError
from rea.native.ghidra import Raw, Space

_HEX = re.compile(r"^(?:[0-9a-fA-F]{2})+$")


def _failure(code: str, message: str, reason: str) -> ReaError:
    return ReaError(code=code, message=message, details={"provider": "ghidra", "reason": reason})


def _block_of(procedure: Mapping[str, Any]) -> Any:
    starts = sorted(int(b["start"], 16) for b in procedure.get("blocks", ()))

    def block(address: str) -> str:
        index = bisect.bisect_right(starts, int(address, 16)) - 1
        return f"0x{starts[index]:x}" if index >= 0 else str(procedure["address"])

    return block


def disassembly(raw: Raw, space: Space, procedure: Mapping[str, Any]) -> Result[dict[str, Any], ReaError]:
    """The procedure's listing: link-time addresses, hex bytes, lowercase mnemonics, Ghidra's operand text."""
    rows = raw.get("instructions") if isinstance(raw, Mapping) else None
    if not isinstance(rows, list):
        return Failure(
            _failure("unreadable_output", "Ghidra's listing answer has no instructions.", "malformed-answer")
        )
    block = _block_of(procedure)
    instructions, skipped = [], 0
    for row in rows:
        address = space.link(row.get("address")) if isinstance(row, Mapping) else None
        mnemonic = row.get("mnemonic") if isinstance(row, Mapping) else None
        data = row.get("bytes") if isinstance(row, Mapping) else None
        if address is None or ":" in address or not isinstance(mnemonic, str) or not isinstance(data, str):
            skipped += 1
            continue
        if not _HEX.match(data):
            skipped += 1
            continue
        operands = row.get("operands")
        text = ",".join(str(o) for o in operands) if isinstance(operands, list) else str(operands or "")
        instructions.append(
            {
                "address": address,
                "bytes": data.lower(),
                "mnemonic": mnemonic.lower(),
                "operands": text,
                "block": block(address),
            }
        )
    instructions.sort(key=lambda i: int(i["address"], 16))
    answer: dict[str, Any] = {"address": procedure["address"], "instructions": instructions}
    if skipped:
        answer["provider_notes"] = [f"Ghidra's answer: {skipped} malformed instruction record(s); left out."]
    return Success(answer)


def pseudocode(raw: Raw, procedure: Mapping[str, Any]) -> Result[dict[str, Any], ReaError]:
    """DecompInterface's C text, or why there is none (timed out, failed, an import without a body)."""
    if procedure.get("kind") == "external":
        return Failure(
            _failure(
                "capability_unavailable",
                f"{procedure['name']} is an import; there is no body to decompile",
                "no-body",
            )
        )
    if not isinstance(raw, Mapping):
        return Failure(
            _failure("unreadable_output", "Ghidra's decompiler answer is not an object.", "malformed-answer")
        )
    text = raw.get("c")
    if raw.get("timed_out") is True:
        return Failure(
            _failure(
                "provider_timeout",
                f"Ghidra's decompiler timed out on {procedure['name']}.",
                "decompiler-timeout",
            )
        )
    if raw.get("completed") is not True or not isinstance(text, str) or not text.strip():
        why = raw.get("error_message") if isinstance(raw.get("error_message"), str) else "no C text"
        return Failure(
            _failure(
                "execution_failure",
                f"Ghidra's decompiler produced no code for {procedure['name']}: {why}".rstrip(),
                "decompiler-empty",
            )
        )
    elapsed = raw.get("elapsed_ms")
    return Success(
        {
            "address": procedure["address"],
            "name": procedure["name"],
            "pseudocode": text,
            "elapsed_ms": elapsed if isinstance(elapsed, int) and not isinstance(elapsed, bool) else 0,
        }
    )


def _size(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _slot(row: object) -> dict[str, Any] | None:
    if not isinstance(row, Mapping):
        return None
    kind = row.get("data_type")
    storage = row.get("storage")
    return {
        "type": kind if isinstance(kind, str) else "undefined",
        "size": _size(row.get("length")),
        "storage": storage if isinstance(storage, str) else None,
    }


def boundary(raw: Raw, procedure: Mapping[str, Any]) -> Result[dict[str, Any], ReaError]:
    """The calling boundary Ghidra's analysis holds (convention, parameters with storage, return)."""
    if not isinstance(raw, Mapping) or not isinstance(raw.get("parameters"), list):
        return Failure(
            _failure("capability_unavailable", f"Ghidra gave no signature for {procedure['name']}", "no-prototype")
        )
    parameters = []
    for row in raw["parameters"]:
        slot = _slot(row)
        if slot is None:
            continue
        name = row.get("name")
        parameters.append({"name": name if isinstance(name, str) else None, **slot})
    convention = raw.get("calling_convention")
    returned = _slot(raw.get("return"))
    if returned is not None and returned["type"] == "void":
        returned = None
    return Success(
        {
            "name": procedure["name"],
            "calling_convention": convention if isinstance(convention, str) else "unknown",
            "parameters": parameters,
            "return": returned,
            "jump_tables": [],
        }
    )
