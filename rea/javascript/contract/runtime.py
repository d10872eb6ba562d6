"""Contracts of JavaScript source recovery and the runtime tools (Node inspector, Electron, reconciliation)."""

from __future__ import annotations

from rea.catalog.cli import Command, Positional, declared
from rea.catalog.contract import ToolContract
from rea.javascript import runtime_text as text
from rea.javascript.records import electron as el
from rea.javascript.records import reconciliation as jr
from rea.javascript.records import recovery as rec
from rea.javascript.records import runtime as rt
from rea.wire.tool import evidence_tool

RECOVER = evidence_tool(
    "recover_javascript_sources",
    "Recover JavaScript Sources",
    (
        "Recover readable modules from one local UTF-8 JavaScript bundle into an absent directory without "
        "running it: original sources from its source map (sourcesContent, or files under source_root) and "
        "modules cut at the bundle's own boundaries (webpack, rspack, browserify tables, esbuild path "
        "comments), published atomically. Returns digests, byte ranges into the bundle, warnings (a lying map "
        "is clipped), report, provenance and manifest files and an analysis_input for "
        "analyze_javascript_application. Runtime equivalence is unknown. Limits: 64 MiB in, 128 MiB out, "
        "10000 files."
    ),
    args=rec.RecoverArgs,
    result=rec.RecoveryResult,
    examples=[{"path": "/tmp/web-scripts/app.js", "output_directory": "/tmp/recovered-app"}],
    surface="application",
    effects={"mutatesSession", "writesFilesystem"},
)

_INSPECTOR = "http://127.0.0.1:9229"
LIST_RUNTIME = evidence_tool(
    "list_javascript_runtime_targets",
    "List JavaScript Runtime Targets",
    (
        "List the targets of a loopback V8 inspector endpoint (node --inspect=127.0.0.1:PORT, an Electron "
        "main process): id, type, location, attached state and the runtime's product and protocol version."
    ),
    args=rt.ListRuntimeTargetsArgs,
    result=rt.RuntimeTargetList,
    examples=[{"inspector_endpoint": _INSPECTOR}],
    surface="runtime-provider",
    effects={"mutatesSession", "accessesNetwork"},  # a loopback socket to a runtime REA does not own
)
OBSERVE_RUNTIME = evidence_tool(
    "observe_javascript_runtime",
    "Observe JavaScript Runtime",
    (
        "Attach to one target of a loopback V8 inspector endpoint and listen for observation_ms: scripts "
        "parsed (loaded ones replayed), execution contexts, console calls and exceptions. Sends only "
        "Runtime.enable, Debugger.enable and Debugger.setSkipAllPauses: nothing is evaluated, pauses are "
        "skipped. A runtime that exits meanwhile answers status partial."
    ),
    args=rt.ObserveRuntimeArgs,
    result=rt.RuntimeObservation,
    examples=[
        {
            "inspector_endpoint": _INSPECTOR,
            "target_id": "TARGET_ID_FROM_LIST_JAVASCRIPT_RUNTIME_TARGETS",
            "runtime_kind": "node",
            "observation_ms": 100,
        }
    ],
    surface="runtime-provider",
    effects={"mutatesSession", "accessesNetwork"},  # a loopback socket to a runtime REA does not own
)

_CDP = "http://127.0.0.1:9223"
LIST_ELECTRON = evidence_tool(
    "list_electron_targets",
    "List Electron Targets",
    (
        "List the Electron file:// page targets of a loopback CDP endpoint (an app started with "
        "--remote-debugging-port), local paths canonicalized; other targets are counted in excluded."
    ),
    args=el.ListElectronTargetsArgs,
    result=el.ElectronTargetList,
    examples=[{"cdp_endpoint": _CDP}],
    surface="electron-provider",
    effects={"mutatesSession", "accessesNetwork"},
)
INSPECT_ELECTRON = evidence_tool(
    "inspect_electron_page",
    "Inspect Electron Page",
    (
        "Passively inspect one Electron file page of a loopback CDP endpoint: frames, DOM structure (names, "
        "types, attribute names; no text or values), file resources, parsed scripts (with source when "
        "include_script_sources) and workers, without evaluating renderer JavaScript or calling Electron "
        "APIs."
    ),
    args=el.InspectElectronPageArgs,
    result=el.ElectronPageInspection,
    examples=[{"cdp_endpoint": _CDP, "target_id": "TARGET_ID_FROM_LIST_ELECTRON_TARGETS"}],
    surface="electron-provider",
    effects={"mutatesSession", "accessesNetwork"},
)

