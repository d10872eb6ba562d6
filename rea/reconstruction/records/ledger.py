"""Wire records of build_reconstruction_obligation_ledger (REA 3.1/6.x ReconstructionObligationLedger v1)."""

from __future__ import annotations

from typing import Literal

import attrs

from rea.reconstruction.records.common import EVIDENCE_ID, SHA256, STABLE_ID
from rea.wire.schema import Open, field

Layer = Literal[
    "cli",
    "protocol",
    "electron",
    "persistence",
    "process",
    "runtime",
    "packaging",
    "native-abi",
    "application",
    "other",
]
CaseKind = Literal["positive", "negative", "malformed", "cancellation", "teardown"]
TestAuthority = Literal[
    "unit", "integration", "protocol", "renderer", "packaged-process", "native-abi", "live-observation", "external"
]
OriginalAuthority = Literal["static", "runtime", "process", "external"]
SourceState = Literal["candidate", "observed", "reviewed", "unknown"]
ObligationStatus = Literal[
    "unowned", "characterized", "implemented", "verified", "contradicted", "blocked", "out-of-scope", "unknown"
]
DiagnosticCode = Literal[
    "duplicate-definition", "missing-owner", "ambiguous-owner", "missing-parser-type", "missing-original-case",
    "weak-original-case-authority", "missing-case", "weak-fixture-authority", "missing-verifier",
    "verifier-does-not-enumerate", "missing-verifier-result", "weak-verifier-authority", "verifier-failed",
    "static-only", "contradiction", "contradiction-evidence-missing", "residual-unknown", "dependency-missing",
    "dependency-open", "unavailable-authority", "blocked", "out-of-scope",
]  # fmt: skip


def _ids(description: str, pattern: str = STABLE_ID, **bounds: int) -> tuple[str, ...]:
    return field(description, schema={"type": "array", "items": {"type": "string", "pattern": pattern}, **bounds})  # type: ignore[no-any-return]


@attrs.frozen(kw_only=True)
class Target:
    artifact_sha256: str | None = field("", schema={"anyOf": [{"type": "string", "pattern": SHA256}, {"type": "null"}]})
    application_node_id: str | None = field(
        "", schema={"anyOf": [{"type": "string", "pattern": "^jag_node_[a-f0-9]{64}$"}, {"type": "null"}]}
    )
    semantic_node_id: str | None = field(
        "", schema={"anyOf": [{"type": "string", "pattern": "^jsrg_node_[a-f0-9]{64}$"}, {"type": "null"}]}
    )
    location: str = field("", minLength=1, maxLength=4096)


@attrs.frozen(kw_only=True)
class ReviewedObligation:
    obligation_id: str = field("Stable id", pattern=STABLE_ID)
    obligation_version: int = field("", minimum=1)
    title: str = field("", minLength=1)
    application_layer: Layer = field("")
    family: str = field("", minLength=1, maxLength=100)
    target: Target = field("")
    required: bool = field("Whether closure needs it")
    required_case_kinds: tuple[CaseKind, ...] = field("", minItems=1, maxItems=5)
    required_original_authority: OriginalAuthority = field("What kind of observation of the original it needs")
    required_fixture_authority: TestAuthority = field("")
    required_verifier_authority: TestAuthority = field("")
    requires_parser_type: bool = field("")
    dependency_obligation_ids: tuple[str, ...] = _ids("", maxItems=1000)
    residual_unknown_ids: tuple[str, ...] = _ids("", maxItems=1000)
    unavailable_authority: tuple[str, ...] = field("", maxItems=100)
    required_next_evidence: tuple[str, ...] = field("", maxItems=100)
    disposition: Literal["active", "blocked", "out-of-scope"] = field("")
    review_evidence_ids: tuple[str, ...] = _ids(
        "The review records, in the bundle", EVIDENCE_ID, minItems=1, maxItems=100
    )


@attrs.frozen(kw_only=True)
class OwnerRef:
    module_path: str = field("", minLength=1, maxLength=4096)
    symbol: str = field("", minLength=1, maxLength=1024)
    owner_sha256: str = field("", pattern=SHA256)


@attrs.frozen(kw_only=True)
class ParserType:
    parser: str = field("", minLength=1)
    schema: str = field("", minLength=1)
    domain_type: str = field("", minLength=1)


@attrs.frozen(kw_only=True)
class Case:
    kind: CaseKind = field("")
    evidence_id: str = field("", pattern=EVIDENCE_ID)
    location: str = field("", minLength=1, maxLength=4096)


