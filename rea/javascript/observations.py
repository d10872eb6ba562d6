"""The reference's envelope of a graph node and edge: kind, identity, observations and their evidence.

The analyzer's own node kinds are finer than the reference's closed vocabulary (an HTML document,
a builtin module, a route), so on the wire `kind` is the reference's kind and ours is `subkind`.
Each node carries one observation (what this analysis saw of it: its facts as `properties`, where,
from which bytes, by which extractor) and each edge its evidence, in the reference's shapes; the
same facts stay as flat fields, which every workflow of ours reads. Everything is a pure function
of the working node or edge and the analysis facts passed in (`Context`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from rea.artifacts.graph import artifact_id
from rea.canonical_json import canonical_sha256

# our kind -> the reference's (JAVASCRIPT_APPLICATION_NODE_KINDS)
REFERENCE_KIND = {
    "module": "javascript-module",
    "bundled-module": "javascript-module",
    "original-source-module": "source-module",
    "html-document": "javascript-asset",
    "tsconfig": "javascript-asset",
    "asset": "javascript-asset",
    "source-map": "source-map",
    "native-addon": "native-addon",
    "asar": "asar-entry",
    "package": "package",
    "builtin-module": "package",
    "electron-module": "package",
    "unresolved-module": "unknown",
    "url": "endpoint",
    "route": "endpoint",
    "protocol": "endpoint",
    "browser-window": "browser-window",
    "context-bridge-api": "context-bridge-api",
    "ipc-channel": "ipc-channel",
}
# nodes that are files of the tree: identified by their path in this version of the artifact
FILE_KINDS = frozenset(("module", "html-document", "tsconfig", "asset", "source-map", "native-addon", "asar"))
# a relation that rests on an inference: an IPC pairing by channel name, or a guessed resolution
INFERRED_BASES = frozenset(("unique-basename", "source-map-sibling", "source-map-package"))
IPC_RELATIONS = frozenset(("handles", "sends", "invokes"))
_NOT_FACTS = frozenset(("id", "kind", "location"))
_EDGE_NOT_FACTS = frozenset(("from", "to", "relation", "location"))
COMPLETE = {"status": "complete", "truncated": False, "omitted_count": 0, "limits": []}
PARTIAL = {"status": "partial", "truncated": False, "omitted_count": None, "limits": []}
NODE_STRATEGY = {"strategy": "semantic-content-sha256", "stability": "observation-exact"}
EDGE_STRATEGY = {"strategy": "semantic-content-sha256", "stability": "relationship-exact"}


@attrs.frozen(kw_only=True)
class Context:
    """What an observation's evidence names beyond the node: the tree's identity, the files read, the
    extractor."""

    root_sha256: str
    files: Mapping[str, tuple[str, int]]  # path -> (sha256, size) of every file read
    extractor_version: str


def observation_id(node_id: str, observation: Mapping[str, Any]) -> str:
    """jag_observation_ + the canonical digest of the observation and the node it is of."""
    return "jag_observation_" + canonical_sha256({"node_id": node_id, **observation})


def inferred(edge: Mapping[str, Any]) -> bool:
    return edge["relation"] in IPC_RELATIONS or edge.get("basis") in INFERRED_BASES


def _artifact(ctx: Context, path: str | None) -> dict[str, Any]:
    read = ctx.files.get(path) if path is not None else None
    if read is None:
        return {"available": False, "reason": "not-observed", "detail": "The file holding it was not read."}
    return {"available": True, "artifact_id": artifact_id(read[0], read[1]), "sha256": read[0]}


def evidence_record(
    ctx: Context, path: str | None, authority: str, state: str, confidence: str, partial: bool
) -> dict[str, Any]:
    location = (
        {"available": True, "value": {"kind": "artifact-path", "path": path}}
        if path
        else {"available": False, "reason": "not-applicable", "detail": "Named by code, not located in a file."}
    )
    return {
        "authority": authority,
        "state": state,
        "confidence": confidence,
        "artifact": _artifact(ctx, path),
        "location": location,
        "extractor": {
            "name": "rea-javascript",
            "version": ctx.extractor_version,
            "operation": "analyze_javascript_application",
            "executable_sha256": None,
        },
        "coverage": dict(PARTIAL if partial else COMPLETE),
        "limitations": [],
        "evidence_ids": [],
    }


def _identity(node: Mapping[str, Any], ctx: Context) -> dict[str, Any]:
    kind, path = node["kind"], node.get("path")
    if kind in FILE_KINDS and path:
        return {
            "strategy": "canonical-path",
            "stability": "artifact-version",
            "artifact_sha256": ctx.root_sha256,
            "path": path,
        }
    map_path = str((node.get("location") or {}).get("path"))
    if kind == "original-source-module" and node.get("source") and map_path in ctx.files:
        return {
            "strategy": "source-map-original",
            "stability": "source-map-exact",
            "source_map_sha256": ctx.files[map_path][0],
            "original_source": node["source"],
            "source_sha256": node.get("content_sha256"),
        }
    return {
        "strategy": "artifact-local-key",
        "stability": "artifact-version",
        "artifact_sha256": ctx.root_sha256,
        "namespace": kind,
        "key": node["id"],
    }


def _partial(node: Mapping[str, Any]) -> bool:
    return bool(
        node.get("omitted_reason")
        or node.get("members_truncated")
        or node.get("sources_omitted")
        or node.get("parse") in ("failed", "not-read")
    )


def node_envelope(node: Mapping[str, Any], node_id: str, ctx: Context) -> dict[str, Any]:
    """The reference's fields of one working-form node: kind, identity and its one observation."""
    kind = node["kind"]
    properties = {k: v for k, v in node.items() if k not in _NOT_FACTS and v is not None}
    path = (node.get("location") or {}).get("path")
    unresolved = kind == "unresolved-module"
    evidence = evidence_record(
        ctx,
        path,
        "artifact-bytes" if kind in FILE_KINDS else "unknown" if unresolved else "ast-static-analysis",
        "unknown" if unresolved else "observed",
        "unknown" if unresolved else "exact" if kind in FILE_KINDS else "high",
        _partial(node),
    )
    observation = {
        "label": node["id"],
        "source_map_reference": None,
        "properties": properties,
        "evidence": evidence,
    }
    return {
        "kind": REFERENCE_KIND.get(kind, "unknown"),
        "subkind": kind,
        "identity": _identity(node, ctx),
        "observations": [
            {
                **observation,
                "observation_id": observation_id(node_id, observation),
                "identifier_strategy": dict(NODE_STRATEGY),
            }
        ],
    }


