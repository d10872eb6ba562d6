"""Programs of the session tools (binding, ledger, bundles, unknowns).

A tool that needs no effect is a plain function returning its Outcome; the
interpreter accepts both forms."""

from __future__ import annotations

from functools import lru_cache
from typing import Any
from collections.abc import Callable, Generator, Mapping

from returns.pipeline import is_successful
from returns.result import Failure, Result, Success

from rea import __version__
from rea.bundle import ParsedBundle, bundle_chunks, bundle_json, summary, verify_bundle
from rea.catalog import CATALOG, CLI_COMMANDS
from rea.catalog.contract import CLIENT_FEATURES
from rea.catalog.session_tools import GET_EVIDENCE_BUNDLE
from rea.catalog.availability import target_state
from rea.catalog import toolsets
from rea.catalog.projection import alignment, catalog_identity, grouped_availability
from rea.errors import ReaError, invalid_request
from rea.evidence import Provider, create_evidence
from rea.native.annotations import restorable
from rea.native.effects import DiscoverProviders, EditAnnotations, NativeActivity, NativeLineage, ReleaseNative
from rea.native.providers import (
    EMBEDDED_DEFAULT,
    PROVIDER_NAMES,
    candidate_records,
    capability_set,
    select_provider,
    sliced,
    unavailable_reason,
)
from rea.native.fat_slice import choose_slice, loader_slice, subject_architecture, thin_mismatch
from rea.layout.model import ReadArchitectures
from rea.native.selector import AUTO, parse_selector
from rea.paging import paginate
from rea.program import (
    failed,
    Context,
    Effect,
    IdentifyTarget,
    NewRunId,
    Outcome,
    Program,
    PublishAtomically,
    ReadJsonFile,
    ReportProgress,
    ResolveCommandPath,
)
from rea.session import (
    DOS_COM_MAX_BYTES,
    MANAGED_HINT,
    Session,
    Target,
    add_unknown_revision,
    close,
    header_architecture,
    merge,
    open_target,
)
from rea.unknowns import (
    MUTABLE_FIELDS,
    MUTATION_PREDICATE,
    check_invariants,
    first_revision,
    heads,
    next_revision,
    seal,
)

SESSION_PROVIDER = Provider(id="rea-session", name="REA session ledger", version=__version__)
NOT_OBSERVED = {"status": "not_observed"}
SKILL_NAME = "rea"
# The operations a deep-analysis provider answers: the target tools that run its engine.
NATIVE_OPERATIONS = tuple(sorted(c.name for c in CATALOG if c.needs == "provider"))


def _done(session: Session, result: Any) -> Outcome:
    return Outcome(session=session, reply=Success({"result": result}))


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


def _target_fields(target: Target) -> dict[str, Any]:
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
    fact = by_id.get(configured)
    provider = {
        "id": configured,
        "name": PROVIDER_NAMES[configured],
        "version": None if fact is None else fact.get("version"),
    }
    if session.target is not None or fact is None:
        return provider, [], []
    return provider, [provider], [capability_set(fact, NATIVE_OPERATIONS)]


def binary_session(session: Session, args: Mapping[str, Any], ctx: Context) -> Program:
    expected = {k: v for k, v in args.items() if k.startswith("expected_")}
    if "expected_server_path" in expected:
        resolved = yield ResolveCommandPath(path=expected["expected_server_path"])
        expected["expected_server_path"] = resolved.unwrap()
    candidates = (yield DiscoverProviders()).unwrap()
    lineage = (yield NativeLineage()).unwrap()
    activity = (yield NativeActivity()).unwrap()
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
        result.update(_target_fields(session.target))
    return _done(session, result)


def _refused_option(name: str, message: str, action: str) -> ReaError:
    return ReaError(
        code="capability_unavailable",
        message=message,
        details={"reason": f"{name}_unsupported", "field": name},
        action=action,
    )


