"""Programs of the web family's script tools.

analyze_web_bundle observes the page exactly as inspect_web_page does (same scope checks, same
passive commands, sources captured), then parses the captured sources and, when approved, fetches
their declared source maps from allowed origins only. The export and the two traces read local
files only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from returns.pipeline import is_successful

from rea.effect_types import Program, ToolProgram
from rea.errors import ReaError, invalid_request
from rea.program import Context, Outcome, ReportProgress, failed
from rea.session import Session
from rea.web.bundle import analysis
from rea.web.inspection import inspection
from rea.web.script_effects import FetchSourceMaps, ParseWebScripts
from rea.web.source_maps import NOT_REQUESTED, requests, source_maps
from rea.workflows.web import PAGE_OPTIONS, _evidence, _inspect_refusal, observe


def _bundle_refusal(args: Mapping[str, Any]) -> ReaError | None:
    limits = args["analysis_limits"]
    if not args["include_script_sources"] or not args["source_capture_approved"]:
        field = "include_script_sources" if not args["include_script_sources"] else "source_capture_approved"
        return invalid_request(
            f"{field} is false: analyze_web_bundle analyzes captured script sources",
            field=field,
            accepted="include_script_sources: true and source_capture_approved: true (the defaults)",
        )
    if args["fetch_source_maps"] != args["source_map_fetch_approved"]:
        return invalid_request(
            "fetch_source_maps and source_map_fetch_approved must agree: fetching source maps needs its own approval",
            field="source_map_fetch_approved",
            accepted="both true (fetch from allowed origins) or both false (the default)",
        )
    if limits["max_source_map_bytes"] > limits["max_total_source_map_bytes"]:
        return invalid_request(
            "analysis_limits.max_source_map_bytes cannot exceed max_total_source_map_bytes",
            field="analysis_limits.max_source_map_bytes",
            accepted=f"at most {limits['max_total_source_map_bytes']}",
        )
    return _inspect_refusal(args)


def analyze_web_bundle(session: Session, args: Mapping[str, Any], ctx: Context) -> Program:
    refusal = _bundle_refusal(args)
    if refusal is not None:
        return failed(session, refusal)
    got = yield from observe(session, args, "analyze_web_bundle", "page", {k: args[k] for k in PAGE_OPTIONS})
    if isinstance(got, Outcome):
        return got
    facts, target, scope, raw = got
    page = inspection(facts["version"], target, facts["targets"], raw, scope, args)
    captured = [s for s in page["scripts"]["items"] if s["source"]["included"]]
    limits = args["analysis_limits"]
    yield ReportProgress(phase="parsing", message=f"{len(captured)} script(s)")
    parsed = yield ParseWebScripts(
        scripts=[{"script_key": s["script_key"], "text": s["source"]["artifact"]["text"]} for s in captured],
        max_ast_nodes=limits["max_ast_nodes"],
    )
    if not is_successful(parsed):
        return failed(session, parsed.failure())
    maps: Mapping[str, Any] = NOT_REQUESTED
    if args["fetch_source_maps"]:
        wanted = requests(captured)
        yield ReportProgress(phase="fetching source maps", message=f"{len(wanted)} declared")
        fetched = yield FetchSourceMaps(
            requests=wanted,
            allowed_origins=tuple(scope),
            max_maps=limits["max_source_maps"],
            max_map_bytes=limits["max_source_map_bytes"],
            max_total_bytes=limits["max_total_source_map_bytes"],
        )
        if not is_successful(fetched):
            return failed(session, fetched.failure())
        maps = source_maps(wanted, fetched.unwrap(), limits)
    result = analysis(page, parsed.unwrap(), maps, limits)
    return _evidence(session, "analyze_web_bundle", args, facts["version"], result)


PROGRAMS: Mapping[str, ToolProgram] = {
    "analyze_web_bundle": analyze_web_bundle,
}
