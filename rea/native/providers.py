"""Deep-analysis providers: declarations, selection and the bound analysis profile.

Discovery facts come from an effect (what is installed); everything here is a
pure decision over them: which provider a request binds, from which source, with
which committed profile, or a typed refusal that says why.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, get_args

import attrs
from returns.result import Failure, Result, Success

from rea.errors import ReaError
from rea.evidence import Provider, create_profile
from rea.native.capability_groups import Mode, OperationCapability, group_capabilities
from rea.native.profiles import PROFILE_PARAMETERS, angr_profile_parameters
from rea.native.selector import choose

EMBEDDED_DEFAULT = "angr"
PROVIDER_NAMES = {"angr": "angr", "ghidra": "Ghidra", "hopper": "Hopper Disassembler", "ida": "IDA Pro"}
SUPPORTED_FORMATS = {
    "angr": ("elf", "pe", "mach-o"),
    "ghidra": ("elf", "pe", "mach-o"),
    "hopper": ("elf", "mach-o"),
    "ida": ("elf", "pe", "mach-o"),
}
PROFILE_SCHEMA_VERSION = 1


GHIDRA_STARTUP_DEFAULT_MS = 330_000  # the reference's default startup deadline
GHIDRA_STARTUP_MAX_MS = 2_147_483_647


def ghidra_startup_timeout(text: str | None) -> int | str:
    """REA_GHIDRA_STARTUP_TIMEOUT_MS as the reference reads it: absent takes the default;
    a supplied value must be a whole number of milliseconds in 1..2147483647 (surrounding
    space, a sign or an exponent as a number literal allows), else the reason it is not."""
    if text is None:
        return GHIDRA_STARTUP_DEFAULT_MS
    try:
        number = float(text.strip())
    except ValueError:
        number = float("nan")
    if not (number.is_integer() and 1 <= number <= GHIDRA_STARTUP_MAX_MS):
        return f"REA_GHIDRA_STARTUP_TIMEOUT_MS={text!r} is not a whole number of milliseconds in 1..{GHIDRA_STARTUP_MAX_MS}"
    return int(number)


ANGR_LIMITATIONS = (
    "angr recovers procedures by static CFG recovery (CFGFast); indirect calls and jumps it cannot resolve are absent "
    "from callers, callees and call graphs.",
    "angr keeps no cursor (those facets are unavailable, not empty); analyst comments, names and bookmarks are "
    "kept by REA's annotation store, not by the engine.",
    "Pseudocode is angr's decompiler output: a derived reconstruction, not the original source.",
)


GHIDRA_LIMITATIONS = (
    "Ghidra recovers procedures, basic blocks and references by its default auto-analysis of the binary "
    "imported into a fresh temporary project; indirect calls it did not resolve are absent from callers, "
    "callees and call graphs.",
    "Ghidra runs headless in a temporary project: there is no cursor or selection; analyst comments, names and "
    "bookmarks are kept by REA's annotation store, not in a Ghidra project.",
    "Pseudocode is Ghidra's decompiler (DecompInterface) output: a derived reconstruction, not the original source.",
    "Unverified: REA's Ghidra adapter was written from Ghidra's API documentation and tested on hand-made "
    "answers; no test of this build ran it against a live Ghidra.",
)


PROVIDER_LIMITATIONS = {"angr": ANGR_LIMITATIONS, "ghidra": GHIDRA_LIMITATIONS}


def provider_limitations(provider_id: str) -> tuple[str, ...]:
    """What every answer of a provider carries (angr: its static CFG; Ghidra: its analysis, and that the
    adapter is unverified against a live Ghidra)."""
    if provider_id == "ghidra":
        return (GHIDRA_LIMITATIONS[0], GHIDRA_LIMITATIONS[3])
    return ANGR_LIMITATIONS[:1]


# The reference's stable reasons a deep provider cannot take part in target selection.
RejectionCode = Literal[
    "not_configured",
    "executable_missing",
    "runtime_missing",
    "unsupported_host",
    "unsupported_version",
    "target_kind_unsupported",
    "target_format_unsupported",
    "architecture_unsupported",
    "target_role_unsupported",
    "managed_target_unsupported",
    "open_options_invalid",
    "version_unresolved",
]
PROVIDER_REJECTION_CODES: tuple[str, ...] = get_args(RejectionCode)
# An installed provider this build cannot drive: the host (this REA build) does not support it.
NO_ADAPTER_CODE = "unsupported_host"
PROVIDER_EFFECTS = (
    "mutates_artifact",
    "launches_process",
    "may_show_ui",
    "may_access_network",
    "may_write_filesystem",
    "changes_permissions",
    "requires_root",
)
# angr runs in an owned worker process and caches its analysis under REA_CACHE_DIR
ANGR_EFFECTS = ("launches_process", "may_write_filesystem")


def _identity(fact: Mapping[str, Any]) -> dict[str, Any]:
    return {"id": fact["id"], "name": PROVIDER_NAMES.get(fact["id"], fact["id"]), "version": fact.get("version")}


def _no_adapter_reason(provider_id: str) -> str:
    return f"{PROVIDER_NAMES.get(provider_id, provider_id)} is installed, but this REA build has no adapter for it."


def rejection(fact: Mapping[str, Any], target_format: str | None) -> tuple[str, str] | None:
    """(code, reason) why a provider cannot take a target (None: it can), in the reference's order:
    target support, then host availability, then (ours) an adapter in this build."""
    if target_format is not None and target_format not in SUPPORTED_FORMATS.get(fact["id"], ()):
        return "target_format_unsupported", f"{fact['id']} does not analyse {target_format} targets"
    if not fact["available"]:
        return fact["code"], fact["reason"]
    if not fact.get("bindable", True):
        return NO_ADAPTER_CODE, _no_adapter_reason(fact["id"])
    return None


# What angr cannot answer at all, and why (a headless engine has no cursor or selection).
HEADLESS = "The provider runs headless (angr and Ghidra alike): there is no cursor or selection, so this facet is unavailable (not empty)."
EXPLICIT = "Pass an explicit address (inspect_address_context, resolve_containing_procedure, address_name)."
CURSOR_OPERATIONS = frozenset({"current_address", "current_procedure", "get_navigation_context"})
# get_navigation_context's modes on a headless engine: the selection needs a cursor, an explicit document does not
NAVIGATION_MODES = (
    Mode(
        name="current_selection",
        available=False,
        missing_operations=("current_address", "current_procedure"),
        remediation=EXPLICIT,
    ),
    Mode(name="explicit_document", available=True, missing_operations=(), remediation=None),
)
# which of angr's limitations each operation carries beyond the first (the static CFG, common to all)
_ANGR_EXTRA = {
    ANGR_LIMITATIONS[1]: frozenset({"analyze_function", "inspect_address_context"}),  # no cursor; REA's annotations
    ANGR_LIMITATIONS[2]: frozenset({"analyze_function", "batch_decompile", "procedure_pseudo_code"}),  # decompiler
}


def _angr_operation(operation: str) -> OperationCapability:
    limitations = (ANGR_LIMITATIONS[0], *(text for text, ops in _ANGR_EXTRA.items() if operation in ops))
    if operation in CURSOR_OPERATIONS:
        return OperationCapability(
            operation=operation,
            available=False,
            reason=HEADLESS,
            effects=ANGR_EFFECTS,
            limitations=limitations,
            remediation=EXPLICIT,
            modes=NAVIGATION_MODES if operation == "get_navigation_context" else (),
        )
    return OperationCapability(operation=operation, available=True, effects=ANGR_EFFECTS, limitations=limitations)


def operation_capability(fact: Mapping[str, Any], operation: str) -> OperationCapability:
    """What a provider (its discovery fact) declares for one operation, without starting it."""
    if not fact["available"]:
        return OperationCapability(
            operation=operation,
            available=False,
            reason=fact["reason"],
            code=fact["code"],
            remediation=fact.get("remediation"),
        )
    if not fact.get("bindable", True):
        return OperationCapability(
            operation=operation, available=False, reason=_no_adapter_reason(fact["id"]), code=NO_ADAPTER_CODE
        )
    if fact["id"] == "angr":
        return _angr_operation(operation)
    if fact["id"] == "ghidra":
        return _ghidra_operation(operation)
    return OperationCapability(operation=operation, available=True)


GHIDRA_HEADLESS = "Ghidra runs headless: there is no cursor or selection, so this facet is unavailable (not empty)."


def _ghidra_operation(operation: str) -> OperationCapability:
    extra = {"analyze_function": 1, "inspect_address_context": 1, "procedure_pseudo_code": 2, "batch_decompile": 2}
    limitations = provider_limitations("ghidra")
    if operation in extra:
        limitations = (*limitations, GHIDRA_LIMITATIONS[extra[operation]])
    if operation in CURSOR_OPERATIONS:
        return OperationCapability(
            operation=operation,
            available=False,
            reason=GHIDRA_HEADLESS,
            effects=ANGR_EFFECTS,
            limitations=limitations,
            remediation=EXPLICIT,
            modes=NAVIGATION_MODES if operation == "get_navigation_context" else (),
        )
    return OperationCapability(operation=operation, available=True, effects=ANGR_EFFECTS, limitations=limitations)


def capability_set(fact: Mapping[str, Any], operations: Sequence[str]) -> dict[str, Any]:
    """One provider's operations, grouped by shared facts."""
    return group_capabilities(_identity(fact), [operation_capability(fact, op) for op in operations])


