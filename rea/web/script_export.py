"""export_web_scripts (pure): which scripts a saved capture retained, where each goes, and the manifest.

A capture is a saved inspect_web_page result: its normalized result, or the complete Evidence around it.
A script whose source was captured (and whose text still hashes to its artifact's digest) is exported;
every other script is listed as unavailable with the capture's own reason. A script keeps its URL's path
(`url-path`: `<scheme>_<host>_<port>/<path>`, so relative module imports still resolve in the tree) unless
that would be ambiguous or unsafe: a query or fragment, a `.`/`..`/empty segment, a path another script
maps to too. Those are `isolated` under `isolated/` with the reason.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from returns.result import Failure, Result, Success

from rea.canonical_json import canonicalize
from rea.errors import ReaError, invalid_request
from rea.javascript.recovery import Planned
from rea.loopback import urlsplit
from rea.validation import first_schema_error
from rea.web.records.browser import Completeness
from rea.wire.schema import Role, schema_of

MANIFEST = "manifest.json"
MAX_CAPTURE_BYTES = 64 << 20
LIMITATIONS = (
    "Only bytes the capture retained are exported; nothing is refetched and no script is executed.",
    "A captured script's bytes are the debugger's source text (UTF-8), not the bytes the server sent.",
)


def capture_record(data: bytes, path: str) -> Result[tuple[dict[str, Any], str | None], ReaError]:
    """(the inspect_web_page result, the Evidence id when the file was complete Evidence) or why not."""
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError) as exc:
        return Failure(
            invalid_request(
                f"capture_path {path!r} is not JSON: {exc}",
                field="capture_path",
                accepted="saved inspect_web_page JSON",
            )
        )
    evidence_id = None
    if isinstance(doc, dict) and isinstance(doc.get("normalized_result"), dict):
        if doc.get("operation") not in ("inspect_web_page", None):
            return Failure(
                invalid_request(
                    f"capture_path holds {doc.get('operation')!r} Evidence, not a page capture",
                    field="capture_path",
                    accepted="inspect_web_page Evidence or its normalized_result (capture_browser_scenario captures are not read yet)",
                )
            )
        evidence_id = doc.get("evidence_id") if isinstance(doc.get("evidence_id"), str) else None
        doc = doc["normalized_result"]
    scripts = doc.get("scripts") if isinstance(doc, dict) else None
    if (
        not isinstance(scripts, dict)
        or not isinstance(scripts.get("items"), list)
        or not isinstance(doc.get("completeness"), dict)
    ):
        return Failure(
            invalid_request(
                f"capture_path {path!r} is not an inspect_web_page capture (no scripts.items or completeness)",
                field="capture_path",
                accepted="inspect_web_page Evidence or its normalized_result, saved with include_script_sources: true",
            )
        )
    wrong = first_schema_error(schema_of(Completeness, Role.OUTPUT), doc["completeness"])
    if wrong is not None:
        return Failure(
            invalid_request(
                f"capture_path's completeness is not inspect_web_page's ({wrong[0]}: {wrong[1]})",
                field="capture_path",
                accepted="an unedited inspect_web_page capture",
            )
        )
    return Success((doc, evidence_id))


def _source(script: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "kind": "page-script",
        "script_key": str(script.get("script_key", "")),
        "frame_id": script.get("frame_id") if isinstance(script.get("frame_id"), str) else None,
        "is_module": script.get("is_module") if isinstance(script.get("is_module"), bool) else None,
        "language": script.get("language") if isinstance(script.get("language"), str) else None,
        "source_map_url": script.get("source_map_url") if isinstance(script.get("source_map_url"), str) else None,
    }


def _text(script: Mapping[str, Any]) -> tuple[str | None, str, str]:
    """(text, media type, '') of a captured source, or (None, reason, message)."""
    source = script.get("source")
    if not isinstance(source, dict) or source.get("included") is not True:
        reason = str(source.get("reason") or "not_captured") if isinstance(source, dict) else "not_captured"
        return None, reason, f"The capture did not retain this script's source ({reason})."
    artifact = source.get("artifact") or {}
    text = artifact.get("text")
    if not isinstance(text, str):
        return None, "not_captured", "The capture's source artifact has no text."
    if hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest() != artifact.get("sha256"):
        return None, "artifact-digest-mismatch", "The captured text does not hash to its artifact's recorded sha256."
    return text, str(artifact.get("media_type") or "text/javascript"), ""


def url_path(url: str) -> tuple[str | None, str | None]:
    """The url-path layout of a script URL, or (None, why it must be isolated)."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None, "unparseable-url"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None, "not-an-http-url"
    if parts.query or parts.fragment:
        return None, "query-or-fragment"
    segments = parts.path.split("/")[1:]
    if not segments or segments[-1] == "":
        return None, "directory-url"
    if any(s in ("", ".", "..") or "\\" in s or "\0" in s for s in segments):
        return None, "unsafe-path"
    origin = f"{parts.scheme}_{parts.hostname}_{port or (443 if parts.scheme == 'https' else 80)}"
    return "/".join([origin, *segments]), None


