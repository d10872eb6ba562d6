"""`rea recover-javascript-sources BUNDLE [--output-directory DIR]` and the runtime subcommands."""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping, Sequence
from typing import Any, NoReturn

from returns.result import Failure, Result, Success

from effects.commands import ToolCommand, json_object_input
from rea.errors import ReaError, invalid_request
from rea.program import Refused, must, refuse


def _recover_configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", help="JavaScript bundle (UTF-8); never executed")
    parser.add_argument("--output-directory", default=None, help="absent directory to publish into (default: fresh)")
    parser.add_argument("--extraction-mode", choices=("structural", "heuristic", "inspection"), default=None)
    parser.add_argument("--source-root", default=None, help="tree map sources without content may be read from")


def _recover_steps(ns: argparse.Namespace) -> Sequence[tuple[str, Mapping[str, Any]]]:
    args: dict[str, Any] = {"path": os.path.abspath(ns.path)}
    if ns.output_directory:
        args["output_directory"] = os.path.abspath(ns.output_directory)
    if ns.extraction_mode:
        args["extraction_mode"] = ns.extraction_mode
    if ns.source_root:
        args["source_root"] = os.path.abspath(ns.source_root)
    return [("recover_javascript_sources", args)]


def _recover_render(value: Mapping[str, Any]) -> str:
    r = value["normalized_result"]
    lines = [
        f"{r['source']['path']} -> {r['output_directory']} ({r['status']}, {r['total']} modules, "
        f"{r['failed']} failed; {r['reported_strategy']})"
    ]
    for m in r["modules"]:
        ranges = ", ".join(f"{b['start']}..{b['end']}" for b in m["provenance"]["byte_ranges"][:3])
        lines.append(
            f"  {m['reported_status']:<9} {m['reported_filename']}  [{m['provenance']['extraction']}] {ranges}"
        )
    for w in r["warnings"]:
        lines.append(f"  {'error' if w['is_error'] else 'warning'} {w['kind']}: {w['filename']}: {w['message']}")
    if r["analysis_input"]:
        lines.append(f"  analyze next: rea analyze-javascript-application {r['analysis_input']['input_path']}")
    lines.append(f"  evidence: {value['evidence_id']}")
    return "\n".join(lines)


def _list_configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("endpoint", help="loopback inspector endpoint, e.g. http://127.0.0.1:9229")


def _list_steps(ns: argparse.Namespace) -> Sequence[tuple[str, Mapping[str, Any]]]:
    return [("list_javascript_runtime_targets", {"inspector_endpoint": ns.endpoint})]


def _location(loc: Mapping[str, Any]) -> str:
    return str(loc.get("file_path") or loc.get("sanitized_url") or loc.get("specifier") or loc.get("reported_url"))


def _list_render(value: Mapping[str, Any]) -> str:
    r = value["normalized_result"]
    lines = [f"{r['runtime']['product']} (protocol {r['runtime']['protocol_version']}), {r['total']} targets"]
    for t in r["targets"]:
        lines.append(f"  {t['target_id']}  {t['protocol_type']}  {_location(t['location'])}")
    lines.append(f"  evidence: {value['evidence_id']}")
    return "\n".join(lines)


def _observe_configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("endpoint", help="loopback inspector endpoint, e.g. http://127.0.0.1:9229")
    parser.add_argument("target_id", help="a target id from list-javascript-runtime-targets")
    parser.add_argument("--observation-ms", type=int, default=None)
    parser.add_argument(
        "--runtime-kind", choices=("node", "electron-main", "electron-preload", "electron-renderer"), default=None
    )


def _observe_steps(ns: argparse.Namespace) -> Sequence[tuple[str, Mapping[str, Any]]]:
    args: dict[str, Any] = {"inspector_endpoint": ns.endpoint, "target_id": ns.target_id}
    if ns.observation_ms is not None:
        args["observation_ms"] = ns.observation_ms
    if ns.runtime_kind:
        args["runtime_kind"] = ns.runtime_kind
    return [("observe_javascript_runtime", args)]


def _observe_render(value: Mapping[str, Any]) -> str:
    r = value["normalized_result"]
    c = r["capture"]
    lines = [
        f"{r['runtime']['product']} target {r['target']['target_id']}: {c['status']}"
        f"{' (runtime exited)' if c['runtime_exited'] else ''}, {len(r['scripts']['items'])} scripts, "
        f"{len(r['execution_contexts'])} contexts in {c['elapsed_ms']} ms"
    ]
    lines += [f"  module {path}" for path in r["modules_loaded"]]
    lines += [f"  console.{e['level']}: {e['text']}" for e in r["console"]]
    lines += [f"  exception: {e['text']}" for e in r["exceptions"]]
    lines += [f"  unknown: {u}" for u in r["unknowns"]]
    lines.append(f"  evidence: {value['evidence_id']}")
    return "\n".join(lines)


