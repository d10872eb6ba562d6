"""compare_web_captures: step-aligned scenario diffs and dimension diffs of passive page captures.

Both answer `unchanged` only when every compared piece was captured in full on both sides: a
missing, truncated or unavailable section (or a step that did not run, or a misaligned step)
makes that piece `unknown`, never equal. Values are compared by the SHA-256 of their canonical
JSON after the declared exact-literal rules (scenario) and after dropping volatile fields
(elapsed time, event sequence numbers, browser-assigned node ids).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Literal

from rea.canonical_json import canonical_sha256
from rea.web.records.capture_diff import (
    Alignment,
    AlignmentCode,
    AlignmentFailure,
    ArtifactDiff,
    ArtifactKind,
    BuiltInRule,
    Change,
    CommittedNormalization,
    DiffCount,
    DiffStatus,
    Dimension,
    Dimensions,
    EvidenceState,
    NormalizationRule,
    ScenarioDiff,
    StepDiff,
    TargetRef,
    WebCaptureDiff,
)
from rea.wire.convert import to_wire

BUILT_IN_RULES: tuple[BuiltInRule, ...] = (
    "ignore_step_elapsed_ms",
    "ignore_event_sequence",
    "ignore_event_step_index",
    "compare_screenshot_content_digest",
    "compare_normalized_text_content",
)
SCENARIO_ARTIFACTS: tuple[ArtifactKind, ...] = (
    "action_state",
    "screenshot",
    "dom",
    "accessibility",
    "url",
    "history",
    "storage",
    "events",
)
SCENARIO_LIMITATIONS = (
    "Steps align only by exact, unique step_id; missing, duplicate or action-mismatched steps are reported and "
    "prevent an unchanged claim.",
    "Only declared literal normalization rules are applied, in rule_id order, to already-redacted capture fields.",
    "Elapsed time and event sequence/step index values are excluded as volatile; screenshots are compared by "
    "content digest.",
    "A changed status proves an observed normalized difference. Missing or truncated evidence, a different capture "
    "context or an alignment failure prevents an unchanged claim.",
)
Capture = Mapping[str, Any]  # a producer's complete result, already checked against its output schema
Step = Mapping[str, Any]  # one step (or artifact state) of a scenario capture, read as that JSON


# ------------------------------------------------------------------ scenario


def _replace(value: Any, rules: Sequence[NormalizationRule]) -> Any:
    if isinstance(value, str):
        for rule in rules:
            value = value.replace(rule.match, rule.replacement)
        return value
    if isinstance(value, Mapping):
        return {k: _replace(v, rules) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_replace(v, rules) for v in value]
    return value


def _digest(value: Any, artifact: ArtifactKind, rules: Sequence[NormalizationRule]) -> str:
    return canonical_sha256(_replace(value, [r for r in rules if artifact in r.artifacts]))


def normalization(rules: Sequence[NormalizationRule]) -> CommittedNormalization:
    """The rules in the order they run, with the digest of that committed policy (its JSON form)."""
    ordered = tuple(sorted(rules, key=lambda r: r.rule_id))
    committed = {"built_in_rules": list(BUILT_IN_RULES), "rules": to_wire(ordered)}
    return CommittedNormalization(built_in_rules=BUILT_IN_RULES, rules=ordered, sha256=canonical_sha256(committed))


def _events(capture: Capture, index: int) -> list[dict[str, object]]:
    return [
        {k: v for k, v in e.items() if k not in ("sequence", "step_index")}
        for e in capture["events"]["items"]
        if e["step_index"] == index
    ]


def _event_state(capture: Capture, step: Step) -> EvidenceState:
    c = capture["completeness"]
    if "events" in c["truncated_sections"]:
        return "truncated"
    if "events" in c["missing_sections"] or step["status"] != "completed":
        return "missing"
    return "captured"


def _projected(artifact: ArtifactKind, state: Step) -> Any:
    value: Any = state.get("value")
    if artifact == "screenshot":
        return {"sha256": value["sha256"], "bytes": value["bytes"]}
    if artifact in ("dom", "accessibility"):
        return value["text"]
    return value


Piece = tuple[ArtifactKind, EvidenceState, Any]


def _pieces(capture: Capture, step: Step) -> list[Piece]:
    """(artifact, state, comparable value) for each artifact family of one step."""
    out: list[Piece] = [("action_state", "captured", {"status": step["status"], "error": step["error"]})]
    for artifact in SCENARIO_ARTIFACTS[1:-1]:
        state = step["artifacts"][artifact]
        out.append((artifact, state["state"], _projected(artifact, state) if state["state"] == "captured" else None))
    out.append(("events", _event_state(capture, step), _events(capture, step["step_index"])))
    return out


def _artifact_diffs(
    before: Capture, b: Step, after: Capture, a: Step, rules: Sequence[NormalizationRule]
) -> list[ArtifactDiff]:
    """The changed/unknown records of one aligned step."""
    diffs = []
    for (artifact, b_state, b_value), (_, a_state, a_value) in zip(_pieces(before, b), _pieces(after, a), strict=True):
        if b_state == a_state == "not_requested":
            continue
        b_sha = _digest(b_value, artifact, rules) if b_state == "captured" else None
        a_sha = _digest(a_value, artifact, rules) if a_state == "captured" else None
        if b_sha is None or a_sha is None:
            reason = f"Artifact coverage is not comparable ({b_state} before, {a_state} after)."
            diffs.append(_diff(artifact, "unknown", b_state, a_state, b_sha, a_sha, reason))
        elif b_sha != a_sha:
            diffs.append(_diff(artifact, "changed", b_state, a_state, b_sha, a_sha, None))
    return diffs


def _diff(
    artifact: ArtifactKind,
    status: Literal["changed", "unknown"],
    bs: EvidenceState,
    as_: EvidenceState,
    b: str | None,
    a: str | None,
    why: str | None,
) -> ArtifactDiff:
    return ArtifactDiff(
        artifact=artifact,
        status=status,
        before_state=bs,
        after_state=as_,
        before_sha256=b,
        after_sha256=a,
        reason=why,
    )


def _failure(code: AlignmentCode, step_id: str | None, reason: str) -> AlignmentFailure:
    return AlignmentFailure(code=code, step_id=step_id, reason=reason)


def _side_ids(side: Literal["before", "after"], capture: Capture) -> tuple[list[str], list[AlignmentFailure]]:
    """One side's step ids that occur once, and a failure for each repeated one."""
    ids = [s["step_id"] for s in capture["steps"]]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    code: AlignmentCode = "duplicate_before_step_id" if side == "before" else "duplicate_after_step_id"
    failures = [_failure(code, d, f"{side} capture repeats step_id {d}.") for d in duplicates]
    return [i for i in ids if i not in duplicates], failures