def edge_envelope(edge: Mapping[str, Any], ctx: Context) -> dict[str, Any]:
    """The reference's fields of one working-form edge: its facts as properties, its evidence."""
    guessed = inferred(edge)
    return {
        "properties": {k: v for k, v in edge.items() if k not in _EDGE_NOT_FACTS and v is not None},
        "evidence": evidence_record(
            ctx,
            (edge.get("location") or {}).get("path"),
            "static-relationship-inference" if guessed else "ast-static-analysis",
            "inferred" if guessed else "observed",
            "medium" if guessed else "high",
            False,
        ),
        "identifier_strategy": dict(EDGE_STRATEGY),
    }


def pairing_envelope(properties: Mapping[str, Any]) -> dict[str, Any]:
    """The evidence of a changed_from edge: a cross-version pairing (an inference, not a runtime fact)."""
    confidence = {"exact": "exact", "medium": "medium"}.get(str(properties.get("match_confidence")), "unknown")
    return {
        "evidence": {
            "authority": "cross-version-comparison",
            "state": "inferred",
            "confidence": confidence,
            "artifact": {"available": False, "reason": "not-applicable", "detail": "A pairing of two versions."},
            "location": {"available": False, "reason": "not-applicable", "detail": "A pairing of two versions."},
            "extractor": {
                "name": "rea-javascript-workflows",
                "version": "1",
                "operation": "compare_application_versions",
                "executable_sha256": None,
            },
            "coverage": dict(COMPLETE),
            "limitations": [],
            "evidence_ids": [],
        },
        "identifier_strategy": dict(EDGE_STRATEGY),
    }