_RETAINED = {"kind": "retained-evidence", "evidence_id": "ev_" + "1" * 64}
RECONCILE = evidence_tool(
    "reconcile_javascript_runtime",
    "Reconcile JavaScript Runtime",
    (
        "Match static application layers (analyze_javascript_application Evidence: one application layer, "
        "optional cache and assets layers, each with file-root or url-prefix mappings) against passive "
        "runtime captures (inspect_web_page, inspect_electron_page, observe_javascript_runtime, "
        "capture_electron_scenario Evidence), with no IO. Each runtime target, frame, script and worker is "
        "matched (by source digest and mapped path), ambiguous, unmatched or unknown, with its basis; each "
        "static asset, chunk and module gets a load state; observed_as edges are inferred. Digest equality is "
        "byte identity, not proof of execution. Inputs: Evidence inline or retained references."
    ),
    args=jr.ReconcileArgs,
    result=jr.RuntimeReconciliation,
    examples=[
        {
            "static_layers": [
                {
                    "role": "application",
                    "analysis": _RETAINED,
                    "runtime_mappings": [
                        {"kind": "url-prefix", "prefix": "https://example.test/assets/", "artifact_prefix": "dist"}
                    ],
                }
            ],
            "runtime_observations": [{"kind": "retained-evidence", "evidence_id": "ev_" + "2" * 64}],
        }
    ],
    surface="application",
    effects={"mutatesSession", "idempotent"},
)

TOOLS: tuple[ToolContract, ...] = (
    RECOVER,
    LIST_RUNTIME,
    OBSERVE_RUNTIME,
    LIST_ELECTRON,
    INSPECT_ELECTRON,
    RECONCILE,
)
# reconcile-javascript-runtime reads captures from files and analyses each layer first: written by hand
CLI_COMMANDS = ("reconcile-javascript-runtime",)

_INSPECTOR_WORD = Positional(
    argument="inspector_endpoint", metavar="endpoint", help="loopback inspector endpoint, e.g. http://127.0.0.1:9229"
)
_CDP_WORD = Positional(
    argument="cdp_endpoint",
    metavar="endpoint",
    help="loopback CDP endpoint of the Electron app, e.g. http://127.0.0.1:9223",
)
COMMANDS = {
    "recover_javascript_sources": Command(
        name="recover-javascript-sources",
        help="write a bundle's original sources (source map) and its bundled modules into a fresh directory",
        positionals=(Positional(argument="path", help="JavaScript bundle (UTF-8); never executed"),),
        render=text.recovery,
    ),
    "list_javascript_runtime_targets": Command(
        name="list-javascript-runtime-targets",
        help="list the targets of a loopback V8 inspector endpoint (node --inspect)",
        positionals=(_INSPECTOR_WORD,),
        render=text.runtime_targets,
    ),
    "observe_javascript_runtime": Command(
        name="observe-javascript-runtime",
        help="listen to one inspector target: scripts parsed, contexts, console and exceptions (never evaluates)",
        positionals=(
            _INSPECTOR_WORD,
            Positional(argument="target_id", help="a target id from list-javascript-runtime-targets"),
        ),
        render=text.runtime_observation,
    ),
    "list_electron_targets": Command(
        name="list-electron-targets",
        help="list an Electron app's file:// pages over its loopback CDP endpoint",
        positionals=(_CDP_WORD,),
        render=text.electron_targets,
    ),
    "inspect_electron_page": Command(
        name="inspect-electron-page",
        help="passively inspect one Electron file page: frames, DOM structure, scripts, resources",
        positionals=(_CDP_WORD, Positional(argument="target_id", help="a target id from list-electron-targets")),
        render=text.electron_page,
    ),
}
TOOLS = declared(TOOLS, COMMANDS)
