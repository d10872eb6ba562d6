"""`rea batch INPUT... --out BUNDLE.json`: fleet triage from the command line.

Not an MCP tool by design: no batch runs inside the server process. An MCP client reads a
finished batch with import_evidence_bundle and the usual views.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import orjson
from returns.result import Failure, Result, Success

from rea.batch.items import EXIT_FAILED
from rea.errors import ReaError

if TYPE_CHECKING:  # the runner (and Ray behind it) loads only when a batch runs
    from effects.batch.runner import BatchOptions

EXIT_USAGE = 2


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("inputs", nargs="+", metavar="INPUT", help="a file, a directory tree, or @manifest.txt")
    parser.add_argument("--out", required=True, help="the Evidence bundle to publish (export format)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="items at once (default: core count)")
    parser.add_argument(
        "--ray", metavar="ADDRESS", help="run on Ray: 'auto' starts a local Ray for the batch, else a cluster address"
    )
    parser.add_argument(
        "--ship-max-mb",
        type=int,
        default=0,
        help="with --ray: send inputs up to this size to the workers as Ray objects, for clusters without a shared "
        "filesystem (default 0: every input is read at its path)",
    )
    parser.add_argument("--retries", type=int, default=1, help="Ray retries of an item whose worker died (default 1)")
    parser.add_argument("--item-deadline-ms", type=int, default=600_000, help="per-item deadline (default 600000)")
    parser.add_argument("--item-memory-mb", type=int, default=4096, help="per-item memory ceiling (default 4096)")
    parser.add_argument(
        "--resume",
        action="store_true",
        help="skip digests already in the output bundle or answered in the analysis cache",
    )
    parser.add_argument("--atomic", action="store_true", help="on SIGINT publish nothing (default: what completed)")
    parser.add_argument("--overwrite", action="store_true", help="replace an existing output bundle")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")


def options(ns: argparse.Namespace) -> Result[BatchOptions, ReaError]:
    """The BatchOptions the flags ask for, or the canonical error naming the flag out of range."""
    from effects.batch.runner import BatchOptions
    from rea.errors import invalid_request

    for name, value, least in (
        ("--jobs", ns.jobs, 1),
        ("--retries", ns.retries, 0),
        ("--item-deadline-ms", ns.item_deadline_ms, 1),
        ("--item-memory-mb", ns.item_memory_mb, 16),
        ("--ship-max-mb", ns.ship_max_mb, 0),
    ):
        if value < least:
            return Failure(
                invalid_request(f"{name} must be at least {least}, got {value}", field=name, accepted=f">= {least}")
            )
    if ns.ship_max_mb and not ns.ray:
        return Failure(
            invalid_request(
                "--ship-max-mb needs --ray: it sends inputs to Ray workers, and the local pool reads them where they lie",
                field="--ship-max-mb",
                accepted="--ship-max-mb with --ray ADDRESS|auto, or no --ship-max-mb",
            )
        )
    return Success(
        BatchOptions(
            inputs=tuple(ns.inputs),
            out=os.path.abspath(ns.out),
            jobs=ns.jobs,
            ray=ns.ray,
            retries=ns.retries,
            deadline_ms=ns.item_deadline_ms,
            memory_mb=ns.item_memory_mb,
            resume=ns.resume,
            atomic=ns.atomic,
            overwrite=ns.overwrite,
            progress=not ns.no_progress,
            ship_max_mb=ns.ship_max_mb,
        )
    )


def _short(value: str | None, width: int = 12) -> str:
    return "-" if value is None else value[:width]


def render_text(report: Mapping[str, Any]) -> None:
    """The summary as a terminal table: one row per item, then the totals and the bundle."""
    from rich.console import Console
    from rich.table import Table

    console = Console(file=sys.stdout, width=max(Console().width, 160))
    table = Table(title=f"rea batch: {report['completed']} of {report['inputs']} item(s)")
    for column in ("status", "kind", "sha256", "evidence", "error", "path"):
        table.add_column(column, overflow="fold")
    for item in report["items"]:
        ids = item["evidence_ids"]
        evidence = "-" if not ids else f"{_short(ids[0], 15)}" + (f" +{len(ids) - 1}" if len(ids) > 1 else "")
        table.add_row(
            item["status"],
            item["kind"] or "-",
            _short(item["sha256"]),
            evidence,
            item["error_code"] or "-",
            item["path"],
        )
    console.print(table)
    counts = ", ".join(f"{n} {status}" for status, n in report["counts"].items() if n)
    console.print(f"{counts or 'nothing to do'}{' (cancelled)' if report['cancelled'] else ''}")
    bundle = report["bundle"]
    console.print(
        "bundle: not published"
        if bundle is None
        else f"bundle: {bundle['path']} ({bundle['records']} records, {bundle['bytes']} bytes, sha256 {bundle['sha256']})"
    )


def main(ns: argparse.Namespace, fmt: str) -> int:
    from effects.batch.runner import run_batch

    # a flag out of range is invalid_request, which _stopped answers with the usage exit code, as before any item
    return (
        options(ns).bind(run_batch).map(lambda ran: _reported(ran, fmt)).lash(lambda e: Success(_stopped(e))).unwrap()
    )


def _stopped(error: ReaError) -> int:
    """The error that stopped the batch before any item ran, printed as JSON."""
    sys.stdout.write(orjson.dumps(error.to_json(), option=orjson.OPT_INDENT_2).decode() + "\n")
    return EXIT_USAGE if error.code in ("invalid_request", "configuration_invalid") else EXIT_FAILED


def _reported(ran: tuple[dict[str, Any], int], fmt: str) -> int:
    report, status = ran
    if fmt == "json":
        sys.stdout.write(orjson.dumps(report, option=orjson.OPT_INDENT_2).decode() + "\n")
    else:
        render_text(report)
    sys.stdout.flush()
    return status
