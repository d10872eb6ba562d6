"""Wire records of verify_managed_native_boundaries: P/Invoke declarations checked against native Evidence.

Names, enums and counts follow the 3.1 schema and 6.x managedNativeVerificationSchemas. Our extras:
the `elf-export` symbol source (6.x reads Mach-O exports and function dossiers only; inspect_binary_layout
of an ELF shared object is the native family's export listing here), `searched_evidence_ids` on each
item (the native Evidence an absent import was looked for in) and the per-observation rows.
"""

from __future__ import annotations

from typing import Any, Literal

import attrs

from rea.managed.records.artifact import GUID, SHA256, TOKEN, CoverageState, MetadataStatus
from rea.managed.records.boundaries import CallConvention, CharSet
from rea.wire.schema import field

EVIDENCE_ID = "^ev_[a-f0-9]{64}$"
_MAX = 2**53 - 1

SymbolSource = Literal["macho-export", "function-dossier", "elf-export"]
Status = Literal["verified", "inferred", "unresolved", "contradicted"]
Basis = Literal[
    "exact-export-name",
    "exact-function-name",
    "decorated-name-candidate",
    "no-native-candidate",
    "unsupported-native-evidence",
    "module-mismatch",
]


def _count(description: str = "") -> Any:
    return field(description, minimum=0, maximum=_MAX)


@attrs.frozen(kw_only=True)
class VerifyLimits:
    max_native_observations: int = field("Native Evidence records read", default=20, minimum=1, maximum=50)
    max_candidates_per_import: int = field("Native candidates listed per import", default=25, minimum=1, maximum=100)


@attrs.frozen(kw_only=True)
class VerifyArgs:
    managed_boundaries_evidence_id: str = field(
        "Retained inspect_managed_native_boundaries Evidence", pattern=EVIDENCE_ID
    )
    native_observation_evidence_ids: tuple[str, ...] = field(
        "Retained native Evidence: inspect_binary_layout of an ELF library, inspect_macho, analyze_function",
        minItems=1,
        maxItems=50,
        items={"type": "string", "pattern": EVIDENCE_ID},
    )
    limits: VerifyLimits = field("Result bounds", factory=VerifyLimits)


@attrs.frozen(kw_only=True)
class VerifyAlgorithm:
    name: Literal["rea-managed-native-verification"] = field("Algorithm")
    version: Literal[1] = field("Version")
    token_identity: Literal["build-local"] = field("Metadata tokens are coordinates inside one build")
    token_to_address_mapping: Literal["not-inferred"] = field("Tokens and RVAs are never read as native addresses")


@attrs.frozen(kw_only=True)
class ManagedBoundary:
    evidence_id: str = field("The boundaries Evidence", pattern=EVIDENCE_ID)
    artifact_sha256: str = field("The assembly", pattern=SHA256)
    artifact_path: str = field("Its path", minLength=1)
    mvid: str | None = field("Its module version id", pattern=GUID)
    metadata_status: MetadataStatus = field("Its metadata status")
    pinvoke_imports_total: int = _count("P/Invoke declarations it lists")
    native_implementations_total: int = _count("Non-CIL methods it lists")
    coverage_state: CoverageState = field("Its coverage")


@attrs.frozen(kw_only=True)
class ObservationRow:
    evidence_id: str = field("Native Evidence", pattern=EVIDENCE_ID)
    operation: str = field("Its operation", minLength=1)
    module_name: str | None = field("Its subject's name")
    supported: bool = field("This workflow reads symbols from it")
    symbols: int = _count("Exported or function names taken from it")
    exhaustive: bool = field("Its symbol listing is complete (false: a bound cut it, so absence is not proof)")


@attrs.frozen(kw_only=True)
class NativeObservations:
    total: int = field("Native Evidence ids given", minimum=1, maximum=_MAX)
    accepted: int = _count("Read for symbols")
    unsupported: int = _count("Of an operation this workflow does not read")
    symbols: int = _count("Names taken from them")
    truncated: bool = field("Ids past max_native_observations were not read")
    observations: tuple[ObservationRow, ...] = field("Our extra: each Evidence read")


