"""compare_javascript_export_shapes, purely: one export on each side found (following re-exports), and the
changes between their shapes; the reference's shape (rea.javascript.records.comparison.ExportShapesResult)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, Literal, TypedDict

from rea.canonical_json import canonical_sha256
from rea.javascript.compare import comparable_shape
from rea.javascript.records.comparison import (
    Absent,
    ExportCandidate,
    ExportCoverage,
    ExportShapesResult,
    ExportSide,
    LiteralValue,
    RuntimeValidation,
    ShapeChange,
    ShapeSummary,
    SideValue,
    UnknownValue,
)
from rea.javascript.records.fields import GraphStatus
from rea.javascript.sourcemap import comparable_path
from rea.wire.convert import to_wire


class Selected(TypedDict):
    """The export found exactly once: its module node and the export (re-exports followed)."""

    status: Literal["selected"]
    node: Mapping[str, Any]
    export: Mapping[str, Any]
    candidates: list[ExportCandidate]


class NotSelected(TypedDict):
    """No single export: the module is missing or ambiguous (no node), or it lacks the name; the exports
    that come nearest are the candidates."""

    status: Literal["missing", "ambiguous"]
    node: Mapping[str, Any] | None
    export: None
    candidates: list[ExportCandidate]


FoundExport = Selected | NotSelected


def _candidate(node: Mapping[str, Any], name: str, module_path: str, export_name: str) -> ExportCandidate:
    return ExportCandidate(
        node_id=node["node_id"],
        module_path=node["path"],
        export_name=name,
        matches_requested_module=node["path"] == module_path,
        matches_requested_export=name == export_name,
    )


def find_export(result: Mapping[str, Any], module_path: str, name: str) -> FoundExport:
    """One export of the module at `module_path`: a file of the tree, else an original source a source map
    embeds (by its path or its comparable path), so shipped bundles with maps compare too."""
    nodes: list[Mapping[str, Any]] = result["graph"]["nodes"]
    modules = [n for n in nodes if n["subkind"] == "module" and n["path"] == module_path]
    if not modules:
        wanted = comparable_path(module_path)
        modules = [
            n
            for n in nodes
            if n["subkind"] == "original-source-module"
            and "exports" in n
            and (n["path"] == module_path or comparable_path(n["path"]) == wanted)
        ]
    if len(modules) != 1:
        base = module_path.rsplit("/", 1)[-1]
        pool = modules or [
            n for n in nodes if n["subkind"] in ("module", "original-source-module") and n["path"].endswith(base)
        ]
        found = [_candidate(n, e["name"], module_path, name) for n in pool for e in n.get("exports", ())]
        return {"status": "ambiguous" if modules else "missing", "node": None, "export": None, "candidates": found}
    exports = [e for e in modules[0].get("exports", ()) if e["name"] == name]
    if len(exports) != 1:
        found = [_candidate(modules[0], e["name"], module_path, name) for e in modules[0].get("exports", ())]
        return {"status": "missing", "node": modules[0], "export": None, "candidates": found}
    return {
        "status": "selected",
        "node": modules[0],
        "export": _followed(result, modules[0], exports[0]),
        "candidates": [],
    }


MAX_REEXPORT_HOPS = 8


def _followed(result: Mapping[str, Any], node: Mapping[str, Any], export: Mapping[str, Any]) -> Mapping[str, Any]:
    """A getter re-export (`get: () => _v.default`, `_v = require("./v1.js")`) stands for the export it
    returns: follow the module's resolved import of that specifier, a bounded number of hops."""
    edges = result["graph"]["edges"]
    by_id: dict[str, Mapping[str, Any]] = {n["node_id"]: n for n in result["graph"]["nodes"]}
    through: list[str] = []
    for _ in range(MAX_REEXPORT_HOPS):
        link = (export.get("shape") or {}).get("reexports")
        if not link or link["name"] == "*":
            break
        target = next(
            (
                by_id.get(e["target_node_id"])
                for e in edges
                if e["relation"] == "imports"
                and e["source_node_id"] == node["node_id"]
                and e.get("specifier") == link["specifier"]
            ),
            None,
        )
        hit = [x for x in (target or {}).get("exports", ()) if x["name"] == link["name"]] if target else []
        if target is None or len(hit) != 1:
            break
        through.append(f"{target['path']}#{link['name']}")
        node, export = target, hit[0]
    return {**export, "through": through} if through else export


