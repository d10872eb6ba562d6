"""analyze_javascript_application's result (REA 6.x javascriptApplicationAnalysis): the summaries, the
application's coverage and entry points around the graph and its semantic companion."""

from __future__ import annotations

from typing import Literal

import attrs

from rea.javascript.ids import NODE_ID
from rea.javascript.records.fields import SHA256, open_rows
from rea.javascript.records.graph import ApplicationGraph
from rea.javascript.records.semantic_graph import RetainedSemanticGraph, SemanticGraph
from rea.wire.schema import Open, field

# ------------------------------------------------------ analyze: the result


@attrs.frozen(kw_only=True)
class IpcSummary:
    operations: int = field("IPC calls seen (literal or dynamic channel)", minimum=0)
    literal_channels: int = field("Distinct literal channels", minimum=0)
    dynamic_channel_operations: int = field("IPC calls whose channel is computed", minimum=0)
    renderer_transmissions: int = field("Renderer send/invoke calls", minimum=0)
    renderer_listeners: int = field("Renderer on/once listeners", minimum=0)
    main_handlers: int = field("Main-process handle/on handlers", minimum=0)
    paired_renderer_transmissions: int = field("Renderer transmissions with a main handler", minimum=0)
    ambiguous_renderer_transmissions: int = field("Renderer transmissions with a dynamic channel", minimum=0)
    unpaired_literal_renderer_transmissions: int = field("Literal transmissions no handler answers", minimum=0)


@attrs.frozen(kw_only=True)
class ElectronSummary:
    browser_windows: int = field("BrowserWindow/BrowserView constructions", minimum=0)
    explicit_web_preferences: int = field("Windows with literal webPreferences flags", minimum=0)
    preload_entrypoints: int = field("Modules with the preload role", minimum=0)
    context_bridge_apis: int = field("contextBridge.exposeInMainWorld keys", minimum=0)
    exposed_api_members: int = field("Members of the exposed APIs", minimum=0)
    ipc: IpcSummary = field("IPC counts")
    sender_validation_observations: int = field("Sender checks seen (not modelled: 0)", minimum=0)
    utility_processes: int = field("utilityProcess.fork calls", minimum=0)
    resolved_utility_entrypoints: int = field("utilityProcess entry files resolved", minimum=0)
    native_addon_bindings: int = field("Native add-ons in the tree", minimum=0)
    resolved_native_addon_bindings: int = field("Native add-ons a module loads", minimum=0)


@attrs.frozen(kw_only=True)
class Statistics:
    relevant_files: int = field("Text files of the kinds analysed", minimum=0)
    nested_asar_containers: int = field("Nested .asar files", minimum=0)
    text_bytes_read: int = field("Bytes read", minimum=0)
    invalid_utf8_files: int = field("Files that were not UTF-8", minimum=0)
    parsed_javascript_files: int = field("JavaScript/TypeScript files parsed", minimum=0)
    visited_ast_nodes: int = field("Syntax nodes visited", minimum=0)
    findings: int = field("Findings listed", minimum=0)
    modules: int = field("Module nodes", minimum=0)
    parse_failures: int = field("Files that failed to parse", minimum=0)
    truncated_scopes: int = field("Files or maps whose facts a bound cut", minimum=0)
    text_files_selected: int = field("Text files chosen for reading", minimum=0)
    omitted_text_files: int = field("Text files not read", minimum=0)
    limit_omitted_text_files: int = field("Text files a limit kept out", minimum=0)
    policy_filtered_text_files: int = field("Text files a policy kept out (none here)", minimum=0)
    entries: int = field("Entries scanned (our extra)", minimum=0)
    files: int = field("Files scanned", minimum=0)
    files_read: int = field("Files read", minimum=0)
    parsed_files: int = field("Files parsed", minimum=0)
    recovered_parses: int = field("Parses with recovered syntax errors", minimum=0)
    bytes_read: int = field("Bytes read", minimum=0)
    ast_nodes: int = field("Syntax nodes", minimum=0)
    bundled_modules: int = field("Bundled modules recovered", minimum=0)
    original_source_modules: int = field("Source-map original sources", minimum=0)
    nodes: int = field("Graph nodes", minimum=0)
    edges: int = field("Graph edges", minimum=0)
    unknowns: int = field("Unknowns recorded", minimum=0)
    ipc_channels: int = field("IPC channel nodes", minimum=0)
    files_by_kind: dict[str, int] = field("Files per kind")
    nodes_by_kind: dict[str, int] = field("Nodes per kind")
    edges_by_relation: dict[str, int] = field("Edges per relation")
    omissions_by_reason: dict[str, int] = field("Omissions per reason")


