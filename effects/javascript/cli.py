"""`rea trace-javascript-semantics PATH --query JSON`: analyse, then trace over the record just retained (two
dependent calls). `rea analyze-javascript-application` is declared on its catalog row
(rea.javascript.contract.application)."""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Mapping
from typing import Any

from returns.result import Failure, Result, Success

from effects.commands import ToolCommand
from rea.errors import ReaError, invalid_request


def _configure_trace(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", help="application directory or .asar (analysed first, on the same connection)")
    parser.add_argument("--query", required=True, help="the semantic query as JSON: {seed, direction, ...}")
    parser.add_argument("--integrity-policy", choices=("fail", "record-and-continue"), default="fail")


def _trace_steps(ns: argparse.Namespace) -> Result[list[tuple[str, Any]], ReaError]:
    """Analyse, then trace over the record just retained (its semantic graph is retained beside it)."""
    try:
        query = json.loads(ns.query)
    except json.JSONDecodeError as bad:
        return Failure(
            invalid_request(
                f"--query is not JSON: {bad}", field="query", accepted='{"seed": {...}, "direction": "..."}'
            )
        )
    analysis = {
        "input_path": os.path.abspath(ns.path),
        "detail": "complete",
        "integrity_policy": ns.integrity_policy,
    }
    return Success(
        [
            ("analyze_javascript_application", analysis),
            (
                "trace_javascript_semantics",
                lambda earlier: {"application_evidence_id": earlier[0]["evidence_id"], "query": query},
            ),
        ]
    )


def _render_trace(value: Mapping[str, Any]) -> str:
    r = value.get("normalized_result", value)
    lines = [
        f"{r['direction']} from {r['seed']['kind']}: {r['status']}, {len(r['nodes'])} nodes, "
        f"{len(r['relations'])} relations, coverage {r['coverage']['status']}"
    ]
    lines += [f"  {n['kind']}: {n['label']}" for n in r["nodes"][:40]]
    lines.append(f"evidence: {value.get('evidence_id', '-')}")
    return "\n".join(lines)


COMMANDS = (
    ToolCommand(
        name="trace-javascript-semantics",
        help="analyse an application, then trace a semantic query over its semantic graph",
        configure=_configure_trace,
        steps=_trace_steps,
        render=_render_trace,
    ),
)