def export_side(
    found: FoundExport, evidence_id: str, result: Mapping[str, Any], module_path: str, name: str, cap: int = 100
) -> ExportSide:
    export = found["export"]
    through = export.get("through") if export is not None else None
    return ExportSide(
        status=found["status"],
        evidence_id=evidence_id,
        graph_id=result["graph"]["graph_id"],
        requested_module_path=module_path,
        requested_export_name=name,
        selected_node_id=found["node"]["node_id"] if found["status"] == "selected" else None,
        candidates=tuple(found["candidates"][:cap]),
        omitted_candidates=max(0, len(found["candidates"]) - cap),
        form=export.get("form") if export is not None else None,
        shape=export.get("shape", {}) if export is not None else None,
        resolved_through=tuple(through) if through else None,
    )


def _members(shape: Mapping[str, Any]) -> tuple[set[str] | None, str]:
    kind = shape.get("type")
    if kind in ("object", "class"):
        if shape.get("members_truncated"):
            return None, "member list truncated at the per-node bound"
        return set(shape.get("members") or ()), "members"
    if kind == "function":
        returns = shape.get("returns") or []
        if returns and all(r is not None for r in returns) and not shape.get("returns_truncated"):
            return set().union(*map(set, returns)), "returned object keys"
        return None, "return value not statically resolvable"
    return None, f"{kind} export has no static member shape"


_PRESENT = UnknownValue(availability="unknown", reason="present; its value is not modelled statically")
_ABSENT = Absent(availability="absent")
ChangeStatus = Literal["added", "removed", "changed", "unknown"]


def _pointer(member: str) -> str:
    return "/" + member.replace("~", "~0").replace("/", "~1")


def _change(
    path: str, status: ChangeStatus, left: SideValue, right: SideValue, links: Sequence[str], why: str | None = None
) -> ShapeChange:
    return ShapeChange(
        change_id="jesc_change_" + canonical_sha256([path, status]),
        path=path,
        status=status,
        left=left,
        right=right,
        discriminant=None,
        left_source_range=None,
        right_source_range=None,
        evidence_links=tuple(links),
        limitations=(why,) if why else (),
    )


def _unknown(why: str, links: Sequence[str]) -> ShapeChange:
    """The one change of a pair whose shapes cannot be compared, saying why on both sides."""
    unknown = UnknownValue(availability="unknown", reason=why)
    return _change("", "unknown", unknown, unknown, links, why)


def _literal(value: Any, sha256: str | None = None) -> LiteralValue:
    return LiteralValue(availability="literal", value=value, sha256=sha256)


def shape_changes(
    left: Mapping[str, Any] | None, right: Mapping[str, Any] | None, links: Sequence[str]
) -> tuple[list[ShapeChange], str | None]:
    """Member changes between two selected exports, or one unknown change with the reason."""
    if left is None or right is None:
        why = "the export was not found exactly once on both sides"
        return [_unknown(why, links)], why
    ls, rs = left.get("shape", {}), right.get("shape", {})
    if "unknown" in (ls.get("type", "unknown"), rs.get("type", "unknown")):
        why = (
            "an export's value is not modelled statically ("
            + ("left" if ls.get("type", "unknown") == "unknown" else "right")
            + ")"
        )
        return [_unknown(why, links)], why
    if ls.get("type") != rs.get("type"):
        return [_change("/type", "changed", _literal(ls.get("type")), _literal(rs.get("type")), links)], None
    if ls.get("type") == "literal":
        return _literal_change(comparable_shape(ls), comparable_shape(rs), links), None
    lm, lwhy = _members(ls)
    rm, rwhy = _members(rs)
    if lm is None or rm is None:
        why = lwhy if lm is None else rwhy
        return [_unknown(why, links)], why
    added = [_change(_pointer(m), "added", _ABSENT, _PRESENT, links) for m in sorted(rm - lm)]
    removed = [_change(_pointer(m), "removed", _PRESENT, _ABSENT, links) for m in sorted(lm - rm)]
    return added + removed, None


