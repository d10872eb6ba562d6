"""The RunScenario handler: resolve secrets, launch (or connect), run each step, capture, clean up.

Launch mode starts an OwnedChromium from the caller's executable (its own process group, a
private profile, a loopback debugging port), recorded in the process lineage, and always stops
it: on success, failure, cancellation and timeout, verifying the group is gone and the profile
removed (a leftover is cleanup_incomplete). Connect mode drives one target of a caller's loopback
endpoint and only closes its own websocket.
"""

from __future__ import annotations

import os
import time
from collections.abc import Awaitable, Mapping
from typing import Any

import anyio
from returns.result import Failure, Result, Success

from effects import cdp
from effects.chain import then
from effects.chromium import OwnedChromium
from effects.progress import Progress
from effects.web.scenario_page import GROUP, ScenarioPage, StepFailed
from rea.errors import ReaError, invalid_request
from rea.loopback import Endpoint, parse_endpoint
from rea.web.scenario import DEFAULT_ACTION_TIMEOUT_MS, secret_forms, with_query
from rea.web.scenario_effects import RunScenario

ARTIFACTS = ("screenshot", "dom", "accessibility", "url", "history", "storage")
PAGE_TYPES = ("page",)


def _secrets(args: Mapping[str, Any]) -> Result[dict[str, str], ReaError]:
    values = {}
    for i, secret in enumerate(args["secrets"]):
        value = os.environ.get(secret["environment_variable"])
        if value is None:
            return Failure(
                invalid_request(
                    f"secret {secret['secret_id']!r}: the environment variable {secret['environment_variable']!r} "
                    "is not set in REA's environment",
                    field=f"secrets[{i}].environment_variable",
                    accepted="the name of a variable set in the server's environment",
                )
            )
        values[secret["secret_id"]] = value
    return Success(values)


def _record_lineage(progress: Progress, chromium: OwnedChromium, product: str | None) -> None:
    """The launched browser's process group joins the connection's process lineage (binary_session reports it)."""
    runtime = progress.native
    if runtime is not None:
        runtime.lineage.append(
            {
                "provider": {"id": "chromium-cdp", "name": "Chromium (capture_browser_scenario)", "version": product},
                "observation": chromium.observe(),
            }
        )


def cleanup_failure(what: str, remaining: list[str]) -> ReaError:
    """An owned browser (or Electron app) that outlived its stop: what is left, and how to end it."""
    return ReaError(
        code="cleanup_incomplete",
        message=f"{what} did not go away: {', '.join(remaining)}.",
        details={"owned_resources": ["process", "profile"], "remaining": remaining},
        action="Stop the listed processes (kill -9) and remove the listed profile directory.",
    )


async def _browser(endpoint: Endpoint, operation: str, mode: str) -> Result[dict[str, Any], ReaError]:
    got = await cdp.browser_version(endpoint, operation)
    return got.map(lambda version: _browser_facts(version, mode))


def _browser_facts(version: dict[str, Any], mode: str) -> dict[str, Any]:
    product, _, number = str(version.get("Browser") or "Chromium/unknown").partition("/")
    return {
        "mode": mode,
        "process_ownership": "provider-owned" if mode == "launch" else "external",
        "cleanup": "terminated-owned-process" if mode == "launch" else "disconnected-external",
        "product": product or "Chromium",
        "version": number or "unknown",
    }


async def _first_page(endpoint: Endpoint, operation: str) -> Result[cdp.CdpSession, ReaError]:
    targets = await cdp.list_targets(endpoint, operation)
    page = targets.bind(_page_target)
    return await then(page, lambda target: cdp.connect(endpoint, target, operation))


def _page_target(targets: list[dict[str, Any]]) -> Result[dict[str, Any], ReaError]:
    page = next((t for t in targets if t.get("type") in PAGE_TYPES), None)
    if page is None:
        return Failure(invalid_request("the launched browser shows no page target", field="browser"))
    return Success(page)


async def _perform(page: ScenarioPage, action: Mapping[str, Any]) -> None:
    kind = action["action"]
    if kind == "wait_for_timeout":
        await anyio.sleep(action["duration_ms"] / 1000)
    elif kind == "goto":
        await page.navigate(with_query(action["destination"], page.secrets), action["wait_until"])
    elif kind == "click":
        await page.click(action["locator"], action["button"], action["click_count"])
        await page.settle()
    elif kind == "fill":
        await page.fill(action["locator"], action["value"])
    elif kind == "press":
        await page.press(action["locator"], action["key"])
        await page.settle()
    elif kind == "select_option":
        await page.select(action["locator"], action["value"])
    elif kind in ("check", "uncheck"):
        await page.check(action["locator"], kind == "check")
    elif kind == "wait_for":
        await page.wait_for(action["locator"], action["state"])


def _kinds(args: Mapping[str, Any], index: int) -> set[str]:
    capture = args["capture"]
    return set(capture["after_each_step"]) | (set(capture["at_end"]) if index == len(args["actions"]) else set())


async def _artifacts(page: ScenarioPage, kinds: set[str], ran: bool) -> dict[str, Any]:
    out = {}
    for kind in ARTIFACTS:
        if kind not in kinds:
            out[kind] = {"state": "not_requested"}
        elif not ran:
            out[kind] = {"state": "missing", "reason": "the step did not run (an earlier step failed)"}
        else:
            out[kind] = await page.artifact(kind)
    return out


