"""Conformance with the reference REA 6.x: its example inputs are accepted, its result shapes come back.

(a) every reference example input of a tool we serve passes our validator against the
    advertised input schema (tests/reference/input-examples.json);
(b) a real, reference-shaped call of every tool returns the reference's fields with the
    reference's types (tests/reference_shapes.py), extra fields allowed.

PENDING lists what does not conform yet, as strict xfails: when a family lands and a
case starts to pass, the xfail fails and says to take the name out of PENDING. Run
`python3 -m pytest tests/core/test_reference_conformance.py -rxX` after each merge: the
short summary names each pending case and its first difference (JSON path, reason).
"""

from __future__ import annotations

import base64
import gzip
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import anyio
import jsonschema
import pytest
from jsonschema.exceptions import relevance
from returns.result import Success

import android_fixtures
import chromium_fixtures
import dos_fixtures
import web_network_fixtures
from adb_fixtures import reserved_port
from apple_fixtures import INFO as PLIST
from apple_fixtures import make_app
from artifact_fixtures import make_zip
from chromium_fixtures import CHROMIUM, Browser, Site
from javascript_fixtures import APP, Node, write_tree
from layout_fixtures import make_core
from managed_fixtures import library, library_v2
from mcp_client import connect
from native_fixtures import SOURCE, nm_functions
from rea.adb import contract as adb_contract
from rea.catalog import BY_NAME
from rea.validation import validate_arguments
from reconstruction_fixtures import process_comparison
from reference_shapes import EVIDENCE, EXPECTED_ERRORS, LIFECYCLE, NATIVE_SURFACE, shape
from web_fixtures import open_page

# the reference 3.1 catalog's example of capture_process_scenario (its input_schema.examples[0])
CAPTURE_EXAMPLE = {
    "approved": True,
    "arguments": [],
    "checkpoints": [],
    "command_shims": [],
    "environment": {},
    "events": [],
    "executable": "/usr/bin/true",
    "filesystem_roots": [],
    "idle_timeout_ms": 30000,
    "inherit_environment": [],
    "limits": {
        "connections": 100,
        "file_bytes": 10000000,
        "files": 10000,
        "filesystem_depth": 16,
        "frames": 10000,
        "output_bytes": 1000000,
        "processes": 1000,
        "protocol_body_bytes": 1000000,
        "protocol_events": 10000,
    },
    "network_access": "host",
    "normalization": {"paths": True, "patterns": [], "pids": True, "ports": True, "time_bucket_ms": 10},
    "reactive": None,
    "replay": {"http": [], "machine": None, "websocket_connections": [], "websocket_messages": []},
    "secret_aliases": [],
    "settle_ms": 100,
    "terminal": {"columns": 80, "rows": 24, "scrollback": 1000},
    "timeout_ms": 30000,
    "working_directory": "/tmp",
}
EXAMPLES = json.loads((Path(__file__).parents[1] / "reference" / "input-examples.json").read_text())["examples"]


def _example_ids() -> list[str]:
    seen: dict[str, int] = {}
    ids = []
    for e in EXAMPLES:
        n = seen.get(e["tool"], 0)
        seen[e["tool"]] = n + 1
        ids.append(f"{e['tool']}[{n}]")
    return ids


# 3.1 examples whose arguments 6.x itself removed (wire-gaps.md names the 6.x input): not a gap of ours
SUPERSEDED = {
    "analyze_function[0]": "6.x input is strict {procedure}: 3.1 paging and collection offsets are gone",
    "binary_session[0]": "3.1 detail/cursor/limit are gone in 6.x",
    "compare_artifacts[0]": "6.x input is strict {left, right}",
    "compare_functions[0]": "6.x input is strict {left, right}",
    # issue 10 item 12 refuses relative paths (they resolve against the client's working directory);
    # the reference's own examples still use one, so here we follow the issue, not the examples
    "import_evidence_bundle[0]": "its path 'evidence.json' is relative: refused by issue 10 item 12",
    "import_evidence_bundle[1]": "its path 'evidence.json' is relative: refused by issue 10 item 12",
    "extract_artifact[0]": "6.x chooses the output directory itself: output_root is gone",
    "procedure_references[0]": "6.x input is {procedure, document, direction}: max_instructions and paging are gone",
    "trace_call_path[0]": "6.x input is {start, goal, direction}: max_operations is gone",
}

# example inputs the reference accepts and we do not yet (see wire-gaps.md for each tool)
PENDING_EXAMPLES: set[str] = set()


def _example_params() -> list[Any]:
    params = []
    for case, example in zip(_example_ids(), EXAMPLES, strict=True):
        marks = []
        if case in SUPERSEDED:
            marks.append(pytest.mark.skip(reason=f"superseded: {SUPERSEDED[case]}"))
        elif case in PENDING_EXAMPLES:
            marks.append(pytest.mark.xfail(strict=True, reason="pending: remove from PENDING_EXAMPLES once accepted"))
        params.append(pytest.param(case, example, id=case, marks=marks))
    return params


@pytest.mark.parametrize("case, example", _example_params())
def test_reference_example_input_is_accepted(case, example):
    tool = example["tool"]
    checked = validate_arguments(tool, BY_NAME[tool].input_schema, example["input"])
    refused = None if isinstance(checked, Success) else checked.failure().message
    if refused is not None and case in PENDING_EXAMPLES:
        pytest.xfail(f"{case}: {refused}")
    assert refused is None, f"{tool}: the reference example ({example['source']}) is refused: {refused}"


# ------------------------------------------------------------------ (b) real calls

# tools whose real reference-shaped call does not return the reference's shape yet
PENDING = {
    # kept differences (docs/android.md): we verify signatures and read exact DEX descriptors, where the
    # reference pins `signature_verification: not_performed` and `dex_descriptor: null`
    "inspect_android_package",
    "inspect_android_class",
    "inspect_android_method",
}