@attrs.frozen(kw_only=True)
class Fixture:
    fixture_id: str = field("", pattern=STABLE_ID)
    case_kind: CaseKind = field("")
    authority: TestAuthority = field("")
    evidence_ids: tuple[str, ...] = _ids("", EVIDENCE_ID, minItems=1, maxItems=100)


@attrs.frozen(kw_only=True)
class Nondeterminism:
    mode: Literal["total-order", "partial-order", "finite-traces"] = field("")
    specification: str = field("", minLength=1)


@attrs.frozen(kw_only=True)
class Verifier:
    verifier_id: str = field("", pattern=STABLE_ID)
    claim_id: str = field("", pattern=STABLE_ID)
    command: str = field("", minLength=1)
    authority: TestAuthority = field("")
    status: Literal["pass", "fail", "unknown", "unsupported", "skipped"] = field("")
    result_evidence_id: str = field("", pattern=EVIDENCE_ID)
    enumerated_obligation_ids: tuple[str, ...] = _ids("", minItems=1)
    nondeterminism: Nondeterminism = field("")


@attrs.frozen(kw_only=True)
class Binding:
    obligation_id: str = field("", pattern=STABLE_ID)
    owner: OwnerRef = field("")
    parser_type: ParserType | None = field("")
    original_cases: tuple[Case, ...] = field("", maxItems=100)
    fixtures: tuple[Fixture, ...] = field("", maxItems=100)
    verifier: Verifier | None = field("")


@attrs.frozen(kw_only=True)
class ManifestContradiction:
    obligation_id: str = field("", pattern=STABLE_ID)
    evidence_ids: tuple[str, ...] = _ids("", EVIDENCE_ID, minItems=2, maxItems=100)


@attrs.frozen(kw_only=True)
class Manifest:
    schema_version: Literal[1] = field("")
    bindings: tuple[Binding, ...] = field("", maxItems=10000)
    contradictions: tuple[ManifestContradiction, ...] = field("", maxItems=10000)


@attrs.frozen(kw_only=True)
class Limits:
    max_obligations: int = field("Obligations retained; the rest are counted as omitted", minimum=1, maximum=10000)


@attrs.frozen(kw_only=True)
class PageArgs:
    offset: int = field("", minimum=0, maximum=10000)
    limit: int = field("", minimum=1, maximum=100)


@attrs.frozen(kw_only=True)
class LedgerRequest:
    """The request as the derivation reads it: every part typed (the program structures LedgerArgs into it)."""

    evidence_bundle: Open = field("", schema={"type": "object"})
    reviewed_obligations: tuple[ReviewedObligation, ...] = field("", maxItems=10000)
    manifest: Manifest = field("")
    limits: Limits = field("")
    page: PageArgs = field("")


_OBLIGATION = (
    "obligation_id, obligation_version, title, application_layer (cli, protocol, electron, persistence, process, "
    "runtime, packaging, native-abi, application, other), family, target {artifact_sha256, application_node_id, "
    "semantic_node_id, location}, required, required_case_kinds (positive, negative, malformed, cancellation, "
    "teardown), required_original_authority (static, runtime, process, external), required_fixture_authority and "
    "required_verifier_authority (unit, integration, protocol, renderer, packaged-process, native-abi, "
    "live-observation, external), requires_parser_type, dependency_obligation_ids, residual_unknown_ids, "
    "unavailable_authority, required_next_evidence, disposition (active, blocked, out-of-scope), review_evidence_ids"
)
_MANIFEST = (
    "{schema_version: 1, bindings: [{obligation_id, owner {module_path, symbol, owner_sha256}, parser_type "
    "{parser, schema, domain_type} or null, original_cases [{kind, evidence_id, location}], fixtures [{fixture_id, "
    "case_kind, authority, evidence_ids}], verifier {verifier_id, claim_id, command, authority, status (pass, fail, "
    "unknown, unsupported, skipped), result_evidence_id, enumerated_obligation_ids, nondeterminism {mode, "
    "specification}} or null}], contradictions: [{obligation_id, evidence_ids}]}"
)


@attrs.frozen(kw_only=True)
class LedgerArgs:
    """Advertised in a reduced form, as the reference does for this tool: the nested parts are checked in
    full server-side (LedgerRequest) and a malformed part is refused naming it."""

    evidence_bundle: Open = field(
        "An exported Evidence bundle (export_evidence_bundle); every cited Evidence id must be in it",
        schema={"type": "object"},
    )
    reviewed_obligations: tuple[Open, ...] = field(
        f"Obligations a reviewer declared, each: {_OBLIGATION}",
        schema={"type": "array", "items": {"type": "object"}, "maxItems": 10000},
    )
    manifest: Open = field(f"Bindings and contradictions: {_MANIFEST}", schema={"type": "object"})
    limits: Limits = field("")
    page: PageArgs = field("")