def plan(doc: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every script with its bytes and relative path (or its unavailable state), collisions isolated."""
    rows: list[dict[str, Any]] = []
    for index, script in enumerate(doc["scripts"]["items"]):
        script = script if isinstance(script, dict) else {}
        text, media, message = _text(script)
        row: dict[str, Any] = {"source": _source(script), "url": str(script.get("url", ""))}
        if text is None:
            row["content"] = {"state": "unavailable", "reason": media, "message": message}
        else:
            rel, why = url_path(row["url"])
            row.update(data=text.encode("utf-8", "surrogatepass"), media=media, rel=rel, why=why, index=index)
        rows.append(row)
    taken: dict[str, int] = {}
    for row in rows:
        if row.get("rel"):
            taken[row["rel"].lower()] = taken.get(row["rel"].lower(), 0) + 1  # case-insensitive filesystems too
    for row in rows:
        if "data" not in row:
            continue
        if row["rel"] and taken[row["rel"].lower()] > 1:
            row.update(rel=None, why="path-collision")
        digest = hashlib.sha256(row["data"]).hexdigest()
        layout = "url-path" if row["rel"] else "isolated"
        rel = row["rel"] or f"isolated/{row['index']:04d}-{digest[:16]}.js"
        row["content"] = {
            "state": "exported",
            "relative_path": "scripts/" + rel,
            "layout": layout,
            "layout_reason": row["why"],
            "sha256": digest,
            "bytes": len(row["data"]),
            "media_type": row["media"],
            "redacted": False,
            "representation": "debugger-source-utf8",
        }
    return rows


def manifest(
    doc: Mapping[str, Any],
    rows: Sequence[Mapping[str, Any]],
    capture: Mapping[str, Any],
    evidence_id: str | None,
    root: str,
) -> dict[str, Any]:
    scripts = [{"source": r["source"], "url": r["url"], "content": r["content"]} for r in rows]
    exported = any(s["content"]["state"] == "exported" for s in scripts)
    isolated = sum(1 for s in scripts if s["content"].get("layout") == "isolated")
    return {
        "capture_path": capture["path"],
        "capture_sha256": capture["sha256"],
        "capture_kind": "page-inspection",
        "source_evidence_id": evidence_id,
        "capture_completeness": doc["completeness"],
        "output_directory": root,
        "analysis_input": {"input_path": root + "/scripts", "format": "directory"} if exported else None,
        "scripts": scripts,
        "limitations": [
            *LIMITATIONS,
            *(
                [
                    f"{isolated} script(s) were isolated (query, fragment, unsafe path or collision): their relative "
                    "imports do not resolve inside the exported tree."
                ]
                if isolated
                else []
            ),
            *([] if exported else ["No script source was retained: capture with include_script_sources: true."]),
        ],
    }


def files(rows: Sequence[Mapping[str, Any]], record: Mapping[str, Any]) -> list[Planned]:
    out = [Planned(rel=r["content"]["relative_path"], data=r["data"], module=None) for r in rows if "data" in r]
    return [*out, Planned(rel=MANIFEST, data=canonicalize(record), module=None)]
