"""Value-free summaries of what a page holds: JSON shapes, storage fingerprints, text artifacts.

Storage and body values never leave this module: a JSON payload becomes its structural
shape (paths, types, counts), a storage entry becomes SHA-256 fingerprints of its identity
and value, and retained text (script sources, approved console text) becomes a
content-addressed artifact whose digest the reader can check.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from rea.web.records.browser import JsonType
from rea.web.records.page import FingerprintScope, JsonProperty, JsonShape, StorageFingerprint, WebTextArtifact

JSON_TYPES: dict[type, JsonType] = {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def text_artifact(text: str, media_type: str) -> WebTextArtifact:
    digest = sha256_text(text)
    return WebTextArtifact(
        uri=f"rea://web-content/sha256/{digest}",
        sha256=digest,
        bytes=len(text.encode("utf-8", "surrogatepass")),
        media_type=media_type,
        charset="utf-8",
        text=text,
    )


def json_type(value: Any) -> JsonType:
    return JSON_TYPES.get(type(value), "number")


def _pointer(name: str) -> str:
    return name.replace("~", "~0").replace("/", "~1")


def json_shape(text: str) -> JsonShape | None:
    """The shape of a JSON document (iterative, so depth cannot exhaust the stack); None if not JSON."""
    try:
        root = json.loads(text)
    except (ValueError, RecursionError):
        return None
    properties: dict[str, tuple[set[JsonType], list[int]]] = {}
    pending: list[tuple[Any, str, int]] = [(root, "", 0)]
    nodes = max_depth = 0
    while pending:
        value, path, depth = pending.pop()
        nodes += 1
        max_depth = max(max_depth, depth)
        if isinstance(value, list):
            pending.extend((item, f"{path}/*", depth + 1) for item in reversed(value))
        elif isinstance(value, dict):
            for name, item in reversed(list(value.items())):
                child = f"{path}/{_pointer(name)}"
                types, count = properties.setdefault(child, (set(), [0]))
                types.add(json_type(item))
                count[0] += 1
                pending.append((item, child, depth + 1))
    return JsonShape(
        root_type=json_type(root),
        node_count=nodes,
        max_depth_observed=max_depth,
        properties=tuple(
            JsonProperty(path=p, types=tuple(sorted(t)), observations=c[0]) for p, (t, c) in sorted(properties.items())
        ),
    )


def fingerprint(scope: FingerprintScope, identity: str, value: str | None) -> StorageFingerprint:
    """A storage entry as digests: who it is (scope and key) and what it holds, never the value."""
    return StorageFingerprint(
        scope=scope,
        identity_sha256=sha256_text(f"{scope}\0{identity}"),
        value_sha256=None if value is None else sha256_text(value),
        complete=value is not None,
    )