def _open_option_refusal(args: Mapping[str, Any]) -> ReaError | None:
    """Reference options this build cannot honour, refused before anything is read or changed."""
    if args.get("existing_project") is not None:
        return _refused_option(
            "existing_project",
            "open_binary cannot open an existing analysis project: REA's Ghidra adapter imports each target into "
            "a fresh temporary project, and the embedded angr provider analyses files directly.",
            "Call open_binary with the absolute path of the program's original file instead of existing_project.",
        )
    if args.get("snapshot_path") is not None:
        return _refused_option(
            "snapshot_path",
            "open_binary cannot restore an analysis snapshot: REA writes none. angr's analysis is cached "
            "automatically by target digest and analysis profile, so reopening the same file reuses it.",
            "Call open_binary again without snapshot_path.",
        )
    return None


def open_binary(session: Session, args: Mapping[str, Any], ctx: Context) -> Program:
    """Select a target and bind one provider; a failure leaves the previous binding untouched."""
    refused = _open_option_refusal(args)
    if refused is not None:
        return failed(session, refused)
    yield ReportProgress(phase="identifying target", message=f"hashing {args['path']}")
    facts = yield IdentifyTarget(path=args["path"])
    if not is_successful(facts):
        return failed(session, facts.failure())
    facts = facts.unwrap()
    fmt, architecture = facts.format, facts.architecture
    if args.get("format") == "dos-com":
        if facts.kind != "file" or not 1 <= facts.size <= DOS_COM_MAX_BYTES:
            return failed(
                session,
                invalid_request(
                    f"open_binary: format dos-com needs a file of 1 to {DOS_COM_MAX_BYTES} bytes (one 64 KiB segment "
                    f"minus the 256-byte PSP); {args['path']} is a {facts.kind} of {facts.size} bytes",
                    field="format",
                    accepted=f"dos-com only for a headerless DOS COM file of 1 to {DOS_COM_MAX_BYTES} bytes",
                ),
            )
        fmt, architecture = "dos-com", header_architecture(b"", "dos-com")
    requested = parse_selector(args.get("provider_id") or AUTO, "request")  # the schema's own pattern, parsed
    if not is_successful(requested):
        return failed(session, requested.failure())
    fat = yield from _fat_slice(args, fmt, architecture)
    if not is_successful(fat):
        return failed(session, fat.failure())
    chosen = fat.unwrap()
    row = None if chosen.get("rows") is None else chosen["rows"][chosen["index"]]
    if row is not None:
        architecture = subject_architecture(row)
    candidates = (yield DiscoverProviders()).unwrap()
    selected = select_provider(candidates, requested.unwrap(), ctx.analysis_provider, fmt if row is None else "mach-o")
    if not is_successful(selected):
        return failed(session, selected.failure())
    binding = selected.unwrap()
    if binding is not None and row is not None:
        binding = sliced(binding, loader_slice(row))
    released = yield ReleaseNative()  # the previous target's engine, if any; retained records stay
    run_id = (yield NewRunId()).unwrap()
    target = Target(
        path=args["path"],
        name=facts.path.rstrip("/").rsplit("/", 1)[-1] or facts.path,
        sha256=facts.sha256,
        size=facts.size,
        format=fmt,
        kind=facts.kind,
        architecture=architecture,
        stamp=facts.stamp,
        managed=facts.managed,
    )
    opened = open_target(session, target, run_id, binding)
    limitations = [] if binding is not None else [unavailable_reason(None, fmt)]
    limitations += chosen.get("limitations", [])
    if target.managed:
        limitations.append(MANAGED_HINT)
    if not is_successful(released):
        limitations.append(f"The previous target's engine did not stop cleanly: {released.failure().message}")
    return _done(
        opened,
        {
            **_target_fields(target),
            "loaderArgs": [],
            "name": target.name,
            "size": target.size,
            "analysis_run": {"run_id": run_id, "process_lineage": NOT_OBSERVED},
            "analysis_provider_binding": binding,
            "limitations": limitations,
            "target": target.to_json(),
            **_slice_fields(chosen),
        },
    )