def candidate_records(
    facts: Sequence[Mapping[str, Any]],
    selected: str | None,
    target_format: str | None = None,
    operations: Sequence[str] = (),
) -> list[dict[str, Any]]:
    """binary_session.analysis_provider_candidates: sorted by id; target support is unknown
    without a target and decided by format with one."""
    records = []
    for fact in sorted(facts, key=lambda f: f["id"]):
        available = fact["available"]
        formats = list(SUPPORTED_FORMATS.get(fact["id"], ()))
        if target_format is None:
            support: dict[str, Any] = {
                "status": "unknown",
                "code": None,
                "reason": "No target is open; support is decided when open_binary names one.",
            }
        elif target_format in formats:
            support = {"status": "supported", "code": None, "reason": None}
        else:
            support = {
                "status": "unsupported",
                "code": "target_format_unsupported",
                "reason": f"{fact['id']} does not analyse {target_format} targets",
            }
        records.append(
            {
                "provider": _identity(fact),
                "availability": {
                    "status": "available" if available else "unavailable",
                    "code": None if available else fact["code"],
                    "reason": None if available else fact["reason"],
                    "remediation": None if available else fact.get("remediation"),
                    "diagnostics": dict(fact.get("diagnostics", {})),
                },
                "target_support": {**support, "diagnostics": {}, "formats": formats},
                "selected": fact["id"] == selected,
                "capabilities": [capability_set(fact, operations)],
                "embedded": fact["id"] == EMBEDDED_DEFAULT,
                "limitations": list(PROVIDER_LIMITATIONS.get(fact["id"], ())),
            }
        )
    return records


