"""Classes, methods and references of a DEX program, as the reference's rows: pure over worker facts.

Overloads are numbered in DEX order (the order of the class's method list), and a name
that several methods share needs an explicit `overload_index`: a display signature is
never taken for an identity.
"""

from __future__ import annotations

from collections.abc import Sequence

from returns.result import Failure, Result, Success

from rea.android.names import access_names, class_name, display_signature, top_class, type_name
from rea.android.records import FieldRow, MethodRow, Reference, TextCoverage
from rea.android.worker_facts import FieldFacts, MethodFacts, ReferenceFact
from rea.errors import ReaError, invalid_request


def search(classes: Sequence[str], query: str, offset: int, limit: int | None) -> tuple[list[str], int, int | None]:
    """(page of matching names, total matches, next offset); names are sorted, so pages partition."""
    names = sorted(class_name(c) for c in classes)
    matched = [n for n in names if query in n]
    end = len(matched) if limit is None else min(len(matched), offset + limit)
    return matched[offset:end], len(matched), (end if end < len(matched) else None)


def method_rows(owner: str, methods: Sequence[MethodFacts]) -> list[MethodRow]:
    seen: dict[str, int] = {}
    rows = []
    for m in methods:
        index = seen.get(m.name, 0)
        seen[m.name] = index + 1
        rows.append(
            MethodRow(
                name=m.name,
                reported_signature=display_signature(owner, m.name, m.descriptor, m.access_flags),
                overload_index=index,
                is_constructor=m.name == "<init>",
                dex_descriptor=m.descriptor,
                access_flags=access_names(m.access_flags),
                has_code=m.has_code,
            )
        )
    return rows


def field_rows(fields: Sequence[FieldFacts]) -> list[FieldRow]:
    return [
        FieldRow(
            name=f.name,
            reported_type=type_name(f.descriptor),
            dex_descriptor=f.descriptor,
            access_flags=access_names(f.access_flags, is_field=True),
        )
        for f in fields
    ]


def select_overload(
    rows: Sequence[MethodRow], owner: str, name: str, index: int | None
) -> Result[tuple[MethodRow, int], ReaError]:
    """The one method meant: by name, and by overload_index when the name is shared."""
    same = [r for r in rows if r.name == name]
    if not same:
        return Failure(
            invalid_request(
                f"{class_name(owner)} has no method named {name}",
                field="method_name",
                accepted="one of: " + ", ".join(sorted({r.name for r in rows})[:50]),
                reason="method_not_found",
            )
        )
    if index is None and len(same) > 1:
        return Failure(
            invalid_request(
                f"{class_name(owner)}.{name} has {len(same)} overloads; pass overload_index",
                field="overload_index",
                accepted="; ".join(f"{r.overload_index}: {r.reported_signature}" for r in same),
                reason="ambiguous_overload",
            )
        )
    chosen = index or 0
    if chosen >= len(same):
        return Failure(
            invalid_request(
                f"overload_index {chosen} is past the {len(same)} overloads of {name}",
                field="overload_index",
                accepted=f"0..{len(same) - 1}",
            )
        )
    return Success((same[chosen], len(same)))


def text(value: str, limit: int) -> TextCoverage:
    """Text cut at `limit` characters, with its status and whole UTF-8 size (manifest, source, smali)."""
    total = len(value.encode("utf-8"))
    if len(value) <= limit:
        return TextCoverage(status="complete", text=value, reported_total_bytes=total)
    return TextCoverage(status="partial", text=value[:limit], reported_total_bytes=total)


def reference_rows(rows: Sequence[ReferenceFact]) -> list[Reference]:
    """Incoming references, deduplicated and ordered by caller."""
    out = {}
    for r in rows:
        owner = class_name(r.owner)
        key = (r.owner, r.method, r.descriptor, r.kind)
        out[key] = Reference(
            kind=r.kind,
            name=r.method,
            reported_full_name=f"{owner}.{r.method}{r.descriptor}",
            containing_class=owner,
            top_class=top_class(r.owner),
            source_line=None,
            dex_offset=None,
            dex_descriptor=r.descriptor,
        )
    return [out[k] for k in sorted(out)]