@attrs.frozen(kw_only=True)
class ApplicationInfo:
    root: str = field("Local root that was analysed")
    format: Literal["asar", "directory"] = field("What was read")
    electron: bool = field("An Electron application")
    unpacked_directory: bool | None = field("An .asar.unpacked companion exists", omit_none=True)


@attrs.frozen(kw_only=True)
class OurCoverage:
    status: Literal["complete", "partial"] = field("complete, or partial (a limit, failure or mismatch)")
    limits_reached: tuple[str, ...] = field("Limits that were reached")
    parse_failures: int = field("Files that failed to parse", minimum=0)
    integrity_contradictions: int = field("Integrity mismatches continued past", minimum=0)
    note: str = field("What static coverage means")
    cancelled_during: str | None = field("Phase a cancellation stopped", omit_none=True)


@attrs.frozen(kw_only=True)
class EntryPoint:
    node: str = field("Entry node id (graph.nodes[].node_id)", pattern=NODE_ID)
    label: str = field("Its readable key")
    basis: str = field("Why it is an entry point")
    role: str | None = field("Electron role, when known")
    subpath: str | None = field("package.json exports subpath of a public entry point", omit_none=True)
    conditions: tuple[tuple[str, ...], ...] | None = field(
        "Condition chains that select it (node/browser/import/require/default, nested)", omit_none=True
    )
    format: str | None = field("How Node loads it: esm, commonjs, types, json, node", omit_none=True)
    syntax: str | None = field("What it is written in, when that differs from format", omit_none=True)


@attrs.frozen(kw_only=True)
class ParseFailure:
    path: str = field("File")
    error: str = field("Parser message")


@attrs.frozen(kw_only=True)
class Omission:
    path: str = field("Entry")
    reason: str = field("Why it was not read")
    size: int | None = field("Size, when known", omit_none=True)
    detail: str | None = field("What went wrong, when known", omit_none=True)
    target: str | None = field("A symlink's target (symlinks are not followed)", omit_none=True)


@attrs.frozen(kw_only=True)
class IntegrityContradiction:
    logical_path: str = field("Entry path inside the archive")
    declared_sha256: str = field("Digest the ASAR header declares")
    calculated_sha256: str = field("Digest of the bytes read")
    unpacked: bool = field("The entry lives in .asar.unpacked")
    archive: str | None = field("Archive holding the entry", omit_none=True)
    trust: str | None = field("contradicted", omit_none=True)
    provenance: str | None = field("Which check found it", omit_none=True)
    blocks: str | None = field("Block hashes that failed", omit_none=True)
    nested_archive: bool | None = field("The entry is a nested archive", omit_none=True)


@attrs.frozen(kw_only=True)
class AnalyzeResult:
    schema_version: Literal[1] = field("Result schema version")
    input_path: str = field("The path analysed")
    format: Literal["asar", "directory"] = field("What was read")
    root_artifact_sha256: str = field("Identity of the tree read (paths, sizes, contents)", pattern=SHA256)
    inventory_manifest_id: str = field(
        "agm_<sha256> of the scanned inventory's manifest (commits to inventory_graph_sha256)",
        pattern="^agm_[a-f0-9]{64}$",
    )
    inventory_graph_sha256: str = field(
        "Digest of the scanned inventory: every entry's path, kind and size, and each file read's digest",
        pattern=SHA256,
    )
    graph: ApplicationGraph = field("The application graph")
    summary: ElectronSummary = field("Electron architecture and boundary counts")
    statistics: Statistics = field("Reconstruction statistics")
    limitations: tuple[str, ...] = field("What the analysis does not establish")
    semantic_graph: RetainedSemanticGraph | SemanticGraph = field(
        "The semantic companion graph: retained as its own Evidence (named here), or inline and unavailable "
        "for an analysis cancelled before its phase"
    )
    schema: str = field("Our record schema (extra)")
    application: ApplicationInfo = field("Application facts (extra)")
    limits: dict[str, int] = field("Bounds applied (extra)")
    coverage: OurCoverage = field("Coverage of the analysis (extra)")
    entry_points: tuple[EntryPoint, ...] = field("Entry points and why (extra)")
    findings: tuple[Open, ...] = field(
        "Top facts (extra)", schema=open_rows("A finding: {kind, node?, path?, line?, ...}")
    )
    unknowns: tuple[Open, ...] = field(
        "What static analysis could not decide (extra)",
        schema=open_rows("An unknown: {kind, node?, path?, reason?, ...}"),
    )
    parse_failures: tuple[ParseFailure, ...] = field("Files that failed to parse (extra)")
    omitted_entries: tuple[Omission, ...] = field("Entries not read, first 1000 (extra)")
    integrity_contradictions: tuple[IntegrityContradiction, ...] = field("ASAR integrity mismatches (extra)")
    integrity_policy: Literal["fail", "record-and-continue"] = field("Policy applied")