def _fat_slice(
    args: Mapping[str, Any], fmt: str, architecture: str | None
) -> Generator[Effect, Any, Result[dict[str, Any], ReaError]]:
    """The universal binary's slices and the one to analyse ({} for any other target). A header that does not
    check out leaves the target unbound (as before, said in limitations) unless a slice was asked for."""
    requested = args.get("architecture")
    if fmt != "mach-o-universal":
        mismatch = None if requested is None else thin_mismatch(requested, fmt, architecture)
        return Success({}) if mismatch is None else Failure(mismatch)
    yield ReportProgress(phase="reading architectures", message=args["path"])
    read = yield ReadArchitectures(path=args["path"])
    if not is_successful(read):
        if requested is not None:
            return read
        return Success({"limitations": [f"No slice can be analysed: {read.failure().message}"]})
    return choose_slice(read.unwrap()["slices"], requested)


def _slice_fields(chosen: Mapping[str, Any]) -> dict[str, Any]:
    """Our extras on a universal target: every slice, and the analysed one with how it was chosen."""
    if chosen.get("rows") is None:
        return {}
    row = chosen["rows"][chosen["index"]]
    return {"slices": chosen["rows"], "selected_slice": {**row, "selection": chosen["selection"]}}


def close_binary(session: Session, args: Mapping[str, Any], ctx: Context) -> Program:
    """Stop owned engines, then clear the ledger; a cleanup failure is reported, the ledger still cleared.

    The reference answers `result: null` when no snapshot is written (and REA writes none), so
    our cleanup facts travel beside it in `closed` instead of changing result's type."""
    if args.get("snapshot_path") is not None:
        return failed(
            session,
            _refused_option(
                "snapshot_path",
                "close_binary cannot write an analysis snapshot: REA keeps none (angr's analysis is cached "
                "automatically by target digest and analysis profile). Nothing was closed.",
                "Call close_binary without snapshot_path; export_evidence_bundle first if the records are needed.",
            ),
        )
    released = yield ReleaseNative()
    target = None if session.target is None else session.target.to_json()
    cleared = {"records": len(session.evidence), "unknowns": len(session.unknown_revisions)}
    if not is_successful(released):
        error = released.failure()
        return failed(close(session), error.with_details(closed_target=target, cleared=cleared))
    return Outcome(
        session=close(session),
        reply=Success({"result": None, "closed": {"target": target, "cleared": cleared, "cleanup": released.unwrap()}}),
    )


def get_evidence_bundle(session: Session, args: Mapping[str, Any], ctx: Context) -> Program:
    """complete: result is the canonical bundle itself (equal to an exported file's content);
    summary: the evidence-bundle-summary of the retained records."""
    detail = args.get("detail", "complete")
    filters = args.get("filters")
    if filters is not None and detail != "summary":
        return failed(
            session,
            invalid_request(
                'get_evidence_bundle: filters apply only to detail "summary"',
                field="filters",
                accepted='filters together with detail: "summary"',
            ),
        )
    if detail == "summary":
        return _done(session, summary(session.ledger, len(session.unknown_revisions), filters or {}))
    return _done(session, bundle_json(session))


def export_evidence_bundle(session: Session, args: Mapping[str, Any], ctx: Context) -> Program:
    receipt = yield PublishAtomically(
        path=args["path"],
        chunks=lambda: bundle_chunks(session),
        overwrite=bool(args.get("overwrite", False)),
        phase="exporting bundle",
    )
    if not is_successful(receipt):
        return failed(session, receipt.failure())
    receipt = receipt.unwrap()
    return _done(
        session,
        {
            "path": receipt.path,
            "bytes": receipt.bytes,
            "records": len(session.evidence),
            "unknowns": len(session.unknown_revisions),
            "sha256": receipt.sha256,
        },
    )


