"""demangle_swift: pair each input with swift-demangle's line and say what became of it. Pure."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

SWIFT_PREFIXES = ("$s", "_$s", "$S", "_$S", "$e", "_$e", "_T0", "_T")


def demangle_result(symbols: Sequence[str], ran: Mapping[str, Any]) -> dict[str, Any]:
    lines = list(ran["lines"])
    limitations = []
    if len(lines) != len(symbols):
        limitations.append(
            f"swift-demangle printed {len(lines)} lines for {len(symbols)} symbols: rows without a line are invalid."
        )
    rows = []
    for i, symbol in enumerate(symbols):
        output = lines[i] if i < len(lines) else symbol
        if i >= len(lines):
            status = "invalid"
        elif output != symbol:
            status = "demangled"
        else:
            status = "invalid" if symbol.startswith(SWIFT_PREFIXES) else "unchanged"
        rows.append({"input": symbol, "output": output, "status": status})
    if ran["provenance"]["exit"]["code"] != 0:
        limitations.append(f"swift-demangle exited with {ran['provenance']['exit']}: {ran['stderr'][:500]}")
    return {"symbols": rows, "provenance": [ran["provenance"]], "limitations": limitations}
