"""Pieces every managed result shares: the artifact, module identity, metadata status, coverage."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from rea.managed.facts import AssemblyFacts, Issue, Row
from rea.managed.names import TABLE_NUMBERS, token
from rea.managed.records import artifact as w

# codes that mean the metadata itself is damaged (not a limit we imposed)
DAMAGE = frozenset(
    {"invalid-cli-header", "invalid-metadata-root", "invalid-stream", "missing-stream", "invalid-tables", "invalid-row"}
)
NO_EXECUTION = (
    "Execution-free: the assembly was parsed from its bytes; no code was loaded, JIT-compiled or run, so runtime "
    "binding, reflection and dynamically generated code are not observed."
)


_T = TypeVar("_T")


def artifact_ref(facts: AssemblyFacts) -> w.ArtifactRef:
    return w.ArtifactRef(path=facts.path, sha256=facts.sha256, byte_length=facts.size, format="pe")


def metadata_status(facts: AssemblyFacts) -> w.MetadataStatus:
    if not facts.metadata_present:
        return "absent"
    if not facts.tables:
        return "malformed"
    return "partial" if facts.issues else "complete"


def row_counts(facts: AssemblyFacts) -> dict[str, int]:
    return {name: table.declared_rows for name, table in facts.tables.items()}


def module_identity(facts: AssemblyFacts) -> w.ModuleIdentity | None:
    rows = facts.rows("Module")
    if not rows:
        return None
    row = rows[0]

    def guid(key: str) -> str | None:
        value = row.values.get(key)
        return value if isinstance(value, str) else None

    generation = row.values.get("Generation")
    return w.ModuleIdentity(
        name=text(row, "Name"),
        generation=generation if isinstance(generation, int) else 0,
        mvid=guid("Mvid"),
        enc_id=guid("EncId"),
        enc_base_id=guid("EncBaseId"),
        token=token("Module", row.index),
        row_offset=row.offset,
    )


def identity_scope(facts: AssemblyFacts, module: w.ModuleIdentity | None) -> w.IdentityScope:
    return w.IdentityScope(
        token_identity="build-local",
        requires_artifact_sha256=facts.sha256,
        requires_mvid=module.mvid if module else None,
    )


def text(row: Row | None, key: str) -> str:
    value = row.values.get(key) if row is not None else None
    return value if isinstance(value, str) else ""


def number(row: Row | None, key: str) -> int:
    value = row.values.get(key) if row is not None else None
    return value if isinstance(value, int) else 0


def blob(row: Row | None, key: str) -> bytes | None:
    value = row.values.get(key) if row is not None else None
    return value if isinstance(value, bytes) else None


def issue(i: Issue) -> w.ParseIssue:
    return w.ParseIssue(code=i.code, scope=i.scope, offset=i.offset, detail=i.detail)  # type: ignore[arg-type]


def coverage(facts: AssemblyFacts, extra: Sequence[Issue] = ()) -> w.Coverage:
    issues = (*facts.issues, *extra)
    if not facts.metadata_present or not facts.tables:
        state: w.CoverageState = "unavailable"
    else:
        state = "partial" if issues else "complete"
    return w.Coverage(state=state, issues=tuple(issue(i) for i in issues))


def page(items: Sequence[_T], offset: int, limit: int | None) -> tuple[_T, ...]:
    """The 3.1 paging extras over a complete listing (default: all of it)."""
    end = None if limit is None else offset + limit
    return tuple(items[offset:end])


def window(args: object, prefix: str) -> tuple[int, int | None]:
    """One listing's paging arguments, `<prefix>_offset` and `<prefix>_limit`, read from the tool's argument record."""
    return getattr(args, f"{prefix}_offset"), getattr(args, f"{prefix}_limit")


def paging_limitations(kind: str, total: int, offset: int, limit: int | None) -> list[str]:
    shown = len(range(total)[offset : None if limit is None else offset + limit])
    if shown == total:
        return []
    return [f"{kind}: {shown} of {total} returned (offset {offset}); page with the {kind} offset/limit arguments."]


__all__ = ["TABLE_NUMBERS", "artifact_ref", "coverage", "metadata_status", "module_identity", "row_counts"]