NATIVE = [
    "open_binary",
    "binary_overview",
    "list_procedures",
    "list_names",
    "list_strings",
    "list_segments",
    "list_documents",
    "current_document",
    "current_address",
    "current_procedure",
    "search_procedures",
    "search_strings",
    "procedure_address",
    "procedure_assembly",
    "procedure_callees",
    "procedure_callers",
    "procedure_info",
    "procedure_pseudo_code",
    "procedure_references",
    "read_function_instructions",
    "resolve_containing_procedure",
    "address_name",
    "xrefs",
    "batch_decompile",
    "get_call_graph",
    "find_xrefs_to_name",
    "analyze_function",
    "trace_call_path",
    "trace_feature",
    "build_call_path",
    "inspect_native_api",
    "trace_native_values",
    "emulate_native_function",
    "get_navigation_context",
    "inspect_address_context",
    *NATIVE_SURFACE,
    "compare_functions",
    "inspect_analysis_view",
]
ARTIFACTS = ["inspect_artifact", "inventory_artifact", "extract_artifact", "compare_artifacts"]
JAVASCRIPT = [
    "analyze_javascript_application",
    "trace_application_feature",
    "trace_javascript_semantics",
    "compare_application_versions",
    "compare_javascript_export_shapes",
    "compare_source_to_bundle",
]
SESSION = [
    "binary_session",
    "record_unknown",
    "update_unknown",
    "list_unknowns",
    "get_evidence_bundle",
    "get_evidence_bundle[summary]",
    "export_evidence_bundle",
    "import_evidence_bundle",
    "close_binary",
    "compare_bundles",
    "verify_unknown_resolution",
]
MANAGED = [
    "inspect_managed_artifact",
    "inspect_managed_members",
    "inspect_managed_native_boundaries",
    "compare_managed_members",
    "verify_managed_native_boundaries",
    "project_managed_application_graph",
    "import_managed_reconstruction",
]
ANDROID = [
    "inspect_android_package",
    "search_android_classes",
    "inspect_android_class",
    "inspect_android_method",
    "trace_android_references",
    "inspect_apktool_client",
    "decode_android_resources",
    "inspect_adb_client",
    "project_android_application_graph",
]
LAYOUT = [
    "inspect_binary_layout",
    "inspect_wasm_artifact",
    "list_architectures",
    "inspect_macho",
    "demangle_swift",
    "inspect_signature",
    "get_objc_classes",
    "get_objc_protocols",
    "analyze_swift_types",
    "inspect_native_dispatch_metadata",
    "observe_native_calls",
    "inspect_recorded_crash",
    "inspect_plist",
    "trace_dylib_resolution",
]
JAVASCRIPT_RUNTIME = [
    "recover_javascript_sources",
    "list_javascript_runtime_targets",
    "observe_javascript_runtime",
    "list_electron_targets",
    "inspect_electron_page",
    "reconcile_javascript_runtime",
]
WEB_NETWORK = ["inspect_web_network_capture", "compare_web_screenshots"]
WEB = [
    "list_browser_targets",
    "inspect_web_page",
    "discover_webmcp_tools",
    "capture_web_screenshot",
    "inspect_web_event_listeners",
    "observe_web_execution",
    "observe_web_session",
    "capture_browser_scenario",
    "compare_web_captures",
    "capture_electron_scenario",
    "analyze_web_bundle",
    "export_web_scripts",
    "trace_web_source_location",
    "trace_web_module_imports",
]
ADB = [row.name for row in adb_contract.ROWS]
APPLE = [
    "inspect_keyed_archive",
    "decode_interface_builder",
    "inspect_asset_catalog",
    "project_apple_application_graph",
]
OFFLINE = ["inspect_evm_interface", "inspect_firmware_regions", "extract_firmware"]
PROCESS = ["capture_process_scenario", "compare_process_captures"]
RECONSTRUCTION = [
    "verify_reconstruction",
    "find_changed_behavior",
    "correlate_static_and_runtime",
    "build_reconstruction_obligation_ledger",
    "evaluate_reconstruction_coverage",
]
CASES = (
    NATIVE
    + ARTIFACTS
    + APPLE
    + JAVASCRIPT
    + JAVASCRIPT_RUNTIME
    + MANAGED
    + ANDROID
    + ADB
    + LAYOUT
    + WEB_NETWORK
    + WEB
    + SESSION
    + OFFLINE
    + PROCESS
    + RECONSTRUCTION
)


def ref(reply: dict[str, Any]) -> dict[str, Any]:
    """The retained reference to an Evidence reply (a placeholder when the producer failed)."""
    evidence_id = (reply.get("ok") or {}).get("evidence_id") or "ev_" + "0" * 64
    return {"kind": "retained-evidence", "evidence_id": evidence_id}


async def _call(session: Any, tool: str, args: dict[str, Any], retried: bool = False) -> dict[str, Any]:
    """{"ok": structuredContent} or {"error": canonical error} or {"exception": text}."""
    try:
        reply = await session.call_tool(tool, args)
    except Exception as exc:  # e.g. the SDK refusing a reply that breaks our own output schema
        return {"exception": f"{type(exc).__name__}: {exc}", "args": args}
    if reply.is_error:
        error = json.loads(reply.content[0].text)["error"]
        if error["code"] == "provider_unavailable" and not retried:  # a worker that stopped: retry once, as told
            return await _call(session, tool, args, retried=True)
        return {"error": error, "args": args}
    return {"ok": reply.structured_content, "args": args}


WAIT = {"kind": "wait", "milliseconds": 100}


