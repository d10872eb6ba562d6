"""`rea analyze-web-bundle ENDPOINT TARGET`: JSON (`--json`) or readable text."""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping, Sequence
from typing import Any

from effects.commands import ToolCommand
from rea.web.browser_text import footer, header


def _browser(parser: argparse.ArgumentParser, target: bool) -> None:
    parser.add_argument("cdp_endpoint", help="loopback DevTools endpoint, e.g. http://127.0.0.1:9222")
    if target:
        parser.add_argument("target_id", help="page target id (rea list-browser-targets)")
    parser.add_argument("--origin", action="append", default=[], help="allowed exact origin (repeatable)")


def _base(ns: argparse.Namespace) -> dict[str, Any]:
    args: dict[str, Any] = {"cdp_endpoint": ns.cdp_endpoint, "allowed_origins": list(ns.origin)}
    if getattr(ns, "target_id", None) is not None:
        args["target_id"] = ns.target_id
    return args


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
    lines = header(value) + [
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
    return "\n".join(lines + footer(value))


def _configure_location(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("manifest_path", help="export_web_scripts manifest.json")
    parser.add_argument("script_index", type=int, help="index in manifest.scripts")
    parser.add_argument("map_path", help="local source map")
    parser.add_argument("map_url", help="the map's URL (resolves original source names)")
    parser.add_argument("line", type=int, help="one-based generated line")
    parser.add_argument("column", type=int, help="zero-based UTF-16 generated column")


def _location_steps(ns: argparse.Namespace) -> Sequence[tuple[str, Mapping[str, Any]]]:
    return [
        (
            "trace_web_source_location",
            {
                "manifest_path": os.path.abspath(ns.manifest_path),
                "script_index": ns.script_index,
                "source_map": {"path": os.path.abspath(ns.map_path), "url": ns.map_url},
                "generated_position": {"line": ns.line, "column": ns.column},
            },
        )
    ]


def _render_location(value: Mapping[str, Any]) -> str:
    r = value["normalized_result"]
    got = r["lookup"]["matched_generated_position"]
    lines = header(value) + [
        f"  {r['source']['script']['url']} {r['lookup']['requested']['line']}:{r['lookup']['requested']['column']} "
        f"-> matched {got['line']}:{got['column']}"
        if got
        else "  no mapping at or before the position"
    ]
    for m in r["matches"]:
        if m["state"] == "mapped":
            o = m["original_position"]
            lines.append(f"  {m['resolved_url']}:{o['line']}:{o['column']} {m['name'] or ''} ({o['content_position']})")
        else:
            lines.append("  generated-only segment")
    return "\n".join(lines + footer(value))


def _configure_imports(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("manifest_path", help="export_web_scripts manifest.json")
    parser.add_argument("script_index", type=int, help="index in manifest.scripts")
    parser.add_argument("--importer-url", default=None, help="the module's URL (default: its reported URL)")
    parser.add_argument("--import-map", default=None, help="local import-map JSON")
    parser.add_argument("--import-map-base", default=None, help="the import map's base URL")


def _imports_steps(ns: argparse.Namespace) -> Sequence[tuple[str, Mapping[str, Any]]]:
    args: dict[str, Any] = {"manifest_path": os.path.abspath(ns.manifest_path), "script_index": ns.script_index}
    if ns.importer_url:
        args["importer_url"] = ns.importer_url
    if ns.import_map:
        args["import_map"] = {"path": os.path.abspath(ns.import_map), "base_url": ns.import_map_base or ""}
    return [("trace_web_module_imports", args)]


def _render_imports(value: Mapping[str, Any]) -> str:
    r = value["normalized_result"]
    lines = header(value) + [f"  {r['importer']['url']} ({r['importer']['basis']}), parser {r['parser']['state']}"]
    for i in r["imports"]:
        res = i["resolution"]
        where = res.get("url") or res.get("message") or res.get("reason")
        lines.append(
            f"  {i['start']['line']}:{i['start']['column']} {i['kind']} {i['specifier'] or i['expression']} -> "
            f"{res['state']} {where} ({len(i['captured_candidates'])} captured)"
        )
    return "\n".join(lines + footer(value))


COMMANDS: tuple[ToolCommand, ...] = (
    ToolCommand(
        name="analyze-web-bundle",
        help="capture a page's scripts passively and parse them: chunk graph, routes, endpoints, fingerprints",
        configure=_configure_bundle,
        steps=_bundle_steps,
        render=_render_bundle,
    ),
    ToolCommand(
        name="trace-web-source-location",
        help="trace a generated position of an exported script through a local source map",
        configure=_configure_location,
        steps=_location_steps,
        render=_render_location,
    ),
    ToolCommand(
        name="trace-web-module-imports",
        help="resolve an exported script's ES imports (optionally under an import map) to captured scripts",
        configure=_configure_imports,
        steps=_imports_steps,
        render=_render_imports,
    ),
)
