"""Contracts of JavaScript source recovery and the runtime tools (Node inspector, Electron, reconciliation)."""

from __future__ import annotations

from rea.catalog.contract import ToolContract
from rea.wire import javascript_recovery as rec
from rea.wire.tool import evidence_tool

RECOVER = evidence_tool(
    "recover_javascript_sources",
    "Recover JavaScript Sources",
    "Recover readable modules from one local UTF-8 JavaScript bundle into an absent directory, without running "
    "it: original sources from its source map (embedded sourcesContent, or files beside the bundle under "
    "source_root) and modules cut from the bundle's own boundaries (webpack/rspack/browserify module tables, "
    "esbuild path comments). Published atomically (staged, then renamed). Returns original/derived digests, "
    "half-open byte ranges into the bundle, warnings (a lying map is clipped and reported), report, provenance "
    "and manifest files, and analysis_input for analyze_javascript_application. Runtime equivalence is unknown. "
    "64 MiB input, 128 MiB output, 10000 files.",
    args=rec.RecoverArgs,
    result=rec.RecoveryResult,
    examples=[{"path": "/tmp/web-scripts/app.js", "output_directory": "/tmp/recovered-app"}],
    surface="application",
    effects={"mutatesSession", "writesFilesystem"},
)

TOOLS: tuple[ToolContract, ...] = (RECOVER,)
CLI_COMMANDS = ("recover-javascript-sources",)