def _surface_plan(main: str) -> list[tuple[str, str, Any]]:
    """The §4.2 surface after every other native case (its edits must not rename what they ask about)."""
    inside = hex(int(main, 16) + 4)
    return [
        ("set_comment", "set_comment", {"address": main, "comment": "entry"}),
        ("set_inline_comment", "set_inline_comment", {"address": main, "comment": "inline"}),
        ("comment", "comment", {"address": main}),
        ("inline_comment", "inline_comment", {"address": main}),
        ("set_address_name", "set_address_name", {"address": inside, "name": "inside_main"}),
        ("set_addresses_names", "set_addresses_names", {"names": {inside: "inside_main"}}),
        ("set_bookmark", "set_bookmark", {"address": main, "name": "start"}),
        ("list_bookmarks", "list_bookmarks", {}),
        ("unset_bookmark", "unset_bookmark", {"address": main}),
        ("annotate_native_function", "annotate_native_function", {"procedure": "compute", "comment": "sums"}),
        ("goto_address", "goto_address", {"address": main}),
        ("next_address", "next_address", {"address": main}),
        ("prev_address", "prev_address", {"address": inside}),
        ("read_bytes", "read_bytes", {"address": main, "length": 16}),
        ("address_to_file_offset", "address_to_file_offset", {"address": main}),
        ("inspect_native_instruction", "inspect_native_instruction", {"address": main}),
        ("resolve_native_call_targets", "resolve_native_call_targets", {"address": main}),
        ("inspect_native_data_type", "inspect_native_data_type", {"type": "int"}),
        ("observe_native_ui", "observe_native_ui", {"pid": 123, "window_id": 456}),
        ("capture_native_ui_scenario", "capture_native_ui_scenario", {"pid": 1, "window_id": 2, "steps": [WAIT]}),
        ("trace_native_ui_action", "trace_native_ui_action", {"action": "buttonPressed:"}),
    ]


async def _native(path: Path, cache: str) -> dict[str, Any]:
    fn = nm_functions(path)
    main, compute, helper = fn["main"], fn["compute"], fn["helper"]
    plan: list[tuple[str, str, Any]] = [
        ("open_binary", "open_binary", {"path": str(path)}),
        ("binary_overview", "binary_overview", {}),
        ("list_procedures", "list_procedures", {}),
        ("list_names", "list_names", {}),
        ("list_strings", "list_strings", {}),
        ("list_segments", "list_segments", {}),
        ("list_documents", "list_documents", {}),
        ("current_document", "current_document", {}),
        ("current_address", "current_address", {}),
        ("current_procedure", "current_procedure", {}),
        ("search_procedures", "search_procedures", {"pattern": "compute"}),
        ("search_strings", "search_strings", {"pattern": "hello"}),
        ("procedure_address", "procedure_address", {"procedure": "compute"}),
        ("procedure_assembly", "procedure_assembly", {"procedure": "compute"}),
        ("procedure_callees", "procedure_callees", {"procedure": "main"}),
        ("procedure_callers", "procedure_callers", {"procedure": "helper"}),
        ("procedure_info", "procedure_info", {"procedure": "compute"}),
        ("procedure_pseudo_code", "procedure_pseudo_code", {"procedure": "compute"}),
        ("procedure_references", "procedure_references", {"procedure": "main"}),
        ("read_function_instructions", "read_function_instructions", {"procedure": "main"}),
        ("resolve_containing_procedure", "resolve_containing_procedure", {"address": hex(int(main, 16) + 4)}),
        ("address_name", "address_name", {"address": main}),
        ("xrefs", "xrefs", {"address": compute}),
        ("batch_decompile", "batch_decompile", {"addresses": ["compute", "helper"]}),
        ("get_call_graph", "get_call_graph", {"address": main}),
        ("find_xrefs_to_name", "find_xrefs_to_name", {"name": "compute"}),
        ("analyze_function", "analyze_function", {"procedure": "compute"}),
        ("analyze_dispatch", "analyze_function", {"procedure": "dispatch"}),
        ("trace_call_path", "trace_call_path", {"start": main, "goal": helper}),
        ("trace_feature", "trace_feature", {"query": "hello"}),
        ("inspect_native_api", "inspect_native_api", {"procedure": "dispatch"}),
        ("trace_native_values", "trace_native_values", {"procedure": "main", "max_depth": 1}),
        ("emulate_native_function", "emulate_native_function", {"procedure": "compute", "arguments": [3, 7]}),
        ("get_navigation_context", "get_navigation_context", {}),
        ("inspect_address_context", "inspect_address_context", {"address": main}),
        *_surface_plan(main),
    ]
    replies: dict[str, Any] = {}
    async with connect(REA_CACHE_DIR=cache) as s:
        for case, tool, args in plan:
            replies[case] = await _call(s, tool, args)
        left, right = ref(replies["analyze_function"]), ref(replies["analyze_dispatch"])
        replies["compare_functions"] = await _call(s, "compare_functions", {"left": left, "right": right})
        path = {"functions": [left], "start": {"address": compute}, "goal": {"address": helper}}
        replies["build_call_path"] = await _call(s, "build_call_path", path)
        view = {"kind": "native", "facet": "pseudocode", "offset": 0, "limit": 64}
        replies["inspect_analysis_view"] = await _call(s, "inspect_analysis_view", {"source": left, "view": view})
    return replies


async def _dos(root: Path) -> dict[str, Any]:
    program = dos_fixtures.write(root, "hello.exe", dos_fixtures.mz_program()[0])
    async with connect() as s:
        await _call(s, "open_binary", {"path": str(program)})
        return {"inspect_native_load_image": await _call(s, "inspect_native_load_image", {})}


async def _artifacts(left_zip: Path, right_zip: Path) -> dict[str, Any]:
    replies: dict[str, Any] = {}
    async with connect() as s:
        await _call(s, "open_binary", {"path": str(right_zip)})
        newer = await _call(s, "inspect_artifact", {})
        await _call(s, "open_binary", {"path": str(left_zip)})
        for tool in ("inspect_artifact", "inventory_artifact", "extract_artifact"):
            replies[tool] = await _call(s, tool, {})
        replies["compare_artifacts"] = await _call(
            s, "compare_artifacts", {"left": ref(replies["inspect_artifact"]), "right": ref(newer)}
        )
    return replies


