"""`rea analyze`, `rea function`, `rea decompile`, `rea xrefs`, `rea instructions`:
open the binary on a one-shot connection, then ask the embedded provider."""

from __future__ import annotations

import argparse
import os
from typing import Any
from collections.abc import Mapping

from returns.pipeline import is_successful

from effects.commands import ToolCommand
from effects.javascript import cli as javascript_cli
from rea.errors import ReaError
from rea.native.selector import parse_selector


def _binary(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("binary", help="path of the executable or library")
    parser.add_argument("--provider", default="auto", help="deep-analysis provider id or auto (default)")
    parser.add_argument(
        "--architecture",
        help="slice of a universal Mach-O to analyse, as lipo names it (default: x86_64, then arm64, then the first)",
    )


def _with_function(parser: argparse.ArgumentParser) -> None:
    _binary(parser)
    parser.add_argument("function", help="procedure start address (0x...) or exact name")


Step = tuple[str, Mapping[str, Any]]


def _opened(ns: argparse.Namespace, *then: Step) -> list[Step] | ReaError:
    """open_binary first, its --provider checked by the one provider parser (as MCP and the environment are)."""
    chosen = parse_selector(ns.provider, "cli")
    if not is_successful(chosen):
        return chosen.failure()
    opened: dict[str, Any] = {"path": os.path.abspath(ns.binary), "provider_id": ns.provider}
    if getattr(ns, "architecture", None) is not None:
        opened["architecture"] = ns.architecture
    return [("open_binary", opened), *then]


def _result(value: Mapping[str, Any]) -> Mapping[str, Any]:
    return value.get("normalized_result", value)


def _render_overview(value: Mapping[str, Any]) -> str:
    r = _result(value)
    c = r["counts"]
    lines = [
        f"{r['document']}: {r['format']} {r['architecture']} ({r['bits']}-bit, {r['endianness']}), entry {r['entry']}"
        f"{' (' + r['entry_procedure']['name'] + ')' if r.get('entry_procedure') else ''}",
        f"  {'PIE/shared' if r['pic'] else 'fixed address'}, {'stripped' if r['stripped'] else 'symbols present'}, "
        f"analysed by {r['engine']['name']} {r['engine']['version']}",
        f"  {c['procedures']} procedures ({c['functions']} functions, {c['thunks']} thunks, {c['imports']} imports), "
        f"{c['strings']} strings, {c['sections']} sections",
        "  largest: " + ", ".join(f"{p['name']}@{p['address']} ({p['size']} B)" for p in r["largest_procedures"]),
        f"  evidence: {value.get('evidence_id', '-')}",
    ]
    return "\n".join(lines)


def _render_function(value: Mapping[str, Any]) -> str:
    r = _result(value)
    p = r["procedure"]
    lines = [f"{p['name']} @ {p['address']} ({p['kind']}, {p['size']} bytes, {len(r['basic_blocks'])} blocks)"]
    if r.get("pseudocode"):
        lines += ["", r["pseudocode"].rstrip()]
    strings = [s["value"] for s in r["referenced_strings"]]
    lines += [
        "",
        "callers: " + (", ".join(f"{c['name']}@{c['address']}" for c in r["callers"]) or "-"),
        "callees: " + (", ".join(f"{c['name']}@{c['address']}" for c in r["callees"]) or "-"),
        "strings: " + (", ".join(repr(s) for s in strings) or "-"),
        "facets:  " + ", ".join(f"{k}={'yes' if v['available'] else 'no'}" for k, v in r["facet_availability"].items()),
        f"evidence: {value.get('evidence_id', '-')}",
    ]
    return "\n".join(lines)


def _render_pseudocode(value: Mapping[str, Any]) -> str:
    where = value.get("parameters", {}).get("procedure", "?")
    text = _result(value)
    return f"// {where} (angr decompiler)\n{(text or '(no body: nothing to decompile)').rstrip()}"


def _render_xrefs(value: Mapping[str, Any]) -> str:
    sites = _result(value)
    where = value.get("parameters", {}).get("address", "?")
    return "\n".join([f"references to {where}: {len(sites)}", *(f"  {site}" for site in sites)])


def _render_instructions(value: Mapping[str, Any]) -> str:
    r = _result(value)
    shown = zip(r["instructions"], r.get("bytes") or [""] * len(r["instructions"]), strict=True)
    lines = [f"{at}:  {raw:<24} {rest}".rstrip() for (at, _, rest), raw in ((t.partition(": "), b) for t, b in shown)]
    more = f"\n... {r['total'] - r['next_offset']} more (next offset {r['next_offset']})" if r["next_offset"] else ""
    return "\n".join(lines) + more


def _analyze_configure(parser: argparse.ArgumentParser) -> None:
    _binary(parser)
    parser.add_argument(
        "--integrity-policy",
        choices=("fail-closed", "record-and-continue"),
        default="fail-closed",
        help="for an application directory or .asar: integrity mismatch handling",
    )


def _is_application(path: str) -> bool:
    """An app tree or .asar goes to the JavaScript family; anything else is a native binary."""
    return os.path.isdir(path) or path.lower().endswith(".asar")


def _analyze_steps(ns: argparse.Namespace):
    if _is_application(ns.binary):
        return [
            (
                "analyze_javascript_application",
                {
                    "input_path": os.path.abspath(ns.binary),
                    "detail": "summary",
                    "integrity_policy": ns.integrity_policy,
                },
            )
        ]
    return _opened(ns, ("binary_overview", {"detail": "concise"}))


def _render_analysis(value: Mapping[str, Any]) -> str:
    if value.get("operation") == "analyze_javascript_application" or (
        value.get("operation") == "inspect_analysis_view" and "parent_evidence_id" in value.get("normalized_result", {})
    ):
        return javascript_cli.render(value)
    return _render_overview(value)


def _xrefs_configure(parser: argparse.ArgumentParser) -> None:
    _binary(parser)
    parser.add_argument("address", help="address (0x...) whose references to list")


def _instructions_configure(parser: argparse.ArgumentParser) -> None:
    _with_function(parser)
    parser.add_argument("--offset", type=int, default=0)
    parser.add_argument("--limit", type=int, default=64)


COMMANDS = (
    ToolCommand(
        name="analyze",
        help="overview of a native binary (angr), or of an application directory or .asar",
        configure=_analyze_configure,
        steps=_analyze_steps,
        render=_render_analysis,
    ),
    ToolCommand(
        name="function",
        help="function dossier: pseudocode, callers, callees, strings",
        configure=_with_function,
        steps=lambda ns: _opened(ns, ("analyze_function", {"procedure": ns.function})),
        render=_render_function,
    ),
    ToolCommand(
        name="decompile",
        help="pseudocode of one function",
        configure=_with_function,
        steps=lambda ns: _opened(ns, ("procedure_pseudo_code", {"procedure": ns.function})),
        render=_render_pseudocode,
    ),
    ToolCommand(
        name="xrefs",
        help="references to an address",
        configure=_xrefs_configure,
        steps=lambda ns: _opened(ns, ("xrefs", {"address": ns.address})),
        render=_render_xrefs,
    ),
    ToolCommand(
        name="instructions",
        help="a function's instructions, offset-paged",
        configure=_instructions_configure,
        steps=lambda ns: _opened(
            ns,
            (
                "read_function_instructions",
                {"procedure": ns.function, "offset": ns.offset, "limit": ns.limit, "include_bytes": True},
            ),
        ),
        render=_render_instructions,
    ),
)
