"""Wire records of inspect_wasm_artifact: the REA 6.x shape (domain/wasm/wasmArtifact), run with Debian's WABT.

The reference pins WABT 1.0.42 and says so in tool_profile; we report the WABT
we ran (its version banner, paths and digests), so those fields are strings, not
the reference's literals. The decoded WAT is digested whole while it streams and
carried inline up to `max_wat_inline_units`; past that `wat.text` holds its
first units and `wat.complete` is false (our extra), never a silent cut.
"""

from __future__ import annotations

from typing import Literal

import attrs

from rea.local_paths import LOCAL_PATH_PATTERN
from rea.wire.key_order import sent_in
from rea.wire.schema import field, local_path

SHA256 = "^[a-f0-9]{64}$"
MAX_PATHS = 16
_PATH_ITEM = {"type": "string", "minLength": 1, "maxLength": 16384, "pattern": LOCAL_PATH_PATTERN}


# ------------------------------------------------------------------ arguments


@attrs.frozen(kw_only=True)
class WasmArgs:
    path: str = local_path("Absolute selected local WASM artifact path")
    glue_paths: tuple[str, ...] = field(
        "Local JavaScript glue files whose string literals may name the module (absolute paths)",
        default=(),
        schema={"type": "array", "items": _PATH_ITEM, "maxItems": MAX_PATHS},
    )
    candidate_paths: tuple[str, ...] = field(
        "Local files a glue literal may resolve to (absolute paths)",
        default=(),
        schema={"type": "array", "items": _PATH_ITEM, "maxItems": MAX_PATHS},
    )
    detail: Literal["complete", "summary"] = field(
        "complete: the WASM Evidence; summary: retain it and return its summary view (parent_evidence_id)",
        default="complete",
    )
    max_wat_inline_units: int = field(
        "UTF-16 code units of WAT carried inline (all of it is digested)",
        default=16 << 20,
        minimum=0,
        maximum=1 << 28,
    )


# --------------------------------------------------------------------- result


@attrs.frozen(kw_only=True)
class WasmFile:
    path: str = field("The file", minLength=1)
    sha256: str = field("SHA-256 of its bytes", pattern=SHA256)
    bytes: int = field("Size", minimum=0)


@attrs.frozen(kw_only=True)
class WasmSection:
    kind: str = field("Section kind as wasm-objdump -h names it (Type, Import, ..., Custom)", minLength=1)
    start: int = field("First byte of the section payload", minimum=0)
    end: int = field("End of the payload", minimum=0)
    bytes: int = field("end - start", minimum=0)
    description: str = field("The rest of WABT's line (count, or the custom section's quoted name)")


@attrs.frozen(kw_only=True)
class WasmImport:
    """Our extra: one import entry decoded from the module's bytes, beside WABT's line for it."""

    kind: Literal["func", "table", "memory", "global", "tag"] = field("Import kind")
    index: int = field("Index in its own space (imports are numbered first)", minimum=0)
    module: str = field("Import module, exactly as the binary names it")
    name: str = field("Import field name")
    type_index: int | None = field("func and tag: type index (null for others)")
    signature: str | None = field("func and tag: the type as WABT spells it, '(i32, i32) -> i32' (null: others)")
    description: str | None = field("table, memory, global: the descriptor as WABT spells it (null: func, tag)")
    line: str | None = field("WABT's line for this entry (null when WABT listed a different number of entries)")

    __wire__ = sent_in(
        (
            "module",
            "name",
            "kind",
            "type_index",
            "description",
            "index",
            "signature",
            "line",
        )
    )


@attrs.frozen(kw_only=True)
class WasmExport:
    """Our extra: one export entry decoded from the module's bytes, beside WABT's line for it."""

    kind: Literal["func", "table", "memory", "global", "tag"] = field("Exported kind")
    index: int = field("Index of the exported item in its space", minimum=0)
    name: str = field("Export name")
    module: str | None = field("Always null (exports have no module)")
    signature: str | None = field("func: the function's type as WABT spells it (null: others)")
    line: str | None = field("WABT's line for this entry (null when WABT listed a different number of entries)")

    __wire__ = sent_in(
        (
            "name",
            "kind",
            "index",
            "module",
            "signature",
            "line",
        )
    )


