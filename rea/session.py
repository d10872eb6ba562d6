"""The connection's Session: one immutable value, changed only by pure transitions.

Every transition returns a new Session or an error and never half-applies, so
the transport can swap the value atomically and a rejected call leaves the
session exactly as it was.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal

import attrs
from returns.result import Failure, Result, Success

from rea.errors import ReaError, invalid_request, missing_evidence
from rea.evidence import EVIDENCE_ID, Evidence, parse_evidence

RETAINED_KIND = "retained-evidence"


EXECUTABLE_FORMATS = frozenset({"elf", "pe", "mach-o", "mach-o-universal", "dos-mz", "dos-com"})
ARCHIVE_FORMATS = frozenset(
    {"zip", "jar", "apk", "aab", "aar", "ipa", "whl", "msix", "appx", "crx", "tar", "ar", "asar", "dmg", "pkg"}
)
DATABASE_FORMATS = frozenset({"hopper", "analysis-database"})
DOS_COM_MAX_BYTES = 0xFF00  # one 64 KiB segment minus the 256-byte PSP


def target_kind(fmt: str) -> str:
    """The reference's target kind: executable, database, archive, or artifact (everything else)."""
    if fmt in EXECUTABLE_FORMATS:
        return "executable"
    if fmt in DATABASE_FORMATS:
        return "database"
    if fmt in ARCHIVE_FORMATS:
        return "archive"
    return "artifact"


_ELF_MACHINES = {3: "x86", 62: "x86_64", 40: "arm", 183: "arm64"}
_PE_MACHINES = {0x14C: "x86", 0x8664: "x86_64", 0x1C0: "arm", 0x1C2: "arm", 0x1C4: "arm", 0xAA64: "arm64"}
_MACHO_CPUS = {7: "x86", 0x01000007: "x86_64", 12: "arm", 0x0100000C: "arm64"}


def machine_architecture(fmt: str, machine: int) -> str | None:
    """The subject architecture (x86, x86_64, arm, arm64) of a header's machine number, else None."""
    table = {"elf": _ELF_MACHINES, "pe": _PE_MACHINES, "mach-o": _MACHO_CPUS}.get(fmt, {})
    return table.get(machine)


def header_architecture(head: bytes, fmt: str) -> str | None:
    """The architecture an executable's header declares (x86, x86_64, arm, arm64), else None.

    Reads only the first bytes the target identity already holds: the ELF e_machine, the PE
    COFF Machine behind e_lfanew, or the Mach-O cputype. A universal binary has several, so None."""
    if fmt in ("dos-com", "dos-mz"):
        return "x86"  # a DOS image is real-mode x86 code by definition
    if fmt == "elf" and len(head) >= 20 and head[5] in (1, 2):
        return _ELF_MACHINES.get(int.from_bytes(head[18:20], "little" if head[5] == 1 else "big"))
    if fmt == "pe" and len(head) >= 0x40:
        offset = int.from_bytes(head[0x3C:0x40], "little")
        if len(head) >= offset + 6 and head[offset : offset + 4] == b"PE\0\0":
            return _PE_MACHINES.get(int.from_bytes(head[offset + 4 : offset + 6], "little"))
        return None
    if fmt == "mach-o" and len(head) >= 8:
        order: Literal["little", "big"] = "big" if head[:4] in (b"\xfe\xed\xfa\xce", b"\xfe\xed\xfa\xcf") else "little"
        return _MACHO_CPUS.get(int.from_bytes(head[4:8], order))
    return None


MANAGED_HINT = (
    "This PE is a .NET assembly (its CLI header is present): the native view sees only its loader stub and any "
    "native code. inspect_managed_artifact, inspect_managed_members and inspect_managed_native_boundaries read its "
    "managed metadata and CIL (call them with {} on this target)."
)


@attrs.frozen(kw_only=True)
class Target:
    path: str
    name: str
    sha256: str
    size: int
    format: str
    kind: str  # file | directory
    architecture: str | None = None
    stamp: str | None = None  # the file-system stamp its digest was taken under (see rea.program.TargetStamp)
    managed: bool = False  # a PE with a CLI header (a .NET assembly)

    @property
    def target_kind(self) -> str:
        return target_kind(self.format)

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "name": self.name,
            "sha256": self.sha256,
            "size": self.size,
            "format": self.format,
            "kind": self.kind,
        }


InventoryKey = tuple[str | None, ...]
RETAINED_INVENTORIES = 2  # each holds every record of one traversal; paging one target at a time needs one


@attrs.frozen(kw_only=True)
class RetainedInventory:
    """A complete artifact inventory kept between calls, under everything that shaped it: the target's path and
    digest, the traversal settings (limits, integrity policy) and the stamp of an `.unpacked` companion the
    digest does not cover. A later page, summary or extraction with the same key is served from it."""

    key: InventoryKey
    complete: Mapping[str, Any]


@attrs.frozen(kw_only=True)
class Session:
    evidence: Mapping[str, Evidence] = attrs.field(factory=dict)
    unknown_revisions: tuple[Mapping[str, Any], ...] = ()
    target: Target | None = None
    run_id: str | None = None
    provider_binding: Mapping[str, Any] | None = None
    inventories: tuple[RetainedInventory, ...] = ()  # most recently built last

    @property
    def ledger(self) -> tuple[Evidence, ...]:
        return tuple(self.evidence.values())


