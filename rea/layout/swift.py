"""demangle_swift: pair each input with swift-demangle's line and say what became of it. Pure."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import attrs

from rea.layout.macho_records import CommandProvenance, Demangled, DemangleResult

SWIFT_PREFIXES = ("$s", "_$s", "$S", "_$S", "$e", "_$e", "_T0", "_T")


@attrs.frozen(kw_only=True)
class SwiftRun:
    """DemangleSwift's answer: swift-demangle's output lines, its provenance and its error text."""

    lines: tuple[str, ...]
    provenance: CommandProvenance
    stderr: str


def demangle_result(symbols: Sequence[str], ran: SwiftRun) -> DemangleResult:
    lines = list(ran.lines)
    limitations = []
    if len(lines) != len(symbols):
        limitations.append(
            f"swift-demangle printed {len(lines)} lines for {len(symbols)} symbols: rows without a line are invalid."
        )
    rows: list[Demangled] = []
    for i, symbol in enumerate(symbols):
        output = lines[i] if i < len(lines) else symbol
        status: Literal["demangled", "unchanged", "invalid"]
        if i >= len(lines):
            status = "invalid"
        elif output != symbol:
            status = "demangled"
        else:
            status = "invalid" if symbol.startswith(SWIFT_PREFIXES) else "unchanged"
        rows.append(Demangled(input=symbol, output=output, status=status))
    if ran.provenance.exit["code"] != 0:
        limitations.append(f"swift-demangle exited with {ran.provenance.exit}: {ran.stderr[:500]}")
    return DemangleResult(symbols=tuple(rows), provenance=(ran.provenance,), limitations=tuple(limitations))
