"""Pure projections of the catalog table: tools/list, identity digests,
grouped availability and the public product catalog."""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from rea.canonical_json import canonical_sha256
from rea.catalog import toolsets
from rea.catalog.advertised import advertised_input
from rea.catalog.availability import TargetState, Verdict, verdict
from rea.catalog.contract import CLIENT_FEATURES, ToolContract
from rea.catalog.schemas import compact_input

PROVENANCE = {"provenance": {"untrusted_content": True, "source": "analysis_target"}}


@functools.cache
def _advertised(canonical_text: str, input_profile: str) -> str:
    """Memoized by the canonical schema's text: the projections are pure, and tools/list, `rea toolsets`
    and the docs ask for the same ones many times."""
    schema = json.loads(canonical_text)
    return json.dumps(compact_input(schema) if input_profile == "compact" else advertised_input(schema))


def advertised_schema(contract: ToolContract, input_profile: str = "full") -> dict[str, Any]:
    """The input schema tools/list serves: rea.catalog.advertised's projection of the canonical schema
    (full), or the compact profile's (rea.catalog.schemas.compact_input). Calls are validated against
    the canonical schema either way."""
    schema: dict[str, Any] = json.loads(_advertised(json.dumps(contract.input_schema), input_profile))
    return schema


def tool_definition(contract: ToolContract, input_profile: str = "full") -> dict[str, Any]:
    """The MCP tools/list entry; the profile changes only the advertised input schema."""
    return {
        "name": contract.name,
        "title": contract.title,
        "description": contract.description,
        "inputSchema": advertised_schema(contract, input_profile),
        "outputSchema": contract.output_schema,
        "annotations": {"title": contract.title, **contract.mcp_annotations()},
    }


def _identity_row(contract: ToolContract) -> dict[str, Any]:
    return {
        "name": contract.name,
        "title": contract.title,
        "surface": contract.surface,
        "description": contract.description,
        "effects": contract.true_effects(),
        "annotations": contract.true_annotations(),
        "returns_target_content": contract.returns_target_content,
        "input_schema": contract.input_schema,
        "output_schema": contract.output_schema,
    }


def catalog_identity(catalog: Sequence[ToolContract], cli_commands: Sequence[str]) -> dict[str, Any]:
    rows = [_identity_row(c) for c in sorted(catalog, key=lambda c: c.name)]
    tools_sha256 = canonical_sha256(rows)
    return {
        "counts": {"mcp_tools": len(rows), "cli_commands": len(cli_commands)},
        "digests": {
            "tools_sha256": tools_sha256,
            "input_schemas_sha256": canonical_sha256({r["name"]: r["input_schema"] for r in rows}),
            "output_schemas_sha256": canonical_sha256({r["name"]: r["output_schema"] for r in rows}),
            "combined_sha256": canonical_sha256({"cli": sorted(cli_commands), "tools": tools_sha256}),
        },
        "schema_ids": {r["name"]: r["output_schema"].get("$id") for r in rows},
    }


def _requirements(contract: ToolContract, client_features: frozenset[str]) -> dict[str, list[str]]:
    required = sorted(contract.required_client_features)
    optional = sorted(contract.optional_client_features)
    return {
        "required": required,
        "optional": optional,
        "missing_required": [f for f in required if f not in client_features],
        "missing_optional": [f for f in optional if f not in client_features],
    }


def availability(
    contract: ToolContract,
    state: TargetState,
    client_features: frozenset[str],
    selection: toolsets.Selection = toolsets.ALL,
) -> dict[str, Any]:
    """Current facts for one tool, decided by the same rule the call is gated by; only facts,
    so tools that share them group together. A tool the active toolsets leave out is
    unavailable with reason toolset_excluded (the server refuses its call the same way)."""
    found = (
        verdict(contract, state, client_features)
        if selection.exposes(contract.name)
        else Verdict(reason="toolset_excluded", remediation=toolsets.remediation(contract.name, selection))
    )
    return {
        "surface": contract.surface,
        "available": found.available,
        "reason": found.reason,
        "remediation": found.remediation,
        "default_mode_available": found.available,
        "modes": [m.to_json() for m in found.modes],
        "effects": contract.true_effects(),
        "annotations": contract.true_annotations(),
        "returns_target_content": contract.returns_target_content,
        "client_requirements": _requirements(contract, client_features),
    }


def grouped_availability(
    catalog: Iterable[ToolContract],
    *,
    state: TargetState,
    client_features: frozenset[str],
    selection: toolsets.Selection = toolsets.ALL,
) -> dict[str, Any]:
    """Tools grouped by identical status facts. `client_requirements` at the top is
    the baseline; a group carries its own only when it differs. Every catalog tool is
    listed, those the active toolsets leave out as toolset_excluded."""
    baseline: dict[str, list[str]] = {"required": [], "optional": [], "missing_required": [], "missing_optional": []}
    groups: dict[str, dict[str, Any]] = {}
    for contract in catalog:
        facts = availability(contract, state, client_features, selection)
        if facts["client_requirements"] == baseline:
            del facts["client_requirements"]
        key = canonical_sha256(facts)
        groups.setdefault(key, {"names": [], **facts})["names"].append(contract.name)
    ordered = sorted(groups.values(), key=lambda g: (g["surface"], sorted(g["names"])[0]))
    for group in ordered:
        group["names"].sort()
    return {
        "client_features": sorted(client_features & set(CLIENT_FEATURES)),
        "client_requirements": baseline,
        "total": sum(len(g["names"]) for g in ordered),
        "groups": ordered,
    }


def alignment(expected: Mapping[str, str], actual: Mapping[str, str]) -> dict[str, Any]:
    """Compare the caller's expectations with the live server; never claims aligned without one."""
    checks = {
        "expected_package_version": ("package_version", "package_version_mismatch"),
        "expected_catalog_digest": ("catalog_digest", "catalog_digest_mismatch"),
        "expected_server_path": ("server_path", "registration_path_mismatch"),
    }
    compared = {}
    reasons = []
    for name, (fact, reason) in checks.items():
        if name in expected:
            matches = expected[name] == actual[fact]
            compared[name] = {"expected": expected[name], "actual": actual[fact], "matches": matches}
            if not matches:
                reasons.append(reason)
    if reasons:
        state, remediation = (
            "mcp_server_restart_required",
            (
                "The running server differs from what the client registered: restart the MCP server (or the client "
                "that launched it), then compare again."
            ),
        )
    elif compared:
        state, remediation = "aligned", None
    else:
        state, remediation = (
            "unknown",
            "Pass expected_package_version, expected_catalog_digest or expected_server_path to check alignment.",
        )
    return {"state": state, "reasons": reasons, "compared": compared, "remediation": remediation}


def product_catalog(
    catalog: Sequence[ToolContract], cli_commands: Sequence[str], package_version: str
) -> dict[str, Any]:
    """docs/public/product-catalog.json: everything a client needs, generated, never hand-edited."""
    return {
        "package": {"name": "rea-py", "version": package_version},
        "identity": catalog_identity(catalog, cli_commands),
        "cli_commands": sorted(cli_commands),
        "tools": [
            {**_identity_row(c), "requires_target": c.requires_target, "mcp_annotations": c.mcp_annotations()}
            for c in sorted(catalog, key=lambda c: c.name)
        ],
    }