def _load_bundle(path: str, ctx: Context) -> Generator[Effect, Any, Result[ParsedBundle, ReaError]]:
    """Read a bundle file and verify all of it; shared by import and the CLI inspection."""
    yield ReportProgress(phase="reading bundle", message=path)
    loaded = yield ReadJsonFile(path=path, max_bytes=ctx.max_import_bytes)
    if not is_successful(loaded):
        return loaded
    return (yield from verify_bundle(loaded.unwrap()))


def import_evidence_bundle(session: Session, args: Mapping[str, Any], ctx: Context) -> Program:
    parsed = yield from _load_bundle(args["path"], ctx)
    if not is_successful(parsed):
        return failed(session, parsed.failure())
    bundle = parsed.unwrap()
    merged = merge(session, bundle.records, bundle.unknowns)
    if not is_successful(merged):
        return failed(session, merged.failure())
    after = merged.unwrap()
    for sha256, digest, state in restorable(bundle.records):  # analyst annotations back into the local store
        restored = yield EditAnnotations(sha256=sha256, profile_digest=digest, edit=state)
        if not is_successful(restored):
            return failed(session, restored.failure())
    return _done(
        after,
        {
            "imported": len(after.evidence) - len(session.evidence),
            "unknowns_added": len(after.unknown_revisions) - len(session.unknown_revisions),
            "total": len(after.evidence),
        },
    )


# ----------------------------------------------------------------- unknowns


def _check_references(session: Session, revision: Mapping[str, Any]) -> ReaError | None:
    for name in ("supporting_evidence_ids", "contradicting_evidence_ids"):
        for evidence_id in revision[name]:
            if evidence_id not in session.evidence:
                return invalid_request(
                    f"{name} names {evidence_id}, which this session does not retain",
                    field=name,
                    accepted="ids of Evidence retained in this session",
                    reason="missing",
                    evidence_id=evidence_id,
                )
    resolution = revision.get("resolution")
    for evidence_id in (resolution or {}).get("evidence_ids", []):
        if evidence_id not in session.evidence:
            return invalid_request(
                f"resolution.evidence_ids names {evidence_id}, which this session does not retain",
                field="resolution.evidence_ids",
                reason="missing",
                evidence_id=evidence_id,
            )
    known = {r["unknown_id"] for r in session.unknown_revisions}
    for rel in revision["relationships"]:
        if rel["unknown_id"] not in known:
            return invalid_request(
                f"relationships names {rel['unknown_id']}, which is not an unknown of this session",
                field="relationships",
                reason="missing",
                unknown_id=rel["unknown_id"],
            )
    return None


def _commit_revision(
    session: Session, draft: dict[str, Any], operation: str, args: Mapping[str, Any], previous_mutations: list[str]
) -> Outcome:
    problem = check_invariants(
        {**draft, "mutation_evidence_ids": previous_mutations + ["ev_" + "0" * 64]}
    ) or _check_references(session, draft)
    if problem is not None:
        return failed(session, problem)
    mutation = create_evidence(
        provider=SESSION_PROVIDER,
        operation=operation,
        parameters=dict(args),
        normalized_result=draft,
        predicate_type=MUTATION_PREDICATE,
        confidence="inferred",
        authority="analyst-inference",
        evidence_links=[*draft["supporting_evidence_ids"], *draft["contradicting_evidence_ids"]],
    )
    if not is_successful(mutation):
        return failed(session, mutation.failure())
    evidence = mutation.unwrap()
    revision = seal({**draft, "mutation_evidence_ids": previous_mutations + [evidence.evidence_id]})
    return _done(add_unknown_revision(session, revision, evidence), revision)