def _same_context(before: Capture, after: Capture) -> bool:
    """Same browser product/version and the same scenario origin scope: otherwise nothing may be called equal."""
    if any(before["browser"][k] != after["browser"][k] for k in ("product", "version")):
        return False
    b, a = before["scenario"], after["scenario"]
    return (b["start_origin"], sorted(b["allowed_origins"])) == (a["start_origin"], sorted(a["allowed_origins"]))


def _alignment(before: Capture, after: Capture) -> tuple[list[str], list[str], list[str], list[AlignmentFailure]]:
    """(step ids on both sides in before's order, before-only, after-only, failures)."""
    before_ids, failures = _side_ids("before", before)
    after_ids, after_failures = _side_ids("after", after)
    failures += after_failures
    before_only = sorted(set(before_ids) - set(after_ids))
    after_only = sorted(set(after_ids) - set(before_ids))
    failures += [
        _failure("missing_before_step", i, f"Step {i} is missing from the before capture.") for i in after_only
    ]
    failures += [_failure("missing_after_step", i, f"Step {i} is missing from the after capture.") for i in before_only]
    if not _same_context(before, after):
        reason = "Browser product/version or scenario origin scope differs between captures."
        failures.append(_failure("capture_context_mismatch", None, reason))
    shared = [i for i in before_ids if i in set(after_ids)]
    return shared, before_only, after_only, failures


def _status(statuses: Iterable[str]) -> DiffStatus:
    seen = set(statuses)
    return "changed" if "changed" in seen else "unknown" if "unknown" in seen else "unchanged"