@attrs.frozen(kw_only=True)
class WasmFunction:
    """Our extra: one function of the function index space (imports first), from the module's bytes."""

    index: int = field("Function index", minimum=0)
    name: str | None = field("Name from the 'name' section (null: none recorded)")
    imported: bool = field("An import (module and field set) or defined in this module")
    module: str | None = field("Import module (null: defined)")
    import_name: str | None = field("Import field name (null: defined)")
    type_index: int = field("Type index", minimum=0)
    signature: str | None = field("The type as WABT spells it (null: the type section does not decode there)")


@attrs.frozen(kw_only=True)
class SectionCounts:
    types: int = field("Type section entries", minimum=0)
    imports: int = field("Import section entries", minimum=0)
    defined_functions: int = field("Function section entries", minimum=0)
    tables: int = field("Table section entries", minimum=0)
    memories: int = field("Memory section entries", minimum=0)
    globals: int = field("Global section entries", minimum=0)
    exports: int = field("Export section entries", minimum=0)
    start: int = field("1 when a start section is present", minimum=0, maximum=1)
    elements: int = field("Element segments", minimum=0)
    code: int = field("Code section bodies", minimum=0)
    data_segments: int = field("Data segments", minimum=0)
    data_count: int = field("The data count section's value (0: absent)", minimum=0)
    tags: int = field("Tag section entries", minimum=0)


@attrs.frozen(kw_only=True)
class ModuleCounts:
    """Our extra: numbers an agent would otherwise parse out of WABT's text."""

    functions: int = field("Function index space: imported + defined", minimum=0)
    imported_functions: int = field("Imported functions", minimum=0)
    defined_functions: int = field("Functions defined in the module", minimum=0)
    imported_tables: int = field("Imported tables", minimum=0)
    imported_memories: int = field("Imported memories", minimum=0)
    imported_globals: int = field("Imported globals", minimum=0)
    imported_tags: int = field("Imported tags", minimum=0)
    custom_sections: int = field("Custom sections", minimum=0)
    sections: SectionCounts = field("Each standard section's leading count (0: absent)")

    __wire__ = sent_in(
        (
            "functions",
            "imported_functions",
            "defined_functions",
            "imported_tables",
            "imported_memories",
            "imported_globals",
            "imported_tags",
            "sections",
            "custom_sections",
        )
    )


@attrs.frozen(kw_only=True)
class Producer:
    field_name: str = field("language, processed-by or sdk")
    name: str = field("Tool or language name")
    version: str = field("Its version string")


@attrs.frozen(kw_only=True)
class ProducerValue:
    name: str = field("Tool or language name")
    version: str = field("Its version string")


@attrs.frozen(kw_only=True)
class ProducerField:
    name: str = field("Field: language, processed-by or sdk")
    values: tuple[ProducerValue, ...] = field("Its name/version values")


@attrs.frozen(kw_only=True)
class TargetFeature:
    name: str = field("Feature name (sign-ext, simd128, ...)")
    prefix: str = field("The prefix byte as a character (+, -, =)")
    policy: Literal["used", "disallowed", "required", "unknown"] = field("What the prefix means (tool-conventions)")


@attrs.frozen(kw_only=True)
class CustomSections:
    """Our extra: the standard custom sections, decoded from the module bytes."""

    names: tuple[str, ...] = field("Every custom section name, in order")
    name_section: bool = field("A 'name' section is present")
    producers: tuple[Producer, ...] = field("'producers' fields")
    target_features: tuple[str, ...] = field("'target_features' as prefix+name (+ used, - disallowed)")
    source_mapping_url: str | None = field("'sourceMappingURL' value (null: absent)")
    dylink: str | None = field("'dylink.0' (or legacy 'dylink') summary (null: absent)")
    producer_fields: tuple[ProducerField, ...] = field("'producers' as name/values records, in section order")
    target_feature_records: tuple[TargetFeature, ...] = field("'target_features' as records")
    limitations: tuple[str, ...] = field("Custom sections that could not be decoded")

    __wire__ = sent_in(
        (
            "names",
            "name_section",
            "producers",
            "target_features",
            "source_mapping_url",
            "dylink",
            "limitations",
            "producer_fields",
            "target_feature_records",
        )
    )


@attrs.frozen(kw_only=True)
class WatPageIndex:
    index_sha256: str = field("SHA-256 of the page index (block unit ranges and block digests)", pattern=SHA256)
    block_units: int = field("UTF-16 code units per compressed block", minimum=1)
    blocks: int = field("Blocks in the cache", minimum=0)


