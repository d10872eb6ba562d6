"""The native commands' readable text: pure functions from a reply to text (each command is declared on its
catalog row, rea.catalog.cli; `rea analyze` and the multi-step commands in effects/native print with these too)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def result(value: Mapping[str, Any]) -> Any:
    """The tool's result inside its Evidence (or the reply itself)."""
    return value.get("normalized_result", value)


def overview(value: Mapping[str, Any]) -> str:
    """binary_overview as text: format, entry, counts and the largest procedures."""
    r = result(value)
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


def function(value: Mapping[str, Any]) -> str:
    """An analyze_function dossier as text: pseudocode, callers, callees, strings, facets."""
    r = result(value)
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


def pseudocode(value: Mapping[str, Any]) -> str:
    """procedure_pseudo_code as text, headed by the procedure asked for."""
    where = value.get("parameters", {}).get("procedure", "?")
    text = result(value)
    return f"// {where} (angr decompiler)\n{(text or '(no body: nothing to decompile)').rstrip()}"


def xrefs(value: Mapping[str, Any]) -> str:
    """xrefs as text: one referencing address a line."""
    sites = result(value)
    where = value.get("parameters", {}).get("address", "?")
    return "\n".join([f"references to {where}: {len(sites)}", *(f"  {site}" for site in sites)])


def instructions(value: Mapping[str, Any]) -> str:
    """read_function_instructions as `address: bytes mnemonic operands` lines."""
    r = result(value)
    shown = zip(r["instructions"], r.get("bytes") or [""] * len(r["instructions"]), strict=True)
    lines = [f"{at}:  {raw:<24} {rest}".rstrip() for (at, _, rest), raw in ((t.partition(": "), b) for t, b in shown)]
    more = f"\n... {r['total'] - r['next_offset']} more (next offset {r['next_offset']})" if r["next_offset"] else ""
    return "\n".join(lines) + more


def feature(value: Mapping[str, Any]) -> str:
    """trace_feature as text: matches, their references and the budget spent."""
    r = result(value)
    lines = [f"{m['type']:<9} {m['address']}  {m['value']!r}" for m in r["matches"]]
    for ref in r["references"]:
        held = ref["containing_procedure"]
        where = held["procedure"]["name"] if held["found"] else held["reason"]
        lines.append(f"  {ref['source_address']} -> {ref['target_address']}  in {where}")
    lines.append(f"{r['operations_used']}/{r['operation_budget']} operations")
    lines += [f"  unread: {u}" for u in r["residual_unknowns"]]
    return "\n".join(lines)


def api(value: Mapping[str, Any]) -> str:
    """inspect_native_api as text: signature, calling convention and jump tables."""
    r = result(value)
    b, p = r["boundary"], r["procedure"]
    if not b["available"]:
        return f"{p['name']}@{p['address']}: boundary unavailable ({b['reason']})"
    params = ", ".join(f"{x['data_type']} {x['name'] or '?'} [{x['storage'] or '?'}]" for x in b["parameters"])
    lines = [f"{p['name']}@{p['address']}: {b['return_type']['data_type']} ({params})  {b['calling_convention']}"]
    for table in b["jump_tables"]:
        lines.append(f"  jump table at {table['dispatch_address']}: {len(table['mappings'])} targets")
    return "\n".join(lines)


def _spent(budgets: Mapping[str, Any]) -> str:
    """Budgets as `name used/limit` text."""
    return ", ".join(
        f"{k} {x['used']}/{x['limit']}{' (exhausted)' if x['exhausted'] else ''}" for k, x in budgets.items()
    )


def _values_summary(r: Mapping[str, Any]) -> str:
    """A value trace's summary view: its totals and budgets, each collection's count, and where to read on."""
    facts = r["summary"]["facts"]
    lines = [f"{facts['total_nodes']} nodes, {facts['total_edges']} edges; {_spent(facts['budgets'])}"]
    lines += [f"  {c['facet']}: {c['total']} in this page's Evidence" for c in r["summary"]["collections"]]
    lines.append(f"complete trace retained as {r['parent_evidence_id']} (--detail complete, --offset/--limit)")
    return "\n".join(lines)


def values(value: Mapping[str, Any]) -> str:
    """trace_native_values as text: procedures, nodes, edges, budgets and unknowns."""
    r = result(value)
    if r.get("kind") == "summary":
        return _values_summary(r)
    lines = [f"{p['address']} depth {p['depth']}" for p in r["procedures"]]
    for n in r["nodes"]:
        if n["kind"] == "parameter":
            lines.append(f"  {n['id']}  parameter {n['parameter']['name']}: {n['parameter']['data_type']}")
        else:
            op = n["operation"]
            lines.append(f"  {n['id']}  {op['opcode']} {', '.join(str(i['location']) for i in op['inputs'])}")
    lines += [f"  {e['kind']}: {e['source']} -> {e['target']}" for e in r["edges"] if e["kind"] != "def-use"]
    lines.append(f"{r['total_nodes']} nodes, {r['total_edges']} edges; {_spent(r['budgets'])}")
    lines += [f"  unknown: {u['procedure']} {u['address'] or ''} {u['reason']}" for u in r["unknowns"]]
    if r["next_offset"] is not None:
        lines.append(f"more nodes from --offset {r['next_offset']}")
    return "\n".join(lines)


# ---------------------------------------------------------------- the surface commands (rea.native.contract.surface)


def read_bytes(value: Mapping[str, Any]) -> str:
    r = result(value)
    tail = "" if r["complete"] else f"  ({r['stop_reason']})"
    return (
        f"{r['address']} (file offset {r['file_offset']}): {r['returned_bytes']}/{r['requested_bytes']} bytes{tail}\n"
        f"{r['bytes_hex']}"
    )


def instruction(value: Mapping[str, Any]) -> str:
    r = result(value)
    head = f"{r['address']}  {r['status']}"
    if r["status"] == "decoded":
        head += f"  {r['bytes']:<24} {r['raw_disassembly']}  [{r['flow']['kind']}]"
    refs = [f"  -> {x['target_address']} ({x['type']}, {x['provenance']})" for x in r["references"]]
    return "\n".join([head, *refs, *(f"  note: {n}" for n in r["limitations"])])


def call_targets(value: Mapping[str, Any]) -> str:
    r = result(value)
    rows = [f"  {t['address']} {t['procedure'] or '?'} ({t['status']})" for t in r["targets"]]
    return "\n".join([f"{r['call_site']}: {r['status']} ({r['mechanism']})", *rows])


def plain(value: Mapping[str, Any]) -> str:
    """A bare result: one value, or rows of {address, name} (bookmarks)."""
    r = result(value)
    if isinstance(r, list):
        return "\n".join(f"{row['address']}  {row['name']}" for row in r) or "(none)"
    return "(none)" if r is None else str(r)


def annotation(value: Mapping[str, Any]) -> str:
    a = result(value)["annotations"]
    return "\n".join(f"{k}: {a[k]}" for k in ("address", "name", "comment", "inline_comment", "signature") if a[k])