def _selection_error(
    code: str,
    message: str,
    action: str,
    *,
    reason: str,
    requested: str,
    source: str,
    status: str,
    facts: Sequence[Mapping[str, Any]],
    target_format: str,
    **extra: Any,
) -> ReaError:
    """The reference's ProviderSelectionError details (operation, selection_reason, requested_provider_id,
    candidate_ids, rejections) and our `selection` block, whose candidates carry their rejection codes."""
    ordered = sorted(facts, key=lambda f: f["id"])
    rejected = {f["id"]: rejection(f, target_format) for f in ordered}
    rejections = [
        {"provider_id": f["id"], "code": why[0], "reason": why[1], "diagnostics": dict(f.get("diagnostics", {}))}
        for f in ordered
        if (why := rejected[f["id"]]) is not None
    ]
    candidates = [
        {
            "provider_id": f["id"],
            "available": (why := rejected[f["id"]]) is None,
            "code": None if why is None else why[0],
        }
        for f in ordered
    ]
    return ReaError(
        code=code,
        message=message,
        details={
            "operation": "open_binary",
            "selection_reason": reason,
            "requested_provider_id": requested,
            "candidate_ids": [f["id"] for f in ordered],
            "rejections": rejections,
            "selection": {
                "requested": requested,
                "source": source,
                "status": status,
                "candidates": candidates,
                **extra,
            },
        },
        action=action,
    )


