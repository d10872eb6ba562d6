"""`rea` subcommands of the artifact graph family (open_binary, then the tool, on one connection)."""

from __future__ import annotations

import argparse
import os
from typing import Any
from collections.abc import Mapping, Sequence

import orjson

from effects.commands import ToolCommand
from rea.artifacts.model import INTEGRITY_POLICIES, LIMIT_BOUNDS
from rea.errors import ReaError, invalid_request

MAX_EVIDENCE_FILE = 512 << 20


def _limits(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--integrity-policy",
        choices=INTEGRITY_POLICIES,
        default=None,
        help="fail (default) or record-and-continue past ASAR integrity mismatches",
    )
    for name, (_lo, _hi, default) in LIMIT_BOUNDS.items():
        parser.add_argument(
            "--" + name.replace("_", "-"),
            type=float if name == "max_compression_ratio" else int,
            default=None,
            help=f"{name} (default {default})",
        )
    parser.add_argument(
        "--max-integrity-mismatches",
        type=int,
        default=None,
        help="with record-and-continue, fail (truncated) past this many contradictions (default: no cap)",
    )


def _settings(ns: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if ns.integrity_policy:
        out["integrity_policy"] = ns.integrity_policy
    for name in (*LIMIT_BOUNDS, "max_integrity_mismatches"):
        value = getattr(ns, name)
        if value is not None:
            out[name] = value
    return out


def _open(ns: argparse.Namespace) -> tuple[str, Mapping[str, Any]]:
    return ("open_binary", {"path": os.path.abspath(ns.path)})


def _render_evidence(value: Mapping[str, Any]) -> str:
    result = value.get("normalized_result") or {}
    lines = [f"{value['operation']} {value['evidence_id']}"]
    inv = _inventory_of(result) if isinstance(result, dict) else {}
    manifest = inv.get("manifest") if isinstance(inv, dict) else None
    if manifest:
        cov = inv["coverage"]
        lines.append(f"  manifest {manifest['manifest_id']}  root {manifest['root_format']} {manifest['root_sha256']}")
        lines.append(
            f"  {manifest['node_count']} nodes, {manifest['occurrence_count']} occurrences, "
            f"{manifest['edge_count']} edges, {manifest['integrity_contradiction_count']} contradictions; "
            f"coverage {cov['scope']}/{cov['status']}"
        )
        for occ in inv["occurrences"]["items"][:200]:
            lines.append(f"  {occ['entry_kind']:<9} {occ['hash_status']:<16} {occ['logical_path']}")
    if "status" in result and "changes" in result:
        lines.append(f"  status {result['status']}  summary {orjson.dumps(result['summary']).decode()}")
        for change in result["changes"]:
            lines.append(f"  {change['classification']:<13} {change['logical_path']} {','.join(change['dimensions'])}")
    if "output_root" in result:
        lines.append(f"  output_root {result['output_root']}")
        for f in result["artifacts"]:
            lines.append(f"  {f['sha256']}  {f['relative_path']}")
    for text in value.get("limitations", []):
        lines.append(f"  limitation: {text}")
    return "\n".join(lines)


def _inventory_of(result: Mapping[str, Any]) -> Any:
    """The inventory an inspection carries in substeps[0].evidence, or the result itself."""
    substeps = result.get("substeps")
    return substeps[0]["evidence"]["normalized_result"] if substeps else result


def _configure_path(extra: Any = None):
    def configure(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("path", help="archive, package or directory")
        _limits(parser)
        if extra:
            extra(parser)

    return configure


def _inspect_steps(ns: argparse.Namespace) -> Sequence[tuple[str, Mapping[str, Any]]]:
    args = _settings(ns)
    if ns.detail:
        args["detail"] = ns.detail
    return [_open(ns), ("inspect_artifact", args)]


def _inventory_steps(ns: argparse.Namespace) -> Sequence[tuple[str, Mapping[str, Any]]]:
    args = _settings(ns)
    for section in ("node", "occurrence", "edge"):
        for part in ("offset", "limit"):
            value = getattr(ns, f"{section}_{part}")
            if value is not None:
                args[f"{section}_{part}"] = value
    return [_open(ns), ("inventory_artifact", args)]


def _extract_steps(ns: argparse.Namespace) -> Sequence[tuple[str, Mapping[str, Any]]]:
    selector = {"occurrence_ids": list(ns.occurrence_ids)} if ns.occurrence_ids else {}
    return [_open(ns), ("extract_artifact", {**selector, **_settings(ns)})]


def read_json_file(
    path: str, field: str, accepted: str = "a JSON file holding inspect_artifact or inventory_artifact Evidence"
) -> Any:
    """The JSON value of a local file the command line names, or invalid_request naming the argument."""
    try:
        if os.path.getsize(path) > MAX_EVIDENCE_FILE:
            return invalid_request(f"{path} is larger than {MAX_EVIDENCE_FILE} bytes", field=field)
        with open(path, "rb") as handle:
            value = orjson.loads(handle.read())
    except OSError as exc:
        return invalid_request(
            f"{path} cannot be read: {exc.strerror or exc}",
            field=field,
            accepted=accepted,
        )
    except orjson.JSONDecodeError as exc:
        return invalid_request(f"{path} is not JSON: {exc}", field=field)
    return value


def _compare_steps(ns: argparse.Namespace) -> Sequence[tuple[str, Mapping[str, Any]]] | ReaError:
    sides = {}
    for field in ("left", "right"):
        value = read_json_file(getattr(ns, field), field)
        if isinstance(value, ReaError):
            return value
        sides[field] = value
    args: dict[str, Any] = dict(sides)
    if ns.offset is not None:
        args["offset"] = ns.offset
    if ns.limit is not None:
        args["limit"] = ns.limit
    return [("compare_artifacts", args)]


def _configure_inspect(parser: argparse.ArgumentParser) -> None:
    _configure_path(lambda p: p.add_argument("--detail", choices=("complete", "summary"), default=None))(parser)


def _configure_inventory(parser: argparse.ArgumentParser) -> None:
    def extra(p: argparse.ArgumentParser) -> None:
        for section in ("node", "occurrence", "edge"):
            p.add_argument(f"--{section}-offset", type=int, default=None)
            p.add_argument(f"--{section}-limit", type=int, default=None)

    _configure_path(extra)(parser)


def _configure_extract(parser: argparse.ArgumentParser) -> None:
    _configure_path(
        lambda p: p.add_argument(
            "occurrence_ids",
            nargs="*",
            metavar="OCC_ID",
            help="occurrence ids from inventory-artifact (default: every regular file)",
        )
    )(parser)


def _configure_compare(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("left", help="LEFT.json: inspect_artifact/inventory_artifact Evidence, or an array of pages")
    parser.add_argument("right", help="RIGHT.json")
    parser.add_argument("--offset", type=int, default=None)
    parser.add_argument("--limit", type=int, default=None)


COMMANDS: tuple[ToolCommand, ...] = (
    ToolCommand(
        name="inspect-artifact",
        help="inventory an archive, package or directory (inspect_artifact)",
        configure=_configure_inspect,
        steps=_inspect_steps,
        render=_render_evidence,
    ),
    ToolCommand(
        name="inventory-artifact",
        help="one page of the artifact graph (inventory_artifact)",
        configure=_configure_inventory,
        steps=_inventory_steps,
        render=_render_evidence,
    ),
    ToolCommand(
        name="extract-artifact",
        help="materialize every regular file (or the given occurrences) into a fresh temporary directory",
        configure=_configure_extract,
        steps=_extract_steps,
        render=_render_evidence,
    ),
    ToolCommand(
        name="compare-artifacts",
        help="compare two inventory Evidence files (LEFT.json RIGHT.json)",
        configure=_configure_compare,
        steps=_compare_steps,
        render=_render_evidence,
    ),
)
