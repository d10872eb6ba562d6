"""P/Invoke declarations checked against native symbols: exact, decorated, module-mismatched or absent.

The rules follow 6.x managedNativeVerificationMatch: a declared entry point is `verified` when a
symbol of exactly that name is exported by a module whose name agrees with the declared scope;
`inferred` when only a decorated spelling (W/A suffix, stdcall `_name@N`) is; `contradicted` when
the name is exported only by another module; `unresolved` when no Evidence given exports it (not
proof that no library does). Module names agree after the basename is lower-cased and a `lib`
prefix and library suffix (`.dll`, `.so`, `.so.6`, `.dylib`, ...) are dropped.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from rea.canonical_json import canonical_sha256
from rea.evidence import Evidence
from rea.managed.native_symbols import Extracted
from rea.managed.records import verification as w
from rea.managed.retained_results import StoredBoundaries
from rea.wire.convert import to_wire

_SUFFIX = re.compile(r"\.(?:dll|dylib|node|exe|so(?:\.\d+)*)$")


def normalize_module(value: str) -> str:
    base = posixpath.basename(value.replace("\\", "/")).lower()
    return _SUFFIX.sub("", base.removeprefix("lib"))


def _module_agrees(scope: str | None, symbol: w.NativeSymbol) -> bool:
    if scope is None:
        return True
    expected = normalize_module(scope)
    return any(normalize_module(v) == expected for v in (symbol.module_name, symbol.module_path) if v)


def candidate_names(p: w.ManagedDeclaration) -> tuple[str, ...]:
    name = p.import_name
    names = [name]
    if not p.no_mangle:
        names += {"unicode": [name + "W"], "ansi": [name + "A"]}.get(p.char_set, [])
        if p.call_convention == "stdcall":
            names += ["_" + name, f"_{name}@0"]
    return tuple(dict.fromkeys(names))


def _bare(symbol: w.NativeSymbol) -> str:
    macho = symbol.source == "macho-export" and symbol.name.startswith("_")
    return symbol.name[1:] if macho else symbol.name


Confidence = Literal["observed", "inferred", "unknown"]


def _decide(
    p: w.ManagedDeclaration, found: Sequence[w.NativeSymbol], supported: int
) -> tuple[w.Status, w.Basis, Confidence, w.NativeSymbol | None]:
    if not found:
        return "unresolved", "no-native-candidate" if supported else "unsupported-native-evidence", "unknown", None
    scope = p.import_scope_name
    exact = next((s for s in found if _bare(s) == p.import_name and _module_agrees(scope, s)), None)
    chosen = exact or next((s for s in found if _module_agrees(scope, s)), None) or found[0]
    if not _module_agrees(scope, chosen):
        return "contradicted", "module-mismatch", "unknown", chosen
    if exact is not None:
        basis: w.Basis = "exact-export-name" if chosen.source != "function-dossier" else "exact-function-name"
        return "verified", basis, "observed", chosen
    return "inferred", "decorated-name-candidate", "inferred", chosen


_ITEM_LIMITATIONS: Mapping[str, str] = {
    "inferred": "Native symbol matched a decorated candidate rather than the exact declared import name.",
    "contradicted": "A native symbol of this name exists, but only in a module other than the declared import scope.",
    "unresolved": "No supplied native Evidence exports this declared import (not proof that no library does).",
}


def verify_import(
    p: w.ManagedDeclaration, managed_id: str, symbols: Sequence[w.NativeSymbol], searched: Sequence[str], cap: int
) -> tuple[w.PinvokeVerification, int]:
    """One declaration's item, and how many candidates the cap left out."""
    names = set(candidate_names(p))
    found = [s for s in symbols if _bare(s) in names]
    status, basis, confidence, chosen = _decide(p, found, len(searched))
    listed = tuple(found[:cap])
    if chosen is not None and chosen not in listed:
        listed = (chosen, *listed[: cap - 1])
    limitations = (["Managed declaration does not name an import scope/module."] if p.import_scope_name is None
                   else []) + ([_ITEM_LIMITATIONS[status]] if status in _ITEM_LIMITATIONS else [])  # fmt: skip
    item_key = [managed_id, p.token, p.import_name, p.import_scope_name, [s.evidence_id for s in listed]]
    item = w.PinvokeVerification(
        item_id="mnv_pinvoke_" + canonical_sha256(item_key),
        managed=p,
        status=status,
        basis=basis,
        confidence=confidence,
        matched_native=chosen,
        candidates=listed,
        searched_evidence_ids=tuple(searched),
        evidence_links=(managed_id, *dict.fromkeys(s.evidence_id for s in listed)),
        limitations=tuple(limitations),
    )
    return item, len(found) - len(listed)


