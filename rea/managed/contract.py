"""Contracts of the managed (.NET) family: execution-free PE/CLI metadata and CIL inspection."""

from __future__ import annotations

from rea.catalog.cli import Command, Positional, declared
from rea.managed import text
from rea.managed.records.artifact import ArtifactArgs, ArtifactResult, BoundaryArgs, MembersArgs
from rea.managed.records.boundaries import BoundariesResult
from rea.managed.records.compare import CompareArgs, ComparisonResult
from rea.managed.records.graph import GraphArgs, GraphResult
from rea.managed.records.members import MembersResult
from rea.managed.records.reconstruction import ReconstructionArgs, ReconstructionResult
from rea.managed.records.verification import VerificationResult, VerifyArgs
from rea.views.records.results import SummaryResult
from rea.wire.tool import evidence_tool

_EXAMPLE_PATH = "/tmp/Example.dll"

INSPECT_MANAGED_ARTIFACT = evidence_tool(
    "inspect_managed_artifact",
    "Inspect Managed Artifact",
    (
        "Classify an explicit managed PE/CLI path (or the open target) and inventory its assembly and "
        "module identity (name, version, culture, public key token, MVID), CLI header, target framework, "
        "references, manifest resources, custom attributes and the portable PDB beside it, without "
        "loading code. Damaged or bounded metadata gives partial coverage naming each issue. Complete by "
        "default (a framework assembly has megabytes of attributes): pass detail: summary for counts and "
        "first rows, then page with inspect_analysis_view {kind: managed, facet "
        "references|resources|attributes|pdb_documents}."
    ),
    args=ArtifactArgs,
    result=ArtifactResult | SummaryResult,  # detail summary: the shared view result (rea.views.records)
    operation=False,
    examples=[{"path": _EXAMPLE_PATH}, {}, {"path": _EXAMPLE_PATH, "detail": "summary"}],
    surface="managed-provider",
    effects={"mutatesSession", "idempotent"},
)

INSPECT_MANAGED_MEMBERS = evidence_tool(
    "inspect_managed_members",
    "Inspect Managed Members",
    (
        "Read the PE/CLI members of an explicit path (or the open target) without loading code: types "
        "(nesting, generics, base, interfaces), fields, methods with signatures, RVA, CIL digests, "
        "instruction anchors and exception regions, member references, call edges and field accesses. "
        "Tokens are bound to the artifact SHA-256 and MVID. Complete by default (a framework assembly is "
        "far past a reply): pass detail: summary for counts and first rows, then page with "
        "inspect_analysis_view {kind: managed, facet "
        "types|methods|fields|member_refs|call_edges|field_accesses}."
    ),
    args=MembersArgs,
    result=MembersResult | SummaryResult,  # detail summary: the shared view result (rea.views.records)
    operation=False,
    examples=[{}, {"path": _EXAMPLE_PATH}, {"edge_limit": 100, "method_limit": 25}, {"detail": "summary"}],
    surface="managed-provider",
    effects={"mutatesSession", "idempotent"},
)

INSPECT_MANAGED_NATIVE_BOUNDARIES = evidence_tool(
    "inspect_managed_native_boundaries",
    "Inspect Managed Native Boundaries",
    (
        "Inspect the managed/native boundary of an explicit path (or the open target) without loading "
        "code: ModuleRefs, P/Invoke declarations with module, entry point, calling convention, charset "
        "and SetLastError, CLI native-header flags (IL-only, 32-bit, native entry point, ReadyToRun), "
        "methods not implemented in CIL and the PE's native exports. Declarations only: verify them with "
        "verify_managed_native_boundaries."
    ),
    args=BoundaryArgs,
    result=BoundariesResult,
    examples=[{}, {"path": _EXAMPLE_PATH}, {"implementation_limit": 50, "import_limit": 50}],
    surface="managed-provider",
    effects={"mutatesSession", "idempotent"},
)

_LEFT, _RIGHT = "ev_" + "0" * 64, "ev_" + "1" * 64

COMPARE_MANAGED_MEMBERS = evidence_tool(
    "compare_managed_members",
    "Compare Managed Members",
    (
        "Compare two retained inspect_managed_members records (two builds) member by member: methods "
        "match by signature and CIL hash, then declared signature, then shape; fields by signature. Each "
        "is unchanged, changed (naming what differs), added, removed or unknown (candidates listed)."
    ),
    args=CompareArgs,
    result=ComparisonResult,
    examples=[{"left_evidence_id": _LEFT, "right_evidence_id": _RIGHT}],  # limits have advertised defaults
    surface="managed-provider",
    effects={"mutatesSession", "idempotent"},
)

