"""`rea analyze-web-bundle ENDPOINT TARGET`: JSON (`--json`) or readable text."""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from typing import Any

from effects.commands import ToolCommand
from effects.web.cli import _base, _browser, _head, _tail


def _configure_bundle(parser: argparse.ArgumentParser) -> None:
    _browser(parser, True)
    parser.add_argument("--observation-ms", type=int, default=None, help="attach window (default 500)")
    parser.add_argument(
        "--fetch-source-maps", action="store_true", help="fetch declared source maps from the allowed origins"
    )
    parser.add_argument("--max-findings", type=int, default=None, help="findings kept (default 1000)")


def _bundle_steps(ns: argparse.Namespace) -> Sequence[tuple[str, Mapping[str, Any]]]:
    args = _base(ns)
    if ns.observation_ms is not None:
        args["observation_ms"] = ns.observation_ms
    if ns.fetch_source_maps:
        args |= {"fetch_source_maps": True, "source_map_fetch_approved": True}
    if ns.max_findings is not None:
        args["analysis_limits"] = {"max_findings": ns.max_findings}
    return [("analyze_web_bundle", args)]


def _render_bundle(value: Mapping[str, Any]) -> str:
    r = value["normalized_result"]
    o = r["observations"]
    c = r["completeness"]
    lines = _head(value) + [
        f"  {r['capture']['target_url']}: {r['capture']['scripts_analyzed']}/{r['capture']['scripts_observed']} "
        f"scripts analyzed, completeness {c['status']} ({c['parse_failures']} parse failure(s))",
    ]
    lines += [f"  chunk {n['url']} ({n['bytes']} bytes)" for n in o["chunks"]["nodes"]]
    lines += [f"  edge {e['kind']} {e['specifier']} -> {e['resolved_url']}" for e in o["chunks"]["edges"]]
    lines += [f"  route {f['value']} ({f['mechanism']})" for f in o["routes"]]
    lines += [f"  endpoint {f['value']} ({f['mechanism']})" for f in o["endpoints"]]
    lines += [f"  webmcp {d['name']} {d['schema_property_names']} ({d['trust']})" for d in o["webmcp_declarations"]]
    lines += [f"  {i['kind']} {i['value']} ({i['confidence']})" for i in r["inferences"]]
    maps = o["source_maps"]
    lines.append(f"  source maps {maps['status']}: {maps['processed']}/{maps['requested']} processed")
    lines += [f"  map {m['declared_url']} {m['status']}, {len(m['original_sources'])} source(s)" for m in maps["items"]]
    return "\n".join(lines + _tail(value))


COMMANDS: tuple[ToolCommand, ...] = (
    ToolCommand(
        name="analyze-web-bundle",
        help="capture a page's scripts passively and parse them: chunk graph, routes, endpoints, fingerprints",
        configure=_configure_bundle,
        steps=_bundle_steps,
        render=_render_bundle,
    ),
)
