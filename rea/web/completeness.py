"""Coverage accounting for one bounded browser observation: a ledger, then one classification.

Collectors note what the policy narrowed, what was only seen from the attach moment, what a
limit cut and what the browser did not answer; `classify` turns the ledger into the
reference's completeness record (truncated > policy_filtered > attach_limited), so missing
or cut evidence is always visible and never reads as complete.
"""

from __future__ import annotations

from typing import Literal, get_args

import attrs

from rea.web.records.browser import Completeness, Condition, DroppedEvents, Exclusion, ExclusionReason, Section

DroppedKind = Literal[
    "scripts",
    "network_requests",
    "console_events",
    "websocket_connections",
    "websocket_frames",
    "webmcp_tools",
    "timeline_events",
]
DROPPED_KINDS: tuple[DroppedKind, ...] = get_args(DroppedKind)


@attrs.define
class Ledger:
    policy_filtered: set[Section] = attrs.field(factory=set)
    attach_limited: set[Section] = attrs.field(factory=set)
    truncated: set[Section] = attrs.field(factory=set)
    unavailable: set[Section] = attrs.field(factory=set)
    excluded: dict[tuple[Section, ExclusionReason], int | None] = attrs.field(factory=dict)
    dropped: dict[DroppedKind, int] = attrs.field(factory=lambda: dict.fromkeys(DROPPED_KINDS, 0))
    limitations: list[str] = attrs.field(factory=list)

    def exclude(self, section: Section, reason: ExclusionReason, count: int | None = 1) -> None:
        """Count observations of `section` left out for `reason` (policy reasons mark the section filtered)."""
        if count == 0:
            return
        key = (section, reason)
        before = self.excluded.get(key, 0)
        self.excluded[key] = None if count is None or before is None else before + count
        if reason in ("disallowed_origin", "not_approved", "unsupported_url", "out_of_target_scope"):
            self.policy_filtered.add(section)
        elif reason == "resource_budget_exhausted":
            self.truncated.add(section)
        elif reason == "provider_unavailable":
            self.unavailable.add(section)

    def drop(self, kind: DroppedKind, count: int, section: Section) -> None:
        if count > 0:
            self.dropped[kind] += count
            self.truncated.add(section)

    def note(self, text: str) -> None:
        if text not in self.limitations:
            self.limitations.append(text)


def classify(ledger: Ledger) -> Completeness:
    truncated = bool(ledger.truncated) or any(ledger.dropped.values())
    filtered = bool(ledger.policy_filtered)
    limited = bool(ledger.attach_limited or ledger.unavailable)
    held: tuple[tuple[bool, Condition], ...] = (
        (limited, "attach_limited"),
        (filtered, "policy_filtered"),
        (truncated, "truncated"),
    )
    conditions = [condition for holds, condition in held if holds]
    status: Condition = (
        "truncated"
        if truncated
        else "policy_filtered"
        if filtered
        else "attach_limited"
        if limited
        else "complete_within_window"
    )
    return Completeness(
        status=status,
        conditions=tuple(conditions) or ("complete_within_window",),
        policy_filtered_sections=tuple(sorted(ledger.policy_filtered)),
        attach_limited_sections=tuple(sorted(ledger.attach_limited)),
        truncated_sections=tuple(sorted(ledger.truncated)),
        unavailable_sections=tuple(sorted(ledger.unavailable)),
        excluded=tuple(Exclusion(section=s, reason=r, count=c) for (s, r), c in sorted(ledger.excluded.items())),
        dropped_events=DroppedEvents(**ledger.dropped, total=sum(ledger.dropped.values())),
    )
