"""Contract of the WebAssembly family (inspect_wasm_artifact; views: rea.views.contract)."""

from __future__ import annotations

import attrs

from rea.catalog.cli import Alias, Command, Positional
from rea.catalog.schemas import evidence_output
from rea.views.contract import VIEW_RESULT_SCHEMA
from rea.wasm import text
from rea.wasm.records import WasmArgs, WasmArtifact
from rea.wire.schema import schema_of
from rea.wire.tool import evidence_tool

INSPECT_WASM_ARTIFACT = evidence_tool(
    "inspect_wasm_artifact",
    "Inspect WASM Artifact",
    (
        "Validate a local WebAssembly module with WABT (wasm-validate, wasm-objdump, wasm2wat) and return "
        "Evidence: SHA-256, sections, import, export and function records with type signatures, "
        "producers, target_features, name, dylink.0 and sourceMappingURL custom sections, headers and "
        "details reports, WAT with its digest (inline up to max_wat_inline_units) and the string literals "
        "of optional glue_paths. Never runs the module. Complete by default; detail: summary returns "
        "counts, producers and target_features, then read facets with inspect_analysis_view {kind: wasm}."
    ),
    args=WasmArgs,
    result=WasmArtifact,
    examples=[
        {"path": "/artifacts/module.wasm", "glue_paths": [], "candidate_paths": []},
        {"path": "/artifacts/module.wasm", "detail": "summary"},
    ],
    surface="artifact-provider",
    effects={"mutatesSession", "idempotent", "launchesProcess"},
    cli=Command(
        name="inspect-wasm-artifact",
        help="validate a WebAssembly module with WABT: sections, imports, exports, custom sections, decoded WAT",
        positionals=(Positional(argument="path", help="WebAssembly module"),),
        aliases=(
            Alias(
                option="--glue",
                argument="glue_paths",
                repeat=True,
                path=True,
                help="JavaScript glue file (repeatable, at most 16)",
            ),
            Alias(
                option="--candidate",
                argument="candidate_paths",
                repeat=True,
                path=True,
                help="candidate file (repeatable, at most 16)",
            ),
        ),
        defaults={"glue_paths": [], "candidate_paths": []},
        render=text.render,
    ),
)
INSPECT_WASM_ARTIFACT = attrs.evolve(
    INSPECT_WASM_ARTIFACT,
    output_schema=evidence_output({"anyOf": [schema_of(WasmArtifact), VIEW_RESULT_SCHEMA]}),
)

TOOLS = (INSPECT_WASM_ARTIFACT,)