@attrs.frozen(kw_only=True)
class Wat:
    text: str = field("Decoded WAT (wasm2wat --enable-all); its first units when not complete")
    sha256: str = field("SHA-256 of the whole decoded WAT (UTF-8)", pattern=SHA256)
    representation: Literal["decoded-wat"] = field("Decoded from the binary; not original source")
    utf16_length: int = field("Our extra: UTF-16 code units of the whole WAT", minimum=0)
    utf8_bytes: int = field("Our extra: bytes of the whole WAT", minimum=0)
    complete: bool = field("Our extra: text is the whole WAT")
    page_index: WatPageIndex | None = field(
        "Our extra: the decoded WAT retained in the host's page cache (REA_CACHE_DIR), content-addressed by sha256; "
        "inspect_analysis_view reads pages past text from it without running WABT",
        omit_none=True,
    )


@attrs.frozen(kw_only=True)
class WabtCommand:
    tool: Literal["wasm-validate", "wasm-objdump", "wasm2wat"] = field("WABT tool")
    path: str = field("Executable run", minLength=1)
    sha256: str = field("SHA-256 of the executable", pattern=SHA256)
    version_banner: str = field("Its --version output")
    arguments: tuple[str, ...] = field("Arguments (the module as module.wasm)")


@attrs.frozen(kw_only=True)
class ToolProfile:
    source: Literal["https://github.com/WebAssembly/wabt"] = field("WABT upstream")
    release: str = field("The WABT release run (the reference pins 1.0.42; Debian ships its own)")
    source_commit: str | None = field("Upstream commit (null: a distribution build that records none)")
    commands: tuple[WabtCommand, ...] = field("wasm-validate, wasm-objdump, wasm2wat", minItems=3, maxItems=3)
    timeout_ms: int = field("Per-command deadline", minimum=1)
    output_budget_bytes: int = field("Per-command output budget (WAT: streamed and digested past it)", minimum=1)


@attrs.frozen(kw_only=True)
class GlueReference:
    value: str = field("The string literal")
    line: int = field("1-based line", minimum=1)
    column: int = field("0-based column", minimum=0)
    candidate_paths: tuple[str, ...] = field("Candidates it may name")
    association: Literal["local-path-candidate", "basename-candidates", "unresolved"] = field(
        "Exact resolved path, basename only, or nothing"
    )
    evidence_kind: Literal["static-literal"] = field("A literal in the glue, not an observed load")


@attrs.frozen(kw_only=True)
class Glue:
    artifact: WasmFile = field("The glue file")
    parse_status: Literal["complete", "partial", "failed"] = field("Whether every literal was scanned")
    references: tuple[GlueReference, ...] = field("Literals naming a .wasm resource")


@attrs.frozen(kw_only=True)
class WasmArtifact:
    artifact: WasmFile = field("The module")
    validation: Literal["valid"] = field("wasm-validate accepted it (an invalid module is an error)")
    sections: tuple[WasmSection, ...] = field("wasm-objdump -h sections")
    imports: tuple[str, ...] = field("Import lines of wasm-objdump -x, as WABT wrote them")
    exports: tuple[str, ...] = field("Export lines of wasm-objdump -x, as WABT wrote them")
    import_records: tuple[WasmImport, ...] = field("Our extra: the imports as records, decoded from the bytes")
    export_records: tuple[WasmExport, ...] = field("Our extra: the exports as records, decoded from the bytes")
    functions: tuple[WasmFunction, ...] = field("Our extra: the function index space (imports first) as records")
    module_counts: ModuleCounts = field("Our extra: function, import and section counts as numbers")
    custom_sections: CustomSections = field("Our extra: name, producers, target_features, dylink.0, sourceMappingURL")
    headers: str = field("wasm-objdump -h output")
    details: str = field("wasm-objdump -x output")
    wat: Wat = field("Decoded WAT with its digest")
    tool_profile: ToolProfile = field("The WABT commands run")
    candidates: tuple[WasmFile, ...] = field("The module first, then each candidate path")
    glue: tuple[Glue, ...] = field("Each glue file's literals naming .wasm resources")
    runtime_execution: Literal["not-performed"] = field("The module is never run")
    network_fetch: Literal["not-performed"] = field("Nothing is fetched")
    limitations: tuple[str, ...] = field("What this inspection did not observe")
