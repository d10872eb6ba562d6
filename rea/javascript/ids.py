"""Graph identities on the wire: `jag_node_` and `jag_edge_` digests of the analyzer's readable keys.

The analyzer builds with readable keys (`module:src/main.js`, `ipc-channel:ping`) because its
passes link by them; the reference pins node ids to `jag_node_<sha256>` and edge ids to
`jag_edge_<sha256>`. Every id on the wire is derived here, from the key alone, so the same tree
gives the same ids in every record, trace, view and comparison, and a key names one node in
both versions of an application.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from rea.artifacts.graph import flat_sha256

NODE_PREFIX = "jag_node_"
EDGE_PREFIX = "jag_edge_"
NODE_ID = "^jag_node_[a-f0-9]{64}$"
EDGE_ID = "^jag_edge_[a-f0-9]{64}$"


def node_id(key: str) -> str:
    """The wire id of the node with this readable key: jag_node_ + sha256 of the key's UTF-8 bytes."""
    return NODE_PREFIX + hashlib.sha256(key.encode("utf-8")).hexdigest()


def edge_key(edge: Mapping[str, Any]) -> dict[str, Any]:
    """What makes a working-form edge (readable `from`/`to`) unique within its graph: flat strings and
    integers, so its digest takes the canonical fast path (rea.artifacts.graph.flat_sha256)."""
    loc = edge.get("location") or {}
    return {
        "from": edge["from"],
        "relation": edge["relation"],
        "to": edge["to"],
        "path": loc.get("path", ""),
        "start": loc.get("start", -1),
        "kind": edge.get("kind", ""),
    }


def edge_id(key: Mapping[str, Any]) -> str:
    """The wire id of an edge: jag_edge_ + the canonical digest of its (flat) key."""
    return EDGE_PREFIX + flat_sha256(key)


def semantic_node_id(application_node_id: str) -> str:
    """The semantic-graph id of the module-level stand-in for an application node (no semantic graph is
    built: trace_javascript_semantics answers over application nodes under ids of the semantic family)."""
    return "jsrg_node_" + hashlib.sha256(application_node_id.encode("utf-8")).hexdigest()


def semantic_relation_id(application_edge_id: str) -> str:
    return "jsrg_relation_" + hashlib.sha256(application_edge_id.encode("utf-8")).hexdigest()


def is_node_id(value: object) -> bool:
    return isinstance(value, str) and value.startswith(NODE_PREFIX) and len(value) == len(NODE_PREFIX) + 64
