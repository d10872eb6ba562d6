"""The android commands' text output (rea.catalog.cli renderers): a package, class search, class, method,
references, client or decoded-resources reply as readable lines."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def _result(value: Mapping[str, Any]) -> Mapping[str, Any]:
    result: Mapping[str, Any] = value.get("normalized_result", value)
    return result


def _footer(value: Mapping[str, Any]) -> list[str]:
    return [*(f"limitation: {t}" for t in value.get("limitations", [])), f"evidence: {value.get('evidence_id', '-')}"]


def package(value: Mapping[str, Any]) -> str:
    r = _result(value)
    app = r["application"]
    lines = [
        f"{r['package_name']} {r['version_name']} (code {r['version_code']}), sdk min {r['min_sdk']} "
        f"target {r['target_sdk']} compile {r['compile_sdk']}",
        f"  {r['dex_count']} dex, {r['class_count']} classes, {r['method_count']} method refs, "
        f"{r['resource_count']} resources, abis {', '.join(r['native_abis']) or '-'}",
        "  flags: "
        + ", ".join(f"{k}={app[k]['value']}" for k in ("debuggable", "allow_backup", "uses_cleartext_traffic")),
        f"  signatures: {r['signature_verification']} "
        + " ".join(
            f"{k}={'-' if not v['present'] else 'ok' if v['verified'] else 'FAILED'}"
            for k, v in r["signatures"].items()
            if k != "certificates"
        ),
        *(f"  signer {c['subject']} sha256 {c['sha256']}" for c in r["signatures"]["certificates"]),
        *(f"  permission {p}" for p in r["permissions"]),
        *(
            f"  {c['kind']:<9} {c['name']}{' exported' if c['exported'] else ''}{' launcher' if c['launcher'] else ''}"
            for c in r["components"]
        ),
        *(f"  deep link {d['uri']} -> {d['component']}" for d in r["deep_links"]),
    ]
    return "\n".join(lines + _footer(value))


def search(value: Mapping[str, Any]) -> str:
    r = _result(value)
    head = f"{r['total_matches']} of {r['total_classes']} classes match {r['query']!r}"
    return "\n".join([head, *(f"  {m}" for m in r["matches"]), *_footer(value)])


def class_(value: Mapping[str, Any]) -> str:
    r = _result(value)
    lines = [f"{' '.join(r['access_flags'])} class {r['class_name']} extends {r['superclass']}"]
    lines += [f"  field  {f['reported_type']} {f['name']}" for f in r["fields"]]
    lines += [
        f"  method [{m['overload_index']}] {m['reported_signature']}  {m['dex_descriptor']}" for m in r["methods"]
    ]
    lines += [f"  inner  {c}" for c in r["inner_classes"]]
    return "\n".join(lines + _footer(value))


def method(value: Mapping[str, Any]) -> str:
    r = _result(value)
    head = f"// {r['class_name']} {r['method']['reported_signature']} ({r['representation']}, {r['body_status']})"
    return "\n".join([head, r["source"]["text"].rstrip(), *_footer(value)])


def references(value: Mapping[str, Any]) -> str:
    r = _result(value)
    what = r["class_name"] + (f".{r['method_name']}" if r["method_name"] else "")
    return "\n".join(
        [
            f"{r['total']} references to {what}",
            *(f"  {x['reported_full_name']}" for x in r["references"]),
            *_footer(value),
        ]
    )


def client(value: Mapping[str, Any]) -> str:
    c = _result(value)["client"]
    lines = [f"{k}: {v}" for k, v in c.items()]
    return "\n".join(lines + _footer(value))


def decoded_resources(value: Mapping[str, Any]) -> str:
    r = _result(value)
    m = r["metadata"]
    lines = [
        f"{m['package_name']} {m['version_name']} (code {m['version_code']}), sdk min {m['min_sdk_version']} "
        f"target {m['target_sdk_version']}; apktool {r['client']['apktool_version']}",
        f"  {r['decoded_file_count']} files decoded, locales {', '.join(r['locales']) or '-'}, coverage {r['coverage']}",
        *(f"  string {s['name']} = {s['value']!r}" for s in r["strings"][:200]),
    ]
    return "\n".join(lines + _footer(value))