@attrs.frozen(kw_only=True)
class NativeSymbol:
    evidence_id: str = field("The native Evidence it was read from", pattern=EVIDENCE_ID)
    operation: str = field("That Evidence's operation", minLength=1)
    name: str = field("Symbol or function name", minLength=1)
    address: str | None = field("Its address in the native module")
    module_name: str | None = field("The module's name")
    module_path: str | None = field("The module's local path")
    source: SymbolSource = field("Export table or function dossier (elf-export: our extra)")


@attrs.frozen(kw_only=True)
class ManagedDeclaration:
    token: str = field("ImplMap row", pattern=TOKEN)
    member_token: str | None = field("The forwarded member", pattern=TOKEN)
    member_name: str | None = field("Its qualified name")
    import_name: str = field("Declared entry point", minLength=1)
    import_scope_name: str | None = field("Declared module (ModuleRef name)")
    no_mangle: bool = field("ExactSpelling")
    char_set: CharSet = field("String marshalling charset")
    call_convention: CallConvention = field("Unmanaged calling convention")
    declaration_verification: Literal["managed-declaration-only"] = field("What the managed side alone establishes")


@attrs.frozen(kw_only=True)
class PinvokeVerification:
    item_id: str = field("mnv_pinvoke_ id", pattern="^mnv_pinvoke_[a-f0-9]{64}$")
    managed: ManagedDeclaration = field("The declaration")
    status: Status = field("verified: exported under its exact name; unresolved: in no native Evidence given")
    basis: Basis = field("Which rule decided")
    confidence: Literal["observed", "inferred", "unknown"] = field("observed for exact names")
    matched_native: NativeSymbol | None = field("The symbol chosen (null: unresolved)")
    candidates: tuple[NativeSymbol, ...] = field("Every symbol whose name matched (bounded)")
    searched_evidence_ids: tuple[str, ...] = field("Our extra: the native Evidence searched for it")
    evidence_links: tuple[str, ...] = field("The managed Evidence and the candidates' Evidence", minItems=1)
    limitations: tuple[str, ...] = field("What this item does not establish")


@attrs.frozen(kw_only=True)
class VerifySummary:
    verified: int = _count()
    inferred: int = _count()
    unresolved: int = _count()
    contradicted: int = _count()
    native_body_unresolved: int = _count("Non-P/Invoke native implementations (not mapped)")


@attrs.frozen(kw_only=True)
class NativeImplementations:
    unresolved: int = _count("Native bodies not mapped to native Evidence")
    reason: str = field("Why", minLength=1)


@attrs.frozen(kw_only=True)
class VerifyCoverage:
    status: Literal["complete-within-inputs", "partial", "truncated"] = field("Whether every input was read")
    omitted_native_observations: int = _count("Native Evidence ids past max_native_observations")
    omitted_candidates: int = _count("Candidates past max_candidates_per_import")


@attrs.frozen(kw_only=True)
class VerificationResult:
    schema_version: Literal[1] = field("Result schema version")
    verification_id: str = field("mnv_ id", pattern="^mnv_[a-f0-9]{64}$")
    algorithm: VerifyAlgorithm = field("The matching algorithm")
    managed_boundary: ManagedBoundary = field("The managed side")
    native_observations: NativeObservations = field("The native side")
    summary: VerifySummary = field("Items per status")
    pinvoke_imports: tuple[PinvokeVerification, ...] = field("One item per P/Invoke declaration")
    native_implementations: NativeImplementations = field("Native bodies (C++/CLI, runtime) left unmapped")
    coverage: VerifyCoverage = field("What was read")
    evidence_links: tuple[str, ...] = field("The managed and the native Evidence", minItems=2)
    limitations: tuple[str, ...] = field("What the verification does not establish")