async def _offline(root: Path) -> dict[str, Any]:
    """Tools over one local file and nothing else: EVM bytecode (a dispatcher with one selector), a firmware image."""
    runtime = root / "runtime.hex"
    # PUSH0 CALLDATALOAD PUSH1 0xe0 SHR PUSH4 sel EQ PUSH1 0x0f JUMPI STOP JUMPDEST STOP
    runtime.write_text("0x5f3560e01c63a9059cbb14600f57005b00\n")
    firmware = root / "firmware.bin"  # a gzip stream after 64 bytes no handler claims
    firmware.write_bytes(b"REA!" * 16 + gzip.compress(b"firmware payload\n" * 64, mtime=0))
    async with connect() as s:
        return {
            "inspect_evm_interface": await _call(s, "inspect_evm_interface", {"path": str(runtime), "encoding": "hex"}),
            "inspect_firmware_regions": await _call(s, "inspect_firmware_regions", {"path": str(firmware)}),
            "extract_firmware": await _call(
                s, "extract_firmware", {"path": str(firmware), "output_directory": str(root / "firmware-out")}
            ),
        }


async def _process(root: Path) -> dict[str, Any]:
    """The reference's 3.1 example scenario (network_access left at our default, none: the reference's `host`
    is refused here), run twice on /usr/bin/true and compared."""
    scenario = {k: v for k, v in CAPTURE_EXAMPLE.items() if k != "network_access"}
    scenario["working_directory"] = str(root)
    async with connect() as s:
        left = await _call(s, "capture_process_scenario", scenario)
        right = await _call(s, "capture_process_scenario", scenario)
        ids = {"left_evidence_id": ref(left)["evidence_id"], "right_evidence_id": ref(right)["evidence_id"]}
        return {
            "capture_process_scenario": left,
            "compare_process_captures": await _call(s, "compare_process_captures", ids),
        }


async def _reconstruction_tools(left_zip: Path, right_zip: Path, compared: dict[str, Any]) -> dict[str, Any]:
    """The reference's example inputs, on comparisons made here: compare_artifacts retained in this session,
    compare_functions (from the native case) inline, a compare_process_captures record in the 6.x shape
    (tests/reconstruction/test_reconstruction.py builds it; that tool is another family's)."""
    example = {e["tool"]: e["input"] for e in EXAMPLES if e["tool"] in RECONSTRUCTION}
    functions = compared.get("ok") or {}
    async with connect() as s:
        sides = []
        for z in (left_zip, right_zip):
            await _call(s, "open_binary", {"path": str(z)})
            sides.append(await _call(s, "inspect_artifact", {}))
        artifacts = await _call(s, "compare_artifacts", {"left": ref(sides[0]), "right": ref(sides[1])})
        claim = {**example["verify_reconstruction"]["specification"]["claims"][0], "kind": "structural-artifact",
                 "dimension": "overall", "comparison_evidence_id": ref(artifacts)["evidence_id"]}  # fmt: skip
        spec = {**example["verify_reconstruction"]["specification"], "claims": [claim]}
        replies = {
            "verify_reconstruction": await _call(s, "verify_reconstruction", {**example["verify_reconstruction"],
                                                                              "specification": spec}),
            "find_changed_behavior": await _call(s, "find_changed_behavior", {**example["find_changed_behavior"],
                                                                              "comparisons": [ref(artifacts)]}),
            "build_reconstruction_obligation_ledger": await _call(
                s, "build_reconstruction_obligation_ledger", example["build_reconstruction_obligation_ledger"]),
            "evaluate_reconstruction_coverage": await _call(
                s, "evaluate_reconstruction_coverage", example["evaluate_reconstruction_coverage"]),
        }  # fmt: skip
        if functions:
            runtime = process_comparison("unchanged", *functions["evidence_links"][:2])
            mapping = example["correlate_static_and_runtime"]["mappings"][0]
            mapping = {**mapping, "static": {**mapping["static"], "comparison_evidence_id": functions["evidence_id"]},
                       "runtime": {**mapping["runtime"], "comparison_evidence_id": runtime["evidence_id"]}}  # fmt: skip
            replies["correlate_static_and_runtime"] = await _call(
                s, "correlate_static_and_runtime",
                {**example["correlate_static_and_runtime"], "static_comparisons": [functions],
                 "runtime_comparisons": [runtime], "mappings": [mapping]},
            )  # fmt: skip
        return replies


async def _layout(binary: Path, module: Path, macho: Path, core: Path, bundle: Path) -> dict[str, Any]:
    async with connect() as s:
        example = {"path": str(module), "glue_paths": [], "candidate_paths": []}  # the reference's example shape
        replies = {
            "inspect_binary_layout": await _call(s, "inspect_binary_layout", {"path": str(binary)}),
            "inspect_wasm_artifact": await _call(s, "inspect_wasm_artifact", example),
        }
        await _call(s, "open_binary", {"path": str(binary)})
        observe = {"breakpoints": [{"kind": "function", "name": "main"}], "max_events": 1, "backtrace_frames": 1}
        replies["observe_native_calls"] = await _call(s, "observe_native_calls", observe)
        await _call(s, "open_binary", {"path": str(macho)})
        replies["list_architectures"] = await _call(s, "list_architectures", {})
        replies["inspect_macho"] = await _call(s, "inspect_macho", {})
        replies["inspect_signature"] = await _call(s, "inspect_signature", {})
        replies["trace_dylib_resolution"] = await _call(s, "trace_dylib_resolution", {})
        for tool in (
            "get_objc_classes",
            "get_objc_protocols",
            "analyze_swift_types",
            "inspect_native_dispatch_metadata",
        ):
            replies[tool] = await _call(s, tool, {})
        replies["demangle_swift"] = await _call(s, "demangle_swift", {"symbols": ["$s4Test3fooyyF"]})
        replies["inspect_recorded_crash"] = await _call(s, "inspect_recorded_crash", {"path": str(core)})
        await _call(s, "open_binary", {"path": str(bundle)})
        replies["inspect_plist"] = await _call(s, "inspect_plist", {"relative_path": "Contents/Info.plist"})
        return replies


