"""`rea inspect-web-network-capture CAPTURE --capture-format har|mitmproxy` (compare-web-screenshots is declared on its
catalog row, rea.web_network.contract)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from effects.commands import ToolCommand

Step = tuple[str, Mapping[str, Any] | Callable[[list[Any]], Mapping[str, Any]]]


def _configure_capture(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("capture_path", help="HAR file or mitmproxy flow dump")
    parser.add_argument("--capture-format", dest="capture_format", choices=("har", "mitmproxy"), required=True)
    parser.add_argument("--record", type=int, action="append", default=[], help="record ordinal (repeatable)")
    parser.add_argument("--sensitive", action="append", default=[], help="literal value to exclude (repeatable)")
    parser.add_argument(
        "--summary", action="store_true", help="detail summary: counts, first rows, redaction index (large captures)"
    )
    parser.add_argument("--api-surface", action="store_true", help="then answer the api-surface view of it")
    parser.add_argument("--offset", type=int, default=0, help="api-surface page offset")
    parser.add_argument("--limit", type=int, default=64, help="api-surface page size")


def _capture_steps(ns: argparse.Namespace) -> Sequence[Step]:
    args: dict[str, Any] = {"capture_path": os.path.abspath(ns.capture_path), "format": ns.capture_format}
    if ns.record:
        args["record_ordinals"] = ns.record
    if ns.sensitive:
        args["sensitive_values"] = ns.sensitive
    if ns.summary:
        args["detail"] = "summary"
    steps: list[Step] = [("inspect_web_network_capture", args)]
    if ns.api_surface:
        view = {"kind": "api-surface", "offset": ns.offset, "limit": ns.limit}
        steps.append(
            (
                "inspect_analysis_view",
                lambda replies: {
                    "source": {
                        "kind": "retained-evidence",
                        "evidence_id": replies[0]["normalized_result"].get("parent_evidence_id")
                        or replies[0]["evidence_id"],
                    },
                    "view": view,
                },
            )
        )
    return steps


def _render_capture(value: Mapping[str, Any]) -> str:
    r = value.get("normalized_result") or {}
    lines = [f"{value['operation']} {value['evidence_id']}"]
    if "records" in r:
        lines.append(
            f"  {r['format']} {r['artifact']['path']} {r['artifact']['bytes']} bytes, {r['total_records']} records"
        )
        for rec in r["records"]:
            request = rec["reported"].get("request") or {}
            target = request.get("url") or f"{request.get('host')}{request.get('path')}"
            lines.append(
                f"  #{rec['ordinal']} {request.get('method')} {target} "
                f"({len(rec['binary_fields'])} binary, {len(rec['redactions'])} redacted)"
            )
    summary = r.get("summary") or {}
    if "first_records" in summary:
        lines.append(
            f"  {summary['format']} {summary['capture']['path']} {summary['capture']['bytes']} bytes, "
            f"{summary['total_records']} records, {summary['redaction_index']['total_redactions']} redactions"
        )
        lines.extend(
            f"  #{row['ordinal']} {row['method']} {row['url']} {row['status']}" for row in summary["first_records"]
        )
        for entry in summary["redaction_index"]["entries"]:
            where = f"{entry['location']} {entry['url_component'] or ''} {entry['parameter'] or ''}".rstrip()
            lines.append(f"  redacted {entry['rule']} at {where}: {entry['redactions']} in {entry['records']} records")
    for group in r.get("groups", []):
        lines.append(f"  {group['method']:<7} {group['origin']}{group['path_template']} x{group['request_count']}")
    for text in value.get("limitations", []):
        lines.append(f"  limitation: {text}")
    return "\n".join(lines)


COMMANDS: tuple[ToolCommand, ...] = (
    ToolCommand(
        name="inspect-web-network-capture",
        help="inspect a HAR 1.2 file or mitmproxy flow dump offline (records, bodies by pointer, redactions)",
        configure=_configure_capture,
        steps=_capture_steps,
        render=_render_capture,
    ),
)