def _step_diff(b: Step, a: Step, diffs: list[ArtifactDiff], budget: int) -> StepDiff:
    """One aligned step, keeping at most `budget` of its difference records."""
    kept = diffs[: max(budget, 0)]
    return StepDiff(
        step_id=b["step_id"],
        before_step_index=b["step_index"],
        after_step_index=a["step_index"],
        before_action=b["action"],
        after_action=a["action"],
        status=_status(d.status for d in diffs),
        artifact_diffs=tuple(kept),
        omitted_artifact_diffs=len(diffs) - len(kept),
    )


def compare_scenarios(
    before: Capture, after: Capture, rules: Sequence[NormalizationRule], max_changes: int
) -> ScenarioDiff:
    shared, before_only, after_only, failures = _alignment(before, after)
    by_id = {side: {s["step_id"]: s for s in c["steps"]} for side, c in (("before", before), ("after", after))}
    steps: list[StepDiff] = []
    total, budget = 0, max_changes
    for step_id in shared:
        b, a = by_id["before"][step_id], by_id["after"][step_id]
        if b["action"] != a["action"]:
            reason = f"Aligned step action changed from {b['action']} to {a['action']}."
            failures.append(_failure("action_mismatch", step_id, reason))
        diffs = _artifact_diffs(before, b, after, a, rules)
        total += len(diffs)
        steps.append(_step_diff(b, a, diffs, budget))
        budget -= len(steps[-1].artifact_diffs)
    eligible = (
        before["completeness"]["equality_eligible"] and after["completeness"]["equality_eligible"] and not failures
    )
    overall = _status(s.status for s in steps)
    omitted = max(0, total - max_changes)
    return ScenarioDiff(
        schema_version=1,
        comparison_kind="browser_scenario",
        overall_status="unknown" if overall == "unchanged" and not eligible else overall,
        normalization=normalization(rules),
        alignment=Alignment(
            status="aligned" if not failures else "failed" if not steps else "partial",
            aligned_steps=len(steps),
            before_only=tuple(before_only),
            after_only=tuple(after_only),
            failures=tuple(failures),
        ),
        steps=tuple(steps),
        artifact_diffs=DiffCount(total=total, retained=total - omitted, omitted=omitted),
        limitations=SCENARIO_LIMITATIONS
        + ((f"{omitted} artifact difference record(s) were omitted by max_changes.",) if omitted else ()),
    )


# ------------------------------------------------------------------ passive

Indexed = dict[str, object]  # identity -> the retained item, compared only by its canonical digest
Keyed = Callable[[Capture, Capture | None], Indexed | None]


def _indexed(items: Iterable[Mapping[str, Any]], identity: Callable[[int, Mapping[str, Any]], str]) -> Indexed:
    out: Indexed = {}
    for i, item in enumerate(items):
        key = identity(i, item)
        while key in out:  # repeated identities stay distinct by occurrence
            key += "#"
        out[key] = item
    return out


def _dom(inspection: Capture, _: Capture | None) -> Indexed:
    return _indexed(inspection["dom"]["nodes"], lambda i, n: f"{i}:{n['node_name']}")


def _accessibility(inspection: Capture, _: Capture | None) -> Indexed:
    nodes = inspection["accessibility"]["nodes"]
    position = {n["node_id"]: i for i, n in enumerate(nodes)}
    stable = [
        {**{k: v for k, v in n.items() if k not in ("node_id", "parent_id")}, "parent": position.get(n["parent_id"])}
        for n in nodes
    ]
    return _indexed(stable, lambda i, n: f"{i}:{n['role']}")


def _scripts(inspection: Capture, _: Capture | None) -> Indexed:
    rows = [
        {k: s[k] for k in ("url", "cdp_hash", "length", "is_module", "source_map_url")}
        for s in inspection["scripts"]["items"]
    ]
    return _indexed(rows, lambda i, s: s["url"] or f"inline:{s['cdp_hash']}")


def _resources(inspection: Capture, _: Capture | None) -> Indexed:
    rows = [{k: r[k] for k in ("url", "type", "mime_type", "content_size")} for r in inspection["resources"]]
    return _indexed(rows, lambda i, r: f"{r['type']} {r['url']}")


