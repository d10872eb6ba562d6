"""`rea inspect-android-package APK`, `rea search-android-classes APK [QUERY]`, `rea inspect-android-class
APK CLASS`, `rea inspect-android-method APK CLASS METHOD`, `rea trace-android-references APK CLASS [METHOD]`."""

from __future__ import annotations

import argparse
import os
from typing import Any
from collections.abc import Callable, Mapping, Sequence

from effects.commands import ToolCommand


def _result(value: Mapping[str, Any]) -> Mapping[str, Any]:
    return value.get("normalized_result", value)


def _footer(value: Mapping[str, Any]) -> list[str]:
    return [*(f"limitation: {t}" for t in value.get("limitations", [])), f"evidence: {value.get('evidence_id', '-')}"]


def _render_package(value: Mapping[str, Any]) -> str:
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


def _render_search(value: Mapping[str, Any]) -> str:
    r = _result(value)
    head = f"{r['total_matches']} of {r['total_classes']} classes match {r['query']!r}"
    return "\n".join([head, *(f"  {m}" for m in r["matches"]), *_footer(value)])


def _render_class(value: Mapping[str, Any]) -> str:
    r = _result(value)
    lines = [f"{' '.join(r['access_flags'])} class {r['class_name']} extends {r['superclass']}"]
    lines += [f"  field  {f['reported_type']} {f['name']}" for f in r["fields"]]
    lines += [
        f"  method [{m['overload_index']}] {m['reported_signature']}  {m['dex_descriptor']}" for m in r["methods"]
    ]
    lines += [f"  inner  {c}" for c in r["inner_classes"]]
    return "\n".join(lines + _footer(value))


def _render_method(value: Mapping[str, Any]) -> str:
    r = _result(value)
    head = f"// {r['class_name']} {r['method']['reported_signature']} ({r['representation']}, {r['body_status']})"
    return "\n".join([head, r["source"]["text"].rstrip(), *_footer(value)])


def _render_references(value: Mapping[str, Any]) -> str:
    r = _result(value)
    what = r["class_name"] + (f".{r['method_name']}" if r["method_name"] else "")
    return "\n".join(
        [
            f"{r['total']} references to {what}",
            *(f"  {x['reported_full_name']}" for x in r["references"]),
            *_footer(value),
        ]
    )


def _apk(parser: argparse.ArgumentParser, *positional: tuple[str, str, str | None]) -> None:
    parser.add_argument("path", help="the APK")
    for name, help_text, nargs in positional:
        parser.add_argument(name, help=help_text, nargs=nargs)
    parser.add_argument("--deadline-ms", type=int, default=None, help="stop the parse worker after this long")


def _steps(tool: str, names: Sequence[str]) -> Callable[[argparse.Namespace], Sequence[tuple[str, Mapping[str, Any]]]]:
    def steps(ns: argparse.Namespace) -> Sequence[tuple[str, Mapping[str, Any]]]:
        args: dict[str, Any] = {"path": os.path.abspath(ns.path)}
        for name in (*names, "deadline_ms"):
            if getattr(ns, name, None) is not None:
                args[name] = getattr(ns, name)
        return [(tool, args)]

    return steps


def _configure_search(parser: argparse.ArgumentParser) -> None:
    _apk(parser, ("query", "case-sensitive substring (default: every class)", "?"))
    parser.add_argument("--offset", type=int, default=None)
    parser.add_argument("--limit", type=int, default=None)


def _search_steps(ns: argparse.Namespace) -> Sequence[tuple[str, Mapping[str, Any]]]:
    ns.query = ns.query or ""
    return _steps("search_android_classes", ("query", "offset", "limit"))(ns)


def _configure_method(parser: argparse.ArgumentParser) -> None:
    _apk(parser, ("class_name", "fully qualified class name", None), ("method_name", "method name", None))
    parser.add_argument("--overload-index", type=int, default=None)


def _configure_references(parser: argparse.ArgumentParser) -> None:
    _apk(
        parser,
        ("class_name", "fully qualified class name", None),
        ("method_name", "method name (omit: the class)", "?"),
    )
    parser.add_argument("--overload-index", type=int, default=None)


def _render_client(value: Mapping[str, Any]) -> str:
    c = _result(value)["client"]
    lines = [f"{k}: {v}" for k, v in c.items()]
    return "\n".join(lines + _footer(value))


def _render_decode(value: Mapping[str, Any]) -> str:
    r = _result(value)
    m = r["metadata"]
    lines = [
        f"{m['package_name']} {m['version_name']} (code {m['version_code']}), sdk min {m['min_sdk_version']} "
        f"target {m['target_sdk_version']}; apktool {r['client']['apktool_version']}",
        f"  {r['decoded_file_count']} files decoded, locales {', '.join(r['locales']) or '-'}, coverage {r['coverage']}",
        *(f"  string {s['name']} = {s['value']!r}" for s in r["strings"][:200]),
    ]
    return "\n".join(lines + _footer(value))


def _configure_decode(parser: argparse.ArgumentParser) -> None:
    _apk(parser)
    parser.add_argument("--locale", default=None, help="project res/values-LOCALE/strings.xml")
    parser.add_argument("--no-strings", dest="include_strings", action="store_false", default=None)


COMMANDS: tuple[ToolCommand, ...] = (
    ToolCommand(
        name="decode-android-resources",
        help="decode an APK's manifest, apktool.yml facts and strings with apktool",
        configure=_configure_decode,
        steps=_steps("decode_android_resources", ("locale", "include_strings")),
        render=_render_decode,
    ),
    ToolCommand(
        name="inspect-apktool-client",
        help="the apktool launcher REA runs and its version",
        configure=lambda p: None,
        steps=lambda ns: [("inspect_apktool_client", {})],
        render=_render_client,
    ),
    ToolCommand(
        name="inspect-adb-client",
        help="the adb client REA runs, its version and install path (starts no server)",
        configure=lambda p: None,
        steps=lambda ns: [("inspect_adb_client", {})],
        render=_render_client,
    ),
    ToolCommand(
        name="inspect-android-package",
        help="manifest, components, permissions, DEX counts and verified signatures of an APK",
        configure=lambda p: _apk(p),
        steps=_steps("inspect_android_package", ()),
        render=_render_package,
    ),
    ToolCommand(
        name="search-android-classes",
        help="class names of every DEX of an APK containing QUERY",
        configure=_configure_search,
        steps=_search_steps,
        render=_render_search,
    ),
    ToolCommand(
        name="inspect-android-class",
        help="methods, fields and inner classes of one class of an APK",
        configure=lambda p: _apk(p, ("class_name", "fully qualified class name", None)),
        steps=_steps("inspect_android_class", ("class_name",)),
        render=_render_class,
    ),
    ToolCommand(
        name="inspect-android-method",
        help="decompiled source (smali fallback) of one method of an APK",
        configure=_configure_method,
        steps=_steps("inspect_android_method", ("class_name", "method_name", "overload_index")),
        render=_render_method,
    ),
    ToolCommand(
        name="trace-android-references",
        help="incoming references to a class or method of an APK",
        configure=_configure_references,
        steps=_steps("trace_android_references", ("class_name", "method_name", "overload_index")),
        render=_render_references,
    ),
)
