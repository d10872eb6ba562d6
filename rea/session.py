"""The connection's Session: one immutable value, changed only by pure transitions.

Every transition returns a new Session or an error and never half-applies, so
the transport can swap the value atomically and a rejected call leaves the
session exactly as it was.
"""

from __future__ import annotations

from typing import Any
from collections.abc import Iterable, Mapping

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
    if fmt == "dos-com":
        return "x86"  # a COM image is real-mode x86 code by definition
    if fmt == "elf" and len(head) >= 20 and head[5] in (1, 2):
        return _ELF_MACHINES.get(int.from_bytes(head[18:20], "little" if head[5] == 1 else "big"))
    if fmt == "pe" and len(head) >= 0x40:
        offset = int.from_bytes(head[0x3C:0x40], "little")
        if len(head) >= offset + 6 and head[offset : offset + 4] == b"PE\0\0":
            return _PE_MACHINES.get(int.from_bytes(head[offset + 4 : offset + 6], "little"))
        return None
    if fmt == "mach-o" and len(head) >= 8:
        order = "big" if head[:4] in (b"\xfe\xed\xfa\xce", b"\xfe\xed\xfa\xcf") else "little"
        return _MACHO_CPUS.get(int.from_bytes(head[4:8], order))
    return None


@attrs.frozen(kw_only=True)
class Target:
    path: str
    name: str
    sha256: str
    size: int
    format: str
    kind: str  # file | directory
    architecture: str | None = None

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


@attrs.frozen(kw_only=True)
class Session:
    evidence: Mapping[str, Evidence] = attrs.field(factory=dict)
    unknown_revisions: tuple[Mapping[str, Any], ...] = ()
    target: Target | None = None
    run_id: str | None = None
    provider_binding: Mapping[str, Any] | None = None

    @property
    def ledger(self) -> tuple[Evidence, ...]:
        return tuple(self.evidence.values())


def record(session: Session, records: Iterable[Evidence]) -> Session:
    """Retain records in insertion order; re-recording an identical record is a no-op."""
    additions = {e.evidence_id: e for e in records if e.evidence_id not in session.evidence}
    if not additions:
        return session
    return attrs.evolve(session, evidence={**session.evidence, **additions})


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