async def _web_network(root: Path) -> dict[str, Any]:
    root.mkdir()
    har = web_network_fixtures.recorded_har(root)
    png = web_network_fixtures.screenshot(root, "shot", [(4, 4, 8, 8, "#0f0")], (64, 48))
    async with connect() as s:
        return {
            "inspect_web_network_capture": await _call(
                s, "inspect_web_network_capture", {"capture_path": str(har), "format": "har", "record_ordinals": [0]}
            ),
            "compare_web_screenshots": await _call(
                s, "compare_web_screenshots", {"before": {"path": str(png)}, "after": {"path": str(png)}}
            ),
        }


async def _web(endpoint: str, target_id: str, url: str, page_file: str, root: Path) -> dict[str, Any]:
    page = {"cdp_endpoint": endpoint, "target_id": target_id}
    # the reference's example scenario (browserScenarioToolContracts.ts), launched here against the test page
    scenario = {
        "browser": {"mode": "launch", "executable_path": CHROMIUM},
        "start_url": {"url": url, "query": []},
        "actions": [{"step_id": "settle", "action": "wait_for_timeout", "duration_ms": 250}],
    }
    async with connect() as s:
        capture = await _call(s, "inspect_web_page", {**page, "observation_ms": 0, "include_script_sources": True})
        (root / "capture.json").write_text(json.dumps(capture.get("ok")))
        exported = await _call(
            s, "export_web_scripts", {"capture_path": str(root / "capture.json"), "output_directory": str(root / "out")}
        )
        manifest = {"manifest_path": str(root / "out" / "manifest.json"), "script_index": 0}
        (root / "ref.js.map").write_text(
            json.dumps({"version": 3, "sources": ["ref.ts"], "names": [], "mappings": "AAAA", "sourcesContent": ["x"]})
        )
        # the reference's own example shapes (webScriptToolContracts.ts), on this page's one script
        located = await _call(
            s,
            "trace_web_source_location",
            {
                **manifest,
                "source_map": {"path": str(root / "ref.js.map"), "url": "https://example.test/ref.js.map"},
                "generated_position": {"line": 1, "column": 0},
            },
        )
        traced = await _call(s, "trace_web_module_imports", manifest)
        replies = {
            "export_web_scripts": exported,
            "trace_web_source_location": located,
            "trace_web_module_imports": traced,
            "list_browser_targets": await _call(s, "list_browser_targets", {"cdp_endpoint": endpoint}),
            "inspect_web_page": await _call(s, "inspect_web_page", {**page}),
            # the reference's own example inputs (browserToolContracts.ts, 3.1 examples for the approvals)
            "discover_webmcp_tools": await _call(s, "discover_webmcp_tools", {**page, "observation_ms": 100}),
            "capture_web_screenshot": await _call(
                s, "capture_web_screenshot", {**page, "approved": True, "screenshot_approved": True}
            ),
            "inspect_web_event_listeners": await _call(s, "inspect_web_event_listeners", {**page, "selector": "#run"}),
            "observe_web_execution": await _call(s, "observe_web_execution", {**page, "observation_ms": 200}),
            "observe_web_session": await _call(
                s, "observe_web_session", {**page, "approved": True, "observation_ms": 200}
            ),
            "capture_browser_scenario": await _call(s, "capture_browser_scenario", scenario),
            "analyze_web_bundle": await _call(
                s,
                "analyze_web_bundle",
                {
                    **page,
                    "approved": True,
                    "observation_ms": 500,
                    "include_script_sources": True,
                    "source_capture_approved": True,
                    "fetch_source_maps": False,
                    "source_map_fetch_approved": False,
                },
            ),
        }
        captured = (replies["capture_browser_scenario"].get("ok") or {}).get("normalized_result")
        pair = {"before_scenario": captured, "after_scenario": captured} if captured else {}
        replies["compare_web_captures"] = await _call(s, "compare_web_captures", pair)
        # the reference's example shape, Chromium standing in for Electron (no Electron binary on this host)
        electron = {"executable_path": CHROMIUM, "application_path": page_file, "args": []}
        electron["actions"] = [{"step_id": "exercise-ipc", "kind": "click", "selector": "#run"}]
        replies["capture_electron_scenario"] = await _call(s, "capture_electron_scenario", electron)
        return replies


def _web_replies(root: Path) -> dict[str, Any]:
    """The reference's web examples against a caller-started Chromium on a page this test serves."""
    if CHROMIUM is None:
        return {}
    site, browser = Site(root), Browser()
    try:
        site.write("ref.js", "import('./later.js');\n")
        page = "<title>ref</title><button id=run onclick='1'>run</button><script src=ref.js></script>"
        url = site.write("index.html", page)
        target = open_page(browser.endpoint, url, "ref")
        (root / "work").mkdir()
        return anyio.run(_web, browser.endpoint, target, url, str(root / "index.html"), root / "work")
    finally:
        browser.close()
        site.close()


def _source_graph() -> dict[str, Any]:
    """The reference's HistoricalSourceGraph example values (tests/reference/input-examples.json)."""
    example = next(e for e in EXAMPLES if e["tool"] == "compare_source_to_bundle" and "reference" in e["input"])
    return example["input"]["reference"]


