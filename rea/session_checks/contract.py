"""Contracts of the session checks (toolset `session`, as the reference places them)."""

from __future__ import annotations

from rea.session_checks.records import (
    BundleComparison,
    CompareBundlesArgs,
    ResolutionVerdict,
    VerifyUnknownResolutionArgs,
)
from rea.wire.tool import evidence_tool, session_tool

COMPARE_BUNDLES = evidence_tool(
    "compare_bundles",
    "Compare Evidence Bundles",
    (
        "Read two bundles written by export_evidence_bundle (absolute paths), verify both, and classify every "
        "difference: records added or removed (matched by Evidence id), pinned record_pairs changed, unknown "
        "histories added, removed, advanced or diverged. Changes are paged (offset, limit); summary counts all. "
        "One-sided membership is inclusion or omission, not behavioural absence."
    ),
    args=CompareBundlesArgs,
    result=BundleComparison,
    examples=[{"left_bundle_path": "/tmp/left-evidence.json", "right_bundle_path": "/tmp/right-evidence.json"}],
    surface="session",
    effects={"mutatesSession", "idempotent"},
)

VERIFY_UNKNOWN_RESOLUTION = session_tool(
    "verify_unknown_resolution",
    "Verify Unknown Resolution",
    (
        "Check an unknown's current resolution against the Evidence it cites: verified when nothing contradicts "
        "it and a retained, supporting observation meets the required authority, confidence and environment. "
        "valid, truthVerified, the unknown and the reasons."
    ),
    args=VerifyUnknownResolutionArgs,
    result=ResolutionVerdict,
    examples=[{"unknown_id": "unk_" + "0" * 64}],
    surface="session",
    effects={"idempotent"},
)

CLI_COMMANDS: tuple[str, ...] = ()
TOOLS = (COMPARE_BUNDLES, VERIFY_UNKNOWN_RESOLUTION)
