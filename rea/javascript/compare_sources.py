"""compare_source_to_bundle, purely: each source of a reference (the application's own source maps, another
application record, or a HistoricalSourceGraph) mapped to the shipped modules that carry it, scored by its
signals; the reference's shape (rea.javascript.records.comparison.SourceToBundleResult)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, Literal, get_args

import attrs

from rea.canonical_json import canonical_sha256
from rea.javascript.compare import graph_status
from rea.javascript.records.arguments import SourceLimits
from rea.javascript.records.comparison import (
    GraphSide,
    MappingStatus,
    ReferenceSide,
    Scoring,
    SignalKind,
    SourceCandidate,
    SourceCoverage,
    SourceMapping,
    SourceSignal,
    SourceSummary,
    SourceToBundleResult,
    SourceWeight,
)
from rea.javascript.sourcemap import comparable_path

WEIGHTS: dict[SignalKind, int] = {
    "exact-source-digest": 60,
    "source-map-original-path": 30,
    "current-path-exact": 30,
    "current-path-suffix": 15,
    "basename-match": 5,
    "language-extension": 5,
}
MIN_SCORE = 20
_SHIPPED_KINDS = ("original-source-module", "bundled-module")
_MAPPED: dict[str, Literal["exact", "high", "medium"]] = {"exact": "exact", "high": "high", "medium": "medium"}


@attrs.frozen(kw_only=True)
class SourceEntry:
    """One reference source file: its path, its digest when hashed, its language when known."""

    path: str
    sha256: str | None
    language: str | None


_Shipped = Mapping[str, Sequence[Mapping[str, Any]]]  # comparable source path -> the shipped nodes carrying it


def _shipped(application: Mapping[str, Any]) -> dict[str, list[Mapping[str, Any]]]:
    """Comparable source path -> the shipped nodes (original sources, bundled modules) that carry it."""
    out: dict[str, list[Mapping[str, Any]]] = {}
    for n in application["graph"]["nodes"]:
        if n["subkind"] in _SHIPPED_KINDS and (n.get("source") or n.get("path")):
            out.setdefault(comparable_path(n.get("source") or n["path"]), []).append(n)
    return out


def _signals(path: str, sha: str | None, key: str, node: Mapping[str, Any]) -> list[SourceSignal]:
    signals: list[tuple[SignalKind, str, str]] = []
    digest = node.get("content_sha256") or node.get("sha256")
    if sha is not None and digest == sha:
        signals.append(("exact-source-digest", sha, digest))
    if node["subkind"] == "original-source-module" or node.get("source"):
        signals.append(("source-map-original-path", path, node.get("source") or node["path"]))
    signals.append(("current-path-exact" if key == path else "current-path-suffix", path, key))
    return [SourceSignal(kind=k, weight=WEIGHTS[k], source_value=s, current_values=(c,)) for k, s, c in signals]


def _candidates(path: str, sha: str | None, keys: Sequence[str], shipped: _Shipped) -> list[SourceCandidate]:
    out: list[SourceCandidate] = []
    for key in keys:
        for node in shipped[key]:
            signals = _signals(path, sha, key, node)
            exact = signals[0].kind == "exact-source-digest"
            out.append(
                SourceCandidate(
                    current_node_id=node["node_id"],
                    current_node_kind=node["kind"],
                    score=sum(s.weight for s in signals),
                    confidence="exact" if exact else "high" if key == path else "medium",
                    signals=tuple(signals),
                )
            )
    return sorted(out, key=lambda c: (-c.score, c.current_node_id))


def _mapping(entry: SourceEntry, shipped: _Shipped, app_complete: bool, cap: int) -> tuple[SourceMapping, list[str]]:
    path, sha = entry.path, entry.sha256
    keys = sorted(k for k in shipped if k == path or k.endswith("/" + path) or path.endswith("/" + k))
    exact = [k for k in keys if k == path]
    pick = exact or keys
    candidates = _candidates(path, sha, keys, shipped)
    limitations: list[str] = []
    status: MappingStatus
    if not pick:
        status = "removed" if app_complete else "unknown"
        if not app_complete:
            limitations.append("The application's coverage is partial: absence is not established.")
    elif len(pick) > 1:
        status = "unknown"
        limitations.append(f"{len(pick)} shipped paths end with this path: the mapping is ambiguous.")
    elif sum(1 for n in shipped[pick[0]] if n["subkind"] == "bundled-module") > 1:
        status = "duplicated"
    elif sha is not None and any(c.signals[0].kind == "exact-source-digest" for c in candidates):
        status = "unchanged"
    elif sha is not None and any(n.get("content_sha256") for n in shipped[pick[0]]):
        status = "modified"
    else:
        status = "unknown"
        limitations.append("No content digest on one side: the shipped content cannot be compared.")
    used = pick if len(pick) == 1 else []
    mapping = SourceMapping(
        mapping_id="stbc_item_" + canonical_sha256(path),
        source_path=path,
        source_language=entry.language,
        source_sha256=sha,
        status=status,
        confidence=_MAPPED.get(candidates[0].confidence, "unknown") if candidates and used else "unknown",
        current_node_ids=tuple(n["node_id"] for k in used for n in shipped[k]),
        candidates=tuple(candidates[:cap]),
        omitted_candidates=max(0, len(candidates) - cap),
        limitations=tuple(limitations),
    )
    return mapping, used


SCORING = Scoring(
    algorithm="rea-source-to-bundle-signals/v1",
    minimum_candidate_score=MIN_SCORE,
    weights=tuple(SourceWeight(signal=k, weight=v) for k, v in WEIGHTS.items()),
)


def source_to_bundle(
    application: Mapping[str, Any],
    entries: Sequence[SourceEntry],
    sides: tuple[GraphSide, ReferenceSide],
    links: Sequence[str],
    limits: SourceLimits,
    limitations: Sequence[str],
) -> SourceToBundleResult:
    """Each reference source file mapped to what the bundle ships (source-map sources, bundled modules)."""
    every = _shipped(application)
    shipped, retained = _bounded(every, limits.max_application_nodes)
    app_complete = graph_status(application) == "complete" and retained == sum(map(len, every.values()))
    files = sorted(entries, key=lambda e: e.path)
    items, used = [], set()
    for entry in files[: limits.max_source_files]:
        item, keys = _mapping(entry, shipped, app_complete, limits.max_candidate_nodes)
        items.append(item)
        used.update(keys)
    counts = Counter(item.status for item in items)
    reference = sides[1]
    coverage = _source_coverage(application, reference, items, len(files), (retained, sum(map(len, every.values()))))
    if coverage.candidate_evaluations > limits.max_candidate_evaluations:
        coverage = attrs.evolve(coverage, status="truncated")
    return SourceToBundleResult(
        schema_version=1,
        comparison_id="stbc_" + canonical_sha256({"links": list(links), "reference": reference.root_sha256}),
        application=sides[0],
        reference=reference,
        items=tuple(items),
        unmapped_current_node_ids=tuple(sorted(n["node_id"] for k, ns in shipped.items() if k not in used for n in ns)),
        summary=SourceSummary(**{s: counts[s] for s in get_args(MappingStatus)}),
        scoring=SCORING,
        coverage=coverage,
        evidence_links=tuple(links),
        limitations=tuple(limitations),
    )


def _bounded(shipped: _Shipped, cap: int) -> tuple[dict[str, list[Mapping[str, Any]]], int]:
    """The first `cap` shipped nodes, in comparable-path order."""
    out: dict[str, list[Mapping[str, Any]]] = {}
    kept = 0
    for key in sorted(shipped):
        room = cap - kept
        if room <= 0:
            break
        out[key] = list(shipped[key][:room])
        kept += len(out[key])
    return out, kept


def _source_coverage(
    application: Mapping[str, Any],
    reference: ReferenceSide,
    items: Sequence[SourceMapping],
    files: int,
    nodes: tuple[int, int],
) -> SourceCoverage:
    omitted_files, omitted_nodes = files - len(items), nodes[1] - nodes[0]
    partial = graph_status(application) != "complete" or reference.inventory_state != "complete"
    return SourceCoverage(
        status="truncated" if omitted_files or omitted_nodes else "partial" if partial else "complete-within-inputs",
        application_graph_status=graph_status(application),
        reference_inventory_state=reference.inventory_state,
        retained_source_files=len(items),
        omitted_source_files=omitted_files,
        retained_application_nodes=nodes[0],
        omitted_application_nodes=omitted_nodes,
        candidate_evaluations=sum(len(i.candidates) + i.omitted_candidates for i in items),
        omitted_candidate_evaluations=0,
        omitted_candidate_references=sum(i.omitted_candidates for i in items),
        omitted_unmapped_current_nodes=0,
    )


def _language(path: str) -> str | None:
    ext = path.rsplit(".", 1)[-1] if "." in path.rsplit("/", 1)[-1] else ""
    return {"js": "javascript", "mjs": "javascript", "cjs": "javascript", "jsx": "javascript"}.get(
        ext, "typescript" if ext in ("ts", "tsx", "mts", "cts") else None
    )


def own_sources(application: Mapping[str, Any]) -> list[SourceEntry]:
    """The bundle's own source-map sources as the reference (reference omitted)."""
    return [
        SourceEntry(
            path=comparable_path(n.get("source") or n["path"]),
            sha256=n.get("content_sha256"),
            language=_language(n["path"]),
        )
        for n in application["graph"]["nodes"]
        if n["subkind"] == "original-source-module"
    ]


def tree_sources(reference: Mapping[str, Any]) -> list[SourceEntry]:
    """The modules of an analysed source tree (outside node_modules) as the reference."""
    return [
        SourceEntry(path=n["path"], sha256=n.get("sha256"), language=n.get("language"))
        for n in reference["graph"]["nodes"]
        if n["subkind"] == "module" and "node_modules/" not in n["path"]
    ]


def historical_sources(graph: Mapping[str, Any]) -> list[SourceEntry]:
    """The hashed (or unhashed) files of a HistoricalSourceGraph."""
    return [
        SourceEntry(path=e["path"], sha256=e.get("sha256"), language=e.get("language"))
        for e in graph["entries"]
        if e.get("kind") == "file"
    ]
