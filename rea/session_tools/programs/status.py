"""binary_session: the server's, the target's and the provider route's status, read without starting a provider."""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from rea.catalog import CATALOG, CLI_COMMANDS, toolsets
from rea.catalog.availability import target_state
from rea.catalog.contract import CLIENT_FEATURES
from rea.catalog.projection import alignment, catalog_identity, grouped_availability
from rea.effect_types import Program, ToolProgram
from rea.native.effects import DiscoverProviders, NativeActivity, NativeLineage
from rea.native.providers import (
    EMBEDDED_DEFAULT,
    PROVIDER_NAMES,
    candidate_records,
    capability_set,
)
from rea.program import Context, ResolveCommandPath, need, refusable, typed
from rea.session import (
    Session,
    Target,
)
from rea.session_tools.programs.reply import done
from rea.session_tools.records.arguments import BinarySessionArgs
from rea.unknowns import (
    heads,
)
from rea.wire.convert import to_wire

NOT_OBSERVED = {"status": "not_observed"}
SKILL_NAME = "rea"
# The operations a deep-analysis provider answers: the target tools that run its engine.
NATIVE_OPERATIONS = tuple(sorted(c.name for c in CATALOG if c.needs == "provider"))


def _run(session: Session, lineage: Mapping[str, Any] = NOT_OBSERVED) -> dict[str, Any] | None:
    return None if session.run_id is None else {"run_id": session.run_id, "process_lineage": lineage}


@lru_cache(maxsize=1)
def _catalog_identity() -> Mapping[str, Any]:
    """The catalog never changes while REA runs, so its digests are computed once."""
    return catalog_identity(CATALOG, CLI_COMMANDS)


def server_identity(ctx: Context, expected: Mapping[str, str]) -> dict[str, Any]:
    identity = _catalog_identity()
    server = ctx.server
    return {
        "package": {
            "name": server.package,
            "version": server.version,
            "root_path": server.root_path,
            "build_commit": server.build_commit,
        },
        "server": {
            "name": "rea",
            "version": server.version,
            "started_at": server.started_at,
            "command_path": server.server_path,
            "transport": server.transport,
        },
        # one Python SDK distribution is server, test client and protocol core at once
        "sdk": {
            "server": server.sdk_version,
            "client_test": server.sdk_version,
            "core": server.sdk_version,
            "name": "mcp",
            "version": server.sdk_version,
        },
        "negotiated_protocol_version": server.negotiated_protocol_version,
        "client": server.client,
        "skill": {"name": SKILL_NAME, "expected_version": server.version},
        "protocol_features": {
            "progress": True,
            "cancellation": True,
            "elicitation": False,
            "evidence_resources": False,
            "tools_list_changed": False,
        },
        "response_budget": {"max_response_bytes": ctx.max_response_bytes, "envelope_reserve_bytes": 1024},
        "input_schema_profile": ctx.input_schema_profile,
        "catalog": identity,
        "alignment": alignment(
            expected,
            {
                "package_version": server.version,
                "catalog_digest": identity["digests"]["combined_sha256"],
                "server_path": server.server_path,
            },
        ),
    }


def target_fields(target: Target) -> dict[str, Any]:
    """The reference's target facts, at the top of open_binary and binary_session results."""
    return {
        "path": target.path,
        "format": target.format,
        "kind": target.target_kind,
        "sha256": target.sha256,
        "architecture": target.architecture,
    }


def _route(
    session: Session, facts: list[Mapping[str, Any]], ctx: Context
) -> tuple[dict[str, Any], list[dict[str, Any]], list[dict[str, Any]]]:
    """(provider, providers, capabilities) of the current route.

    Bound: the binding's provider and its capabilities. No target: the configured default
    (REA_ANALYSIS_PROVIDER, else the embedded angr) and its capabilities. A target no provider
    analyses: the configured default as `provider`, and no route."""
    by_id = {f["id"]: f for f in facts}
    binding = session.provider_binding
    if binding is not None:
        provider = dict(binding["provider"])
        fact = by_id.get(provider["id"], {"id": provider["id"], "available": True, "version": provider["version"]})
        return provider, [provider], [capability_set(fact, NATIVE_OPERATIONS)]
    configured = ctx.analysis_provider if ctx.analysis_provider in PROVIDER_NAMES else EMBEDDED_DEFAULT
    found = by_id.get(configured)
    provider = {
        "id": configured,
        "name": PROVIDER_NAMES[configured],
        "version": None if found is None else found.get("version"),
    }
    if session.target is not None or found is None:
        return provider, [], []
    return provider, [provider], [capability_set(found, NATIVE_OPERATIONS)]


@typed
@refusable
def binary_session(session: Session, args: BinarySessionArgs, ctx: Context) -> Program:
    expected = {k: v for k, v in to_wire(args).items() if k.startswith("expected_")}  # the ones given
    if args.expected_server_path is not None:
        expected["expected_server_path"] = yield from need(ResolveCommandPath(path=args.expected_server_path))
    candidates = yield from need(DiscoverProviders())
    lineage = yield from need(NativeLineage())
    activity = yield from need(NativeActivity())
    selected = None if session.provider_binding is None else session.provider_binding["provider"]["id"]
    provider, providers, capabilities = _route(session, candidates, ctx)
    features = ctx.server.client_features
    selection = toolsets.select(ctx.toolsets)
    result: dict[str, Any] = {
        "open": session.target is not None,
        "architecture": None,
        "provider": provider,
        "providers": providers,
        "capabilities": capabilities,
        "analysis_run": _run(session, lineage),
        "analysis_activity": activity,
        "analysis_provider_binding": session.provider_binding,
        "analysis_provider_candidates": candidate_records(
            candidates, selected, None if session.target is None else session.target.format, NATIVE_OPERATIONS
        ),
        "tool_availability": grouped_availability(
            CATALOG, state=target_state(session), client_features=features, selection=selection
        ),
        "toolsets": selection.record(),
        "client_features": {name: name in features for name in CLIENT_FEATURES},
        "server_identity": server_identity(ctx, expected),
        "target": None if session.target is None else session.target.to_json(),
        "ledger": {"records": len(session.evidence), "unknowns": len(heads(session.unknown_revisions))},
    }
    if session.target is not None:
        result.update(target_fields(session.target))
    return done(session, result)


PROGRAMS: Mapping[str, ToolProgram] = {
    "binary_session": binary_session,
}
