"""Contracts of the managed (.NET) family: execution-free PE/CLI metadata and CIL inspection."""

from __future__ import annotations

from rea.wire.managed import ArtifactArgs, ArtifactResult, MembersArgs, MembersResult
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
    annotations={"idempotent"},
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
    annotations={"idempotent"},
    effects={"mutatesSession", "idempotent"},
)

CLI_COMMANDS = ("inspect-managed-artifact", "inspect-managed-members")

TOOLS = (INSPECT_MANAGED_ARTIFACT, INSPECT_MANAGED_MEMBERS)