def _electron_list_configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("endpoint", help="loopback CDP endpoint of the Electron app, e.g. http://127.0.0.1:9223")


def _electron_list_steps(ns: argparse.Namespace) -> Sequence[tuple[str, Mapping[str, Any]]]:
    return [("list_electron_targets", {"cdp_endpoint": ns.endpoint})]


def _electron_list_render(value: Mapping[str, Any]) -> str:
    r = value["normalized_result"]
    lines = [f"{r['browser']['product']}: {len(r['targets'])} file pages, excluded {r['excluded']}"]
    lines += [f"  {t['target_id']}  {t['file_path']}  {t['title']!r}" for t in r["targets"]]
    lines.append(f"  evidence: {value['evidence_id']}")
    return "\n".join(lines)


def _electron_inspect_configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("endpoint", help="loopback CDP endpoint of the Electron app")
    parser.add_argument("target_id", help="a target id from list-electron-targets")
    parser.add_argument("--observation-ms", type=int, default=None)
    parser.add_argument("--include-script-sources", action="store_true")


def _electron_inspect_steps(ns: argparse.Namespace) -> Sequence[tuple[str, Mapping[str, Any]]]:
    args: dict[str, Any] = {"cdp_endpoint": ns.endpoint, "target_id": ns.target_id}
    if ns.observation_ms is not None:
        args["observation_ms"] = ns.observation_ms
    if ns.include_script_sources:
        args["include_script_sources"] = True
    return [("inspect_electron_page", args)]


def _electron_inspect_render(value: Mapping[str, Any]) -> str:
    r = value["normalized_result"]
    lines = [
        f"{r['target']['file_path']} ({r['completeness']['status']}): {len(r['frames'])} frames, "
        f"{r['dom']['total_nodes']} DOM nodes, {r['scripts']['total']} scripts, {len(r['resources'])} resources"
    ]
    lines += [f"  script {s['file_path']} ({s['length']} chars)" for s in r["scripts"]["items"]]
    lines += [f"  resource {x['type']} {x['file_path']}" for x in r["resources"]]
    lines.append(f"  evidence: {value['evidence_id']}")
    return "\n".join(lines)


def _reconcile_configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "input",
        nargs="?",
        help="the tool's arguments as a JSON file or inline JSON (static_layers, runtime_observations, limits); "
        "or leave it out and give --application and --runtime-evidence",
    )
    parser.add_argument("--application", help="application directory or .asar, analyzed first as the application layer")
    parser.add_argument("--cache", action="append", default=[], help="a cache layer to analyze (repeatable)")
    parser.add_argument("--assets", action="append", default=[], help="an assets layer to analyze (repeatable)")
    parser.add_argument(
        "--runtime-evidence",
        action="append",
        default=[],
        help="a saved capture's Evidence JSON (rea inspect-electron-page --json > FILE); repeatable",
    )
    parser.add_argument(
        "--mapping",
        action="append",
        default=[],
        help="a runtime mapping as JSON with its layer index (0: the application, then caches, then assets), e.g. "
        '\'{"layer":0,"kind":"file-root","root":"/opt/app","artifact_prefix":""}\'',
    )


RECONCILE_ACCEPTED = "INPUT (JSON file or inline), or --application DIR with --runtime-evidence FILE"


def _refuse(message: str, option: str) -> NoReturn:
    refuse(invalid_request(f"reconcile-javascript-runtime: {message}", field=option, accepted=RECONCILE_ACCEPTED))


def _json_argument(text: str, option: str, what: str) -> dict[str, Any]:
    return must(json_object_input(text, field=option, accepted=RECONCILE_ACCEPTED, what=what))


def _layers(ns: argparse.Namespace) -> list[tuple[str, str]]:
    if not ns.application:
        _refuse("give INPUT, or --application with --runtime-evidence", "application")
    paths = [("application", ns.application), *(("cache", p) for p in ns.cache), *(("assets", p) for p in ns.assets)]
    return [(role, os.path.abspath(p)) for role, p in paths]


def _reconcile_steps(ns: argparse.Namespace) -> Result[Sequence[tuple[str, Any]], ReaError]:
    """The calls to make, or the first argument that cannot be read (each reader refuses with must/refuse)."""
    try:
        return Success(_reconcile_plan(ns))
    except Refused as exc:
        return Failure(exc.error)


