"""compare_web_captures: step-aligned scenario diffs and dimension diffs of passive page captures.

Both answer `unchanged` only when every compared piece was captured in full on both sides: a
missing, truncated or unavailable section (or a step that did not run, or a misaligned step)
makes that piece `unknown`, never equal. Values are compared by the SHA-256 of their canonical
JSON after the declared exact-literal rules (scenario) and after dropping volatile fields
(elapsed time, event sequence numbers, browser-assigned node ids).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from rea.canonical_json import canonical_sha256

BUILT_IN_RULES = (
    "ignore_step_elapsed_ms",
    "ignore_event_sequence",
    "ignore_event_step_index",
    "compare_screenshot_content_digest",
    "compare_normalized_text_content",
)
SCENARIO_ARTIFACTS = ("action_state", "screenshot", "dom", "accessibility", "url", "history", "storage", "events")
SCENARIO_LIMITATIONS = (
    "Steps align only by exact, unique step_id; missing, duplicate or action-mismatched steps are reported and "
    "prevent an unchanged claim.",
    "Only declared literal normalization rules are applied, in rule_id order, to already-redacted capture fields.",
    "Elapsed time and event sequence/step index values are excluded as volatile; screenshots are compared by "
    "content digest.",
    "A changed status proves an observed normalized difference. Missing or truncated evidence, a different capture "
    "context or an alignment failure prevents an unchanged claim.",
)
Capture = Mapping[str, Any]


# ------------------------------------------------------------------ scenario


def _replace(value: Any, rules: Sequence[Mapping[str, Any]]) -> Any:
    if isinstance(value, str):
        for rule in rules:
            value = value.replace(rule["match"], rule["replacement"])
        return value
    if isinstance(value, Mapping):
        return {k: _replace(v, rules) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_replace(v, rules) for v in value]
    return value


def _digest(value: Any, artifact: str, rules: Sequence[Mapping[str, Any]]) -> str:
    return canonical_sha256(_replace(value, [r for r in rules if artifact in r["artifacts"]]))


def normalization(rules: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    ordered = sorted(rules, key=lambda r: r["rule_id"])
    committed = {"built_in_rules": list(BUILT_IN_RULES), "rules": [dict(r) for r in ordered]}
    return {**committed, "sha256": canonical_sha256(committed)}


def _events(capture: Capture, index: int) -> list[dict[str, Any]]:
    return [
        {k: v for k, v in e.items() if k not in ("sequence", "step_index")}
        for e in capture["events"]["items"]
        if e["step_index"] == index
    ]


def _event_state(capture: Capture, step: Mapping[str, Any]) -> str:
    c = capture["completeness"]
    if "events" in c["truncated_sections"]:
        return "truncated"
    if "events" in c["missing_sections"] or step["status"] != "completed":
        return "missing"
    return "captured"


def _projected(artifact: str, state: Mapping[str, Any]) -> Any:
    value: Any = state.get("value")
    if artifact == "screenshot":
        return {"sha256": value["sha256"], "bytes": value["bytes"]}
    if artifact in ("dom", "accessibility"):
        return value["text"]
    return value


def _pieces(capture: Capture, step: Mapping[str, Any]) -> list[tuple[str, str, Any]]:
    """(artifact, state, comparable value) for each artifact family of one step."""
    out: list[tuple[str, str, Any]] = [("action_state", "captured", {"status": step["status"], "error": step["error"]})]
    for artifact in SCENARIO_ARTIFACTS[1:-1]:
        state = step["artifacts"][artifact]
        out.append((artifact, state["state"], _projected(artifact, state) if state["state"] == "captured" else None))
    out.append(("events", _event_state(capture, step), _events(capture, step["step_index"])))
    return out


def _artifact_diffs(
    before: Capture, b: Mapping[str, Any], after: Capture, a: Mapping[str, Any], rules: Sequence[Mapping[str, Any]]
) -> tuple[list[dict[str, Any]], bool]:
    """The changed/unknown records of one aligned step, and whether anything was compared at all."""
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
    return diffs, True


def _diff(
    artifact: str, status: str, bs: str, as_: str, b: str | None, a: str | None, why: str | None
) -> dict[str, Any]:
    return {
        "artifact": artifact,
        "status": status,
        "before_state": bs,
        "after_state": as_,
        "before_sha256": b,
        "after_sha256": a,
        "reason": why,
    }


def _alignment(before: Capture, after: Capture) -> tuple[list[str], list[str], list[str], list[dict[str, Any]]]:
    """(step ids on both sides in before's order, before-only, after-only, failures)."""
    failures: list[dict[str, Any]] = []
    unique = {}
    for side, capture in (("before", before), ("after", after)):
        ids = [s["step_id"] for s in capture["steps"]]
        duplicates = sorted({i for i in ids if ids.count(i) > 1})
        failures += [
            {"code": f"duplicate_{side}_step_id", "step_id": d, "reason": f"{side} capture repeats step_id {d}."}
            for d in duplicates
        ]
        unique[side] = [i for i in ids if i not in duplicates]
    before_only = sorted(set(unique["before"]) - set(unique["after"]))
    after_only = sorted(set(unique["after"]) - set(unique["before"]))
    failures += [
        {"code": "missing_before_step", "step_id": i, "reason": f"Step {i} is missing from the before capture."}
        for i in after_only
    ]
    failures += [
        {"code": "missing_after_step", "step_id": i, "reason": f"Step {i} is missing from the after capture."}
        for i in before_only
    ]
    context = ("product", "version")
    if any(before["browser"][k] != after["browser"][k] for k in context) or (
        before["scenario"]["start_origin"],
        sorted(before["scenario"]["allowed_origins"]),
    ) != (after["scenario"]["start_origin"], sorted(after["scenario"]["allowed_origins"])):
        failures.append(
            {
                "code": "capture_context_mismatch",
                "step_id": None,
                "reason": "Browser product/version or scenario origin scope differs between captures.",
            }
        )
    shared = [i for i in unique["before"] if i in set(unique["after"])]
    return shared, before_only, after_only, failures


def _status(statuses: Iterable[str]) -> str:
    seen = set(statuses)
    return "changed" if "changed" in seen else "unknown" if "unknown" in seen else "unchanged"


def compare_scenarios(
    before: Capture, after: Capture, rules: Sequence[Mapping[str, Any]], max_changes: int
) -> dict[str, Any]:
    shared, before_only, after_only, failures = _alignment(before, after)
    by_id = {side: {s["step_id"]: s for s in c["steps"]} for side, c in (("before", before), ("after", after))}
    steps, total, budget = [], 0, max_changes
    for step_id in shared:
        b, a = by_id["before"][step_id], by_id["after"][step_id]
        if b["action"] != a["action"]:
            failures.append(
                {
                    "code": "action_mismatch",
                    "step_id": step_id,
                    "reason": f"Aligned step action changed from {b['action']} to {a['action']}.",
                }
            )
        diffs, _ = _artifact_diffs(before, b, after, a, rules)
        total += len(diffs)
        kept = diffs[: max(budget, 0)]
        budget -= len(kept)
        steps.append(
            {
                "step_id": step_id,
                "before_step_index": b["step_index"],
                "after_step_index": a["step_index"],
                "before_action": b["action"],
                "after_action": a["action"],
                "status": _status(d["status"] for d in diffs),
                "artifact_diffs": kept,
                "omitted_artifact_diffs": len(diffs) - len(kept),
            }
        )
    alignment = "aligned" if not failures else "failed" if not steps else "partial"
    eligible = (
        before["completeness"]["equality_eligible"] and after["completeness"]["equality_eligible"] and not failures
    )
    overall = _status(s["status"] for s in steps)
    if overall == "unchanged" and not eligible:
        overall = "unknown"
    omitted = max(0, total - max_changes)
    return {
        "schema_version": 1,
        "comparison_kind": "browser_scenario",
        "overall_status": overall,
        "normalization": normalization(rules),
        "alignment": {
            "status": alignment,
            "aligned_steps": len(steps),
            "before_only": before_only,
            "after_only": after_only,
            "failures": failures,
        },
        "steps": steps,
        "artifact_diffs": {"total": total, "retained": total - omitted, "omitted": omitted},
        "limitations": list(SCENARIO_LIMITATIONS)
        + ([f"{omitted} artifact difference record(s) were omitted by max_changes."] if omitted else []),
    }


# ------------------------------------------------------------------ passive

Keyed = Callable[[Capture, Capture | None], Mapping[str, Any] | None]


def _indexed(items: Iterable[Mapping[str, Any]], identity: Callable[[int, Mapping[str, Any]], str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for i, item in enumerate(items):
        key = identity(i, item)
        while key in out:  # repeated identities stay distinct by occurrence
            key += "#"
        out[key] = item
    return out


def _dom(inspection: Capture, _: Capture | None) -> dict[str, Any]:
    return _indexed(inspection["dom"]["nodes"], lambda i, n: f"{i}:{n['node_name']}")


def _accessibility(inspection: Capture, _: Capture | None) -> dict[str, Any]:
    nodes = inspection["accessibility"]["nodes"]
    position = {n["node_id"]: i for i, n in enumerate(nodes)}
    stable = [
        {**{k: v for k, v in n.items() if k not in ("node_id", "parent_id")}, "parent": position.get(n["parent_id"])}
        for n in nodes
    ]
    return _indexed(stable, lambda i, n: f"{i}:{n['role']}")


def _scripts(inspection: Capture, _: Capture | None) -> dict[str, Any]:
    rows = [
        {k: s[k] for k in ("url", "cdp_hash", "length", "is_module", "source_map_url")}
        for s in inspection["scripts"]["items"]
    ]
    return _indexed(rows, lambda i, s: s["url"] or f"inline:{s['cdp_hash']}")


def _resources(inspection: Capture, _: Capture | None) -> dict[str, Any]:
    rows = [{k: r[k] for k in ("url", "type", "mime_type", "content_size")} for r in inspection["resources"]]
    return _indexed(rows, lambda i, r: f"{r['type']} {r['url']}")


def _network(inspection: Capture, _: Capture | None) -> dict[str, Any]:
    keys = ("method", "url", "resource_type", "status", "mime_type")
    rows = [{k: q[k] for k in keys} for q in inspection["network"]["requests"]]
    return _indexed(rows, lambda i, q: f"{q['method']} {q['url']}")


def _flat(inspection: Capture, field: str) -> dict[str, Any]:
    value = inspection[field]
    return {k: v for k, v in value.items()} if isinstance(value, Mapping) else {field: value}


def _webmcp(inspection: Capture, webmcp: Capture | None) -> dict[str, Any] | None:
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


def _dimension(name: str, before: Capture, after: Capture, budget: list[int]) -> dict[str, Any]:
    key, sections = DIMENSIONS[name]
    b = key(before["inspection"], before.get("webmcp"))
    a = key(after["inspection"], after.get("webmcp"))
    gaps = _gaps(before, sections) + _gaps(after, sections)
    if b is None or a is None or gaps:
        why = (
            "Not recorded on both sides."
            if b is None or a is None
            else f"Truncated or unavailable: {sorted(set(gaps))}."
        )
        return {"status": "unknown", "total_changes": 0, "changes": [], "omitted_changes": 0, "reason": why}
    changes = [{"identity": k, "change": "removed"} for k in sorted(set(b) - set(a))]
    changes += [{"identity": k, "change": "added"} for k in sorted(set(a) - set(b))]
    changes += [
        {"identity": k, "change": "modified"}
        for k in sorted(set(a) & set(b))
        if canonical_sha256(b[k]) != canonical_sha256(a[k])
    ]
    if not changes:
        return {"status": "unchanged", "total_changes": 0, "changes": [], "omitted_changes": 0, "reason": None}
    kept = changes[: budget[0]]
    budget[0] -= len(kept)
    return {
        "status": "changed",
        "total_changes": len(changes),
        "changes": kept,
        "omitted_changes": len(changes) - len(kept),
        "reason": None,
    }


def _target(capture: Capture) -> dict[str, Any]:
    target = capture["inspection"]["target"]
    return {"target_id": target["target_id"], "url": target["url"]}


def compare_passive(before: Capture, after: Capture, max_changes: int) -> dict[str, Any]:
    budget = [max_changes]
    dimensions = {name: _dimension(name, before, after, budget) for name in DIMENSIONS}
    return {
        "schema_version": 1,
        "overall_status": _status(d["status"] for d in dimensions.values()),
        "before_target": _target(before),
        "after_target": _target(after),
        "dimensions": dimensions,
        "limitations": [
            "Dimensions are compared by stable identity (DOM position and name, script URL, request line, tool name) "
            "and the canonical digest of each item's retained fields; values REA never retained are not compared.",
            "A truncated or unavailable section, or a WebMCP inventory recorded on one side only, makes its dimension "
            "unknown: missing evidence never proves equality.",
            "Network and console evidence covers each capture's own attach window only.",
        ],
    }
