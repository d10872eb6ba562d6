"""`rea reconcile-javascript-runtime`: written by hand because it reads its captures from files and analyses each
static layer before the call. The other runtime commands (recover-javascript-sources, list-javascript-runtime-targets,
observe-javascript-runtime, list-electron-targets, inspect-electron-page) are declared on their catalog rows
(rea.javascript.contract.runtime)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping, Sequence
from typing import Any, NoReturn

from returns.result import Failure, Result, Success

from effects.commands import ToolCommand, json_object_input
from rea.errors import ReaError, invalid_request
from rea.program import Refused, must, refuse


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
)
