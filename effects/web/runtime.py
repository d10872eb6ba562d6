"""The ObserveBrowser handler: list a loopback endpoint's targets, or observe one page passively."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from returns.result import Result

from effects import cdp
from effects.chain import then
from effects.progress import Progress
from effects.web.observe import observe_page
from effects.web.observers import (
    capture_screenshot,
    inspect_listeners,
    observe_execution,
    observe_session,
    observe_webmcp,
)
from rea.errors import ReaError
from rea.loopback import Endpoint, parse_endpoint
from rea.web.effects import ObserveBrowser

Observer = Callable[[cdp.CdpSession, Mapping[str, Any]], Awaitable[Result[dict[str, Any], ReaError]]]
OBSERVERS: dict[str, Observer] = {
    "page": observe_page,
    "webmcp": observe_webmcp,
    "screenshot": capture_screenshot,
    "listeners": inspect_listeners,
    "execution": observe_execution,
    "session": observe_session,
}


async def _targets(endpoint: Endpoint, operation: str) -> Result[dict[str, Any], ReaError]:
    async def listed(version: dict[str, Any]) -> Result[dict[str, Any], ReaError]:
        targets = await cdp.list_targets(endpoint, operation)
        return targets.map(lambda found: {"version": version, "targets": found})

    return await then(await cdp.browser_version(endpoint, operation), listed)


async def observe_browser(effect: ObserveBrowser, progress: Progress) -> Result[Any, ReaError]:
    parsed = parse_endpoint(effect.endpoint)  # the program validated it; parsing again keeps the rule in one place
    return await then(parsed, lambda endpoint: _observe(effect, endpoint))


async def _observe(effect: ObserveBrowser, endpoint: Endpoint) -> Result[dict[str, Any], ReaError]:
    if effect.kind == "targets" or effect.target_id is None:
        return await _targets(endpoint, effect.operation)
    attached = await cdp.attach(endpoint, effect.target_id, effect.operation)
    return await then(attached, lambda session: _observed(effect, session))


async def _observed(effect: ObserveBrowser, session: cdp.CdpSession) -> Result[dict[str, Any], ReaError]:
    try:
        return await OBSERVERS[effect.kind](session, effect.options)
    finally:
        await session.close()


HANDLERS = {ObserveBrowser: observe_browser}
