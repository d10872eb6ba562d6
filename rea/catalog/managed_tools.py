"""Contracts of the managed (.NET) family: execution-free PE/CLI metadata and CIL inspection."""

from __future__ import annotations

from rea.wire.managed import (
    ArtifactArgs,
    ArtifactResult,
    BoundariesResult,
    BoundaryArgs,
    CompareArgs,
    ComparisonResult,
    MembersArgs,
    MembersResult,
)
from rea.wire.tool import evidence_tool

_EXAMPLE_PATH = "/tmp/Example.dll"

INSPECT_MANAGED_ARTIFACT = evidence_tool(
    "inspect_managed_artifact",
    "Inspect Managed Artifact",
    (
        "Classify an explicit managed PE/CLI path (or the target open_binary selected) and inventory its exact "
        "assembly and module identity (name, version, culture, public key token, MVID), CLI header and flags, "
        "target framework, assembly references, manifest resources (with digests) and custom attributes, without "
        "loading or executing target code. Damaged or limit-bounded metadata gives partial coverage with every issue."
    ),
    args=ArtifactArgs,
    result=ArtifactResult,
    examples=[{"path": _EXAMPLE_PATH}, {}],
    surface="managed-provider",
    effects={"mutatesSession", "idempotent"},
)

INSPECT_MANAGED_MEMBERS = evidence_tool(
    "inspect_managed_members",
    "Inspect Managed Members",
    (
        "Inspect the PE/CLI metadata members of an explicit path (or the open target) without loading or executing "
        "code: types (nesting, generic parameters, base, interfaces), fields, methods with decoded signatures, RVA, "
        "raw CIL SHA-256, decoded-instruction-tuple SHA-256, instruction anchors and exception regions, member "
        "references, and the call edges and field accesses of every CIL body. Tokens are build-local coordinates "
        "bound to the artifact SHA-256 and MVID."
    ),
    args=MembersArgs,
    result=MembersResult,
    examples=[{}, {"path": _EXAMPLE_PATH}, {"edge_limit": 100, "method_limit": 25}],
    surface="managed-provider",
    effects={"mutatesSession", "idempotent"},
)

INSPECT_MANAGED_NATIVE_BOUNDARIES = evidence_tool(
    "inspect_managed_native_boundaries",
    "Inspect Managed Native Boundaries",
    (
        "Inspect the managed/native boundary of an explicit path (or the open target) without loading or executing "
        "code: ModuleRefs, ImplMap (DllImport/P/Invoke) declarations with module, entry point, calling convention, "
        "charset and SetLastError, CLI native-header indicators (IL-only, 32-bit, native entry point, ReadyToRun), "
        "methods whose implementation is not managed CIL, and the PE's native exports. Declarations only: native "
        "exports of the named modules are not verified."
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
        "Compare two retained inspect_managed_members Evidence records (two builds) member by member without "
        "trusting tokens or names alone: methods match by exact signature and decoded-CIL hash, then by declared "
        "signature, then by structural shape; fields by signature. Each method is unchanged, changed (with the "
        "dimensions that differ), added, removed or unknown (ambiguous candidates listed)."
    ),
    args=CompareArgs,
    result=ComparisonResult,
    examples=[
        {"left_evidence_id": _LEFT, "right_evidence_id": _RIGHT},
        {
            "left_evidence_id": _LEFT,
            "right_evidence_id": _RIGHT,
            "limits": {"max_candidates": 25, "max_field_matches": 50, "max_method_matches": 100},
        },
    ],  # fmt: skip
    surface="managed-provider",
    effects={"mutatesSession", "idempotent"},
)

CLI_COMMANDS = (
    "compare-managed-members",
    "inspect-managed-artifact",
    "inspect-managed-members",
    "inspect-managed-native-boundaries",
)

TOOLS = (INSPECT_MANAGED_ARTIFACT, INSPECT_MANAGED_MEMBERS, INSPECT_MANAGED_NATIVE_BOUNDARIES, COMPARE_MANAGED_MEMBERS)
