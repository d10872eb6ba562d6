"""Parts every family's analysis view shares: coverage, paging, errors and the seal.

A family projection returns the view's own fields (kind, view, its payload,
coverage, limitations, unknowns); `seal` adds the parent's identity and the
digest of everything projected, so two views differ in digest exactly when
their projected facts differ.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeVar

from returns.result import Failure, Result, Success

from rea.canonical_json import canonical_sha256, canonicalize
from rea.errors import ReaError, invalid_request
from rea.evidence import Evidence

T = TypeVar("T")
OPERATION = "inspect_analysis_view"


def view_error(message: str, path: Sequence[str | int] = ("view",), **details: Any) -> ReaError:
    """invalid_request in the reference's shape: one issue naming the offending path."""
    return invalid_request(
        message,
        field=".".join(str(p) for p in path),
        operation=OPERATION,
        issues=[{"path": list(path), "reason": "invalid_value", "message": message}],
        **details,
    )


def complete_coverage(examined: int, total: int) -> dict[str, Any]:
    """A summary, a singleton facet or one selected item."""
    return {
        "status": "complete-within-view",
        "examined": examined,
        "total": total,
        "next_offset": None,
        "exhausted": True,
    }


def page_coverage(offset: int, examined: int, total: int) -> dict[str, Any]:
    """A stable page; an offset past the end is an empty, exhausted page."""
    exhausted = offset >= total or offset + examined >= total
    return {
        "status": "empty" if examined == 0 else "page",
        "examined": examined,
        "total": total,
        "next_offset": None if exhausted else offset + examined,
        "exhausted": exhausted,
    }


def page_rows(rows: Sequence[T], offset: int, limit: int) -> tuple[list[T], dict[str, Any]]:
    """Rows [offset, offset + limit) and their coverage."""
    page = list(rows[offset : offset + limit])
    return page, page_coverage(offset, len(page), len(rows))


def bounded_rows(rows: Sequence[T], offset: int, limit: int, max_bytes: int) -> tuple[list[T], dict[str, Any], int]:
    """Rows [offset, offset + limit) that fit `max_bytes` of canonical JSON together (at least one row, so
    paging always advances), their coverage and their byte count. The next page starts after the last row
    returned, so the union of the pages is the whole listing however the budget cut them."""
    page: list[T] = []
    used = 0
    for row in rows[offset : offset + limit]:
        size = len(canonicalize(row)) + (1 if page else 0)
        if page and used + size > max_bytes:
            break
        page.append(row)
        used += size
    return page, page_coverage(offset, len(page), len(rows)), used


def first_rows(rows: Sequence[T], count: int, max_bytes: int) -> list[T]:
    """The first `count` rows that fit `max_bytes` of canonical JSON together (none when the first is larger)."""
    out: list[T] = []
    used = 0
    for row in rows[:count]:
        used += len(canonicalize(row))
        if used > max_bytes:
            break
        out.append(row)
    return out


def unique_sorted(values: Iterable[str]) -> list[str]:
    return sorted(set(values))


def artifact_of(source: Evidence) -> Result[dict[str, str], ReaError]:
    """The parent's artifact {path, sha256}, from its subject."""
    subject = source.subject
    if subject is None:
        return Failure(
            view_error(
                f"{source.operation} Evidence {source.evidence_id} has no subject, so its view has no artifact.",
                ("source", "subject"),
            )
        )
    return Success({"path": subject.local_path or subject.name, "sha256": subject.sha256})


def seal(source: Evidence, projection: Mapping[str, Any]) -> Result[dict[str, Any], ReaError]:
    """The complete view: the projection plus parent identity and the view digest. A projection of a parent
    without a subject (a comparison of two artifacts) names the artifact itself."""
    artifact = Success(projection["artifact"]) if "artifact" in projection else artifact_of(source)
    return artifact.map(lambda found: _sealed(source, projection, found))


def _sealed(source: Evidence, projection: Mapping[str, Any], artifact: Any) -> dict[str, Any]:
    unsigned = {
        **projection,
        "parent_evidence_id": source.evidence_id,
        "parent_operation": source.operation,
        "parent_digest": source.evidence_id.removeprefix("ev_"),
        "artifact": artifact,
    }
    return {**unsigned, "view_digest": canonical_sha256(unsigned)}
