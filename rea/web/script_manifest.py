"""An export_web_scripts manifest read back (pure): the selected script, where its file is, and whether
the file is still the bytes the manifest recorded. Both traces start here.

The script's file is found beside the manifest (`<manifest dir>/<relative_path>`), so a moved export still
reads; the manifest's own `output_directory` is reported, not trusted.
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Mapping
from typing import Any

from returns.result import Failure, Result, Success

from rea.errors import ReaError, invalid_request

MAX_MANIFEST_BYTES = 32 << 20
MAX_SOURCE_BYTES = 16 << 20
MAX_MAP_BYTES = 4 << 20
_IDENTITY = ("capture_path", "capture_sha256", "capture_kind", "capture_completeness", "source_evidence_id")


def manifest_record(data: bytes, path: str) -> Result[dict[str, Any], ReaError]:
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError) as exc:
        return Failure(invalid_request(f"manifest_path {path!r} is not JSON: {exc}", field="manifest_path"))
    if (
        not isinstance(doc, dict)
        or not isinstance(doc.get("scripts"), list)
        or not isinstance(doc.get("output_directory"), str)
        or not all(k in doc for k in _IDENTITY)
    ):
        return Failure(
            invalid_request(
                f"manifest_path {path!r} is not an export_web_scripts manifest",
                field="manifest_path",
                accepted="the manifest.json export_web_scripts wrote",
            )
        )
    return Success(doc)


def select(doc: Mapping[str, Any], index: int, manifest_path: str) -> Result[tuple[dict[str, Any], str], ReaError]:
    """(the manifest's script entry, its file's path) or why it cannot be read."""
    scripts = doc["scripts"]
    if index >= len(scripts):
        return Failure(
            invalid_request(
                f"script_index {index} is past the manifest's {len(scripts)} scripts",
                field="script_index",
                accepted=f"0..{len(scripts) - 1}" if scripts else "a manifest with scripts",
            )
        )
    script = scripts[index]
    content = script.get("content") if isinstance(script, dict) else None
    if not isinstance(content, dict) or content.get("state") != "exported":
        reason = content.get("reason") if isinstance(content, dict) else "malformed"
        return Failure(
            invalid_request(
                f"script {index} was not exported ({reason}): there is no file to read",
                field="script_index",
                accepted="the index of a script whose content.state is exported",
            )
        )
    rel = str(content.get("relative_path", ""))
    if rel.startswith("/") or ".." in rel.split("/") or not rel:
        return Failure(
            invalid_request(f"script {index}'s relative_path {rel!r} leaves the export", field="manifest_path")
        )
    return Success((script, posixpath.join(posixpath.dirname(manifest_path), rel)))


def verify(script: Mapping[str, Any], file: Mapping[str, Any]) -> Result[None, ReaError]:
    content = script["content"]
    if file["sha256"] != content.get("sha256") or file["bytes"] != content.get("bytes"):
        return Failure(
            ReaError(
                code="artifact_integrity_mismatch",
                message=f"{file['path']} is not the file the manifest recorded (sha256 {file['sha256']}, "
                f"{file['bytes']} bytes; recorded {content.get('sha256')}, {content.get('bytes')} bytes)",
                details={
                    "path": file["path"],
                    "calculated_sha256": file["sha256"],
                    "declared_sha256": content.get("sha256"),
                },
                action="Export the capture again with export_web_scripts; do not edit exported files.",
            )
        )
    return Success(None)


def identity(doc: Mapping[str, Any], file: Mapping[str, Any]) -> dict[str, Any]:
    """The manifest's byte identity beside the capture identity it reports."""
    return {
        "path": file["path"],
        "sha256": file["sha256"],
        "bytes": file["bytes"],
        "reported_output_directory": doc["output_directory"],
        **{k: doc[k] for k in _IDENTITY},
    }


def source_identity(script: Mapping[str, Any], file: Mapping[str, Any], index: int) -> dict[str, Any]:
    return {
        "path": file["path"],
        "sha256": file["sha256"],
        "bytes": file["bytes"],
        "script_index": index,
        "script": script,
    }
