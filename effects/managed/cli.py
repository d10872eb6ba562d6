"""The managed commands that make several calls (compare, verify, project, import a reconstruction); the three
inspections, one call each, are declared on their catalog rows (rea.managed.contract)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping, Sequence
from typing import Any

from returns.result import Result

from effects.artifacts.commands import read_json_file
from effects.commands import ToolCommand
from rea.errors import ReaError


def _configure_compare(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("left", help="older build (.dll or .exe)")
    parser.add_argument("right", help="newer build")
    parser.add_argument("--max-method-matches", type=int, default=None, help="method items returned")


def _compare_steps(ns: argparse.Namespace) -> Sequence[tuple[str, Any]]:
    limits = {"max_method_matches": ns.max_method_matches} if ns.max_method_matches else {}

    def compare(earlier: list[Any]) -> Mapping[str, Any]:
        ids = [reply["evidence_id"] for reply in earlier]
        return {"left_evidence_id": ids[0], "right_evidence_id": ids[1], **({"limits": limits} if limits else {})}

    return [
        ("inspect_managed_members", {"path": os.path.abspath(ns.left)}),
        ("inspect_managed_members", {"path": os.path.abspath(ns.right)}),
        ("compare_managed_members", compare),
    ]


def render_comparison(value: Mapping[str, Any]) -> str:
    r = value["normalized_result"]
    lines = [f"compare_managed_members {value['evidence_id']}", f"  summary {r['summary']}",
             f"  coverage {r['coverage']['status']}"]  # fmt: skip
    for item in r["methods"]:
        if item["status"] != "unchanged":
            side = item["right"] or item["left"] or {}
            where = f"{side.get('declaring_type')}::{side.get('name')}" if side else "ambiguous"
            lines.append(f"  {item['status']:<9} {where} {','.join(item['dimensions'])}")
    return "\n".join(lines)


def _configure_verify(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("assembly", help="managed PE/CLI file (.dll or .exe) declaring P/Invoke imports")
    parser.add_argument("native", nargs="+", help="native libraries (ELF .so) whose exports are checked")


def _verify_steps(ns: argparse.Namespace) -> Sequence[tuple[str, Any]]:
    def verify(earlier: list[Any]) -> Mapping[str, Any]:
        ids = [reply["evidence_id"] for reply in earlier]
        return {"managed_boundaries_evidence_id": ids[0], "native_observation_evidence_ids": ids[1:]}

    natives = [("inspect_binary_layout", {"path": os.path.abspath(path)}) for path in ns.native]
    return [("inspect_managed_native_boundaries", {"path": os.path.abspath(ns.assembly)}), *natives,
            ("verify_managed_native_boundaries", verify)]  # fmt: skip


def render_verification(value: Mapping[str, Any]) -> str:
    r = value["normalized_result"]
    lines = [f"verify_managed_native_boundaries {value['evidence_id']}", f"  summary {r['summary']}",
             f"  coverage {r['coverage']['status']}"]  # fmt: skip
    for item in r["pinvoke_imports"]:
        m, native = item["managed"], item["matched_native"] or {}
        where = f" -> {native.get('name')} @ {native.get('address')} in {native.get('module_name')}" if native else ""
        lines.append(f"  {item['status']:<12} {m['import_scope_name']}!{m['import_name']}{where}")
    return "\n".join(lines)


def _configure_graph(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", help="managed PE/CLI file (.dll or .exe)")


def _graph_steps(ns: argparse.Namespace) -> Sequence[tuple[str, Any]]:
    """open_binary, the three inspections and the inventory of the open target, then the projection."""

    def project(earlier: list[Any]) -> Mapping[str, Any]:
        names = ("managed_artifact_evidence_id", "managed_members_evidence_id",
                 "managed_native_boundaries_evidence_id", "inventory_evidence_id")  # fmt: skip
        return {name: reply["evidence_id"] for name, reply in zip(names, earlier[1:], strict=True)}

    inspections = ("inspect_managed_artifact", "inspect_managed_members", "inspect_managed_native_boundaries")
    return [("open_binary", {"path": os.path.abspath(ns.path)}), *((tool, {}) for tool in inspections),
            ("inventory_artifact", {}), ("project_managed_application_graph", project)]  # fmt: skip


def render_graph(value: Mapping[str, Any]) -> str:
    r = value["normalized_result"]
    lines = [f"project_managed_application_graph {value['evidence_id']}", f"  summary {r['summary']}",
             f"  coverage {r['coverage']['status']}"]  # fmt: skip
    by_id = {n["node_id"]: n for n in r["graph"]["nodes"]}
    for edge in r["graph"]["edges"]:
        if edge["relation"] != "contains":
            lines.append(f"  {by_id[edge['source_node_id']]['label']} -{edge['kind']}-> "
                         f"{by_id[edge['target_node_id']]['label']}")  # fmt: skip
    return "\n".join(lines)


def _configure_reconstruction(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", help="managed PE/CLI file (.dll or .exe) the decompiler read")
    parser.add_argument("reconstruction", help="JSON file: {decompiler, methods, notes} as the tool takes them")


def _reconstruction_steps(ns: argparse.Namespace) -> Result[Sequence[tuple[str, Any]], ReaError]:
    accepted = "a JSON object {decompiler, methods, notes} (import_managed_reconstruction without its evidence id)"
    body = read_json_file(ns.reconstruction, "reconstruction", accepted)
    return body.map(lambda found: _reconstruction_calls(ns, found))


def _reconstruction_calls(ns: argparse.Namespace, body: Any) -> Sequence[tuple[str, Any]]:
    """inspect_managed_members, then the import locked to that Evidence (its id is known only after it)."""

    def lock(earlier: list[Any]) -> Mapping[str, Any]:
        return {**body, "static_members_evidence_id": earlier[0]["evidence_id"]}

    return [("inspect_managed_members", {"path": os.path.abspath(ns.path)}), ("import_managed_reconstruction", lock)]


def render_reconstruction(value: Mapping[str, Any]) -> str:
    r = value["normalized_result"]
    lines = [f"import_managed_reconstruction {value['evidence_id']} ({value['confidence']})",
             f"  summary {r['summary']}"]  # fmt: skip
    for m in r["methods"]:
        lines.append(f"  {m['token']} {m['declaring_type']}::{m['name']} {m['reconstruction']['kind']} "
                     f"text {m['reconstruction']['text_sha256'][:16]}")  # fmt: skip
    return "\n".join(lines)


COMMANDS: tuple[ToolCommand, ...] = (
    ToolCommand(
        name="compare-managed-members",
        help="members of two .NET builds compared (LEFT RIGHT: two assemblies)",
        configure=_configure_compare,
        steps=_compare_steps,
        render=render_comparison,
    ),
    ToolCommand(
        name="verify-managed-native-boundaries",
        help="P/Invoke imports of a .NET assembly checked against native libraries' exports (ASSEMBLY NATIVE...)",
        configure=_configure_verify,
        steps=_verify_steps,
        render=render_verification,
    ),
    ToolCommand(
        name="project-managed-application-graph",
        help="a .NET assembly's identity, references, members and native boundaries as one application graph",
        configure=_configure_graph,
        steps=_graph_steps,
        render=render_graph,
    ),
    ToolCommand(
        name="import-managed-reconstruction",
        help="decompiler output locked to a .NET assembly's methods (PATH RECONSTRUCTION.json)",
        configure=_configure_reconstruction,
        steps=_reconstruction_steps,
        render=render_reconstruction,
    ),
)
