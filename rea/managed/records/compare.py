"""Wire records of compare_managed_members: its arguments and the member-by-member comparison of two builds."""

from __future__ import annotations

from typing import Literal

import attrs

from rea.managed.records.artifact import GUID, SHA256, CoverageState, MetadataStatus, _count, _token
from rea.wire.schema import field

# ------------------------------------------------------------- comparison

EVIDENCE_ID = "^ev_[a-f0-9]{64}$"
Basis = Literal["exact-il-signature", "exact-signature", "structural-method-shape", "field-signature", "none"]
MethodDimension = Literal[
    "signature", "cil", "opcode-shape", "call-shape", "field-shape", "exception-shape", "availability"
]


@attrs.frozen(kw_only=True)
class CompareLimits:
    max_candidates: int = field("Candidate tokens listed per ambiguous item", default=50, minimum=1, maximum=500)
    max_field_matches: int = field("Field items returned", default=5000, minimum=0, maximum=50000)
    max_method_matches: int = field("Method items returned", default=10000, minimum=1, maximum=50000)


@attrs.frozen(kw_only=True)
class CompareArgs:
    left_evidence_id: str = field("Retained inspect_managed_members Evidence of the older build", pattern=EVIDENCE_ID)
    right_evidence_id: str = field("Retained inspect_managed_members Evidence of the newer build", pattern=EVIDENCE_ID)
    limits: CompareLimits = field("Result bounds", factory=CompareLimits)


@attrs.frozen(kw_only=True)
class Algorithm:
    name: Literal["rea-managed-member-comparison"] = field("Algorithm")
    version: Literal[1] = field("Version")
    token_identity: Literal["build-local"] = field("Tokens are never matched across builds")
    name_matching: Literal["not-used"] = field("Members are matched by content, then by declared signature")


@attrs.frozen(kw_only=True)
class CompareSide:
    evidence_id: str = field("The members Evidence", pattern=EVIDENCE_ID)
    artifact_sha256: str = field("Its artifact", pattern=SHA256)
    mvid: str | None = field("Its module version id", pattern=GUID)
    module_name: str | None = field("Its module name")
    metadata_status: MetadataStatus = field("Its metadata status")
    methods_total: int = _count("Methods it lists")
    fields_total: int = _count("Fields it lists")


@attrs.frozen(kw_only=True)
class MemberSide:
    token: str = _token()
    declaring_type: str | None = field("Owning type")
    name: str = field("Member name")
    signature_sha256: str = field("Raw signature SHA-256", pattern=SHA256)
    normalized_il_sha256: str | None = field("Decoded-tuple CIL SHA-256 (methods)", pattern=SHA256, omit_none=True)


@attrs.frozen(kw_only=True)
class Match:
    status: Literal["matched", "unmatched", "ambiguous"] = field("Whether one counterpart was found")
    basis: Basis = field("Which key matched")
    confidence: Literal["exact", "high", "unknown"] = field("exact for hash keys, high for the structural shape")
    candidate_left_tokens: tuple[str, ...] = field("Ambiguous: the left members sharing the key")
    candidate_right_tokens: tuple[str, ...] = field("Ambiguous: the right members sharing the key")


@attrs.frozen(kw_only=True)
class MethodItem:
    item_id: str = field("mmc_method_ id", pattern="^mmc_method_[a-f0-9]{64}$")
    status: Literal["unchanged", "changed", "added", "removed", "unknown"] = field("Verdict")
    dimensions: tuple[MethodDimension, ...] = field("What differs")
    left: MemberSide | None = field("Left member")
    right: MemberSide | None = field("Right member")
    match: Match = field("How it was matched")
    evidence_links: tuple[str, ...] = field("The two members Evidence")
    limitations: tuple[str, ...] = field("What this item does not establish")


@attrs.frozen(kw_only=True)
class FieldItem:
    item_id: str = field("mmc_field_ id", pattern="^mmc_field_[a-f0-9]{64}$")
    status: Literal["unchanged", "changed", "added", "removed", "unknown"] = field("Verdict")
    left: MemberSide | None = field("Left field")
    right: MemberSide | None = field("Right field")
    match: Match = field("How it was matched")
    evidence_links: tuple[str, ...] = field("The two members Evidence")
    limitations: tuple[str, ...] = field("What this item does not establish")


@attrs.frozen(kw_only=True)
class CompareSummary:
    unchanged: int = _count()
    changed: int = _count()
    added: int = _count()
    removed: int = _count()
    unknown: int = _count()


@attrs.frozen(kw_only=True)
class Matching:
    exact_il_signature: int = _count()
    exact_signature: int = _count("6.x: same declaring type, name and signature")
    structural_method_shape: int = _count()
    field_signature: int = _count()
    ambiguous: int = _count()
    unmatched: int = _count()


@attrs.frozen(kw_only=True)
class CompareCoverage:
    status: Literal["complete-within-inputs", "partial", "truncated"] = field("Whether every member was compared")
    left_status: CoverageState = field("Left members coverage")
    right_status: CoverageState = field("Right members coverage")
    omitted_methods: int = _count("Method items past max_method_matches")
    omitted_fields: int = _count("Field items past max_field_matches")
    omitted_candidates: int = _count("Candidate tokens past max_candidates")


@attrs.frozen(kw_only=True)
class ComparisonResult:
    schema_version: Literal[1] = field("Result schema version")
    comparison_id: str = field("mmc_ id of the comparison", pattern="^mmc_[a-f0-9]{64}$")
    algorithm: Algorithm = field("The matching algorithm")
    left: CompareSide = field("Left build")
    right: CompareSide = field("Right build")
    summary: CompareSummary = field("Items per verdict")
    matching: Matching = field("Items per matching basis")
    methods: tuple[MethodItem, ...] = field("Method items")
    fields: tuple[FieldItem, ...] = field("Field items")
    coverage: CompareCoverage = field("What was compared")
    evidence_links: tuple[str, ...] = field("The two members Evidence")
    limitations: tuple[str, ...] = field("What the comparison does not establish")
