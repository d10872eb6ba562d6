"""compare_functions: two function dossiers across the reference's eight dimensions, never
claiming more than both sides observed.

A dimension is unknown (null digests and counts) when either side declares its
facet unavailable, or when a dossier holds a facet without declaring it (a
legacy record: an empty collection is not proof of absence). Each observed
dimension carries the sha256 of exactly the facts compared on each side, so two
comparisons agree when their digests agree. Static equality is never presented
as unchanged runtime behaviour.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from rea.canonical_json import canonical_sha256
from rea.evidence import Evidence
from rea.native.addresses import value
from rea.native.records import arguments as wa
from rea.native.records import compare as wc

RUNTIME_NOTICE = "Static equality of two dossiers does not establish unchanged runtime behaviour."
CROSS_PROVIDER = "the two dossiers come from different providers; their text is not comparable"

Facts = Callable[[Mapping[str, Any]], list[str]]


def _names(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    return sorted(str(c.get("name") or c.get("address")) for c in rows)


def _cfg(result: Mapping[str, Any]) -> list[str]:
    """Address-normalized topology: block offsets from the first block, lengths and successor offsets."""
    blocks = result.get("basic_blocks", ())
    starts = [value(b["start"]) for b in blocks]
    base = min(starts, default=0)
    return sorted(
        f"+{value(b['start']) - base}:{value(b['end']) - value(b['start'])}->"
        + ",".join(f"+{value(s) - base}" for s in b.get("successors", ()))
        for b in blocks
    )


def _identity(result: Mapping[str, Any]) -> list[str]:
    p = result.get("procedure") or {}
    return [f"name={p.get('name')}", f"size={p.get('size')}", f"kind={p.get('kind')}"]


# dimension -> (facet_availability keys it needs, the facts it compares, compared as text lines)
DIMENSIONS: Mapping[wa.Dimension, tuple[tuple[str, ...], Facts, bool]] = {
    "identity": ((), _identity, False),
    "pseudocode": (("pseudocode",), lambda r: (r.get("pseudocode") or "").splitlines(), True),
    "assembly": (("assembly",), lambda r: [line.partition(": ")[2] for line in r.get("assembly", ())], True),
    "comments": (("comments",), lambda r: sorted(c.get("text", "") for c in r.get("comments", ())), False),
    "calls": (("callees",), lambda r: _names(r.get("callees", ())), False),
    "references": (
        ("references",),
        lambda r: sorted(
            f"{(e.get('kind') or {}).get('type')}->{(e.get('target_procedure') or {}).get('name') or e['target_address']}"
            for e in r.get("outgoing_references", ())
        ),
        False,
    ),
    "strings_names": (
        ("strings_names",),
        lambda r: sorted(
            [f"s:{s['value']}" for s in r.get("referenced_strings", ())]
            + [f"n:{n['value']}" for n in r.get("referenced_names", ())]
        ),
        False,
    ),
    "cfg": (("cfg",), _cfg, False),
}


def _declared(result: Mapping[str, Any], key: str) -> str | None:
    """None when the facet was observed, else why not."""
    entry = (result.get("facet_availability") or {}).get(key)
    if isinstance(entry, Mapping):
        return None if entry.get("available") else str(entry.get("reason") or "not observed")
    return "the dossier does not declare this facet (a legacy record): an empty collection is not proof of absence"


def _delta(left: list[str], right: list[str]) -> wc.TextDelta:
    added = removed = hunks = 0
    for group in difflib.SequenceMatcher(a=left, b=right, autojunk=False).get_grouped_opcodes(0):
        hunks += 1
        for tag, i1, i2, j1, j2 in group:
            if tag in ("replace", "delete"):
                removed += i2 - i1
            if tag in ("replace", "insert"):
                added += j2 - j1
    return wc.TextDelta(added_lines=added, removed_lines=removed, hunks=hunks)


def _dimension(name: wa.Dimension, left: Evidence, right: Evidence, links: tuple[str, ...]) -> wc.DimensionResult:
    keys, facts, textual = DIMENSIONS[name]
    lr, rr = left.normalized_result, right.normalized_result
    missing = [
        f"{side} {key}: {why}"
        for key in keys
        for side, r in (("left", lr), ("right", rr))
        if (why := _declared(r, key)) is not None
    ]
    if textual and not missing and left.provider != right.provider:
        missing.append(CROSS_PROVIDER)
    if textual and not missing and (lr.get("pseudocode_truncated") or rr.get("pseudocode_truncated")):
        return _unknown(name, "truncated", ["a side holds truncated pseudocode"], links)
    if missing:
        return _unknown(name, "unknown", missing, links)
    lv, rv = facts(lr), facts(rr)
    return wc.DimensionResult(
        dimension=name,
        status="unchanged" if lv == rv else "changed",
        left_digest=canonical_sha256(lv),
        right_digest=canonical_sha256(rv),
        left_count=len(lv),
        right_count=len(rv),
        text_delta=_delta(lv, rv) if textual else None,
        conclusion_kind="derived_relationship",
        evidence_links=links,
        limitations=(),
        added=tuple(sorted(set(rv) - set(lv))[:50]),
        removed=tuple(sorted(set(lv) - set(rv))[:50]),
    )


def _unknown(name: wa.Dimension, status: wa.Verdict, reasons: list[str], links: tuple[str, ...]) -> wc.DimensionResult:
    return wc.DimensionResult(
        dimension=name,
        status=status,
        left_digest=None,
        right_digest=None,
        left_count=None,
        right_count=None,
        text_delta=None,
        conclusion_kind="unresolved_branch",
        evidence_links=links,
        limitations=tuple(sorted(set(reasons))),
        added=(),
        removed=(),
    )


def _match(lr: Mapping[str, Any], rr: Mapping[str, Any]) -> wc.FunctionMatch:
    ln, rn = str((lr.get("procedure") or {}).get("name")), str((rr.get("procedure") or {}).get("name"))
    if ln == rn:
        return wc.FunctionMatch(status="matched", method="symbol", left_name=ln, right_name=rn)
    return wc.FunctionMatch(status="mismatched", method="explicit", left_name=ln, right_name=rn)


def compare(left: Sequence[Evidence], right: Sequence[Evidence]) -> wc.FunctionComparison:
    """Pure comparison of the first analyze_function dossier on each side."""
    lefts, rights = tuple(e.evidence_id for e in left), tuple(e.evidence_id for e in right)
    links = (*lefts, *rights)
    dims = tuple(_dimension(name, left[0], right[0], links) for name in DIMENSIONS)
    counts = {s: sum(d.status == s for d in dims) for s in ("unchanged", "changed", "truncated", "unknown")}
    verdicts: tuple[wa.Verdict, ...] = ("changed", "truncated", "unknown")
    status: wa.Verdict = next((s for s in verdicts if counts[s]), "unchanged")
    return wc.FunctionComparison(
        status=status,
        function_match=_match(left[0].normalized_result, right[0].normalized_result),
        left_subject_sha256=_subject(left[0]),
        right_subject_sha256=_subject(right[0]),
        summary=wc.DimensionSummary(**counts),
        dimensions=dims,
        changes=tuple(d for d in dims if d.status == "changed"),
        limitations=(RUNTIME_NOTICE,),
        left_evidence_ids=lefts,
        right_evidence_ids=rights,
    )


def _subject(evidence: Evidence) -> str:
    return evidence.subject.sha256 if evidence.subject is not None else "0" * 64
