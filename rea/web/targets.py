"""Target discovery as the reference reports it: page targets under an origin policy, the rest counted."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from rea.web.records.browser import BrowserTarget, BrowserTargetList, BrowserVersion, TargetExclusions
from rea.web.scope import clean_url, in_scope, origin_text

PAGE_TYPES = ("page",)
WORKER_TYPES = ("worker", "service_worker", "shared_worker")
LIMITATIONS = (
    "Targets are read from the endpoint's /json/list at one moment; pages opened or closed afterwards are not seen.",
)


def browser_version(raw: Mapping[str, Any]) -> BrowserVersion:
    """`/json/version` in the reference's names (missing fields are empty strings)."""
    product = str(raw.get("Browser", ""))
    revision = str(raw.get("Revision", "")) or (product.split("/", 1)[1] if "/" in product else "")
    return BrowserVersion(
        product=product,
        protocol_version=str(raw.get("Protocol-Version", "")),
        revision=revision,
        user_agent=str(raw.get("User-Agent", "")),
        js_version=str(raw.get("V8-Version", "")),
    )


@attrs.frozen(kw_only=True)
class PageTarget:
    """The page target a program observes, as the endpoint's /json/list named it (its url "" when absent)."""

    id: str
    url: str


# `raw` is one entry of /json/list as Chromium sent it (a third-party payload), read here once.
def page_target(raw: Mapping[str, Any]) -> PageTarget:
    return PageTarget(id=str(raw["id"]), url=str(raw.get("url", "")))


def target_record(raw: Mapping[str, Any]) -> BrowserTarget:
    url = str(raw.get("url", ""))
    return BrowserTarget(
        target_id=str(raw["id"]),
        type=str(raw.get("type", "")),
        title=str(raw.get("title", "")),
        url=clean_url(url),
        origin=origin_text(url),
        attached=bool(raw.get("attached", False)) or "webSocketDebuggerUrl" not in raw,
    )


def target_list(
    version: Mapping[str, Any], targets: Sequence[Mapping[str, Any]], origins: Sequence[str]
) -> BrowserTargetList:
    """Pages kept (all, or those whose exact origin is allowed), and counts of what was excluded."""
    kept: list[BrowserTarget] = []
    excluded = {"disallowed_origin": 0, "unsupported_url": 0, "non_page": 0}
    for raw in targets:
        if raw.get("type") not in PAGE_TYPES:
            excluded["non_page"] += 1
            continue
        url = str(raw.get("url", ""))
        if origins and not url.startswith(("http://", "https://")):
            excluded["unsupported_url"] += 1
            continue
        if origins and not in_scope(url, origins):
            excluded["disallowed_origin"] += 1
            continue
        kept.append(target_record(raw))
    kept.sort(key=lambda t: (t.url, t.target_id))
    return BrowserTargetList(
        browser=browser_version(version),
        targets=tuple(kept),
        excluded=TargetExclusions(**excluded),
        limitations=LIMITATIONS,
    )
