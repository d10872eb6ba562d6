"""Contracts of the managed (.NET) family: execution-free PE/CLI metadata and CIL inspection."""

from __future__ import annotations

from rea.wire.managed import ArtifactArgs, ArtifactResult
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

CLI_COMMANDS = ("inspect-managed-artifact",)

TOOLS = (INSPECT_MANAGED_ARTIFACT,)
