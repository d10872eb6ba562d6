"""Whether a tool can work on the current target: one rule for the report and the refusal.

`binary_session.tool_availability` and the call itself (the gate in rea.workflows)
both ask `verdict`, so a tool reported available is never refused for its target,
and a tool reported unavailable fails with exactly the reason and remediation it was
reported with. The rule is a table of what the tool needs (ToolContract.needs) by
the kind of target that is open; a native tool on a native executable then asks the
bound provider's own capability declaration (rea.native.providers).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

import attrs

from rea.artifacts.model import CONTAINER_FORMATS
from rea.catalog.contract import ToolContract
from rea.errors import ReaError
from rea.native.capability_groups import Mode
from rea.native.providers import operation_capability
from rea.session import Session
from rea.session_tools.records.vocabulary import ToolReason as Reason

TargetClass = Literal["none", "executable", "container", "file"]

# (what the tool needs, what is open) -> reason; "bound" is decided by the provider, "dos" by the format (below)
RULES: Mapping[tuple[str, TargetClass], Reason | Literal["bound", "dos"]] = {
    ("nothing", "none"): "available",
    ("nothing", "executable"): "available",
    ("nothing", "container"): "available",
    ("nothing", "file"): "available",
    ("target", "none"): "target_required",
    ("target", "executable"): "available",
    ("target", "container"): "available",
    ("target", "file"): "available",
    ("container", "none"): "target_required",
    ("container", "executable"): "target_unsupported",
    ("container", "container"): "available",
    ("container", "file"): "target_unsupported",
    ("provider", "none"): "target_required",
    ("provider", "executable"): "bound",
    ("provider", "container"): "target_unsupported",
    ("provider", "file"): "target_unsupported",
    ("dos-image", "none"): "target_required",
    ("dos-image", "executable"): "dos",
    ("dos-image", "container"): "target_unsupported",
    ("dos-image", "file"): "target_unsupported",
}
DOS_FORMATS = frozenset({"dos-mz", "dos-com"})

# (need, reason) -> what to do about it
REMEDIATIONS: Mapping[tuple[str, str], str] = {
    ("target", "target_required"): "Call open_binary with the absolute local path of a file or directory first.",
    ("container", "target_required"): "Call open_binary with the absolute path of an archive, package or directory.",
    ("provider", "target_required"): "Call open_binary with the absolute path of a native executable or library.",
    ("container", "target_unsupported"): (
        "Call open_binary on an archive, package or directory (zip family, ASAR, tar, ar/.deb), then call this tool "
        "again; inspect_artifact and inventory_artifact also describe a single file."
    ),
    ("provider", "target_unsupported"): (
        "Inventory or extract a native executable, then call open_binary on that executable."
    ),
    ("dos-image", "target_required"): (
        "Call open_binary with the absolute path of a DOS MZ executable, or of a COM program with format dos-com."
    ),
    ("dos-image", "target_unsupported"): (
        "Call open_binary on a DOS MZ executable (MZ header, no PE/NE/LE header), or on a headerless COM program "
        "with format dos-com (a .com file of 1 to 65,280 bytes is read as COM without it)."
    ),
    ("provider", "provider_missing"): (
        "Open an ELF, PE or Mach-O executable or library, which the embedded angr provider analyses."
    ),
}

# reason -> the canonical error code of the refusal
ERROR_CODES: Mapping[str, str] = {
    "client_capability_missing": "capability_unavailable",
    "target_required": "target_unavailable",
    "provider_missing": "capability_unavailable",
    "provider_unavailable": "capability_unavailable",
    "target_unsupported": "capability_unavailable",
}


@attrs.frozen(kw_only=True)
class TargetState:
    """What the rule looks at: the open target's class and format, and the bound provider."""

    target: TargetClass = "none"
    format: str | None = None
    provider_id: str | None = None

    @classmethod
    def of(cls, fmt: str | None, target_kind: str | None, provider_id: str | None) -> TargetState:
        if fmt is None:
            return cls()
        target: TargetClass = (
            "executable" if target_kind == "executable" else "container" if fmt in CONTAINER_FORMATS else "file"
        )
        return cls(target=target, format=fmt, provider_id=provider_id)


def target_state(session: Session) -> TargetState:
    target, binding = session.target, session.provider_binding
    if target is None:
        return TargetState()
    return TargetState.of(target.format, target.target_kind, None if binding is None else binding["provider"]["id"])


@attrs.frozen(kw_only=True)
class Verdict:
    reason: Reason
    remediation: str | None = None
    message: str | None = None
    modes: tuple[Mode, ...] = ()

    @property
    def available(self) -> bool:
        return self.reason == "available"


AVAILABLE = Verdict(reason="available")


def _message(name: str, need: str, reason: str, state: TargetState) -> str:
    described = f"the open target's format is {state.format}"
    return {
        "target_required": f"{name} needs an open target, and none is open.",
        "target_unsupported": (
            f"{name} needs an archive, package or directory with member files; {described}."
            if need == "container"
            else f"{name} loads DOS MZ and COM images only; {described}."
            if need == "dos-image"
            else f"{name} analyses native executables (ELF, PE, Mach-O); {described}."
        ),
        "provider_missing": (
            f"No deep-analysis provider analyses {state.format} targets, so {name} has nothing to ask; "
            "open a native executable or library (ELF, PE or Mach-O)."
        ),
    }[reason]


def _bound(contract: ToolContract, state: TargetState) -> Verdict:
    if state.provider_id is None:
        return Verdict(
            reason="provider_missing",
            remediation=REMEDIATIONS[("provider", "provider_missing")],
            message=_message(contract.name, "provider", "provider_missing", state),
        )
    declared = operation_capability({"id": state.provider_id, "available": True}, contract.name)
    if declared.available:
        return AVAILABLE
    return Verdict(
        reason="provider_unavailable",
        remediation=declared.remediation or "Choose an operation this provider declares available.",
        message=f"{contract.name}: {declared.reason}",
        modes=declared.modes,
    )


def verdict(contract: ToolContract, state: TargetState, client_features: frozenset[str] = frozenset()) -> Verdict:
    """Whether `contract` can work now, and if not why and what to do: the one rule."""
    missing = sorted(f for f in contract.required_client_features if f not in client_features)
    if missing:
        return Verdict(
            reason="client_capability_missing",
            remediation="Use an MCP client that supports: " + ", ".join(missing),
            message=f"{contract.name} needs client features this client did not negotiate: {', '.join(missing)}.",
        )
    rule = RULES[(contract.needs, state.target)]
    if rule == "bound":
        return _bound(contract, state)
    if rule == "dos":
        rule = "available" if state.format in DOS_FORMATS else "target_unsupported"
    if rule == "available":
        return AVAILABLE
    return Verdict(
        reason=rule,
        remediation=REMEDIATIONS[(contract.needs, rule)],
        message=_message(contract.name, contract.needs, rule, state),
    )


def refusal(contract: ToolContract, found: Verdict, state: TargetState) -> ReaError:
    """The call's failure for an unavailable verdict: its reason, message and remediation, unchanged."""
    assert not found.available
    details: dict[str, object] = {"reason": found.reason, "operation": contract.name}
    if state.format is not None:
        details["format"] = state.format
    if state.provider_id is not None:
        details["provider_id"] = state.provider_id
    if found.modes:
        details["modes"] = [m.to_json() for m in found.modes]
    return ReaError(
        code=ERROR_CODES[found.reason],
        message=found.message or found.reason,
        details=details,
        action=found.remediation,
    )