def record(session: Session, records: Iterable[Evidence]) -> Session:
    """Retain records in insertion order; re-recording an identical record is a no-op."""
    additions = {e.evidence_id: e for e in records if e.evidence_id not in session.evidence}
    if not additions:
        return session
    return attrs.evolve(session, evidence={**session.evidence, **additions})


def retained_inventory(session: Session, key: InventoryKey) -> Mapping[str, Any] | None:
    return next((kept.complete for kept in session.inventories if kept.key == key), None)


def retain_inventory(session: Session, key: InventoryKey, complete: Mapping[str, Any]) -> Session:
    """Keep `complete` under `key`, dropping the oldest beyond RETAINED_INVENTORIES."""
    kept = tuple(k for k in session.inventories if k.key != key) + (RetainedInventory(key=key, complete=complete),)
    return attrs.evolve(session, inventories=kept[-RETAINED_INVENTORIES:])


def restamp(session: Session, stamp: str | None) -> Session:
    """The target was hashed again and still has its digest: remember the stamp it has now."""
    if session.target is None or session.target.stamp == stamp:
        return session
    return attrs.evolve(session, target=attrs.evolve(session.target, stamp=stamp))


def open_target(session: Session, target: Target, run_id: str, binding: Mapping[str, Any] | None) -> Session:
    """A new target keeps the ledger (references stay valid) and starts a new analysis run."""
    return attrs.evolve(session, target=target, run_id=run_id, provider_binding=binding)


def close(session: Session) -> Session:
    """close_binary: drop the target and clear every retained record and unknown."""
    return Session()


def resolve(session: Session, value: Any, field: str) -> Result[Evidence, ReaError]:
    """An Evidence input: an exact retained reference, or complete inline Evidence."""
    if isinstance(value, dict) and value.get("kind") == RETAINED_KIND:
        if set(value) != {"kind", "evidence_id"}:
            return Failure(
                invalid_request(
                    f"{field} is a retained-evidence reference and takes exactly kind and evidence_id",
                    field=field,
                    accepted='{"kind": "retained-evidence", "evidence_id": "ev_<64 hex>"}',
                )
            )
        evidence_id = value["evidence_id"]
        if not isinstance(evidence_id, str) or not EVIDENCE_ID.match(evidence_id):
            return Failure(
                invalid_request(
                    f"{field}.evidence_id must be ev_ followed by 64 lowercase hex digits", field=f"{field}.evidence_id"
                )
            )
        found = session.evidence.get(evidence_id)
        return Success(found) if found is not None else Failure(missing_evidence(evidence_id))
    return parse_evidence(value).alt(lambda e: e.with_details(field=field))


VIEW_OPERATION = "inspect_analysis_view"


def summary_parent(evidence: Evidence) -> str | None:
    """The parent a summary view stands for (detail "summary" returns it in place of the complete record)."""
    return summary_parent_of(evidence.operation, evidence.normalized_result)


def summary_parent_of(operation: Any, result: Any) -> str | None:
    if operation != VIEW_OPERATION or not isinstance(result, Mapping) or result.get("kind") != "summary":
        return None
    parent = result.get("parent_evidence_id")
    return parent if isinstance(parent, str) else None


def through_summary(session: Session, evidence: Evidence, field: str) -> Result[Evidence, ReaError]:
    """`evidence`, or the retained analysis it summarizes when it is a summary view."""
    parent_id = summary_parent(evidence)
    if parent_id is None:
        return Success(evidence)
    parent = session.evidence.get(parent_id)
    if parent is not None:
        return Success(parent)
    missing = missing_evidence(parent_id)
    return Failure(
        attrs.evolve(
            missing, message=f"{field} is the summary {evidence.evidence_id} of {parent_id}. {missing.message}"
        ).with_details(field=field, summary_evidence_id=evidence.evidence_id)
    )


def resolve_analysis(session: Session, value: Any, field: str) -> Result[Evidence, ReaError]:
    """An analysis input (see resolve) in which a summary view stands for the analysis it summarizes, so the
    evidence_id detail "summary" returned is accepted wherever the complete record is."""
    return resolve(session, value, field).bind(lambda evidence: through_summary(session, evidence, field))


def add_unknown_revision(session: Session, revision: Mapping[str, Any], mutation: Evidence) -> Session:
    with_record = record(session, (mutation,))
    return attrs.evolve(with_record, unknown_revisions=with_record.unknown_revisions + (revision,))


def merge(
    session: Session, records: Iterable[Evidence], revisions: Iterable[Mapping[str, Any]]
) -> Result[Session, ReaError]:
    """Atomic import: every record and unknown revision lands, or none does."""
    known = {(r["unknown_id"], r["revision"]): r["revision_digest"] for r in session.unknown_revisions}
    fresh: list[Mapping[str, Any]] = []
    for rev in revisions:
        key = (rev["unknown_id"], rev["revision"])
        if key in known:
            if known[key] != rev["revision_digest"]:
                return Failure(
                    ReaError(
                        code="revision_conflict",
                        message=f"Unknown {key[0]} revision {key[1]} already exists here with different content; nothing was imported.",
                        details={"unknown_id": key[0], "revision": key[1]},
                    )
                )
            continue
        known[key] = rev["revision_digest"]
        fresh.append(rev)
    merged = record(session, records)
    return Success(attrs.evolve(merged, unknown_revisions=merged.unknown_revisions + tuple(fresh)))