def _literal_change(ls: Mapping[str, Any], rs: Mapping[str, Any], links: Sequence[str]) -> list[ShapeChange]:
    """Two literal exports: unchanged when their digests agree, else one change showing both values."""
    if ls.get("sha256") == rs.get("sha256") and ls.get("value") == rs.get("value"):
        return []
    cut = [s for s, shape in zip(("left", "right"), (ls, rs)) if shape.get("value_truncated")]
    why = f"the {' and '.join(cut)} value is shown to its first 512 characters" if cut else None
    left, right = (_literal(s.get("value"), s.get("sha256")) for s in (ls, rs))
    return [_change("/value", "changed", left, right, links, why)]


def _cut(export: Mapping[str, Any] | None) -> int:
    """Member lists of a shape that the per-node bound cut (each counted once: their lengths are unknown)."""
    shape = (export or {}).get("shape") or {}
    return sum(1 for flag in ("members_truncated", "returns_truncated") if shape.get(flag))


def _coverage(
    found: Sequence[FoundExport],
    sides: Sequence[ExportSide],
    statuses: Sequence[GraphStatus],
    counts: tuple[int, int],
    why: str | None,
) -> ExportCoverage:
    """Completeness, with the reference's variant counts: an export here has one static shape (its direct
    returns' keys are merged, never split into variants), so a pair is one variant on each side or none."""
    every, listed = counts
    left, right = found[0]["export"], found[1]["export"]
    partial = why or set(statuses) != {"complete"}
    return ExportCoverage(
        status="truncated" if every > listed else "partial" if partial else "complete-within-inputs",
        left_graph_status=statuses[0],
        right_graph_status=statuses[1],
        omitted_changes=every - listed,
        omitted_candidates=sides[0].omitted_candidates + sides[1].omitted_candidates,
        paired_variants=int(left is not None and right is not None),
        unpaired_left_variants=int(left is not None and right is None),
        unpaired_right_variants=int(right is not None and left is None),
        omitted_left_variants=0,
        omitted_right_variants=0,
        left_source_omitted_variants=None,
        right_source_omitted_variants=None,
        left_omitted_fields=_cut(left),
        right_omitted_fields=_cut(right),
        left_omitted_property_coverage=0,
        right_omitted_property_coverage=0,
        reason=why,
    )


RUNTIME_VALIDATION = RuntimeValidation(
    automatically_started=False, recommended_tool="run_controlled_replay", required_for="runtime-semantics"
)


def _open_reason(found: Sequence[FoundExport]) -> str | None:
    """Why a missing export is unknown rather than absent: its module's export list is open."""
    open_sides = [
        f"{side}: {f['node']['path']} re-exports or computes names it does not list ({f['node']['exports_open'][0]['reason']})"
        for side, f in zip(("left", "right"), found)
        if f["export"] is None and f["node"] is not None and f["node"].get("exports_open")
    ]
    if not open_sides:
        return None
    return "the export was not found, and its module's export list is open: " + "; ".join(open_sides)


def export_shapes(
    sides: Sequence[ExportSide],
    found: Sequence[FoundExport],
    statuses: Sequence[GraphStatus],
    links: Sequence[str],
    max_changes: int = 1000,
    limitations: Sequence[str] = (),
) -> ExportShapesResult:
    every, why = shape_changes(found[0]["export"], found[1]["export"], links)
    opened = _open_reason(found)
    if opened:
        every, why = [_unknown(opened, links)], opened
    counts = Counter(c.status for c in every)
    changes = every[:max_changes]
    left, right = sides
    return ExportShapesResult(
        schema_version=1,
        comparison_id="jesc_"
        + canonical_sha256({"links": list(links), "left": to_wire(left), "right": to_wire(right)}),
        left=left,
        right=right,
        changes=tuple(changes),
        summary=ShapeSummary(
            added=counts["added"], changed=counts["changed"], removed=counts["removed"], unknown=counts["unknown"]
        ),
        coverage=_coverage(found, sides, statuses, (len(every), len(changes)), why),
        runtime_validation=RUNTIME_VALIDATION,
        evidence_links=tuple(links),
        limitations=tuple(limitations),
        status="unknown" if why else "changed" if every else "unchanged",
    )