async def _step(page: ScenarioPage, index: int, action: Mapping[str, Any] | None, ran: bool) -> dict[str, Any]:
    args = page.args
    page.step_index = index
    first = page.sequence + 1
    started = time.monotonic()
    before = await page.current_url()
    status, error = "completed", None
    if not ran:
        status, error = "cancelled", "not run: an earlier step failed"
    else:
        page.blocked_documents.clear()
        try:
            if action is None:
                await page.navigate(with_query(args["start_url"], page.secrets), "load")
            else:
                limit = action.get("timeout_ms") or DEFAULT_ACTION_TIMEOUT_MS
                try:
                    with anyio.fail_after(limit / 1000):
                        await _perform(page, action)
                except TimeoutError:
                    raise StepFailed(f"{action['action']} did not complete within {limit} ms") from None
            page.refused()
        except StepFailed as exc:
            status, error = "failed", str(exc)[:4096]
        except Exception as exc:  # a protocol failure mid-step: the step failed, the run still reports
            status, error = "failed", f"{type(exc).__name__}: {exc}"[:4096]
        await page.session.send("Runtime.releaseObjectGroup", {"objectGroup": GROUP})
    artifacts = await _artifacts(page, _kinds(args, index), ran)
    return {
        "step_index": index,
        "step_id": "start" if action is None else action["step_id"],
        "action": "start" if action is None else action["action"],
        "elapsed_ms": page.elapsed_ms(started),
        "before_url": before,
        "after_url": await page.current_url(),
        "event_sequence_start": first,
        "event_sequence_end": page.sequence,
        "artifacts": artifacts,
        "status": status,
        "error": error,
    }


async def _drive(session: cdp.CdpSession, effect: RunScenario, secrets: Mapping[str, str]) -> dict[str, Any]:
    page = ScenarioPage(session, effect.args, effect.origins, secrets, secret_forms(secrets))
    started = time.monotonic()
    await page.setup()
    steps = [await _step(page, 0, None, True)]
    for i, action in enumerate(effect.args["actions"], start=1):
        ran = steps[-1]["status"] == "completed"
        steps.append(await _step(page, i, action, ran))
    for task in list(page.tasks):
        task.cancel()
    return {
        "steps": steps,
        "events": page.events,
        "events_dropped": page.dropped,
        "duration_ms": page.elapsed_ms(started),
        "limitations": [
            "Requests outside allowed_origins (and, with unmatched: abort, every unreplayed request) were failed "
            "by the browser before they left it.",
            "Artifacts and events have secret values replaced by [redacted:<secret_id>] before they were digested.",
        ],
    }


async def _launch(
    effect: RunScenario, secrets: Mapping[str, str], progress: Progress
) -> Result[dict[str, Any], ReaError]:
    path = effect.args["browser"]["executable_path"]
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        return Failure(
            invalid_request(
                f"browser.executable_path {path!r} is not an executable file",
                field="browser.executable_path",
                accepted="the absolute path of a Chromium or Chrome executable",
            )
        )
    chromium = OwnedChromium(effect.operation)
    try:
        started = await chromium.start(executable=path)
        driven = await then(started, lambda endpoint: _launched(chromium, endpoint, effect, secrets, progress))
    finally:
        with anyio.CancelScope(shield=True):
            remaining = await chromium.stop()
    # a failed scenario is the answer; a finished one whose browser outlived its stop is cleanup_incomplete
    return driven.bind(
        lambda facts: Failure(cleanup_failure("The scenario's Chromium", remaining)) if remaining else Success(facts)
    )


async def _launched(
    chromium: OwnedChromium, endpoint: Endpoint, effect: RunScenario, secrets: Mapping[str, str], progress: Progress
) -> Result[dict[str, Any], ReaError]:
    async def on_page(browser: dict[str, Any]) -> Result[dict[str, Any], ReaError]:
        _record_lineage(progress, chromium, browser["version"])
        return await _scenario(await _first_page(endpoint, effect.operation), effect, secrets, browser)

    return await then(await _browser(endpoint, effect.operation, "launch"), on_page)


async def _scenario(
    session: Result[cdp.CdpSession, ReaError], effect: RunScenario, secrets: Mapping[str, str], browser: dict[str, Any]
) -> Result[dict[str, Any], ReaError]:
    """The scenario driven on the page's session, which is closed after it; the facts name the browser."""

    async def drive(page: cdp.CdpSession) -> Result[dict[str, Any], ReaError]:
        try:
            facts = await _drive(page, effect, secrets)
        finally:
            await page.close()
        return Success({**facts, "browser": browser})

    return await then(session, drive)


async def _connect(effect: RunScenario, secrets: Mapping[str, str]) -> Result[dict[str, Any], ReaError]:
    chosen = effect.args["browser"]
    parsed = parse_endpoint(chosen["cdp_endpoint"], argument="browser.cdp_endpoint")

    async def attached(endpoint: Endpoint) -> Result[dict[str, Any], ReaError]:
        async def on_target(browser: dict[str, Any]) -> Result[dict[str, Any], ReaError]:
            session = await cdp.attach(endpoint, chosen["target_id"], effect.operation)
            return await _scenario(session, effect, secrets, browser)

        return await then(await _browser(endpoint, effect.operation, "connect"), on_target)

    return await then(parsed, attached)


async def run_scenario(effect: RunScenario, progress: Progress) -> Result[Any, ReaError]:
    if effect.operation == "capture_electron_scenario":
        from effects.web.electron_scenario import run_electron

        return await run_electron(effect)

    def by_mode(secrets: dict[str, str]) -> Awaitable[Result[dict[str, Any], ReaError]]:
        return (
            _launch(effect, secrets, progress)
            if effect.args["browser"]["mode"] == "launch"
            else _connect(effect, secrets)
        )

    return await then(_secrets(effect.args), by_mode)


HANDLERS = {RunScenario: run_scenario}
