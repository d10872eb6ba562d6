"""The Apple metadata commands' readable text (each command is declared on its catalog row)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def _head(value: Mapping[str, Any]) -> list[str]:
    return [f"{value['operation']} {value['evidence_id']}"]


def _tail(r: Mapping[str, Any]) -> list[str]:
    return [f"  limitation: {t}" for t in r["limitations"]]


def classes(value: Mapping[str, Any]) -> str:
    """The reply as text: Objective-C classes: address, name, superclass, method count."""
    r = value["normalized_result"]
    lines = _head(value) + [f"  {r['count']} class(es)"]
    for c in r["classes"]:
        lines.append(f"  {c['address']} {c['name']} : {c['super_class']} ({c['method_count']} methods)")
    return "\n".join(lines + _tail(r))


def protocols(value: Mapping[str, Any]) -> str:
    """The reply as text: protocols and where each was found."""
    r = value["normalized_result"]
    lines = _head(value) + [f"  {r['count']} protocol(s)"]
    lines += [f"  {p['address']} {p['name']} ({p['source']})" for p in r["protocols"]]
    return "\n".join(lines + _tail(r))


def swift(value: Mapping[str, Any]) -> str:
    """The reply as text: Swift types by category."""
    r = value["normalized_result"]
    lines = _head(value) + [f"  {r['total']} Swift type(s)"]
    for name, group in r["categories"].items():
        lines.append(f"  {name}: {group['count']}")
        lines += [f"    {t['address']} {t['name']}" for t in group["items"]]
    return "\n".join(lines + _tail(r))


def dispatch(value: Mapping[str, Any]) -> str:
    """The reply as text: dispatch metadata record counts and coverage."""
    r = value["normalized_result"]
    m = r["result"]
    lines = _head(value)
    for key in ("objc_classes", "objc_categories", "objc_protocol_records", "objc_ivars"):
        lines.append(f"  {key}: {len(m[key])}")
    lines.append(f"  objc_dispatch_implementations: {len(m['objc_dispatch_implementations'])}")
    lines.append(f"  swift_decls: {len(m['swift_decls'])}, swift_symbols: {len(m['swift_symbols'])}")
    lines += [
        f"  coverage {c['facet']}: {c['status']}" + (f" ({c['reason']})" if c["reason"] else "") for c in m["coverage"]
    ]
    return "\n".join(lines + _tail(r))