def select_provider(
    facts: Sequence[Mapping[str, Any]], requested: str | None, environment: str | None, target_format: str
) -> Result[dict[str, Any] | None, ReaError]:
    """The binding for a target, None when auto finds no provider for its format, or a typed refusal.

    Precedence: the request's provider_id, then REA_ANALYSIS_PROVIDER, then auto (the
    embedded default when it supports the target, else the single available candidate
    that does). A concrete choice is checked as the reference checks it: known, then
    the rows of REQUESTED_CHECKS in order (target support, host availability, then, ours,
    an adapter in this build). Refusal codes follow the reference: provider_unavailable for
    an unavailable provider, capability_unavailable for the rest.
    """
    chosen = choose(requested, environment)
    if chosen.provider_id is None:
        return _auto(facts, target_format)
    return _requested(facts, chosen.provider_id, chosen.source, target_format)


@attrs.frozen
class RequestedCheck:
    """One check of a provider the request (or the environment) names: when `refuses(fact, target_format)`
    holds, the choice is refused with `code` and these details."""

    refuses: Callable[[Mapping[str, Any], str], bool]
    code: str
    message: Callable[[str, Mapping[str, Any], str], str]  # (choice, fact, target_format)
    action: Callable[[Mapping[str, Any]], str]  # (fact)
    reason: str
    status: str
    extra: Callable[[Mapping[str, Any], str], dict[str, Any]]  # the selection block's own field


# the reference's order: target support, then host availability; then ours, an adapter in this build
REQUESTED_CHECKS: tuple[RequestedCheck, ...] = (
    RequestedCheck(
        refuses=lambda fact, target_format: target_format not in SUPPORTED_FORMATS[fact["id"]],
        code="capability_unavailable",
        message=lambda choice, fact, target_format: (
            f"Provider {choice!r} does not analyse {target_format} targets "
            f"(it takes {', '.join(SUPPORTED_FORMATS[fact['id']])})."
        ),
        action=lambda fact: "Open a native executable or library, or omit provider_id.",
        reason="target_unsupported",
        status="target_format_unsupported",
        extra=lambda fact, target_format: {"format": target_format},
    ),
    RequestedCheck(
        refuses=lambda fact, target_format: not fact["available"],
        code="provider_unavailable",
        message=lambda choice, fact, target_format: (
            f"Provider {choice!r} is unavailable on this host: {fact['reason']}"
        ),
        action=lambda fact: fact.get("remediation") or 'Choose provider_id "auto" to use the embedded angr provider.',
        reason="provider_unavailable",
        status="unavailable",
        extra=lambda fact, target_format: {"availability_code": fact["code"]},
    ),
    RequestedCheck(
        refuses=lambda fact, target_format: not fact.get("bindable", True),
        code="provider_unavailable",
        message=lambda choice, fact, target_format: (
            f"Provider {choice!r} is installed, but this REA build has no adapter for it yet."
        ),
        action=lambda fact: 'Use provider_id "angr" (or "auto"), the embedded provider.',
        reason="provider_unavailable",
        status="adapter_missing",
        extra=lambda fact, target_format: {"availability_code": NO_ADAPTER_CODE},
    ),
)