async def _javascript(app: Path, app_v2: Path) -> dict[str, Any]:
    replies: dict[str, Any] = {}
    async with connect() as s:
        replies["analyze_javascript_application"] = left = await _call(
            s, "analyze_javascript_application", {"input_path": str(app)}
        )
        right = await _call(s, "analyze_javascript_application", {"input_path": str(app_v2)})
        seed = {"kind": "module", "value": "src/renderer/app.js", "match": "exact", "case_sensitive": False}
        replies["trace_application_feature"] = await _call(
            s, "trace_application_feature", {"application": ref(left), "seed": seed, "direction": "both"}
        )
        query = {"seed": {"kind": "literal", "value": "settings:get"}, "direction": "forward-influence"}
        replies["trace_javascript_semantics"] = await _call(
            s, "trace_javascript_semantics", {"application": ref(left), "query": query}
        )
        replies["compare_application_versions"] = await _call(
            s, "compare_application_versions", {"left": ref(left), "right": ref(right)}
        )
        selectors = {"module_path": "src/renderer/format.ts", "export_name": "format"}
        replies["compare_javascript_export_shapes"] = await _call(
            s,
            "compare_javascript_export_shapes",
            {
                "left": ref(left),
                "right": ref(right),
                **{f"{side}_{k}": v for side in ("left", "right") for k, v in selectors.items()},
            },
        )
        replies["compare_source_to_bundle"] = await _call(
            s, "compare_source_to_bundle", {"reference": _source_graph(), "application": ref(left)}
        )
    return replies


async def _javascript_runtime(root: Path) -> dict[str, Any]:
    """The reference's example shape ({path, output_directory}) on a bundle with an inline source map."""
    smap = {"version": 3, "sources": ["src/a.js"], "sourcesContent": ["export const a = 1;\n"], "mappings": "AAAA"}
    inline = base64.b64encode(json.dumps(smap).encode()).decode()
    bundle = root / "bundle.js"
    bundle.write_text(f"const a = 1;\n//# sourceMappingURL=data:application/json;base64,{inline}\n")
    (root / "node").mkdir()
    node = Node(root / "node", "setInterval(() => console.log('tick'), 50);\n")
    try:
        async with connect() as s:
            args = {"path": str(bundle), "output_directory": str(root / "recovered")}
            replies = {"recover_javascript_sources": await _call(s, "recover_javascript_sources", args)}
            endpoint = {"inspector_endpoint": node.endpoint}  # the reference's example shapes
            replies["list_javascript_runtime_targets"] = await _call(s, "list_javascript_runtime_targets", endpoint)
            observe = {**endpoint, "target_id": node.target_id, "runtime_kind": "node", "observation_ms": 100}
            replies["observe_javascript_runtime"] = await _call(s, "observe_javascript_runtime", observe)
            if chromium_fixtures.CHROMIUM is not None:  # Electron's CDP endpoint, served by Chromium
                page = root / "page.html"
                page.write_text("<title>p</title><script src='r.js'></script>")
                (root / "r.js").write_text("var r = 1;\n")
                browser = chromium_fixtures.Browser(url=f"file://{page}")
                try:
                    cdp_endpoint = {"cdp_endpoint": browser.endpoint}
                    listed = await _call(s, "list_electron_targets", cdp_endpoint)
                    replies["list_electron_targets"] = listed
                    target = ((listed.get("ok") or {}).get("normalized_result") or {}).get("targets") or [{}]
                    args = {**cdp_endpoint, "target_id": target[0].get("target_id", "none")}
                    replies["inspect_electron_page"] = await _call(s, "inspect_electron_page", args)
                    # the reference's documented input shape: one application layer, the page's Evidence
                    app = await _call(s, "analyze_javascript_application", {"input_path": str(root)})
                    layer = {"role": "application", "analysis": ref(app), "runtime_mappings": []}
                    reconcile = {
                        "static_layers": [layer],
                        "runtime_observations": [ref(replies["inspect_electron_page"])],
                    }
                    replies["reconcile_javascript_runtime"] = await _call(s, "reconcile_javascript_runtime", reconcile)
                finally:
                    browser.close()
            return replies
    finally:
        node.close()


async def _managed(assembly: Path, newer: Path, native: Path) -> dict[str, Any]:
    async with connect() as s:
        replies = {tool: await _call(s, tool, {"path": str(assembly)}) for tool in MANAGED[:3]}
        right = await _call(s, "inspect_managed_members", {"path": str(newer)})
        ids = {"left_evidence_id": ref(replies["inspect_managed_members"])["evidence_id"],
               "right_evidence_id": ref(right)["evidence_id"]}  # fmt: skip
        replies["compare_managed_members"] = await _call(s, "compare_managed_members", ids)
        layout = await _call(s, "inspect_binary_layout", {"path": str(native)})
        checked = {"managed_boundaries_evidence_id": ref(replies["inspect_managed_native_boundaries"])["evidence_id"],
                   "native_observation_evidence_ids": [ref(layout)["evidence_id"]]}  # fmt: skip
        replies["verify_managed_native_boundaries"] = await _call(s, "verify_managed_native_boundaries", checked)
        members = {"managed_members_evidence_id": ref(replies["inspect_managed_members"])["evidence_id"]}
        replies["project_managed_application_graph"] = await _call(s, "project_managed_application_graph", members)
        replies["import_managed_reconstruction"] = await _call(
            s, "import_managed_reconstruction", _reconstruction(replies["inspect_managed_members"])
        )
        return replies


def _reconstruction(members: dict[str, Any]) -> dict[str, Any]:
    """The reference's example input, locked to the first fully decoded method of a real members result."""
    example = next(e for e in EXAMPLES if e["tool"] == "import_managed_reconstruction")["input"]
    methods = ((members.get("ok") or {}).get("normalized_result") or {}).get("methods") or []
    method = next((m for m in methods if m["body"]["normalized_il_sha256"]), None)
    if method is None:
        return {**example, "static_members_evidence_id": ref(members)["evidence_id"]}
    lock = {**example["methods"][0], "token": method["token"], "signature_sha256": method["signature"]["raw_sha256"],
            "normalized_il_sha256": method["body"]["normalized_il_sha256"]}  # fmt: skip
    return {**example, "static_members_evidence_id": ref(members)["evidence_id"], "methods": [lock]}


