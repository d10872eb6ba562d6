"""Contract of the WebAssembly family (inspect_wasm_artifact; views: rea.catalog.views)."""

from __future__ import annotations

import attrs

from rea.catalog.schemas import evidence_output
from rea.catalog.views import VIEW_RESULT_SCHEMA
from rea.wire.schema import schema_of
from rea.wire.tool import evidence_tool
from rea.wire.wasm import WasmArgs, WasmArtifact

INSPECT_WASM_ARTIFACT = evidence_tool(
    "inspect_wasm_artifact",
    "Inspect WASM Artifact",
    (
        "Validate a local WebAssembly module with the host's WABT (Debian wabt: wasm-validate, wasm-objdump, "
        "wasm2wat) and return Evidence: exact SHA-256, sections, WABT's import/export lines beside import, export and function records "
        "(module, name, kind, index, type signature) decoded from the bytes, function and section counts, the "
        "decoded producers (name/values), target_features, name, dylink.0 and sourceMappingURL custom sections, "
        "headers and details reports, "
        "decoded WAT with its digest and UTF-16 length (digested whole, carried inline up to "
        "max_wat_inline_units), the exact tool profile, and string literals in optional glue_paths associated "
        "with candidate_paths. Never runs the module or fetches anything. detail: summary retains the complete "
        "Evidence and returns its summary view (counts, producers, target_features); read facets with "
        "inspect_analysis_view {kind: wasm} (functions, import_records, custom_sections, ...)."
    ),
    args=WasmArgs,
    result=WasmArtifact,
    examples=[
        {"path": "/artifacts/module.wasm", "glue_paths": [], "candidate_paths": []},
        {"path": "/artifacts/module.wasm", "detail": "summary"},
    ],
    surface="artifact-provider",
    effects={"mutatesSession", "idempotent", "launchesProcess"},
)
INSPECT_WASM_ARTIFACT = attrs.evolve(
    INSPECT_WASM_ARTIFACT,
    output_schema=evidence_output({"anyOf": [schema_of(WasmArtifact), VIEW_RESULT_SCHEMA]}),
)

CLI_COMMANDS = ("inspect-wasm-artifact",)
TOOLS = (INSPECT_WASM_ARTIFACT,)