VERIFY_MANAGED_NATIVE_BOUNDARIES = evidence_tool(
    "verify_managed_native_boundaries",
    "Verify Managed Native Boundaries",
    (
        "Check the P/Invoke declarations of retained inspect_managed_native_boundaries Evidence against "
        "retained native Evidence (inspect_binary_layout of an ELF library, inspect_macho exports, "
        "analyze_function dossiers), executing nothing: each import is verified (exported under its exact "
        "name by the declared module), inferred (a decorated name), contradicted (exported by another "
        "module) or unresolved, with the symbols and Evidence it rests on."
    ),
    args=VerifyArgs,
    result=VerificationResult,
    examples=[{"managed_boundaries_evidence_id": _LEFT, "native_observation_evidence_ids": [_RIGHT]}],
    surface="managed-provider",
    effects={"mutatesSession", "idempotent"},
)

PROJECT_MANAGED_APPLICATION_GRAPH = evidence_tool(
    "project_managed_application_graph",
    "Project Managed Application Graph",
    (
        "Project retained managed Evidence of one assembly (inspect_managed_artifact, "
        "inspect_managed_members, inspect_managed_native_boundaries: at least one) into the application "
        "graph: file, assembly and module identity, referenced assemblies, types, methods, fields, "
        "P/Invoke imports and native implementations, with contains and imports edges to the source "
        "Evidence; inventory_evidence_id links the file node to its inventory Evidence. Loads nothing."
    ),
    args=GraphArgs,
    result=GraphResult,
    examples=[
        {"managed_members_evidence_id": _LEFT},
        {"managed_artifact_evidence_id": _LEFT, "managed_native_boundaries_evidence_id": _RIGHT},
    ],  # fmt: skip
    surface="managed-provider",
    effects={"mutatesSession", "idempotent"},
)

IMPORT_MANAGED_RECONSTRUCTION = evidence_tool(
    "import_managed_reconstruction",
    "Import Managed Reconstruction",
    (
        "Import decompiler output (ILSpy, dnSpy, ...) for methods of retained inspect_managed_members "
        "Evidence: each method is locked by token, signature SHA-256 and decoded-IL SHA-256 to that exact "
        "build (a mismatch refuses the import, naming the method and part), and the text is recorded with "
        "its digest and the decompiler's identity and options as analyst inference. Runs nothing."
    ),
    args=ReconstructionArgs,
    result=ReconstructionResult,
    examples=[
        {
            "static_members_evidence_id": _LEFT,
            "decompiler": {
                "name": "ilspycmd",
                "version": "9.1.0.7988",
                "family": "ilspy",
                "executable_sha256": None,
                "options": ["--disable-updatecheck", "--type", "Example.Program"],
            },
            "methods": [
                {
                    "token": "0x06000001",
                    "signature_sha256": "3" * 64,
                    "normalized_il_sha256": "5" * 64,
                    "reconstruction": {
                        "kind": "decompiled-csharp",
                        "language": "csharp",
                        "text": "internal static void Main() { }",
                    },
                }
            ],
            "notes": ["Decompiler output is imported as inference."],
        }
    ],  # fmt: skip
    surface="managed-provider",
    effects={"mutatesSession", "idempotent"},
)

# these make several calls (effects.managed.cli); the three inspections are declared below
CLI_COMMANDS = (
    "compare-managed-members",
    "import-managed-reconstruction",
    "project-managed-application-graph",
    "verify-managed-native-boundaries",
)

_ASSEMBLY = (Positional(argument="path", help="managed PE/CLI file (.dll or .exe)"),)
COMMANDS = {
    tool: Command(name=tool.replace("_", "-"), help=help_text, positionals=_ASSEMBLY, render=text.inspection)
    for tool, help_text in (
        ("inspect_managed_artifact", "identity, references, resources, attributes of a .NET assembly"),
        ("inspect_managed_members", "types, fields, methods with CIL hashes, call edges of a .NET assembly"),
        ("inspect_managed_native_boundaries", "P/Invoke imports, ModuleRefs, non-IL methods of a .NET assembly"),
    )
}

TOOLS = declared(
    (
        INSPECT_MANAGED_ARTIFACT,
        INSPECT_MANAGED_MEMBERS,
        INSPECT_MANAGED_NATIVE_BOUNDARIES,
        COMPARE_MANAGED_MEMBERS,
        VERIFY_MANAGED_NATIVE_BOUNDARIES,
        PROJECT_MANAGED_APPLICATION_GRAPH,
        IMPORT_MANAGED_RECONSTRUCTION,
    ),
    COMMANDS,
)