async def _android(apk: Path) -> dict[str, Any]:
    """The reference's own example inputs, on a real APK."""
    replies: dict[str, Any] = {}
    main = "com.example.demo.MainActivity"
    plan = {
        "inspect_android_package": {},
        "search_android_classes": {"query": "Activity"},
        "inspect_android_class": {"class_name": main},
        "inspect_android_method": {"class_name": main, "method_name": "onCreate"},
        "trace_android_references": {"class_name": "com.example.demo.Helper"},
        "decode_android_resources": {},
    }
    async with connect() as s:
        for tool, args in plan.items():
            replies[tool] = await _call(s, tool, {"path": str(apk), **args})
        for tool in ("inspect_apktool_client", "inspect_adb_client"):
            replies[tool] = await _call(s, tool, {})
        await _call(s, "open_binary", {"path": str(apk)})
        inventory = await _call(s, "inventory_artifact", {})
        replies["project_android_application_graph"] = await _call(
            s, "project_android_application_graph", {"inventory_evidence": [ref(inventory)]}
        )
    return replies


async def _adb(root: Path) -> dict[str, Any]:
    """Each adb device tool's own example, no device attached (no adb server listens on the reserved port)."""
    closed = reserved_port()
    try:
        async with connect(ADB_SERVER_SOCKET=f"tcp:127.0.0.1:{closed.getsockname()[1]}") as s:
            return {
                name: await _call(
                    s,
                    name,
                    {
                        k: (str(root) if k.endswith(("_path", "_directory")) else v)
                        for k, v in BY_NAME[name].input_schema["examples"][0].items()
                    },
                )
                for name in ADB
            }
    finally:
        closed.close()


async def _apple(app: Path) -> dict[str, Any]:
    """The reference's own argument shapes on an .app made of ibtool- and actool-compiled files."""
    replies: dict[str, Any] = {}
    async with connect() as s:
        await _call(s, "open_binary", {"path": str(app)})
        replies["inspect_keyed_archive"] = await _call(
            s, "inspect_keyed_archive", {"path": "Contents/Resources/Model.plist"}
        )
        replies["decode_interface_builder"] = await _call(s, "decode_interface_builder", {})
        replies["inspect_asset_catalog"] = await _call(s, "inspect_asset_catalog", {"offset": 0, "limit": 10})
        inventory = await _call(s, "inventory_artifact", {})
        replies["project_apple_application_graph"] = await _call(
            s, "project_apple_application_graph", {"inventory_evidence": [ref(inventory)]}
        )
    return replies


async def _session(binary: Path, bundle: Path) -> dict[str, Any]:
    replies: dict[str, Any] = {}
    async with connect() as s:
        replies["binary_session"] = await _call(s, "binary_session", {})
        await _call(s, "open_binary", {"path": str(binary)})
        example = next(e for e in EXAMPLES if e["tool"] == "record_unknown" and e["source"].startswith("6.x"))
        replies["record_unknown"] = recorded = await _call(s, "record_unknown", example["input"])
        unknown_id = (recorded.get("ok") or {}).get("result", {}).get("unknown_id", "unk_" + "0" * 64)
        replies["update_unknown"] = await _call(
            s, "update_unknown", {"unknown_id": unknown_id, "expected_revision": 1, "status": "investigating"}
        )
        replies["list_unknowns"] = await _call(s, "list_unknowns", {})
        replies["get_evidence_bundle"] = await _call(s, "get_evidence_bundle", {})
        replies["get_evidence_bundle[summary]"] = await _call(s, "get_evidence_bundle", {"detail": "summary"})
        replies["export_evidence_bundle"] = await _call(s, "export_evidence_bundle", {"path": str(bundle)})
        # the reference's example shape (record_pairs, offset, limit given), on the bundle just written
        example = next(e for e in EXAMPLES if e["tool"] == "compare_bundles")["input"]
        paths = {"left_bundle_path": str(bundle), "right_bundle_path": str(bundle)}
        replies["compare_bundles"] = await _call(s, "compare_bundles", {**example, **paths})
        replies["verify_unknown_resolution"] = await _call(s, "verify_unknown_resolution", {"unknown_id": unknown_id})
        replies["close_binary"] = await _call(s, "close_binary", {})
        replies["import_evidence_bundle"] = await _call(s, "import_evidence_bundle", {"path": str(bundle)})
    return replies


@pytest.fixture(scope="module")
def replies(tmp_path_factory) -> dict[str, Any]:
    """One real, reference-shaped call per case, through the MCP SDK client over stdio."""
    if shutil.which("gcc") is None or shutil.which("mcs") is None:
        pytest.skip("gcc or mono-mcs is not installed")
    root = tmp_path_factory.mktemp("conformance")
    binary = root / "sample"
    subprocess.run(["gcc", "-O0", "-g", "-o", str(binary), str(SOURCE)], check=True, capture_output=True)
    left_zip = make_zip(root / "v1.zip", {"a.txt": b"alpha\n", "lib/tool.sh": b"#!/bin/sh\necho 1\n"})
    right_zip = make_zip(root / "v2.zip", {"a.txt": b"alpha, changed\n", "b.txt": b"new\n"})
    app = write_tree(root / "app", APP)
    v2 = dict(APP)
    v2["src/renderer/format.ts"] = "export function format(t: number) { return { text: String(t), iso: '' }; }\n"
    app_v2 = write_tree(root / "app-v2", v2)
    found: dict[str, Any] = {}
    found.update(anyio.run(_native, binary, str(root / "cache")))
    found.update(anyio.run(_artifacts, left_zip, right_zip))
    found.update(anyio.run(_dos, root))
    found.update(anyio.run(_javascript, app, app_v2))
    found.update(anyio.run(_javascript_runtime, root))
    found.update(anyio.run(_managed, library(root), library_v2(root), binary))
    found.update(anyio.run(_session, binary, root / "bundle.json"))
    found.update(anyio.run(_apple, make_app(root / "apple")))
    if not android_fixtures.missing_tools():
        found.update(anyio.run(_android, android_fixtures.signed_apk(root / "android")))
    if shutil.which("adb") is not None:
        found.update(anyio.run(_adb, root))
    wat = root / "m.wat"
    wat.write_text('(module (func (export "f") (result i32) i32.const 1))')
    subprocess.run(["wat2wasm", str(wat), "-o", str(root / "m.wasm")], check=True, capture_output=True)
    macho = root / "thin.macho"  # a mach_header_64 for x86_64 MH_EXECUTE with no load commands
    macho.write_bytes(b"\xcf\xfa\xed\xfe" + (0x01000007).to_bytes(4, "little") + bytes([3, 0, 0, 0, 2]) + bytes(19))
    (root / "crash").mkdir()
    _, core = make_core(root / "crash")
    bundle = root / "Demo.app"
    (bundle / "Contents").mkdir(parents=True)
    (bundle / "Contents/Info.plist").write_text(PLIST)
    found.update(anyio.run(_layout, binary, root / "m.wasm", macho, core, bundle))
    found.update(anyio.run(_offline, root))
    found.update(anyio.run(_process, root))
    found.update(anyio.run(_reconstruction_tools, left_zip, right_zip, found.get("compare_functions", {})))
    if web_network_fixtures.chromium() is not None:
        found.update(anyio.run(_web_network, root / "web"))
    (root / "site").mkdir()
    found.update(_web_replies(root / "site"))
    return found


