"""The wasm effect: run WABT on one module and read the glue and candidate files named beside it."""

from __future__ import annotations

import attrs

TIMEOUT_MS = 300_000
OUTPUT_BUDGET_BYTES = 64 << 20  # wasm-objdump reports; WAT streams past it into its digest
GLUE_MAX_BYTES = 16 << 20


@attrs.frozen(kw_only=True)
class InspectWasm:
    path: str
    glue_paths: tuple[str, ...]
    candidate_paths: tuple[str, ...]
    max_wat_inline_units: int
    timeout_ms: int = TIMEOUT_MS
    output_budget_bytes: int = OUTPUT_BUDGET_BYTES


@attrs.frozen(kw_only=True)
class ReadWatPage:
    """One UTF-16 window of a decoded WAT from the page cache, checked against the Evidence's index digest."""

    wat_sha256: str
    index_sha256: str
    offset: int
    limit: int