def _requested(
    facts: Sequence[Mapping[str, Any]], choice: str, source: str, target_format: str
) -> Result[dict[str, Any] | None, ReaError]:
    """The binding of the provider the request or the environment names, or the first check that refuses it."""
    by_id = {f["id"]: f for f in facts}
    if choice not in by_id:
        known = sorted(set(by_id) | set(PROVIDER_NAMES))
        return Failure(
            _selection_error(
                "capability_unavailable",
                f"{choice!r} is not a deep-analysis provider REA knows (from {source}). Known: {', '.join(known)}.",
                'Pass provider_id "auto" or one of the known ids.',
                reason="unknown_provider",
                requested=choice,
                source=source,
                status="unknown_provider",
                facts=facts,
                target_format=target_format,
            )
        )
    fact = by_id[choice]
    for check in REQUESTED_CHECKS:
        if check.refuses(fact, target_format):
            return Failure(
                _selection_error(
                    check.code,
                    check.message(choice, fact, target_format),
                    check.action(fact),
                    reason=check.reason,
                    requested=choice,
                    source=source,
                    status=check.status,
                    facts=facts,
                    target_format=target_format,
                    **check.extra(fact, target_format),
                )
            )
    return Success(binding(fact, source))


def _auto(facts: Sequence[Mapping[str, Any]], target_format: str) -> Result[dict[str, Any] | None, ReaError]:
    """auto: the embedded default when it can analyse the target, else the single candidate that can; None
    when none can, a refusal when several can and none is the default."""
    usable = [
        f for f in facts if f["available"] and f.get("bindable", True) and target_format in SUPPORTED_FORMATS[f["id"]]
    ]
    if not usable:
        return Success(None)
    default = next((f for f in usable if f["id"] == EMBEDDED_DEFAULT), None)
    if default is not None:
        # the reference has one auto source; which auto rule chose is our extra detail
        return Success(
            binding(
                default,
                "auto-single-candidate",
                detail="embedded-default" if len(usable) > 1 else "single-candidate",
            )
        )
    if len(usable) == 1:
        return Success(binding(usable[0], "auto-single-candidate", detail="single-candidate"))
    return Failure(
        _selection_error(
            "capability_unavailable",
            "More than one provider could analyse this target and none is the default.",
            "Pass provider_id with one of the candidates.",
            reason="ambiguous",
            requested="auto",
            source="auto",
            status="ambiguous",
            usable=sorted(f["id"] for f in usable),
            facts=facts,
            target_format=target_format,
        )
    )


def binding(fact: Mapping[str, Any], source: str, detail: str | None = None) -> dict[str, Any]:
    """A bound route: provider, reference selection source, committed profile, and (our extra) the auto rule."""
    provider = Provider(id=fact["id"], name=PROVIDER_NAMES[fact["id"]], version=fact["version"])
    make: Callable[[Any], dict[str, Any]] = PROFILE_PARAMETERS.get(fact["id"], angr_profile_parameters)
    parameters = make(fact["version"])
    profile = create_profile(provider, PROFILE_SCHEMA_VERSION, parameters)
    return {
        "provider": provider.to_json(),
        "selection_source": source,
        "analysis_profile": profile.to_json(),
        "selection_detail": detail,
    }


def sliced(bound: Mapping[str, Any], fat_slice: Mapping[str, Any]) -> dict[str, Any]:
    """The binding with the loader reading one slice of a universal Mach-O: a new profile, so a new digest."""
    profile = bound["analysis_profile"]
    parameters = profile["parameters"]
    loader = {**parameters["loader"], "fat_slice": dict(fat_slice)}
    provider = Provider(**profile["provider"])
    committed = create_profile(provider, profile["provider_profile_schema_version"], {**parameters, "loader": loader})
    return {**bound, "analysis_profile": committed.to_json()}


def unavailable_reason(binding_value: Mapping[str, Any] | None, target_format: str | None) -> str:
    if binding_value is None and target_format in ("dos-mz", "dos-com"):
        return (
            f"No deep-analysis provider analyses {target_format} targets; inspect_native_load_image loads and "
            "verifies the DOS image without one."
        )
    if binding_value is None and target_format is not None:
        return (
            f"No deep-analysis provider analyses {target_format} targets; open a native executable or library "
            "(ELF, PE or Mach-O)."
        )
    return "Call open_binary with a native executable or library first."
