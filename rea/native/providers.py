"""Deep-analysis providers: declarations, selection and the bound analysis profile.

Discovery facts come from an effect (what is installed); everything here is a
pure decision over them: which provider a request binds, from which source, with
which committed profile, or a typed refusal that says why.
"""

from __future__ import annotations

from typing import Any
from collections.abc import Mapping, Sequence

from returns.result import Failure, Result, Success

from rea.errors import ReaError
from rea.evidence import Provider, create_profile

EMBEDDED_DEFAULT = "angr"
PROVIDER_NAMES = {"angr": "angr", "ghidra": "Ghidra", "hopper": "Hopper Disassembler", "ida": "IDA Pro"}
SUPPORTED_FORMATS = {
    "angr": ("elf", "pe", "mach-o"),
    "ghidra": ("elf", "pe", "mach-o"),
    "hopper": ("elf", "mach-o"),
    "ida": ("elf", "pe", "mach-o"),
}
PROFILE_SCHEMA_VERSION = 1

ANGR_LIMITATIONS = (
    "angr recovers procedures by static CFG recovery (CFGFast); indirect calls and jumps it cannot resolve are absent "
    "from callers, callees and call graphs.",
    "angr keeps no analyst comments, bookmarks or cursor: those facets are unavailable, not empty.",
    "Pseudocode is angr's decompiler output: a derived reconstruction, not the original source.",
)


def angr_profile_parameters(version: str) -> dict[str, Any]:
    return {
        "engine": {"name": "angr", "version": version},
        "loader": {"auto_load_libs": False, "load_debug_info": False, "addresses": "link-time"},
        "cfg": {
            "algorithm": "CFGFast",
            "normalize": True,
            "data_references": True,
            "cross_references": False,
            "resolve_indirect_jumps": True,
        },
        "decompiler": {"name": "angr.analyses.Decompiler", "options": "default"},
        # what the snapshot records (block successors, unresolved call sites): a new shape is a new profile
        "snapshot": {"schema": 2},
    }


def candidate_records(facts: Sequence[Mapping[str, Any]], selected: str | None) -> list[dict[str, Any]]:
    """binary_session.analysis_provider_candidates: sorted by id, target support unknown without a target."""
    records = []
    for fact in sorted(facts, key=lambda f: f["id"]):
        available = fact["available"]
        records.append(
            {
                "provider": {"id": fact["id"], "name": PROVIDER_NAMES[fact["id"]], "version": fact.get("version")},
                "availability": {
                    "status": "available" if available else "unavailable",
                    "code": None if available else fact["code"],
                    "reason": None if available else fact["reason"],
                    "remediation": None if available else fact.get("remediation"),
                    "diagnostics": dict(fact.get("diagnostics", {})),
                },
                "target_support": {
                    "status": "unknown",
                    "code": None,
                    "reason": "Target support is decided when open_binary names a target.",
                    "formats": list(SUPPORTED_FORMATS[fact["id"]]),
                },
                "embedded": fact["id"] == EMBEDDED_DEFAULT,
                "selected": fact["id"] == selected,
                "limitations": list(ANGR_LIMITATIONS) if fact["id"] == "angr" else [],
            }
        )
    return records


def _selection_error(code: str, message: str, action: str, **selection: Any) -> ReaError:
    return ReaError(code=code, message=message, details={"selection": selection}, action=action)


def select_provider(
    facts: Sequence[Mapping[str, Any]], requested: str | None, environment: str | None, target_format: str
) -> Result[dict[str, Any] | None, ReaError]:
    """The binding for a target, None when auto finds no provider for its format, or a typed refusal.

    Precedence: the request's provider_id, then REA_ANALYSIS_PROVIDER, then auto
    (the embedded default when it supports the target, else the single available
    candidate that does).
    """
    by_id = {f["id"]: f for f in facts}
    ids = sorted(by_id)
    choice, source = (requested, "request") if requested not in (None, "auto") else (environment, "environment")
    if choice in (None, "auto", ""):
        choice, source = None, "auto"
    if choice is not None:
        if choice not in by_id:
            return Failure(
                _selection_error(
                    "capability_unavailable",
                    f"{choice!r} is not a deep-analysis provider REA knows (from {source}). Known: {', '.join(ids)}.",
                    'Pass provider_id "auto" or one of the known ids.',
                    requested=choice,
                    source=source,
                    status="unknown_provider",
                    candidates=ids,
                )
            )
        fact = by_id[choice]
        if not fact["available"]:
            return Failure(
                _selection_error(
                    "provider_unavailable",
                    f"Provider {choice!r} is unavailable on this host: {fact['reason']}",
                    fact.get("remediation") or 'Choose provider_id "auto" to use the embedded angr provider.',
                    requested=choice,
                    source=source,
                    status="unavailable",
                    availability_code=fact["code"],
                    candidates=ids,
                )
            )
        if not fact.get("bindable", True):
            return Failure(
                _selection_error(
                    "provider_unavailable",
                    f"Provider {choice!r} is installed, but this REA build has no adapter for it yet.",
                    'Use provider_id "angr" (or "auto"), the embedded provider.',
                    requested=choice,
                    source=source,
                    status="adapter_missing",
                    candidates=ids,
                )
            )
        if target_format not in SUPPORTED_FORMATS[choice]:
            return Failure(
                _selection_error(
                    "capability_unavailable",
                    f"Provider {choice!r} does not analyse {target_format} targets "
                    f"(it takes {', '.join(SUPPORTED_FORMATS[choice])}).",
                    "Open a native executable or library, or omit provider_id.",
                    requested=choice,
                    source=source,
                    status="target_format_unsupported",
                    format=target_format,
                )
            )
        return Success(binding(fact, source))
    usable = [
        f for f in facts if f["available"] and f.get("bindable", True) and target_format in SUPPORTED_FORMATS[f["id"]]
    ]
    if not usable:
        return Success(None)
    default = next((f for f in usable if f["id"] == EMBEDDED_DEFAULT), None)
    if default is not None:
        return Success(binding(default, "auto-embedded-default" if len(usable) > 1 else "auto-single-candidate"))
    if len(usable) == 1:
        return Success(binding(usable[0], "auto-single-candidate"))
    return Failure(
        _selection_error(
            "capability_unavailable",
            "More than one provider could analyse this target and none is the default.",
            "Pass provider_id with one of the candidates.",
            requested="auto",
            source="auto",
            status="ambiguous",
            candidates=sorted(f["id"] for f in usable),
        )
    )


def binding(fact: Mapping[str, Any], source: str) -> dict[str, Any]:
    provider = Provider(id=fact["id"], name=PROVIDER_NAMES[fact["id"]], version=fact["version"])
    profile = create_profile(provider, PROFILE_SCHEMA_VERSION, angr_profile_parameters(fact["version"]))
    return {"provider": provider.to_json(), "selection_source": source, "analysis_profile": profile.to_json()}


def unavailable_reason(binding_value: Mapping[str, Any] | None, target_format: str | None) -> str:
    if binding_value is None and target_format is not None:
        return (
            f"No deep-analysis provider analyses {target_format} targets; open a native executable or library "
            "(ELF, PE or Mach-O)."
        )
    return "Call open_binary with a native executable or library first."