def _unknown_scope(session: Session, args: Mapping[str, Any]) -> str | None:
    """The subject a question is about: the one digest every cited Evidence record's subject shares (none when
    they concern different subjects), else, with nothing cited, the open target's. A question about one target
    is not scoped to whichever target happens to be open."""
    cited = [
        session.evidence[i]
        for name in ("supporting_evidence_ids", "contradicting_evidence_ids")
        for i in args.get(name) or ()
        if i in session.evidence
    ]
    digests = {e.subject.sha256 for e in cited if e.subject is not None}
    if cited:
        return digests.pop() if len(digests) == 1 else None
    return None if session.target is None else session.target.sha256


def record_unknown(session: Session, args: Mapping[str, Any], ctx: Context) -> Program:
    draft = first_revision({"required_confidence": "observed", **args}, _unknown_scope(session, args))
    if any(r["unknown_id"] == draft["unknown_id"] for r in session.unknown_revisions):
        return failed(
            session,
            ReaError(
                code="revision_conflict",
                message=f"This question is already recorded as {draft['unknown_id']}; update it with update_unknown.",
                details={"reason": "already-exists", "unknown_id": draft["unknown_id"]},
            ),
        )
    return _commit_revision(session, draft, "record_unknown", args, [])


def update_unknown(session: Session, args: Mapping[str, Any], ctx: Context) -> Program:
    current = {h["unknown_id"]: h for h in heads(session.unknown_revisions)}.get(args["unknown_id"])
    if current is None:
        return failed(
            session,
            invalid_request(
                f"Unknown {args['unknown_id']} is not recorded in this session",
                field="unknown_id",
                accepted="an unknown_id returned by record_unknown or list_unknowns",
                reason="missing",
                unknown_id=args["unknown_id"],
            ),
        )
    request = {name: args.get(name, current[name]) for name in (*MUTABLE_FIELDS, "status", "resolution")}
    request["expected_revision"] = args["expected_revision"]
    draft = next_revision(current, request)
    if not is_successful(draft):
        return failed(session, draft.failure())
    return _commit_revision(session, draft.unwrap(), "update_unknown", args, list(current["mutation_evidence_ids"]))


def list_unknowns(session: Session, args: Mapping[str, Any], ctx: Context) -> Program:
    selected = [
        h
        for h in heads(session.unknown_revisions)
        if all(h[k] == args[k] for k in ("status", "severity", "domain") if k in args)
    ]
    page = paginate(selected, args.get("offset", 0), args.get("limit"))
    return _done(session, {"items": list(page.items), **page.envelope()})


PROGRAMS: Mapping[str, Callable[[Session, Mapping[str, Any], Context], Program]] = {
    "binary_session": binary_session,
    "open_binary": open_binary,
    "close_binary": close_binary,
    "get_evidence_bundle": get_evidence_bundle,
    "export_evidence_bundle": export_evidence_bundle,
    "import_evidence_bundle": import_evidence_bundle,
    "record_unknown": record_unknown,
    "update_unknown": update_unknown,
    "list_unknowns": list_unknowns,
}


# ------------------------------------------------------ CLI-only programs

INSPECT_BUNDLE_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": ["path"],
    "properties": {
        "path": {"type": "string", "minLength": 1, "description": "Exported bundle file"},
        "detail": {"type": "string", "enum": ["summary"], "default": "summary"},
        "filters": GET_EVIDENCE_BUNDLE.input_schema["properties"]["filters"],
    },
}


def inspect_evidence_bundle(session: Session, args: Mapping[str, Any], ctx: Context) -> Program:
    """The get_evidence_bundle summary projection over a bundle file, fully verified first."""
    parsed = yield from _load_bundle(args["path"], ctx)
    if not is_successful(parsed):
        return failed(session, parsed.failure())
    bundle = parsed.unwrap()
    return _done(
        session,
        summary(sorted(bundle.records, key=lambda e: e.evidence_id), len(bundle.unknowns), args.get("filters") or {}),
    )