@attrs.frozen(kw_only=True)
class AuthorityReference:
    evidence_id: str = field("", pattern=EVIDENCE_ID)
    authority: Literal[
        "shipped-artifact", "controlled-replay", "historical-reference", "external-service", "analyst-inference"
    ] = field("")
    state: SourceState = field("")
    location: str = field("", minLength=1)


@attrs.frozen(kw_only=True)
class Diagnostic:
    code: DiagnosticCode = field("")
    detail: str = field("", minLength=1)


@attrs.frozen(kw_only=True)
class Obligation:
    obligation_id: str = field("", pattern=STABLE_ID)
    obligation_version: int = field("", minimum=1)
    title: str = field("")
    origin: Literal["generated", "reviewed"] = field("")
    application_layer: Layer = field("")
    family: str = field("")
    target: Target = field("")
    authority_references: tuple[AuthorityReference, ...] = field("", minItems=1)
    source_state: SourceState = field("")
    observed_cases: tuple[Case, ...] = field("")
    required: bool = field("")
    required_case_kinds: tuple[CaseKind, ...] = field("")
    required_original_authority: OriginalAuthority = field("")
    required_fixture_authority: TestAuthority = field("")
    required_verifier_authority: TestAuthority = field("")
    requires_parser_type: bool = field("")
    dependency_obligation_ids: tuple[str, ...] = _ids("")
    residual_unknown_ids: tuple[str, ...] = _ids("")
    unavailable_authority: tuple[str, ...] = field("")
    required_next_evidence: tuple[str, ...] = field("")
    binding: Binding | None = field("")
    status: ObligationStatus = field("verified only with no diagnostic at all")
    diagnostics: tuple[Diagnostic, ...] = field("Why it is not verified")


@attrs.frozen(kw_only=True)
class LedgerCoverage:
    status: Literal["complete", "partial"] = field("partial: obligations beyond max_obligations were omitted")
    truncated: bool = field("")
    omitted_count: int = field("", minimum=0)
    max_obligations: int = field("", minimum=1)


@attrs.frozen(kw_only=True)
class Count:
    key: str = field("")
    count: int = field("", minimum=0)


@attrs.frozen(kw_only=True)
class LedgerSummary:
    total: int = field("", minimum=0)
    required: int = field("", minimum=0)
    verified: int = field("", minimum=0)
    required_open: int = field("", minimum=0)
    by_status: tuple[Count, ...] = field("")
    by_application_layer: tuple[Count, ...] = field("")
    by_evidence_authority: tuple[Count, ...] = field("")


@attrs.frozen(kw_only=True)
class Reports:
    missing_owner_obligation_ids: tuple[str, ...] = field("")
    missing_verifier_obligation_ids: tuple[str, ...] = field("")
    contradicted_obligation_ids: tuple[str, ...] = field("")
    residual_unknown_ids: tuple[str, ...] = field("")


@attrs.frozen(kw_only=True)
class OwnershipEdge:
    obligation_id: str = field("")
    module_path: str = field("")
    symbol: str = field("")


@attrs.frozen(kw_only=True)
class DependencyEdge:
    obligation_id: str = field("")
    depends_on_obligation_id: str = field("")


@attrs.frozen(kw_only=True)
class LedgerPage:
    offset: int = field("", minimum=0)
    limit: int = field("", minimum=1, maximum=100)
    total: int = field("", minimum=0)
    returned: int = field("", minimum=0)
    next_offset: int | None = field("")


@attrs.frozen(kw_only=True)
class Ledger:
    schema: Literal["ReconstructionObligationLedger"] = field("")
    schema_version: Literal[1] = field("")
    ledger_id: str = field(
        "Identity of the inputs, independent of their order and of paging", pattern="^rol_[a-f0-9]{64}$"
    )
    closure_digest: str = field("Digest of every obligation's status and diagnostics", pattern=SHA256)
    status: Literal["ready", "open", "failed", "unknown"] = field(
        "ready: every required obligation verified; failed: a required one contradicted; unknown: none, or one "
        "unknown; open otherwise"
    )
    coverage: LedgerCoverage = field("")
    summary: LedgerSummary = field("Over the whole ledger, on every page")
    reports: Reports = field("")
    ownership_graph: tuple[OwnershipEdge, ...] = field("")
    dependency_graph: tuple[DependencyEdge, ...] = field("")
    evidence_links: tuple[str, ...] = field("")
    limitations: tuple[str, ...] = field("")
    page: LedgerPage = field("")
    obligations: tuple[Obligation, ...] = field("This page's obligations, sorted by obligation_id", maxItems=100)