def _observations(native: Sequence[tuple[Evidence, Extracted]], total: int) -> w.NativeObservations:
    rows = tuple(
        w.ObservationRow(evidence_id=e.evidence_id, operation=e.operation,
                         module_name=None if e.subject is None else e.subject.name, supported=x.supported,
                         symbols=len(x.symbols), exhaustive=x.exhaustive)
        for e, x in native
    )  # fmt: skip
    return w.NativeObservations(
        total=total, accepted=sum(r.supported for r in rows), unsupported=sum(not r.supported for r in rows),
        symbols=sum(r.symbols for r in rows), truncated=total > len(rows), observations=rows,
    )  # fmt: skip


_LIMITATIONS = (
    "P/Invoke verification checks declared import names against supplied native export or function-name Evidence only.",
    "A matching native symbol shows that the name is exported; it does not prove CLR binding, marshaling behavior, "
    "call reachability, or runtime loading.",
    "Missing supplied native symbols are reported as unresolved, not proof that a dependency cannot exist.",
    "Managed metadata tokens and method RVAs are not interpreted as native addresses.",
)
_NATIVE_BODY_REASON = (
    "Managed metadata tokens and RVAs are not translated to native provider addresses by this workflow; C++/CLI, "
    "ReadyToRun, and native-body mappings require explicit provider-supported bridge evidence."
)


def _boundary(managed_id: str, r: StoredBoundaries) -> w.ManagedBoundary:
    return w.ManagedBoundary(
        evidence_id=managed_id, artifact_sha256=r.artifact.sha256, artifact_path=r.artifact.path,
        mvid=r.module.mvid, metadata_status=r.metadata_status,
        pinvoke_imports_total=len(r.pinvoke_imports), native_implementations_total=len(r.native_boundary_kinds),
        coverage_state=r.coverage_state,
    )  # fmt: skip


def verify(
    managed_id: str,
    managed: StoredBoundaries,
    native: Sequence[tuple[Evidence, Extracted]],
    total: int,
    limits: w.VerifyLimits,
) -> w.VerificationResult:
    """`native` holds the Evidence read (at most max_native_observations of `total`) with their symbols."""
    symbols = [s for _, x in native for s in x.symbols]
    searched = [e.evidence_id for e, x in native if x.supported]
    made = [verify_import(p, managed_id, symbols, searched, limits.max_candidates_per_import)
            for p in managed.pinvoke_imports]  # fmt: skip
    items = tuple(item for item, _ in made)
    omitted_candidates = sum(cut for _, cut in made)
    omitted_native = total - len(native)
    observed = _observations(native, total)
    partial = managed.coverage_state != "complete" or observed.unsupported > 0
    partial = partial or any(not x.exhaustive for _, x in native if x.supported)
    status: Any = "truncated" if omitted_native or omitted_candidates else "partial" if partial else (
        "complete-within-inputs")  # fmt: skip
    body_unresolved = sum(1 for kind in managed.native_boundary_kinds if kind != "pinvoke")
    links = (managed_id, *(e.evidence_id for e, _ in native))
    limitations = list(_LIMITATIONS)
    if managed.coverage_state != "complete":
        limitations.append("Managed boundary input is partial or unavailable.")
    if observed.unsupported:
        limitations.append("Some native Evidence operations are not read by this workflow (it reads "
                           "inspect_binary_layout of ELF files, inspect_macho and analyze_function).")  # fmt: skip
    if any(not x.exhaustive for _, x in native if x.supported):
        limitations.append("A native symbol listing was cut by its own bound: an unresolved import may be exported.")
    if omitted_native:
        limitations.append(f"{omitted_native} native Evidence ids past max_native_observations were not read.")
    summary = {
        s: sum(1 for i in items if i.status == s) for s in ("verified", "inferred", "unresolved", "contradicted")
    }
    return w.VerificationResult(
        schema_version=1,
        verification_id="mnv_" + canonical_sha256(["managed-native-verification", list(links), to_wire(limits)]),
        algorithm=w.VerifyAlgorithm(
            name="rea-managed-native-verification",
            version=1,
            token_identity="build-local",
            token_to_address_mapping="not-inferred",
        ),  # fmt: skip
        managed_boundary=_boundary(managed_id, managed),
        native_observations=observed,
        summary=w.VerifySummary(**summary, native_body_unresolved=body_unresolved),
        pinvoke_imports=items,
        native_implementations=w.NativeImplementations(unresolved=body_unresolved, reason=_NATIVE_BODY_REASON),
        coverage=w.VerifyCoverage(
            status=status, omitted_native_observations=omitted_native, omitted_candidates=omitted_candidates
        ),  # fmt: skip
        evidence_links=links,
        limitations=tuple(limitations),
    )