def _reconcile_plan(ns: argparse.Namespace) -> Sequence[tuple[str, Any]]:
    if ns.input:
        return [("reconcile_javascript_runtime", _json_argument(ns.input, "input", "INPUT"))]
    layers = _layers(ns)
    if not ns.runtime_evidence:
        _refuse("give at least one --runtime-evidence FILE", "runtime_evidence")
    captures = [_json_argument(p, "runtime_evidence", f"--runtime-evidence {p}") for p in ns.runtime_evidence]
    mappings: list[list[Any]] = [[] for _ in layers]
    for text in ns.mapping:
        m = _json_argument(text, "mapping", "--mapping")
        index = m.pop("layer", 0)
        if not isinstance(index, int) or not 0 <= index < len(layers):
            _refuse(f"--mapping {text}: layer must be an index below {len(layers)}", "mapping")
        mappings[index].append(m)

    def arguments(replies: list[Any]) -> Mapping[str, Any]:
        static = [
            {
                "role": role,
                "analysis": {"kind": "retained-evidence", "evidence_id": reply["evidence_id"]},
                "runtime_mappings": maps,
            }  # fmt: skip
            for (role, _), reply, maps in zip(layers, replies, mappings, strict=True)
        ]
        return {"static_layers": static, "runtime_observations": captures}

    analyses = [("analyze_javascript_application", {"input_path": path}) for _, path in layers]
    return [*analyses, ("reconcile_javascript_runtime", arguments)]


def _reconcile_render(value: Mapping[str, Any]) -> str:
    r = value["normalized_result"]
    s, c = r["summary"], r["coverage"]
    labels = {n["node_id"]: n.get("label") or n["node_id"] for n in r["graph"]["nodes"]}
    lines = [
        f"{s['runtime_targets']} targets, {s['runtime_frames']} frames, {s['runtime_scripts']} scripts, "
        f"{s['runtime_workers']} workers: {s['matched']} matched, {s['ambiguous']} ambiguous, "
        f"{s['unmatched']} unmatched, {s['unknown']} unknown ({c['status']})",
        f"static: {s['static_loaded']} loaded, {s['static_resident']} resident in a loaded file, "
        f"{s['static_not_observed']} not observed in these captures, {s['static_unknown']} unknown",
    ]
    for i in r["reconciliations"]:
        static = f" -> {labels.get(i['static_node_id'], i['static_node_id'])}" if i["static_node_id"] else ""
        lines.append(
            f"  {i['entity_kind']:<6} {i['status']:<9} {labels.get(i['runtime_node_id'], '')}{static}  "
            f"[{i['basis']}, {i['confidence']}: {i['reason']}]"
        )
    lines += [f"  {x['status']:<24} {x.get('path') or x['static_node_id']}" for x in r["static_load_states"]]
    lines.append(f"  evidence: {value['evidence_id']}")
    return "\n".join(lines)


COMMANDS: tuple[ToolCommand, ...] = (
    ToolCommand(
        name="reconcile-javascript-runtime",
        help="match passive runtime captures to static application layers: which files a page or process loaded",
        configure=_reconcile_configure,
        steps=_reconcile_steps,
        render=_reconcile_render,
    ),
    ToolCommand(
        name="list-electron-targets",
        help="list an Electron app's file:// pages over its loopback CDP endpoint",
        configure=_electron_list_configure,
        steps=_electron_list_steps,
        render=_electron_list_render,
    ),
    ToolCommand(
        name="inspect-electron-page",
        help="passively inspect one Electron file page: frames, DOM structure, scripts, resources",
        configure=_electron_inspect_configure,
        steps=_electron_inspect_steps,
        render=_electron_inspect_render,
    ),
    ToolCommand(
        name="list-javascript-runtime-targets",
        help="list the targets of a loopback V8 inspector endpoint (node --inspect)",
        configure=_list_configure,
        steps=_list_steps,
        render=_list_render,
    ),
    ToolCommand(
        name="observe-javascript-runtime",
        help="listen to one inspector target: scripts parsed, contexts, console and exceptions (never evaluates)",
        configure=_observe_configure,
        steps=_observe_steps,
        render=_observe_render,
    ),
    ToolCommand(
        name="recover-javascript-sources",
        help="write a bundle's original sources (source map) and its bundled modules into a fresh directory",
        configure=_recover_configure,
        steps=_recover_steps,
        render=_recover_render,
    ),
)
