"""Program of capture_browser_scenario: policy first, then one owned (or connected) run.

Every destination, id and secret reference is checked before a browser exists; the runner
answers redacted facts; the pure core classifies completeness. The capture is Evidence with
no file subject (a live run has no digest to pin), the browser its provider.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from returns.pipeline import is_successful
from returns.result import Failure

from rea.effect_types import Program, ToolProgram
from rea.evidence import Provider, create_evidence
from rea.program import Context, ReportProgress, failed, recorded
from rea.session import Session
from rea.web.scenario import capture_result, scenario_origins
from rea.web.scenario_effects import RunScenario


def scenario_program(operation: str) -> ToolProgram:
    """capture_browser_scenario's program (capture_electron_scenario runs the same one over Electron)."""

    def program(session: Session, args: Mapping[str, Any], ctx: Context) -> Program:
        origins = scenario_origins(args)
        if isinstance(origins, Failure):
            return failed(session, origins.failure())
        yield ReportProgress(phase="running scenario", message=f"{len(args['actions'])} action(s)")
        raw = yield RunScenario(operation=operation, args=dict(args), origins=origins.unwrap())
        if not is_successful(raw):
            return failed(session, raw.failure())
        facts = raw.unwrap()
        result = capture_result(args, origins.unwrap(), facts)
        return recorded(
            session,
            create_evidence(
                provider=Provider(
                    id="chromium-cdp", name="Chrome DevTools Protocol", version=facts["browser"]["version"]
                ),
                operation=operation,
                parameters=dict(args),
                normalized_result=result,
                subject=None,
                confidence="observed",
                authority="external-service",
                limitations=result["limitations"],
            ),
        )

    return program


PROGRAMS: Mapping[str, ToolProgram] = {"capture_browser_scenario": scenario_program("capture_browser_scenario")}
