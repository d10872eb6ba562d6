"""The reference's result shapes, as relaxed JSON Schemas: what an agent written for REA 6.x reads.

Relaxed: every object is open (extra fields of ours are fine), but the reference's
required fields and their types are enforced. The base is the 3.1.0 result schema of
each tool (tests/reference/rea-3.1-result-schemas.json, relaxed by `relax`); where
shared/reference/wire-gaps.md says 6.x changed a shape, the 6.x shape below replaces
it (each override names its wire-gaps section and 6.x files).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema

from rea.catalog import BY_NAME, ToolContract

HERE = Path(__file__).parent / "reference"
RAW_31: dict[str, Any] = json.loads((HERE / "rea-3.1-result-schemas.json").read_text())["result_schemas"]


def relax(schema: Any) -> Any:
    """Open every object, make unions non-exclusive, and treat the catalog's dangling $refs as any JSON."""
    if isinstance(schema, list):
        return [relax(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    if "$ref" in schema:  # the 3.1 export dropped its $defs (JSON-value helpers): any value
        return {}
    out = {}
    for key, value in schema.items():
        if key == "additionalProperties" and value is False:
            continue
        out["anyOf" if key == "oneOf" else key] = relax(value)
    props = out.get("properties")
    if isinstance(props, dict):
        # provenance and a fixed `source` name the producing engine (hopper/ghidra in 3.1): any engine's is a string
        engine = {k for k in ("provenance", "source") if {"enum", "const"} & set(props.get(k, {}))}
        engine -= {"source"} if "enum" in props.get("source", {}) else set()  # a source vocabulary stays closed
        out["properties"] = {**props, **{k: STR for k in engine}}
    return out


STR: dict[str, Any] = {"type": "string"}
INT: dict[str, Any] = {"type": "integer"}
BOOL: dict[str, Any] = {"type": "boolean"}
NULL: dict[str, Any] = {"type": "null"}
ANY: dict[str, Any] = {}


def obj(**props: Any) -> dict[str, Any]:
    """An open object whose listed fields are all required."""
    return {"type": "object", "properties": props, "required": sorted(props)}


def arr(items: Any) -> dict[str, Any]:
    return {"type": "array", "items": items}


def nullable(schema: Any) -> dict[str, Any]:
    return {"anyOf": [schema, NULL]}


_FIRMWARE_ENGINE = obj(
    name=STR, version=STR, executable_path=STR, executable_sha256=STR, source_revision=NULL, worker_count={"const": 1}
)
_BROWSER = obj(product=STR, protocol_version=STR, revision=STR, user_agent=STR, js_version=STR)
_TARGET = obj(target_id=STR, type=STR, title=STR, url=STR, origin=STR, attached=BOOL)
_RUNTIME_TARGET = obj(target_id=STR, origin=STR, initial_url=STR, frame_id=STR, loader_id=nullable(STR))


def base(tool: str) -> dict[str, Any]:
    return relax(RAW_31[tool])


def without(schema: dict[str, Any], *names: str) -> dict[str, Any]:
    """The same shape with fields 6.x no longer returns taken out of `required`."""
    return {**schema, "required": [r for r in schema.get("required", []) if r not in names]}


def requiring(schema: dict[str, Any], **props: Any) -> dict[str, Any]:
    """The same shape with fields 6.x added (required, typed)."""
    return {
        **schema,
        "properties": {**schema.get("properties", {}), **props},
        "required": sorted({*schema.get("required", []), *props}),
    }


def _inventory_row(tool: str) -> dict[str, Any]:
    return base(tool)["properties"]["items"]["items"]


def _page_items(page: dict[str, Any]) -> dict[str, Any]:
    """The item schema of a 3.1 page object ({items, offset, ...}, possibly inside a union)."""
    if "anyOf" in page:
        page = next(p for p in page["anyOf"] if "items" in p.get("properties", {}))
    return page["properties"]["items"]["items"]


def _complete(tool: str, field: str) -> dict[str, Any]:
    """6.x returns the complete array where 3.1 returned a page of it."""
    return arr(_page_items(base(tool)["properties"][field]))


DOSSIER_COLLECTIONS = (
    "basic_blocks",
    "callees",
    "callers",
    "comments",
    "incoming_references",
    "outgoing_references",
    "referenced_names",
    "referenced_strings",
)


BODY = {"type": "object", "properties": {"available": BOOL}, "required": ["available"]}
PROCEDURE_IDENTITY = obj(address=STR, name=STR, classification=ANY, body=BODY)


# 6.x shapes, where wire-gaps.md says 6.x changed the 3.1 shape
def _listed(tool: str, *names: str) -> dict[str, Any]:
    """6.x managed results list these fields as complete arrays of the 3.1 page items (managedArtifact.ts)."""
    schema = base(tool)
    pages = {n: arr(schema["properties"][n]["properties"]["items"]["items"]) for n in names}
    return {**schema, "properties": {**schema["properties"], **pages}}


def _widened(schema: Any, enum: list[str], extra: str) -> Any:
    """The same shape with every `enum` vocabulary equal to `enum` taking one more value."""
    if isinstance(schema, list):
        return [_widened(s, enum, extra) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: _widened(v, enum, extra) for k, v in schema.items()}
    return {**out, "enum": [*enum, extra]} if schema.get("enum") == enum else out


_TEXT = obj(status={"enum": ["complete", "partial"]}, text=STR, reported_total_bytes=nullable(INT))
_ENGINE = obj(
    name=STR,
    version=nullable(STR),
    artifact_sha256={"type": "string", "pattern": "^[a-f0-9]{64}$"},
    source_revision=nullable(STR),
    worker_count=INT,
    heap_limit_mib=nullable(INT),
)
_METHOD = obj(name=STR, reported_signature=STR, overload_index=INT, is_constructor=BOOL, dex_descriptor=NULL)
_APKTOOL = obj(command=STR, command_source={"enum": ["environment", "path"]}, apktool_version=nullable(STR))
_ADB = obj(
    binary_path=STR, path_source={"enum": ["environment", "path"]}, version=nullable(STR), installed_path=nullable(STR)
)
# src/contracts/adb/adbToolContracts.ts: the 23 device tools beside inspect_adb_client
ADB_DEVICE_TOOLS = (
    "list_adb_devices",
    "inspect_adb_device",
    "list_adb_packages",
    "pull_adb_package",
    "read_adb_logcat",
    "inspect_adb_package",
    "pull_adb_file",
    "push_adb_file",
    "capture_adb_screen",
    "list_adb_processes",
    "list_adb_directory",
    "list_adb_features",
    "list_adb_services",
    "inspect_adb_display",
    "inspect_adb_window",
    "read_adb_setting",
    "collect_adb_bugreport",
    "resolve_adb_packages",
    "install_adb_package",
    "uninstall_adb_package",
    "start_adb_app",
    "start_adb_activity",
    "stop_adb_app",
)
ANDROID: dict[str, Any] = {
    # src/domain/apktool/apktoolResourceAnalysis.ts, src/domain/adb/adbDeviceAnalysis.ts
    "inspect_apktool_client": obj(client=_APKTOOL),
    "decode_android_resources": obj(
        client=_APKTOOL,
        target=obj(path=STR, bytes=INT, sha256=STR),
        metadata=obj(
            version_name=nullable(STR),
            version_code=nullable(STR),
            min_sdk_version=nullable(STR),
            target_sdk_version=nullable(STR),
            package_name=nullable(STR),
        ),
        manifest=nullable(STR),
        strings=arr(obj(name=STR, value=STR)),
        locale=nullable(STR),
        locales=arr(STR),
        decoded_file_count=INT,
        coverage={"enum": ["complete", "partial"]},
    ),
    "inspect_adb_client": obj(client=_ADB, contacted_adb_server={"const": False}),
    # never answered on this host (EXPECTED_ERRORS: no device); the client every adb result carries
    **{name: obj(client=_ADB) for name in ADB_DEVICE_TOOLS},
    # src/domain/android/androidApplication.ts
    "project_android_application_graph": obj(
        projection_id={"type": "string", "pattern": "^adp_[a-f0-9]{64}$"},
        root_sha256=STR,
        root_format={"const": "apk"},
        source_evidence_ids=arr(STR),
        components=obj(
            **{
                k: arr(obj(path=STR, artifact_id=STR, sha256=STR, format=STR))
                for k in ("manifests", "resources", "dex", "jvm_classes", "native_libraries", "javascript", "signing")
            }
        ),
        runtime_families=arr(STR),
        bridge_candidates=arr(obj(managed_path=STR, native_path=STR, basis=STR)),
        bridge_candidate_coverage=obj(status=STR, total_candidates=INT, emitted_candidates=INT, omitted_candidates=INT),
        coverage=obj(status={"enum": ["complete-within-inventory", "partial"]}, inventory_complete=BOOL),
        limitations=arr(STR),
    ),
    "inspect_android_package": obj(
        engine=_ENGINE,
        package_name=nullable(STR),
        version_name=nullable(STR),
        version_code=nullable(STR),
        min_sdk=nullable(STR),
        target_sdk=nullable(STR),
        permissions=arr(STR),
        manifest=_TEXT,
        class_count=INT,
        resource_count=INT,
        signature_verification={"const": "not_performed"},
    ),
    "search_android_classes": obj(
        engine=_ENGINE, query=STR, total_classes=INT, matches=arr(STR), coverage={"const": "complete"}
    ),
    "inspect_android_class": obj(
        engine=_ENGINE,
        class_name=STR,
        methods=arr(_METHOD),
        fields=arr(obj(name=STR, reported_type=STR)),
        inner_classes=arr(STR),
    ),
    "inspect_android_method": obj(
        engine=_ENGINE,
        class_name=STR,
        method=_METHOD,
        overload_count=INT,
        representation={"enum": ["java", "smali"]},
        body_status={"enum": ["available", "not_available"]},
        fell_back=BOOL,
        markers=arr(STR),
        source=_TEXT,
    ),
    "trace_android_references": obj(
        engine=_ENGINE,
        class_name=STR,
        method_name=nullable(STR),
        total=INT,
        references=arr(
            obj(
                kind=STR,
                name=STR,
                reported_full_name=STR,
                containing_class=STR,
                top_class=STR,
                source_line=NULL,
                dex_offset=NULL,
            )
        ),
        coverage={"const": "complete"},
    ),
}
_RANGE = obj(offset=STR, bytes=STR)
_LAYOUT_NAME = obj(display=STR, bytes_base64=nullable(STR), location=nullable(_RANGE), unknown_reason=nullable(STR))

_FLOW = obj(kind=STR, conditional=BOOL, computed=BOOL, direct_destinations=arr(STR))
_NATIVE_REF = obj(target_address=STR, type=STR, call=BOOL, jump=BOOL, indirect=BOOL, computed=BOOL, operand_index=INT)
_VARNODE = obj(
    kind={"enum": ["constant", "address", "register", "unique", "other"]},
    size_bytes=INT,
    location=nullable(STR),
    constant_hex=nullable(STR),
)
_INSTRUCTION_STATUS = ["decoded", "not-instruction-boundary", "data", "undecodable", "outside-memory"]
_CALL_STATUS = ["direct", "resolved-indirect", "ambiguous", "unresolved", "not-call", "unavailable"]
# §4.2 native surface (toolOutputSchemaGroups.ts, hopperMemoryContracts.ts, native/nativeInstruction*.ts,
# native/nativeFunctionAnnotations.ts): absent from 3.1's result schemas
NATIVE_SURFACE: dict[str, Any] = {
    **{t: nullable(STR) for t in ("comment", "inline_comment")},
    **{t: STR for t in ("goto_address", "next_address", "prev_address")},
    **{t: BOOL for t in ("set_comment", "set_inline_comment", "set_address_name", "set_bookmark", "unset_bookmark")},
    "set_addresses_names": {"type": "object", "additionalProperties": BOOL},
    "list_bookmarks": arr(obj(address=STR)),
    "read_bytes": obj(address=STR, requested_bytes=INT, returned_bytes=INT, bytes_hex=STR, complete=BOOL),
    "address_to_file_offset": obj(address=STR, file_offset=INT),
    "inspect_native_instruction": obj(
        address=STR,
        status={"enum": _INSTRUCTION_STATUS},
        procedure=nullable(STR),
        architecture=STR,
        mode=STR,
        bytes=nullable(STR),
        length=nullable(INT),
        mnemonic=nullable(STR),
        raw_disassembly=nullable(STR),
        operands=arr(obj(index=INT, raw=STR, provider_type=INT, components=arr(ANY), memory_addressing=STR)),
        flow=_FLOW,
        references=arr(_NATIVE_REF),
        limitations=arr(STR),
    ),
    "resolve_native_call_targets": obj(
        call_site=STR,
        procedure=nullable(STR),
        status={"enum": _CALL_STATUS},
        mechanism={"enum": ["direct", "computed", "indirect", "unavailable"]},
        targets=arr(obj(address=STR, procedure=nullable(STR), status=STR, basis=STR, references=arr(_NATIVE_REF))),
        limitations=arr(STR),
    ),
    # never answered on this host (EXPECTED_ERRORS); shapes from 6.x nativeUiObservation.ts as far as read
    **{t: {"type": "object"} for t in ("observe_native_ui", "capture_native_ui_scenario", "trace_native_ui_action")},
    "inspect_native_data_type": obj(status=STR, reason=nullable(STR), id=nullable(STR), name=nullable(STR)),
    # 6.x domain/native/nativeLoadImage.ts (the verified|mismatch branch; other formats are unavailable here)
    "inspect_native_load_image": obj(
        status={"enum": ["verified", "mismatch"]},
        format={"enum": ["dos-mz", "dos-com"]},
        target_sha256=STR,
        load_segment=INT,
        header_bytes=INT,
        module_bytes=INT,
        overlay_bytes=INT,
        entry=obj(relative_segment=INT, offset=INT, linear_address=STR),
        observations=obj(
            executable_format=STR,
            language_id=STR,
            compiler_spec_id=STR,
            image_base=STR,
            default_address_space=STR,
            source_files=arr(obj(name=STR, size=INT, original_sha256=STR, modified_sha256=STR)),
            mappings=arr(
                obj(
                    block=STR,
                    start=STR,
                    end=STR,
                    address_space=STR,
                    initialized=BOOL,
                    loaded=BOOL,
                    overlay=BOOL,
                    length=INT,
                    source_file_index=nullable(INT),
                    file_offset=nullable(INT),
                    sha256=nullable(STR),
                )
            ),
            relocations=arr(
                obj(
                    address=STR,
                    segment=nullable(INT),
                    offset=nullable(INT),
                    status=STR,
                    type=INT,
                    values=arr(INT),
                    original_bytes_hex=nullable(STR),
                    memory_bytes_hex=nullable(STR),
                )
            ),
            entry_points=arr(STR),
            entry_context=arr(obj(address=STR, registers=arr(obj(name=STR, value_hex=nullable(STR))))),
        ),
        checks=arr(
            obj(name=STR, matched=BOOL, expected=ANY, observed=ANY, file_offset=nullable(INT), address=nullable(STR))
        ),
        limitations=arr(STR),
    ),
    "annotate_native_function": obj(
        annotations=obj(address=STR, name=STR, comment=nullable(STR), inline_comment=nullable(STR)),
        dossier={"type": "object"},
        effects=obj(scope=STR, source_bytes_modified=BOOL, persists_after_close=BOOL),
    ),
}

NUM: dict[str, Any] = {"type": "number"}
_POINTED = obj(pointer=STR, producer_type={"enum": ["json-number", "integer", "float"]}, literal=STR)
_REDACTION = obj(pointer=STR, reason={"enum": ["transport-credential", "explicit-sensitive-value"]})

_NATIVE_LOCATION = obj(
    load_address=STR, file_address=nullable(STR), module=nullable(STR), module_path=nullable(STR), symbol=nullable(STR)
)

# 6.x javascriptSemanticGraphSchemas.ts: a semantic fact's evidence is a {context_id, location} reference to one
# evidence context (the application graph's evidence record without its location), where 3.1 repeated the record
SEMANTIC_CONTEXT = obj(
    context_id=STR,
    authority=STR,
    state=STR,
    confidence=STR,
    artifact=obj(available=BOOL),
    extractor=obj(name=STR, version=STR, operation=STR, executable_sha256=nullable(STR)),
    coverage=obj(status=STR, truncated=BOOL, limits=arr({"type": "object"})),
    limitations=arr(STR),
    evidence_ids=arr(STR),
)
SEMANTIC_REF = obj(context_id=STR, location=obj(available=BOOL))


def _semantic_refs(schema: dict[str, Any]) -> dict[str, Any]:
    out = requiring(schema, evidence_contexts=arr(SEMANTIC_CONTEXT))
    for name in ("nodes", "relations", "unknowns"):
        listed = schema["properties"][name]
        out["properties"][name] = {**listed, "items": requiring(listed["items"], evidence=SEMANTIC_REF)}
    return out


SIX: dict[str, Any] = {
    **NATIVE_SURFACE,
    # inspect_web_network_capture (6.x domain/webNetworkCapture.ts; not in 3.1)
    "inspect_web_network_capture": obj(
        artifact=obj(path=STR, sha256=nullable(STR), bytes=INT),
        format={"enum": ["har", "mitmproxy"]},
        decoder=obj(id=STR, name=STR, version=STR),
        container=obj(
            reported=ANY, numeric_literals=arr(_POINTED), redactions=arr(_REDACTION), records_pointer=nullable(STR)
        ),
        total_records=INT,
        records=arr(
            obj(
                ordinal=INT,
                location={"type": "object", "properties": {"kind": STR}, "required": ["kind"]},
                reported=ANY,
                binary_fields=arr(
                    obj(
                        pointer=STR,
                        representation={"enum": ["producer-bytes", "har-base64-content"]},
                        state={"enum": ["retained", "redacted"]},
                        content_base64=nullable(STR),
                        bytes=nullable(INT),
                        sha256=nullable(STR),
                    )
                ),
                numeric_literals=arr(_POINTED),
                redactions=arr(_REDACTION),
                limitations=arr(STR),
            )
        ),
        runtime_attribution={"const": "unknown"},
        limitations=arr(STR),
    ),
    # compare_web_screenshots (3.1 catalog result_schema = 6.x domain/webScreenshot.ts webScreenshotDiffSchema)
    "compare_web_screenshots": obj(
        schema_version={"const": 1},
        before=obj(width=INT, height=INT),
        after=obj(width=INT, height=INT),
        channel_threshold=INT,
        limitations=arr(STR),
        status={"enum": ["identical", "different", "dimension_mismatch"]},
        compared_pixels=INT,
        changed_pixels=nullable(INT),
        changed_ratio=nullable(NUM),
        maximum_channel_delta=nullable(INT),
        mean_absolute_channel_delta=nullable(NUM),
    ),
    # §4.5 managed: references, resources, attributes are arrays in 6.x (3.1 paged them)
    "inspect_managed_artifact": _listed("inspect_managed_artifact", "references", "resources", "attributes"),
    "inspect_managed_members": _listed(
        "inspect_managed_members", "types", "fields", "methods", "member_refs", "call_edges", "field_accesses"
    ),
    # 6.x adds the exact-signature basis (managedMemberComparisonMatch.ts): the item variants' basis enums widen
    "compare_managed_members": requiring(
        base("compare_managed_members"), methods=arr({"type": "object"}), fields=arr({"type": "object"})
    ),
    "inspect_managed_native_boundaries": _listed(
        "inspect_managed_native_boundaries", "module_refs", "pinvoke_imports", "native_implementations"
    ),
    # ELF shared objects' exports are native symbols too (our `elf-export` source, docs/dotnet.md)
    "verify_managed_native_boundaries": _widened(
        base("verify_managed_native_boundaries"), ["macho-export", "function-dossier"], "elf-export"
    ),
    # §2 list_*/search_*: complete arrays of {address, value, ...} (toolOutputSchemaGroups.ts), not 3.1 pages
    **{t: arr(_inventory_row(t)) for t in ("list_names", "list_procedures", "list_strings")},
    # (6.x search rows are {address, value, string?}: 3.1's value_truncated is not among them)
    "search_procedures": arr(without(_inventory_row("search_procedures"), "value_truncated")),
    "search_strings": arr(without(_inventory_row("search_strings"), "value_truncated")),
    # §1 list_unknowns: {items: [residual-unknown record], total} (+ offset/limit/next_offset per the spec);
    # 3.1 paged {unknown, uri} wrappers with has_more
    "list_unknowns": obj(items=arr(base("record_unknown")), total=INT),
    # §2 read_function_instructions: {procedure, instructions: string[], limitations}
    "read_function_instructions": obj(procedure=ANY, instructions=arr(STR), limitations=arr(STR)),
    # §2 procedure_references (toolOutputSchemaGroups.ts, hopperValues.ts)
    "procedure_references": obj(
        procedure=PROCEDURE_IDENTITY,
        direction={"enum": ["incoming", "outgoing"]},
        reference_kinds_available=BOOL,
        unresolved_calls=arr(obj(address=STR, reason=STR)),
        references=arr(
            obj(source_address=STR, target_address=STR, source_procedure=ANY, target_procedure=ANY, kind=ANY)
        ),
    ),
    # §2 procedure_info: 6.x adds body{available, ...}
    "procedure_info": requiring(base("procedure_info"), body=BODY),
    # §2 get_call_graph: depth keys "0", "1", ... holding node lists, plus top-level limitations (spec)
    "get_call_graph": {
        "type": "object",
        "properties": {"limitations": arr(STR)},
        "required": ["limitations", "0"],
        "patternProperties": {
            "^[0-9]+$": arr(
                {
                    "anyOf": [
                        obj(address=STR, status={"const": "ok"}, calls=arr(STR)),
                        obj(address=STR, status={"const": "error"}, error=ANY),
                    ]
                }
            )
        },
    },
    # §4.6 trace_javascript_semantics: semantic evidence references and their contexts (see SEMANTIC_REF)
    "trace_javascript_semantics": _semantic_refs(base("trace_javascript_semantics")),
    # §2 binary_overview: 6.x input is strict {}, so no `detail` echo
    "binary_overview": without(base("binary_overview"), "detail"),
    # §2 analyze_function: the 6.x dossier, complete (3.1 paged every collection and the pseudocode):
    # pseudocode a string, assembly string[], every collection an array; no instruction_scan;
    # native_value_flow; procedure with body
    "analyze_function": requiring(
        without(base("analyze_function"), "instruction_scan"),
        native_value_flow=ANY,
        procedure=requiring(base("analyze_function")["properties"]["procedure"], body=BODY),
        pseudocode=STR,
        assembly=arr(STR),
        **{c: _complete("analyze_function", c) for c in DOSSIER_COLLECTIONS},
    ),
    # §2 compare_functions: `changes` is the complete array in 6.x (functionComparisonSchemas)
    "compare_functions": requiring(base("compare_functions"), changes=_complete("compare_functions", "changes")),
    # §3 extract_artifact: `artifacts` is the complete array of written files (artifactGraph.ts)
    "extract_artifact": requiring(base("extract_artifact"), artifacts=_complete("extract_artifact", "artifacts")),
    # §2 trace_call_path
    "trace_call_path": obj(
        start=STR,
        goal=nullable(STR),
        direction=STR,
        goal_status={"enum": ["not_requested", "reached", "not_reached", "unknown"]},
        nodes=arr(obj(address=STR, depth=INT)),
        edges=arr(obj(source_address=STR, target_address=STR, discovery_depth=INT)),
        traversal_path=arr(STR),
        failures=arr(obj(address=STR, error=ANY)),
        traversal=obj(nodes_visited=INT),
        truncated=BOOL,
        residual_unknowns=arr(STR),
        limitations=arr(STR),
    ),
    # §3 compare_artifacts: `changes` is the complete array (artifactComparison.ts), not a page
    "compare_artifacts": requiring(
        base("compare_artifacts"),
        changes=arr(base("compare_artifacts")["properties"]["changes"]["properties"]["items"]["items"]),
    ),
    # §3 inspect_artifact: 6.x artifactInspection.ts (a strict object) has no derived_relationships or schema_version
    # (and its coverage counts no relationships)
    "inspect_artifact": requiring(
        without(base("inspect_artifact"), "derived_relationships", "schema_version"),
        coverage=without(
            base("inspect_artifact")["properties"]["coverage"], "relationships_retained", "relationships_omitted"
        ),
    ),
    # §3 inspect_analysis_view (analysisView.ts; not in 3.1)
    "inspect_analysis_view": obj(
        kind=STR,
        view=ANY,
        parent_evidence_id=STR,
        parent_operation=STR,
        view_digest=STR,
        coverage={
            "type": "object",
            "properties": {"status": STR, "next_offset": nullable(INT)},
            "required": ["status", "next_offset"],
        },
        limitations=arr(STR),
    ),
    # inspect_binary_layout (6.x domain/native/binaryLayout.ts; not in 3.1): the ELF shape
    "inspect_binary_layout": obj(
        artifact=obj(path=STR, sha256=STR, bytes=INT),
        format=STR,
        architecture=obj(machine=STR, bits=INT, byte_order=STR),
        image_type=STR,
        entry_point=obj(reported_value=STR, meaning=STR, execution_status={"const": "unknown"}),
        runtime_load_base=NULL,
        sections=arr(
            obj(
                index=INT,
                name=_LAYOUT_NAME,
                name_offset=STR,
                type=ANY,
                header_location=_RANGE,
                address=STR,
                offset=STR,
                size=STR,
                alignment=STR,
                flags=STR,
                link=INT,
                info=INT,
                entry_size=STR,
                file_backing={"enum": ["file", "none"]},
            )
        ),
        segments=arr(
            obj(
                index=INT,
                type=ANY,
                header_location=_RANGE,
                offset=STR,
                file_size=STR,
                memory_size=STR,
                virtual_address=STR,
                physical_address=STR,
                alignment=STR,
                flags=STR,
                file_backing=STR,
                permissions=nullable(obj(read=BOOL, write=BOOL, execute=BOOL)),
            )
        ),
        symbols=arr(
            obj(
                table_index=INT,
                entry_index=INT,
                name=_LAYOUT_NAME,
                name_offset=STR,
                location=_RANGE,
                value=STR,
                value_meaning=STR,
                size=STR,
                binding=ANY,
                type=ANY,
                visibility=ANY,
                section_index=ANY,
            )
        ),
        relocations=arr(
            obj(
                section_index=INT,
                entry_index=INT,
                reported_offset=STR,
                target={"type": "object"},
                location=_RANGE,
                type=INT,
                symbol_table_index=INT,
                symbol_index=INT,
                symbol_reference_meaning=STR,
                addend=nullable(STR),
            )
        ),
        packed_relative_relocations=arr({"type": "object"}),
        relocation_inventory_completeness={"const": "unknown"},
        linkage=obj(
            needed_libraries=arr(_LAYOUT_NAME),
            interpreters=arr(_LAYOUT_NAME),
            got=arr(obj(display_name=STR, address=STR)),
            plt=arr(obj(display_name=STR, address=STR)),
            convenience_maps_completeness={"const": "unknown"},
            runtime_library_paths=NULL,
        ),
        mitigations=obj(
            evidence_kind={"const": "inferred"},
            position_independent=BOOL,
            nx_indicator=nullable(BOOL),
            executable_stack_indicator=BOOL,
            stack_canary_indicator=BOOL,
            relro=nullable(STR),
        ),
        diagnostics=obj(stdout=STR, stderr=STR, truncated=BOOL),
        limitations=arr(STR),
    ),
    # list_browser_targets and inspect_web_page (6.x domain/browserObservationSchemas.ts, browserCompleteness.ts)
    "list_browser_targets": obj(
        browser=_BROWSER,
        targets=arr(_TARGET),
        excluded=obj(disallowed_origin=INT, unsupported_url=INT, non_page=INT),
        limitations=arr(STR),
    ),
    "inspect_web_page": obj(
        browser=_BROWSER,
        target=_TARGET,
        capture_window=obj(started_at=STR, ended_at=STR, observation_ms=INT),
        completeness=obj(
            status={"enum": ["complete_within_window", "policy_filtered", "attach_limited", "truncated"]},
            conditions=arr(STR),
            policy_filtered_sections=arr(STR),
            attach_limited_sections=arr(STR),
            truncated_sections=arr(STR),
            unavailable_sections=arr(STR),
            excluded=arr(obj(section=STR, reason=STR, count=nullable(INT))),
            dropped_events={"type": "object", "required": ["total"]},
        ),
        frames=arr(obj(frame_id=STR, parent_frame_id=nullable(STR), url=STR, origin=nullable(STR))),
        dom=obj(
            total_nodes=INT,
            nodes=arr(
                obj(
                    index=INT,
                    parent_index=INT,
                    node_type=INT,
                    node_name=STR,
                    node_value_length=INT,
                    attribute_names=arr(STR),
                )
            ),
        ),
        accessibility=obj(total_nodes=INT, text_capture={"type": "object"}, nodes=arr({"type": "object"})),
        scripts=obj(
            total=INT,
            items=arr(
                obj(
                    script_key=STR,
                    frame_id=nullable(STR),
                    url=STR,
                    origin=nullable(STR),
                    cdp_hash=STR,
                    length=INT,
                    is_module=BOOL,
                    language=nullable(STR),
                    source_map_url=nullable(STR),
                    resource_reconciliation={"type": "object", "required": ["status"]},
                    source={"type": "object", "required": ["included"]},
                )
            ),
        ),
        resources=arr(
            obj(
                resource_key=STR,
                url=STR,
                origin=nullable(STR),
                type=STR,
                mime_type=STR,
                content_size=nullable({"type": "number"}),
            )
        ),
        network=obj(
            requests=arr({"type": "object"}),
            websocket_events=arr({"type": "object"}),
            coverage_started_at=STR,
            prior_activity_available={"const": False},
        ),
        console=obj(events=arr({"type": "object"}), coverage_started_at=STR, prior_activity_available={"const": False}),
        workers=arr({"type": "object"}),
        metadata=obj(
            responses=arr({"type": "object"}),
            dom_urls=arr({"type": "object"}),
            agent_hints=arr({"type": "object"}),
            excluded_dom_urls=INT,
            headers_allowlisted={"const": True},
        ),
        storage=obj(
            origin=STR,
            usage_bytes=nullable({"type": "number"}),
            quota_bytes=nullable({"type": "number"}),
            local_storage_keys=arr(STR),
            session_storage_keys=arr(STR),
            indexed_db_names=arr(STR),
            cache_names=arr(STR),
            values_redacted={"const": True},
        ),
        limitations=arr(STR),
    ),
    # the other passive browser tools (6.x domain/webMcpDiscovery.ts, webScreenshot.ts, browserSession.ts,
    # webRuntime.ts and its listener/execution schemas)
    "discover_webmcp_tools": obj(
        browser=_BROWSER,
        target=obj(target_id=STR, url=STR, origin=STR),
        status={"enum": ["available", "unavailable"]},
        tools=obj(
            total=INT,
            items=arr(
                obj(
                    tool_key=STR,
                    name=STR,
                    description=STR,
                    frame_id=STR,
                    frame_url=STR,
                    owner_origin=STR,
                    declaration_kind={"enum": ["declarative", "imperative"]},
                    input_schema=ANY,
                    input_schema_sha256=nullable(STR),
                    annotations=obj(
                        read_only=nullable(BOOL), untrusted_content=nullable(BOOL), autosubmit=nullable(BOOL)
                    ),
                    registration_source=ANY,
                    trust={"const": "page-declared-untrusted"},
                )
            ),
        ),
        completeness={"type": "object", "required": ["status", "conditions"]},
        limitations=arr(STR),
    ),
    # capture_browser_scenario (6.x domain/browserScenarioCapture.ts, browserScenarioCaptureValues.ts)
    "capture_browser_scenario": obj(
        schema_version={"const": 1},
        browser=obj(
            mode={"enum": ["launch", "connect"]},
            process_ownership={"enum": ["provider-owned", "external"]},
            cleanup={"enum": ["terminated-owned-process", "disconnected-external"]},
            product=STR,
            version=STR,
        ),
        scenario=obj(start_origin=STR, allowed_origins=arr(STR), action_count=INT, secret_references=arr(STR)),
        duration_ms=INT,
        steps=arr(
            obj(
                step_index=INT,
                step_id=STR,
                action=STR,
                elapsed_ms=INT,
                before_url=STR,
                after_url=STR,
                event_sequence_start=INT,
                event_sequence_end=INT,
                artifacts=obj(
                    **{
                        k: {"type": "object", "required": ["state"]}
                        for k in ("screenshot", "dom", "accessibility", "url", "history", "storage")
                    }
                ),
                completeness=obj(
                    status={"enum": ["complete", "incomplete", "truncated"]},
                    equality_eligible=BOOL,
                    missing_sections=arr(STR),
                    truncated_sections=arr(STR),
                ),
                status={"enum": ["completed", "failed", "cancelled"]},
                error=nullable(STR),
            )
        ),
        events=obj(
            retained=INT, dropped=INT, items=arr({"type": "object", "required": ["sequence", "step_index", "kind"]})
        ),
        completeness=obj(
            status={"enum": ["complete", "incomplete", "truncated"]},
            equality_eligible=BOOL,
            missing_sections=arr(STR),
            truncated_sections=arr(STR),
        ),
        limitations=arr(STR),
    ),
    # compare_web_captures over a scenario pair (6.x domain/browserScenarioDiffValues.ts)
    "compare_web_captures": obj(
        comparison_kind={"const": "browser_scenario"},
        overall_status={"enum": ["changed", "unchanged", "unknown"]},
        normalization=obj(built_in_rules=arr(STR), rules=arr({"type": "object"}), sha256=STR),
        alignment=obj(
            status={"enum": ["aligned", "partial", "failed"]},
            aligned_steps=INT,
            before_only=arr(STR),
            after_only=arr(STR),
            failures=arr(obj(code=STR, step_id=nullable(STR), reason=STR)),
        ),
        steps=arr(
            obj(
                step_id=STR,
                before_step_index=INT,
                after_step_index=INT,
                before_action=STR,
                after_action=STR,
                status={"enum": ["changed", "unchanged", "unknown"]},
                artifact_diffs=arr(
                    {"type": "object", "required": ["artifact", "status", "before_state", "after_state"]}
                ),
            )
        ),
        artifact_diffs=obj(total=INT),
        limitations=arr(STR),
    ),
    # capture_electron_scenario (6.x domain/javascript/electronActiveObservation.ts)
    "capture_electron_scenario": obj(
        application=obj(
            executable_path=STR,
            application_path=STR,
            electron_version=STR,
            process_ownership={"const": "provider-owned"},
            cleanup={"const": "terminated-owned-process"},
        ),
        actions=arr(
            obj(
                step_id=STR,
                kind=STR,
                window_index=nullable(INT),
                target=nullable(STR),
                elapsed_ms=INT,
                status={"enum": ["completed", "failed", "cancelled"]},
                error=nullable(STR),
            )
        ),
        windows=arr(
            obj(window_id=STR, web_contents_id=STR, url=STR, title=STR, visible=nullable(BOOL), destroyed=BOOL)
        ),
        processes=obj(items=arr(obj(pid=INT, type=STR, name=nullable(STR), service_name=nullable(STR)))),
        ipc=obj(events=arr({"type": "object"}), observed=INT, dropped=nullable(INT)),
        timeline=obj(events=arr({"type": "object"}), observed=INT, dropped=nullable(INT)),
        coverage=obj(
            status=STR,
            observed_event_families=arr(STR),
            unavailable_event_families=arr(STR),
            observed_roles=arr(STR),
            pre_capture_activity={"const": "unavailable"},
        ),
        limitations=arr(STR),
    ),
    "capture_web_screenshot": obj(
        schema_version={"const": 1},
        browser=_BROWSER,
        target=obj(target_id=STR, url=STR, origin=STR),
        captured_at=STR,
        viewport=obj(width=INT, height=INT),
        artifact=obj(uri=STR, sha256=STR, bytes=INT, media_type={"const": "image/png"}, data_base64=STR),
        completeness={"type": "object", "required": ["status"]},
        limitations=arr(STR),
    ),
    "inspect_web_event_listeners": obj(
        browser=_BROWSER,
        target=_RUNTIME_TARGET,
        inspected_at=STR,
        selected_node=obj(selector=STR, match={"enum": ["found", "not_found"]}, backend_node_id=nullable(INT)),
        listeners=arr(
            obj(
                type=STR,
                use_capture=BOOL,
                passive=BOOL,
                once=BOOL,
                location={"type": "object"},
                execution={"const": "unknown"},
            )
        ),
        sources=arr({"type": "object", "required": ["script_id", "url", "source"]}),
        cleanup={"const": "confirmed"},
        limitations=arr(STR),
    ),
    "observe_web_execution": obj(
        browser=_BROWSER,
        target=_RUNTIME_TARGET,
        window=obj(
            armed_at=STR,
            ended_at=STR,
            requested_ms=INT,
            end_reason=STR,
            producer_started_seconds={"type": "number"},
            producer_sampled_seconds=ANY,
        ),
        coverage=obj(
            state=STR,
            reason=nullable(STR),
            offset_units={"const": "utf16-code-units"},
            end_offset={"const": "exclusive"},
            scripts=arr({"type": "object"}),
            excluded_scripts=INT,
        ),
        requests=arr({"type": "object"}),
        excluded_requests=INT,
        script_inventory=obj(
            main_document_scripts=INT, not_reported_script_ids=arr(STR), coverage_absence={"const": "unknown"}
        ),
        sources=arr({"type": "object"}),
        instrumentation={"type": "object", "required": ["executes_selected_code", "cleanup", "page_ownership"]},
        limitations=arr(STR),
    ),
    "observe_web_session": obj(
        schema_version={"const": 1},
        browser=_BROWSER,
        target=obj(target_id=STR, initial_url=STR, final_url=nullable(STR)),
        window=obj(
            armed_at=STR,
            ended_at=STR,
            requested_ms=INT,
            end_reason={"enum": ["window_elapsed", "target_left_scope", "target_terminated"]},
        ),
        timeline=arr({"type": "object", "required": ["sequence", "type", "timestamp"]}),
        completeness={"type": "object", "required": ["status"]},
        limitations=arr(STR),
    ),
    # analyze_web_bundle (6.x domain/webBundleAnalysis.ts webBundleAnalysisSchema; not in 3.1)
    "analyze_web_bundle": obj(
        schema_version={"const": 1},
        capture=obj(
            target_url=STR,
            scripts_observed=INT,
            scripts_analyzed=INT,
            source_artifacts=arr(
                obj(
                    uri=STR,
                    sha256=STR,
                    bytes=INT,
                    media_type=STR,
                    charset={"const": "utf-8"},
                    text_available={"const": True},
                )
            ),
        ),
        observations=obj(
            chunks=obj(
                nodes=arr(obj(script_key=STR, url=STR, artifact_sha256=STR, bytes=INT)),
                edges=arr(
                    obj(
                        from_script_key=STR,
                        kind={"enum": ["static_import", "dynamic_import", "require", "worker_import"]},
                        specifier=STR,
                        resolved_url=nullable(STR),
                        location=obj(script_key=STR, line=nullable(INT), column=nullable(INT)),
                    )
                ),
            ),
            routes=arr(obj(value=STR, mechanism=STR, location={"type": "object"})),
            endpoints=arr(obj(value=STR, mechanism=STR, location={"type": "object"})),
            webmcp_declarations=arr(
                obj(
                    name=nullable(STR),
                    description=nullable(STR),
                    schema_property_names=arr(STR),
                    trust={"const": "page-declared-untrusted"},
                    location={"type": "object"},
                )
            ),
            source_maps=obj(
                status={"enum": ["not_requested", "included", "partial", "unavailable", "truncated"]},
                requested=INT,
                processed=INT,
                dropped=INT,
                dropped_script_keys=arr(STR),
                items=arr(
                    {
                        "type": "object",
                        "required": [
                            "script_key",
                            "declared_url",
                            "status",
                            "artifact",
                            "original_sources",
                            "original_module_edges",
                            "mappings",
                            "limitation",
                        ],
                    }
                ),
            ),
        ),
        inferences=arr(
            obj(
                kind={"enum": ["vendor_fingerprint", "route_framework", "bundle_runtime"]},
                value=STR,
                confidence={"enum": ["low", "medium", "high"]},
                basis=arr(
                    obj(script_key=STR, artifact_sha256=STR, line=nullable(INT), column=nullable(INT), detector=STR)
                ),
            )
        ),
        unknowns=arr(obj(dimension=STR, reason=STR, affected_script_keys=arr(STR))),
        completeness=obj(
            status={"enum": ["complete_within_limits", "truncated", "partial"]},
            parsed_scripts=INT,
            parse_failures=INT,
            visited_ast_nodes=INT,
            dropped_findings=INT,
        ),
        limitations=arr(STR),
    ),
    # export_web_scripts, trace_web_source_location, trace_web_module_imports (6.x domain/webScriptExport.ts,
    # webSourceLocation.ts, webModuleTrace.ts; not in 3.1)
    "export_web_scripts": obj(
        capture_path=STR,
        capture_sha256=STR,
        capture_kind={"enum": ["page-inspection", "browser-scenario"]},
        source_evidence_id=nullable(STR),
        capture_completeness={"type": "object"},
        output_directory=STR,
        analysis_input=nullable(obj(input_path=STR, format={"const": "directory"})),
        scripts=arr(
            obj(
                source={"type": "object", "required": ["kind"]},
                url=STR,
                content={"type": "object", "required": ["state"]},
            )
        ),
        limitations=arr(STR),
        manifest=obj(path=STR, sha256=STR, bytes=INT),
    ),
    "trace_web_source_location": obj(
        source_map_sha256=STR,
        url_context=STR,
        engine=obj(id=STR, version=STR),
        runtime=obj(id=STR, version=STR, v8_heap_limit_bytes=ANY),
        format={"enum": ["regular", "indexed"]},
        reported_file=nullable(STR),
        lookup=obj(
            requested=obj(line=INT, column=INT),
            matched_generated_position=nullable(obj(line=INT, column=INT)),
            semantics=STR,
            location_units=STR,
        ),
        matches=arr({"type": "object", "required": ["state"]}),
        diagnostics=arr(STR),
        manifest=obj(
            path=STR,
            sha256=STR,
            bytes=INT,
            reported_output_directory=STR,
            capture_path=STR,
            capture_sha256=STR,
            capture_kind=STR,
            capture_completeness={"type": "object"},
            source_evidence_id=nullable(STR),
        ),
        source=obj(path=STR, sha256=STR, bytes=INT, script_index=INT, script={"type": "object"}),
        source_map=obj(path=STR, sha256=STR, bytes=INT, url=STR, association={"const": "caller-selected"}),
        generated_offset=INT,
        source_authenticity={"const": "unknown"},
        execution={"const": "unknown"},
        limitations=arr(STR),
    ),
    "trace_web_module_imports": obj(
        manifest=obj(path=STR, sha256=STR, bytes=INT, reported_output_directory=STR, capture_sha256=STR),
        source=obj(path=STR, sha256=STR, bytes=INT, script_index=INT, script={"type": "object"}),
        importer=obj(url=STR, basis={"enum": ["caller-selected", "reported-source-url"]}),
        import_map=ANY,
        parser=obj(state={"enum": ["parsed", "unparseable"]}, diagnostics=arr(STR), location_units=STR),
        engine=ANY,
        imports=arr(
            obj(
                kind=STR,
                specifier=nullable(STR),
                expression=STR,
                start=obj(offset=INT, line=INT, column=INT),
                end=obj(offset=INT, line=INT, column=INT),
                resolution={"type": "object", "required": ["state"]},
                captured_candidates=arr({"type": "object"}),
                execution={"const": "unknown"},
            )
        ),
        diagnostics=arr(STR),
        limitations=arr(STR),
    ),
    # inspect_wasm_artifact (6.x domain/wasm/wasmArtifact.ts; not in 3.1); WABT release and commit are ours
    "inspect_wasm_artifact": obj(
        artifact=obj(path=STR, sha256=STR, bytes=INT),
        validation={"const": "valid"},
        sections=arr(obj(kind=STR, start=INT, end=INT, bytes=INT, description=STR)),
        imports=arr(STR),
        exports=arr(STR),
        headers=STR,
        details=STR,
        wat=obj(text=STR, sha256=STR, representation={"const": "decoded-wat"}),
        tool_profile=obj(
            source={"const": "https://github.com/WebAssembly/wabt"},
            release=STR,
            source_commit=ANY,
            commands=arr(obj(tool=STR, path=STR, sha256=STR, version_banner=STR, arguments=arr(STR))),
            timeout_ms=INT,
            output_budget_bytes=INT,
        ),
        candidates=arr(obj(path=STR, sha256=STR, bytes=INT)),
        glue=arr({"type": "object"}),
        runtime_execution={"const": "not-performed"},
        network_fetch={"const": "not-performed"},
        limitations=arr(STR),
    ),
    # inspect_evm_interface (6.x domain/evm/evmInterface.ts; not in 3.1)
    "inspect_evm_interface": obj(
        artifact=obj(path=STR, sha256=STR, bytes=INT, encoding={"enum": ["raw", "hex"]}),
        bytecode=obj(
            sha256=STR,
            bytes=INT,
            hex=STR,
            digest_algorithm={"const": "sha256"},
            kind={"const": "unknown"},
            deployment_authenticity={"const": "unknown"},
            hardfork={"const": "unknown"},
        ),
        evidence_kind={"const": "inferred"},
        functions=arr(
            obj(
                selector=STR,
                bytecode_offset=INT,
                dispatch={"enum": ["abi", "fallback"]},
                inferred_arguments=nullable(STR),
                inferred_state_mutability=nullable(STR),
            )
        ),
        discovery_completeness={"const": "unknown"},
        runtime_execution={"const": "not-performed"},
        diagnostics=obj(stdout=STR, stderr=STR, truncated=BOOL),
        limitations=arr(STR),
    ),
    # evaluate_reconstruction_coverage (6.x domain/reconstructionCoverage.ts reconstructionClosureResultSchema;
    # not in 3.1, whose query_reconstruction_coverage read a stored workspace)
    "evaluate_reconstruction_coverage": obj(
        boundary_id=STR,
        status={"enum": ["partial", "failed", "unknown", "ready"]},
        summary=obj(required_surfaces=INT, required_claims=INT, reasons=INT),
        reasons=arr(obj(code=STR, subject_id=STR, detail=STR)),
        recommended_probes=arr(obj(operation=STR, subject_id=STR, rationale=STR)),
        evidence_ids=arr(STR),
    ),
    # inspect_firmware_regions, extract_firmware (6.x domain/firmware/firmwareAnalysis.ts; not in 3.1)
    "inspect_firmware_regions": obj(
        engine=_FIRMWARE_ENGINE,
        input_size=INT,
        regions=arr(
            obj(
                provider_id=STR,
                offset=INT,
                reported_size=INT,
                signature=STR,
                description=STR,
                reported_confidence=INT,
                size_basis={"const": "provider_reported_validation_unknown"},
            )
        ),
        coverage={"const": "signature_scan"},
    ),
    "extract_firmware": obj(
        engine=_FIRMWARE_ENGINE,
        selection=obj(offset=INT, length=INT, sha256=STR),
        output_directory=STR,
        coverage={"enum": ["complete", "partial"]},
        files=arr(
            obj(
                relative_path=STR,
                path=STR,
                size=INT,
                sha256=STR,
                reported_sha256=nullable(STR),
                mime_type=nullable(STR),
                analysis_depth=nullable(INT),
                runtime_address=NULL,
                original_file_range=NULL,
            )
        ),
        unpublished_entries=arr(
            obj(relative_path=STR, kind={"enum": ["symlink", "special"]}, link_target=nullable(STR))
        ),
        chunks=arr(
            obj(
                input_path=STR,
                provider_id=STR,
                range=ANY,
                handler=nullable(STR),
                encrypted=nullable(BOOL),
                root_file_range=ANY,
            )
        ),
        derivations=arr(
            obj(parent_path=STR, child_path=STR, provider_blob_id=STR, handler=nullable(STR), parent_file_range=ANY)
        ),
        depth_limited_paths=arr(STR),
        diagnostics=arr(ANY),
        published_bytes=INT,
    ),
    # recover_javascript_sources (6.x domain/javascript/javascriptRecovery.ts; not in 3.1)
    "recover_javascript_sources": obj(
        source=obj(
            path=STR, sha256=STR, bytes=INT, snapshot_path=STR, published_copy=obj(path=STR, sha256=STR, bytes=INT)
        ),
        engine=obj(
            id=STR,
            version=STR,
            executable=obj(path=STR, sha256=STR, bytes=INT),
            audited_source_revision=STR,
            executed_source_revision=nullable(STR),
        ),
        options=obj(extraction_mode=STR, rewrite_level=STR),
        status={"enum": ["complete", "partial"]},
        detected_formats=arr(STR),
        reported_safety=STR,
        reported_strategy=STR,
        reported_format=STR,
        total=INT,
        failed=INT,
        modules=arr(
            obj(
                reported_filename=STR,
                reported_status=STR,
                artifact=obj(path=STR, sha256=STR, bytes=INT),
                source_map=nullable(obj(path=STR, sha256=STR, bytes=INT)),
                provenance=obj(
                    reported_input=STR,
                    original_path=STR,
                    original_sha256=STR,
                    extraction=STR,
                    byte_ranges=arr(obj(start=INT, end=INT)),
                    context_byte_ranges=arr(obj(start=INT, end=INT)),
                    range_semantics={"const": "half-open-utf8-bytes"},
                ),
            )
        ),
        warnings=arr(obj(filename=STR, kind=STR, is_error=BOOL, message=STR)),
        report=obj(path=STR, sha256=STR, bytes=INT),
        provenance=obj(path=STR, sha256=STR, bytes=INT),
        manifest=obj(path=STR, sha256=STR, bytes=INT),
        analysis_input=nullable(obj(input_path=STR, format={"const": "directory"})),
        runtime_equivalence={"const": "unknown"},
        limitations=arr(STR),
    ),  # fmt: skip
    # reconcile_javascript_runtime (6.x domain/javascript/javascriptRuntimeReconciliationSchemas.ts, Result.ts)
    "reconcile_javascript_runtime": obj(
        schema_version={"const": 1},
        reconciliation_id={"type": "string", "pattern": "^jrr_[a-f0-9]{64}$"},
        static_layers=arr(
            obj(
                layer_id=STR,
                role=STR,
                evidence_id=STR,
                graph_id=STR,
                root_artifact_sha256=STR,
                input_path=STR,
                format={"enum": ["asar", "directory"]},
                runtime_mappings=arr(ANY),
            )
        ),
        runtime_captures=arr(
            obj(
                evidence_id=STR,
                capture_sha256=STR,
                kind={"enum": ["browser", "electron", "v8-inspector", "electron-active"]},
                target_node_id=STR,
                target_key=STR,
                target_location=STR,
                frames=INT,
                scripts=INT,
                workers=INT,
                scripts_complete_within_scope=BOOL,
            )
        ),
        graph=obj(
            schema={"const": "JavaScriptApplicationGraph"},
            schema_version={"const": 1},
            graph_id=STR,
            root_node_ids=arr(STR),
            nodes=arr(
                obj(
                    node_id=STR,
                    kind=STR,
                    identity=obj(strategy=STR),
                    observations=arr(obj(evidence=obj(authority=STR))),
                )
            ),
            edges=arr(
                obj(
                    edge_id=STR,
                    source_node_id=STR,
                    target_node_id=STR,
                    relation=STR,
                    evidence=obj(authority=STR, state=STR),
                )
            ),
            coverage=obj(status=STR, truncated=BOOL, limits=arr(ANY)),
            limitations=arr(STR),
        ),
        summary=obj(
            **{
                k: INT
                for k in (
                    "runtime_targets runtime_frames runtime_scripts runtime_workers matched ambiguous unmatched unknown "
                    "static_loaded static_resident static_not_observed static_unknown"
                ).split()
            }
        ),
        reconciliations=arr(
            obj(
                reconciliation_id=STR,
                entity_kind={"enum": ["target", "frame", "script", "worker"]},
                runtime_evidence_id=STR,
                runtime_node_id=STR,
                static_layer_id=nullable(STR),
                static_node_id=nullable(STR),
                status={"enum": ["matched", "ambiguous", "unmatched", "unknown"]},
                basis=STR,
                confidence=STR,
                reason=STR,
                candidate_static_count=INT,
                candidate_static_nodes=arr(obj(static_layer_id=STR, static_node_id=STR)),
            )
        ),
        static_load_states=arr(
            obj(
                static_layer_id=STR,
                static_node_id=STR,
                kind=STR,
                runtime_node_ids=arr(STR),
                status={"enum": ["loaded", "resident-in-loaded-asset", "not-observed-in-capture", "unknown"]},
                reason=STR,
            )
        ),
        source_map_authority=obj(
            used_for_primary_matching={"const": False},
            static_layer_count=INT,
            runtime_script_declarations=INT,
            limitation=STR,
        ),
        coverage=obj(
            status={"enum": ["complete-within-inputs", "partial", "truncated"]},
            truncated=BOOL,
            omitted_runtime_entities=INT,
            omitted_reconciliation_items=INT,
            omitted_static_load_states=INT,
            omitted_graph_items=INT,
        ),
        evidence_links=arr(STR),
        limitations=arr(STR),
    ),  # fmt: skip
    # list_javascript_runtime_targets / observe_javascript_runtime (6.x domain/javascript/javascriptRuntimeObservation.ts)
    "list_javascript_runtime_targets": obj(
        runtime=obj(product=STR, protocol_version=STR, v8_version=nullable(STR)),
        targets=arr(obj(target_id=STR, protocol_type=STR, attached=BOOL, location=obj(kind=STR))),
        excluded=obj(unsupported_location=INT, unconnectable=INT),
        limitations=arr(STR),
    ),
    "observe_javascript_runtime": obj(
        runtime=obj(product=STR, protocol_version=STR, v8_version=nullable(STR)),
        target=obj(
            target_id=STR,
            protocol_type=STR,
            attached=BOOL,
            location=obj(kind=STR),
            runtime_kind=STR,
            runtime_kind_authority=STR,
        ),
        capture=obj(
            observation_ms=INT,
            events_observed=INT,
            events_retained=INT,
            events_dropped=INT,
            metadata_bytes_retained=INT,
            truncated=BOOL,
            truncation_reasons=arr(STR),
        ),
        scripts=obj(
            items=arr(
                obj(
                    script_key=STR,
                    location=obj(kind=STR),
                    execution_context_key=nullable(STR),
                    cdp_hash=nullable(STR),
                    length=nullable(INT),
                    is_module=nullable(BOOL),
                    status={"const": "observed-loaded"},
                )
            ),
            observed_total=INT,
            excluded=obj(unsupported_location=INT, invalid_protocol_value=INT),
        ),
        execution_contexts=arr(obj(context_key=STR, state=STR, name=nullable(STR), origin=nullable(STR))),
        directly_observed=arr(STR),
        unavailable_without_instrumentation=arr(STR),
        unknowns=arr(STR),
        limitations=arr(STR),
    ),  # fmt: skip
    # list_electron_targets / inspect_electron_page (6.x domain/javascript/electronObservation.ts)
    "list_electron_targets": obj(
        browser=obj(product=STR, protocol_version=STR, revision=STR, user_agent=STR, js_version=STR),
        targets=arr(obj(target_id=STR, type=STR, title=STR, file_path=STR, attached=BOOL)),
        excluded=obj(unsupported_url=INT, non_page=INT),
        limitations=arr(STR),
    ),
    "inspect_electron_page": obj(
        browser=obj(product=STR, protocol_version=STR, revision=STR, user_agent=STR, js_version=STR),
        target=obj(target_id=STR, type=STR, title=STR, file_path=STR, attached=BOOL),
        capture_window=obj(started_at=STR, ended_at=STR, observation_ms=INT),
        completeness=obj(
            status=STR,
            conditions=arr(STR),
            policy_filtered_sections=arr(STR),
            attach_limited_sections=arr(STR),
            truncated_sections=arr(STR),
            unavailable_sections=arr(STR),
            excluded=arr(ANY),
            dropped_events=obj(total=INT),
        ),
        frames=arr(obj(frame_id=STR, parent_frame_id=nullable(STR), file_path=STR)),
        dom=obj(
            total_nodes=INT,
            nodes=arr(
                obj(
                    index=INT,
                    parent_index=INT,
                    node_type=INT,
                    node_name=STR,
                    node_value_length=INT,
                    attribute_names=arr(STR),
                )
            ),
        ),
        scripts=obj(
            total=INT,
            items=arr(
                obj(
                    script_key=STR,
                    frame_id=nullable(STR),
                    file_path=STR,
                    cdp_hash=nullable(STR),
                    length=nullable(INT),
                    is_module=nullable(BOOL),
                    language=nullable(STR),
                    source=obj(included=BOOL),
                )
            ),
        ),
        resources=arr(
            obj(resource_key=STR, file_path=STR, type=STR, mime_type=STR, content_size=nullable({"type": "number"}))
        ),
        workers=arr(ANY),
        limitations=arr(STR),
    ),  # fmt: skip
    # get_objc_classes / get_objc_protocols (6.x toolOutputSchemaPrimitives.ts symbolDiscoveryOutput)
    "get_objc_classes": obj(count=INT, classes=arr(obj(address=STR, name=STR))),
    "get_objc_protocols": obj(count=INT, protocols=arr(obj(address=STR, name=STR))),
    # analyze_swift_types (6.x toolOutputSchemaGroups.ts)
    "analyze_swift_types": obj(
        total=INT,
        categories={"type": "object", "additionalProperties": obj(count=INT, items=arr(obj(address=STR, name=STR)))},
    ),
    # inspect_native_dispatch_metadata (6.x domain/native/objcSwiftMetadata.ts nativeDispatchMetadataResultSchema)
    "inspect_native_dispatch_metadata": obj(
        target_sha256=nullable(STR),
        provider=obj(id=STR, name=STR, version=nullable(STR)),
        analysis_profile_digest=nullable(STR),
        result=obj(
            objc_classes=arr(
                obj(
                    name=STR,
                    super_class=nullable(STR),
                    is_meta_class=BOOL,
                    is_root_class=BOOL,
                    methods=arr(
                        obj(selector=STR, method_type=STR, address=nullable(INT), is_required=BOOL, is_optional=BOOL)
                    ),
                    properties=arr({"type": "object"}),
                    protocols=arr(STR),
                    ivar_count=INT,
                    instance_size=nullable(INT),
                )
            ),
            **{
                k: arr({"type": "object"})
                for k in (
                    "objc_protocols",
                    "objc_categories",
                    "swift_decls",
                    "objc_ivars",
                    "objc_protocol_records",
                    "objc_dispatch_implementations",
                    "swift_conformances",
                    "swift_dispatch_slots",
                    "swift_symbols",
                    "relative_pointers",
                )
            },
            coverage=arr(obj(facet=STR, status=STR, reason=nullable(STR), examined=INT, decoded=INT)),
            db_save_result=ANY,
        ),
    ),
    # emulate_native_function: REA's own tool (issue 29), with no 6.x counterpart; this shape is ours
    "emulate_native_function": obj(
        procedure=obj(address=STR, name=STR),
        engine=STR,
        status={
            "enum": [
                "returned",
                "stopped_at",
                "step_limit",
                "time_limit",
                "memory_limit",
                "memory_fault",
                "unsupported",
            ]
        },
        stop_address=nullable(STR),
        fault_address=nullable(STR),
        unsupported=ANY,
        return_value=nullable(obj(register=STR, value=STR, signed=STR, points_to=ANY)),
        arguments=arr(obj(index=INT, kind=STR, value=STR)),
        buffers=arr(ANY),
        image_writes=arr(ANY),
        image_writes_total=INT,
        image_writes_truncated=BOOL,
        calls=arr(obj(site=nullable(STR), target=STR, name=nullable(STR))),
        calls_total=INT,
        instructions=INT,
        budgets=obj(steps=obj(limit=INT, used=INT, exhausted=BOOL), time_ms=INT, time_exhausted=BOOL),
        coverage=obj(status={"enum": ["complete", "partial"]}, reason=STR),
    ),
    # trace_native_values (6.x domain/native/nativeValueTrace.ts nativeValueTraceSchema; operations are
    # nativeValueFlow.ts nativePcodeOperationSchema)
    "trace_native_values": obj(
        seed=STR,
        target_sha256=STR,
        nodes=arr(
            obj(
                id=STR,
                procedure=STR,
                evidence_id=STR,
                kind={"enum": ["operation", "parameter"]},
                operation=nullable(
                    obj(
                        id=STR,
                        address=STR,
                        sequence=INT,
                        opcode=STR,
                        is_dead=BOOL,
                        block_membership={"enum": ["member", "detached", "unavailable"]},
                        inputs=arr(_VARNODE),
                        output=nullable(_VARNODE),
                    )
                ),
                parameter=nullable(obj(ordinal=INT, name=STR, data_type=STR)),
            )
        ),
        edges=arr(
            obj(
                source=STR,
                target=STR,
                input_index=nullable(INT),
                kind={"enum": ["def-use", "call", "parameter-use", "argument-binding", "return-binding"]},
                status={"enum": ["derived", "direct", "resolved-indirect", "candidate"]},
                evidence_id=STR,
            )
        ),
        procedures=arr(
            obj(address=STR, depth=INT, evidence_id=STR, provider=STR, analysis_profile_digest=nullable(STR))
        ),
        unknowns=arr(obj(procedure=STR, address=nullable(STR), reason=STR)),
        total_nodes=INT,
        total_edges=INT,
        decompilations=INT,
        next_offset=nullable(INT),
        truncated=BOOL,
        limitations=arr(STR),
    ),
    # observe_native_calls (6.x domain/native/nativeCallObservation.ts nativeCallObservationResultSchema)
    "observe_native_calls": obj(
        target=obj(
            path=STR,
            sha256=STR,
            architecture=STR,
            arguments=arr(STR),
            environment={"type": "object", "additionalProperties": STR},
            working_directory=nullable(STR),
            launch_identity=obj(
                loaded_image_sha256=NULL,
                file_device=nullable(STR),
                file_inode=nullable(STR),
                selected_file_sha256=nullable(STR),
                module_path=nullable(STR),
                module_uuid=nullable(STR),
                stable=BOOL,
            ),
        ),
        debugger=obj(path=STR, sha256=STR, version=nullable(STR)),
        process=obj(
            pid=INT,
            outcome={"enum": ["exited", "duration-elapsed", "event-limit", "stop-limit", "resource-limit"]},
            exit_status=nullable(INT),
            exit_description=nullable(STR),
            terminated=BOOL,
            elapsed_ms={"type": "number"},
            stdout=obj(text=STR, bytes=INT, truncated=BOOL, complete=BOOL),
            stderr=obj(text=STR, bytes=INT, truncated=BOOL, complete=BOOL),
            other_stops=arr(STR),
        ),
        breakpoints=arr(
            obj(index=INT, request={"type": "object"}, location_count=INT, locations=arr(_NATIVE_LOCATION))
        ),
        events=arr(
            obj(
                sequence=INT,
                elapsed_ms={"type": "number"},
                thread_id=INT,
                breakpoint_index=INT,
                receiver_class=nullable(STR),
                selector=nullable(STR),
                registers=arr(obj(name=STR, value=STR)),
                backtrace=arr(_NATIVE_LOCATION),
                **_NATIVE_LOCATION["properties"],
            )
        ),
        coverage=obj(
            status={"enum": ["complete", "partial"]},
            event_limit_reached=BOOL,
            resource_limit_reached=BOOL,
            unresolved_breakpoints=arr(INT),
        ),
        limitations=arr(STR),
    ),
    # inspect_signature (3.1 catalog result_schema; not in the result-schema export)
    "inspect_signature": obj(
        signed=BOOL,
        identifier=nullable(STR),
        team_identifier=nullable(STR),
        format=nullable(STR),
        cdhashes=arr(STR),
        hash_algorithms=arr(STR),
        authorities=arr(STR),
        designated_requirement=nullable(STR),
        entitlements=ANY,
        timestamp=nullable(STR),
        hardened_runtime=nullable(BOOL),
        provenance=arr({"type": "object"}),
        limitations=arr(STR),
    ),
    # trace_dylib_resolution (6.x only: src/domain/apple/dylibResolutionSchema.ts dylibResolutionResultSchema)
    "trace_dylib_resolution": obj(
        root_path=STR,
        target_sha256=STR,
        shared_cache=ANY,
        roots=arr(obj(image=STR, architecture=STR)),
        images=arr(
            obj(
                path=STR,
                sha256=STR,
                parse_status={"enum": ["parsed", "malformed", "unsupported"]},
                reason=nullable(STR),
                slices=arr(
                    obj(
                        architecture=STR,
                        file_type={"enum": ["execute", "dylib", "bundle", "other"]},
                        install_name=nullable(STR),
                        rpaths=arr(STR),
                        dyld_environment=arr(STR),
                        code_signature_present=BOOL,
                        platforms=arr(obj(id=INT, name=nullable(STR))),
                    )
                ),
            )
        ),
        edges=arr(
            obj(
                root=STR,
                architecture=STR,
                loader=STR,
                via=arr(STR),
                command=STR,
                encoding={"enum": ["dylib_command", "dylib_use_command"]},
                install_name=STR,
                weak=BOOL,
                upward=BOOL,
                reexport=BOOL,
                delayed_init=BOOL,
                current_version=STR,
                compatibility_version=STR,
                candidates=arr(
                    obj(
                        path=STR,
                        source=STR,
                        rpath=nullable(STR),
                        rpath_owner=nullable(STR),
                        outcome=STR,
                        resolved_path=nullable(STR),
                    )
                ),
                resolution=obj(status=STR, image=nullable(STR)),
                install_name_matches=nullable(BOOL),
                loader_conditional=BOOL,
            )
        ),
        findings=arr(
            obj(kind=STR, edge_index=nullable(INT), image=nullable(STR), basis={"const": "derived"}, explanation=STR)
        ),
        coverage=obj(
            status={"enum": ["complete", "partial"]},
            unparsed_images=arr(STR),
            roots_without_architecture=arr(STR),
            unverified_shared_cache_images=arr(STR),
        ),
        limitations=arr(STR),
    ),
    # inspect_plist (3.1 catalog result_schema; not in the result-schema export)
    "inspect_plist": obj(
        format={"enum": ["xml", "binary", "json", "unknown"]},
        value=ANY,
        bundle=obj(
            identifier=nullable(STR),
            executable=nullable(STR),
            name=nullable(STR),
            version=nullable(STR),
            short_version=nullable(STR),
        ),
        source_path=STR,
        provenance=arr({"type": "object"}),
        limitations=arr(STR),
    ),
    # inspect_keyed_archive (6.x src/domain/apple/keyedArchive.ts keyedArchiveResultSchema)
    "inspect_keyed_archive": obj(
        target_sha256=STR,
        archive_path=STR,
        archive_sha256=STR,
        archive_format={"enum": ["binary-plist", "xml-plist"]},
        roots={"type": "object"},
        objects=arr(
            obj(
                id=INT,
                kind={"enum": ["nil", "scalar", "array", "dictionary", "class-descriptor", "archived-object"]},
                class_id=nullable(INT),
                class_name=nullable(STR),
                status={"enum": ["observed", "unknown-class", "unresolved-class", "nil"]},
                value=ANY,
            )
        ),
        references=arr(
            obj(
                source=nullable(INT),
                path=arr({"type": ["string", "integer"]}),
                target=nullable(INT),
                status={"enum": ["resolved", "nil", "unresolved", "malformed"]},
                raw=ANY,
            )
        ),
        total_objects=INT,
        total_references=INT,
        offset=INT,
        next_offset=nullable(INT),
        truncated=BOOL,
        limitations=arr(STR),
    ),
    # decode_interface_builder (6.x src/domain/apple/interfaceBuilderGraph.ts, nativeInvestigationGraph.ts)
    "decode_interface_builder": obj(
        target_sha256=STR,
        documents=arr(
            obj(
                relative_path=STR,
                archive_sha256=STR,
                document_kind={"enum": ["nib", "storyboard_scene"]},
                object_count=INT,
                connection_count=INT,
                hierarchy_complete=BOOL,
            )
        ),
        graph=obj(
            target_sha256=STR,
            provider=obj(id=STR, version=nullable(STR), tool_version=STR),
            nodes=arr(obj(id=STR, kind=STR, name=STR, location=ANY, attributes={"type": "object"}, evidence=arr(ANY))),
            edges=arr(obj(id=STR, relation=STR, resolution=STR, evidence=arr(ANY), limitations=arr(STR))),
            coverage=arr(
                obj(
                    facet=STR,
                    status={"enum": ["complete", "partial", "unsupported", "not_requested"]},
                    reason=nullable(STR),
                    examined=INT,
                    omitted=INT,
                )
            ),
            truncated=BOOL,
        ),
        limitations=arr(STR),
    ),
    # inspect_asset_catalog (6.x src/domain/apple/appleAssetCatalog.ts appleAssetCatalogResultSchema)
    "inspect_asset_catalog": obj(
        target_sha256=STR,
        catalogs=arr(obj(path=STR, sha256=STR, record_count=INT)),
        total_records=INT,
        offset=INT,
        limit=INT,
        records=arr(
            obj(
                catalog_path=STR,
                catalog_sha256=STR,
                index=INT,
                kind={"enum": ["catalog", "rendition"]},
                asset_name=nullable(STR),
                rendition_name=nullable(STR),
                metadata={"type": "object"},
            )
        ),
        resource_key_matches=arr({"type": "object"}),
        next_offset=nullable(INT),
        truncated=BOOL,
        limitations=arr(STR),
    ),
    # project_apple_application_graph (the early form, src/domain/appleApplication.ts; 6.x adds roles)
    "project_apple_application_graph": obj(
        schema_version={"const": 1},
        projection_id=STR,
        root_sha256=STR,
        root_format=STR,
        source_evidence_ids=arr(STR),
        application_roots=arr(STR),
        components=obj(
            **{
                group: arr(obj(path=STR, artifact_id=STR, sha256=STR, format=STR))
                for group in (
                    "bundle_metadata",
                    "executables",
                    "frameworks",
                    "native_libraries",
                    "javascript",
                    "signing",
                )
            }
        ),
        runtime_families=arr(STR),
        bridge_candidates=arr(obj(source_path=STR, native_path=STR, basis=STR)),
        coverage=obj(
            status={"enum": ["complete-within-inventory", "partial", "truncated"]},
            inventory_complete=BOOL,
            omitted_components=INT,
            omitted_bridge_candidates=INT,
        ),
        limitations=arr(STR),
    ),
    # inspect_recorded_crash (6.x only: src/domain/native/recordedCrash.ts recordedCrashSchema)
    "inspect_recorded_crash": obj(
        artifact=obj(path=STR, sha256=STR, bytes=INT),
        format={"const": "elf-core"},
        architecture={"const": "x86_64-little-endian"},
        target_execution={"const": "not-performed"},
        live_process_identity={"const": "unknown"},
        segments=arr(
            obj(
                index=INT,
                type={"type": ["string", "integer"]},
                header_location=obj(offset=STR, bytes=STR),
                offset=STR,
                file_size=STR,
                memory_size=STR,
                virtual_address=STR,
                physical_address=STR,
                alignment=STR,
                flags=STR,
                file_backing={"enum": ["file", "none"]},
            )
        ),
        notes=arr(
            obj(
                index=INT,
                segment_index=INT,
                type={"type": ["string", "integer"]},
                location=obj(offset=STR, bytes=STR),
                owner_location=obj(offset=STR, bytes=STR),
                owner_bytes_base64=STR,
                owner_display=nullable(STR),
                descriptor_location=obj(offset=STR, bytes=STR),
                descriptor_bytes_base64=STR,
            )
        ),
        note_padding=arr(obj(segment_index=INT, location=obj(offset=STR, bytes=STR), bytes_base64=STR)),
        threads=arr(
            obj(
                note_index=INT,
                historical_pid=INT,
                recorded_current_signal=INT,
                registers=arr(obj(name=STR, value=STR, location=obj(offset=STR, bytes=STR))),
            )
        ),
        signals=arr(
            obj(
                note_index=INT,
                number=INT,
                code=INT,
                errno=INT,
                fault_address=nullable(STR),
                fault_address_meaning={"enum": ["recorded-sigsegv-address", "unknown"]},
                thread_association={"const": "unknown"},
            )
        ),
        debugger=obj(status={"enum": ["not-requested", "available"]}),
        note_interpretation_completeness={"const": "unknown"},
        decoder_diagnostics=obj(stdout=STR, stderr=STR, truncated=BOOL),
        diagnostics=obj(stdout=STR, stderr=STR, truncated=BOOL),
        limitations=arr(STR),
    ),
    # demangle_swift (3.1 catalog result_schema; not in the result-schema export)
    "demangle_swift": obj(
        symbols=arr(obj(input=STR, output=STR, status={"enum": ["demangled", "unchanged", "invalid"]})),
        provenance=arr({"type": "object"}),
        limitations=arr(STR),
    ),
    # list_architectures (3.1 catalog result_schema; not in the result-schema export)
    "list_architectures": obj(
        architectures=obj(
            items=arr(
                obj(
                    name=STR,
                    cpu_type=nullable(STR),
                    cpu_subtype=nullable(STR),
                    file_offset=nullable(INT),
                    size=nullable(INT),
                    alignment=nullable(INT),
                )
            ),
            total=nullable(INT),
            exhaustive=BOOL,
            limitations=arr(STR),
        ),
        provenance=arr({"type": "object"}),
        limitations=arr(STR),
    ),
    # inspect_macho (3.1 catalog result_schema; not in the result-schema export)
    "inspect_macho": obj(
        format={"const": "mach-o"},
        endian=nullable(STR),
        word_size=ANY,
        file_type=nullable(STR),
        flags=arr(STR),
        uuid=nullable(STR),
        **{
            key: obj(items=arr({"type": "object"}), total=nullable(INT), exhaustive=BOOL, limitations=arr(STR))
            for key in (
                "entrypoints",
                "architectures",
                "build_metadata",
                "load_commands",
                "dependencies",
                "imports",
                "exports",
                "segments",
            )
        },
        provenance=arr({"type": "object"}),
        limitations=arr(STR),
    ),
    # §1 get_evidence_bundle (sessionToolSchemas, evidenceRecordSummary.ts; not in 3.1): result IS the bundle
    "get_evidence_bundle": obj(records=arr({"type": "object"}), unknowns=arr({"type": "object"})),
    "get_evidence_bundle[summary]": obj(
        kind={"const": "evidence-bundle-summary"},
        filters={"type": "object"},
        total_retained_records=INT,
        matching_records=INT,
        unknown_revisions=INT,
        records=arr(
            obj(
                evidence_id=STR,
                subject=ANY,
                provider={"type": "object"},
                operation=STR,
                confidence=STR,
                authority=STR,
                analysis_profile_digest=nullable(STR),
                retention=STR,
                limitation_count=INT,
                native_dossier=ANY,
            )
        ),
    ),
    # §4.10 Android (src/domain/android/androidAnalysis.ts, androidResultSchemas)
    **ANDROID,
    # §1 binary_session (sessionStatusContract, toolOutputSchemaGroups.ts; spec "Identity and discovery")
    "binary_session": obj(
        open=BOOL,
        capabilities=ANY,
        provider=ANY,
        providers=ANY,
        analysis_activity=ANY,
        client_features=ANY,
        tool_availability={"type": "object", "properties": {"groups": arr({"type": "object"})}, "required": ["groups"]},
        analysis_provider_candidates=arr({"type": "object"}),
        analysis_provider_binding=ANY,
        analysis_run=ANY,
        server_identity={"type": "object"},
    ),
    # §1 open_binary: {path, format, kind, sha256, architecture}; 6.x has no loaderArgs
    "open_binary": without(base("open_binary"), "loaderArgs"),
    # §1 close_binary: null, or the snapshot written
    "close_binary": {
        "anyOf": [
            NULL,
            obj(path=STR, bytes=INT, primitive_entries=INT, workflow_entries=INT, evidence_records=INT),
        ]
    },
}

# the reference answers these under structuredContent.result; every other tool is an Evidence record
LIFECYCLE = frozenset(
    {
        "binary_session",
        "open_binary",
        "close_binary",
        "export_evidence_bundle",
        "import_evidence_bundle",
        "get_evidence_bundle",
        "list_unknowns",
        "record_unknown",
        "update_unknown",
        "verify_unknown_resolution",
        "get_navigation_context",  # §1: lifecycle in the reference, Evidence in ours
        "inspect_address_context",
    }
)

# on a headless provider the reference refuses these (§2 current_address, current_procedure)
# (§1 get_navigation_context: "the reference errors when the required cursor mode is unavailable")
EXPECTED_ERRORS = {
    # no Swift toolchain can be installed here: the reference answers the same without swift-demangle
    "demangle_swift": "capability_unavailable",
    "current_address": "capability_unavailable",
    "current_procedure": "capability_unavailable",
    "get_navigation_context": "capability_unavailable",
    # no Android device can be attached here: every adb device tool answers typed unavailability (no_device_attached)
    **{name: "capability_unavailable" for name in ADB_DEVICE_TOOLS},
    # macOS accessibility (and Hopper's Interface Builder metadata) do not exist on Linux: typed unavailability
    "observe_native_ui": "capability_unavailable",
    "capture_native_ui_scenario": "capability_unavailable",
    "trace_native_ui_action": "capability_unavailable",
}

# the Evidence v2 envelope every Evidence tool returns (DESIGN.md "Evidence v2", spec "Tool results")
EVIDENCE = obj(
    schema_version={"const": 2},
    evidence_id={"type": "string", "pattern": "^ev_[a-f0-9]{64}$"},
    subject=ANY,
    provider=obj(id=STR, name=STR, version=nullable(STR)),
    analysis_profile=nullable({"type": "object"}),
    predicate_type=STR,
    operation=STR,
    parameters={"type": "object"},
    raw_result=ANY,
    normalized_result=ANY,
    confidence={"enum": ["observed", "derived", "inferred"]},
    authority={
        "enum": [
            "shipped-artifact",
            "controlled-replay",
            "historical-reference",
            "external-service",
            "analyst-inference",
        ]
    },
    environment=ANY,
    limitations=arr(STR),
    locations=arr({"type": "object"}),
    evidence_links=arr(STR),
)


def _process_capture() -> dict[str, Any]:
    """The 3.1 capture shape; `pty_backend` names the terminal library, node-pty in the reference (a Node package),
    os.openpty here: any string."""
    schema = base("capture_process_scenario")
    manifest = schema["properties"]["manifest"]
    props = {**manifest["properties"], "pty_backend": STR}
    return {**schema, "properties": {**schema["properties"], "manifest": {**manifest, "properties": props}}}


# capture_process_scenario, compare_process_captures: the 3.1 result schemas (6.x processCapture.ts and
# processComparison.ts keep these fields; 6.x adds settlement details and trace comparison)
SIX["capture_process_scenario"] = _process_capture()


def shape(case: str) -> Any:
    """The relaxed reference shape of one case (a tool name, or tool[variant])."""
    if case in SIX:
        return SIX[case]
    return base(case.split("[")[0])


def same_verdicts(projection: Callable[[ToolContract], dict]) -> int:
    """Asserts that the projected input schema accepts or refuses every reference example, and each of its
    mutations, exactly as the canonical schema does; returns how many values were checked."""
    checked = 0
    for example in EXAMPLES:
        contract = BY_NAME.get(example["tool"])
        if contract is None or not isinstance(example["input"], dict):
            continue
        full = jsonschema.Draft202012Validator(contract.input_schema)
        projected = jsonschema.Draft202012Validator(projection(contract))
        for value in _variants(example["input"]):
            assert full.is_valid(value) == projected.is_valid(value), (contract.name, value)
            checked += 1
    return checked


EXAMPLES = json.loads((Path(__file__).parent / "reference" / "input-examples.json").read_text())["examples"]


def _variants(example: dict) -> list[dict]:
    out = [example]
    for key in example:
        out.append({k: v for k, v in example.items() if k != key})
        out.append({**example, key: [example[key]] if not isinstance(example[key], list) else "x"})
    return out