def _network(inspection: Capture, _: Capture | None) -> Indexed:
    keys = ("method", "url", "resource_type", "status", "mime_type")
    rows = [{k: q[k] for k in keys} for q in inspection["network"]["requests"]]
    return _indexed(rows, lambda i, q: f"{q['method']} {q['url']}")


def _flat(inspection: Capture, field: str) -> Indexed:
    value = inspection[field]
    return {k: v for k, v in value.items()} if isinstance(value, Mapping) else {field: value}


def _webmcp(inspection: Capture, webmcp: Capture | None) -> Indexed | None:
    if webmcp is None:
        return None
    return _indexed(webmcp["tools"]["items"], lambda i, t: str(t["name"]))


DIMENSIONS: Mapping[str, tuple[Keyed, tuple[str, ...]]] = {
    "dom_structure": (_dom, ("dom",)),
    "scripts": (_scripts, ("scripts",)),
    "resources": (_resources, ("resources",)),
    "network": (_network, ("network_requests",)),
    "metadata": (lambda i, _: _flat(i, "metadata"), ("metadata",)),
    "webmcp": (_webmcp, ("webmcp_tools",)),
    "accessibility": (_accessibility, ("accessibility",)),
    "storage": (lambda i, _: _flat(i, "storage"), ("storage", "storage_keys")),
}


def _gaps(capture: Capture, sections: Sequence[str]) -> list[str]:
    inspection = capture["inspection"]
    completeness = [inspection["completeness"]] + ([capture["webmcp"]["completeness"]] if capture.get("webmcp") else [])
    return sorted(
        {
            s
            for c in completeness
            for s in sections
            if s in c.get("truncated_sections", ()) or s in c.get("unavailable_sections", ())
        }
    )


def _unknown(reason: str) -> Dimension:
    return Dimension(status="unknown", total_changes=0, changes=(), omitted_changes=0, reason=reason)


def _changes(b: Indexed, a: Indexed) -> list[Change]:
    """Removed, added, then modified identities (by the digest of the retained fields), each sorted."""
    changes = [Change(identity=k, change="removed") for k in sorted(set(b) - set(a))]
    changes += [Change(identity=k, change="added") for k in sorted(set(a) - set(b))]
    changes += [
        Change(identity=k, change="modified")
        for k in sorted(set(a) & set(b))
        if canonical_sha256(b[k]) != canonical_sha256(a[k])
    ]
    return changes


def _dimension(name: str, before: Capture, after: Capture, budget: list[int]) -> Dimension:
    key, sections = DIMENSIONS[name]
    b = key(before["inspection"], before.get("webmcp"))
    a = key(after["inspection"], after.get("webmcp"))
    if b is None or a is None:
        return _unknown("Not recorded on both sides.")
    gaps = _gaps(before, sections) + _gaps(after, sections)
    if gaps:
        return _unknown(f"Truncated or unavailable: {sorted(set(gaps))}.")
    changes = _changes(b, a)
    kept = changes[: budget[0]]
    budget[0] -= len(kept)
    return Dimension(
        status="changed" if changes else "unchanged",
        total_changes=len(changes),
        changes=tuple(kept),
        omitted_changes=len(changes) - len(kept),
        reason=None,
    )


def _target(capture: Capture) -> TargetRef:
    target = capture["inspection"]["target"]
    return TargetRef(target_id=target["target_id"], url=target["url"])


PASSIVE_LIMITATIONS = (
    "Dimensions are compared by stable identity (DOM position and name, script URL, request line, tool name) "
    "and the canonical digest of each item's retained fields; values REA never retained are not compared.",
    "A truncated or unavailable section, or a WebMCP inventory recorded on one side only, makes its dimension "
    "unknown: missing evidence never proves equality.",
    "Network and console evidence covers each capture's own attach window only.",
)


def compare_passive(before: Capture, after: Capture, max_changes: int) -> WebCaptureDiff:
    budget = [max_changes]
    dimensions = {name: _dimension(name, before, after, budget) for name in DIMENSIONS}
    return WebCaptureDiff(
        schema_version=1,
        overall_status=_status(d.status for d in dimensions.values()),
        before_target=_target(before),
        after_target=_target(after),
        dimensions=Dimensions(**dimensions),
        limitations=PASSIVE_LIMITATIONS,
    )