def _mismatch(errors: list[Any]) -> tuple[bool, bool, int]:
    """How badly one union alternative misses: a different type, a different discriminator, how many errors."""
    wrong_type = any(not e.path and e.validator == "type" for e in errors)
    return wrong_type, any(e.validator in ("const", "enum") for e in errors), len(errors)


def _pick(errors: list[Any]) -> Any:
    """The most relevant error; into a union, the alternative that misses least (see _mismatch)."""
    error = max(errors, key=relevance)
    while error.validator == "anyOf" and error.context:
        if all(not e.path and e.validator == "type" for e in error.context):  # a different type altogether
            return error
        branches: dict[Any, list[Any]] = {}
        for e in error.context:
            branches.setdefault(e.relative_schema_path[0], []).append(e)
        error = max(min(branches.values(), key=_mismatch), key=relevance)
    return error


def first_difference(schema: Any, value: Any) -> str | None:
    """'<JSON path>: <reason>' of the most relevant mismatch, or None."""
    errors = list(jsonschema.Draft202012Validator(schema).iter_errors(value))
    if not errors:
        return None
    error = _pick(errors)
    if error.validator == "type":
        return f"{error.json_path}: the reference has {error.validator_value}, ours is {_json_type(error.instance)}"
    if error.validator == "required" and isinstance(error.instance, dict):
        missing = [r for r in error.validator_value if r not in error.instance]
        return f"{error.json_path}: missing the reference's field(s) {', '.join(missing)}"
    if error.validator == "anyOf":
        kinds = sorted({str(o.get("type", o.get("const", "?"))) for o in error.validator_value})
        return f"{error.json_path}: ours ({_json_type(error.instance)}) matches none of the reference's {kinds}"
    return f"{error.json_path}: {error.message[:300]}"


def _json_type(value: Any) -> str:
    names = {dict: "object", list: "array", str: "string", bool: "boolean", int: "integer", float: "number"}
    if isinstance(value, dict):
        return "object with " + ", ".join(sorted(value)[:12])
    return "null" if value is None else names.get(type(value), type(value).__name__)


def _difference(case: str, reply: dict[str, Any]) -> str | None:
    tool = case.split("[")[0]
    if "exception" in reply:
        return f"the call raised {reply['exception'][:300]}"
    expected_error = EXPECTED_ERRORS.get(tool)
    if expected_error is not None:
        if "error" in reply and reply["error"]["code"] == expected_error:
            return None
        got = reply["error"]["code"] if "error" in reply else "a success"
        return f"the reference fails with {expected_error} on a headless provider; ours gave {got}"
    if "error" in reply:
        err = reply["error"]
        call = json.dumps(reply["args"])[:160]
        return f"the reference-shaped call was refused: {err['code']}: {err['message'][:300]} (arguments {call})"
    content = reply["ok"]
    if tool in LIFECYCLE:
        if "result" not in content:
            return "structuredContent.result is missing (the reference answers this tool as a lifecycle {result})"
        found = first_difference(shape(case), content["result"])
        return None if found is None else f"structuredContent.result{found[1:]}"
    found = first_difference(EVIDENCE, content)
    if found is not None:
        return f"the Evidence envelope: structuredContent{found[1:]}"
    found = first_difference(shape(case), content["normalized_result"])
    return None if found is None else f"structuredContent.normalized_result{found[1:]}"


def _case_params() -> list[Any]:
    marks = {
        case: [pytest.mark.xfail(strict=True, reason="pending: remove it from PENDING once it conforms")]
        for case in PENDING
    }
    return [pytest.param(case, id=case, marks=marks.get(case, [])) for case in CASES]


@pytest.mark.slow
@pytest.mark.parametrize("case", _case_params())
def test_real_result_has_the_reference_shape(case, replies):
    if case not in replies:
        pytest.skip(f"{case}: the tools that build its input are not installed (scripts/setup test)")
    difference = _difference(case, replies[case])
    if difference is not None and case in PENDING:
        pytest.xfail(f"{case}: {difference}")  # -rx lists the first difference of every pending case
    assert difference is None, f"{case}: {difference}"


def test_every_served_tool_has_a_case_and_a_shape():
    tools = {c.split("[")[0] for c in CASES}
    assert tools == set(BY_NAME), sorted(set(BY_NAME) ^ tools)
    assert PENDING <= set(CASES) and all(shape(c) is not None for c in CASES)
    assert {e["tool"] for e in EXAMPLES} <= set(BY_NAME)
    assert set(SUPERSEDED) | PENDING_EXAMPLES <= set(_example_ids())
