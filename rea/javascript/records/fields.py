"""The JavaScript family's shared wire vocabulary: id patterns, relation and node-kind enums, and the
field builders its argument and result records share (REA 6.x names)."""

from __future__ import annotations

from typing import Any, Literal

from rea.javascript.ids import NODE_ID
from rea.wire.schema import field

EVIDENCE_ID = "^ev_[a-f0-9]{64}$"
SEMANTIC_NODE_ID = "^jsrg_node_[a-f0-9]{64}$"
SHA256 = "^[a-f0-9]{64}$"
_MAX = 2**53 - 1

Relation = Literal["contains", "loads", "imports", "maps_to", "exposes", "sends", "invokes", "handles", "calls"]
GraphStatus = Literal["complete", "partial", "unknown", "unavailable"]
SEMANTIC_RELATIONS = (
    "acquires aggregates aliases argument-to-parameter awaits calls cancels-timer captures chains coerces "
    "connects-stdio consumed-by constructs-request creates-promise defaults defines destructures detaches-task "
    "dispatches-candidate forwards-signal listens-error listens-exit owns overrides parses reads reads-argv "
    "reads-config reads-environment reads-property registers-listener releases removes-listener returns-task "
    "returns-to-call schedules-timer spawns spreads supplies-argv supplies-env supplies-request-field validates "
    "writes writes-property"
).split()
SEMANTIC_NODE_KINDS = (
    "module function parameter binding expression literal property-slot call-site return-site closure-capture "
    "promise task event listener timer child-process stdio signal config-source request response boundary "
    "resource unknown-frontier"
).split()


def open_rows(description: str, required: tuple[str, ...] = ("kind",)) -> dict[str, Any]:
    """An array of open objects: our extra fact lists whose rows vary by kind (each names its kind)."""
    return {
        "type": "array",
        "description": description,
        "items": {
            "type": "object",
            "description": description,
            "properties": {k: {"type": "string"} for k in required},
            "required": list(required),
        },
    }


def application_field(side: str = "application") -> Any:
    return field(
        f'{side}: analyze_javascript_application Evidence, inline or {{"kind": "retained-evidence", "evidence_id"}}',
        omit_none=True,
        type="object",
    )


def semantic_graph_field() -> Any:
    return field(
        (
            "The semantic graph Evidence the application names (semantic_graph.retained), inline or "
            "retained; omitted: read from this connection"
        ),
        omit_none=True,
        type="object",
    )


def evidence_id_field(what: str) -> Any:
    return field(f"Id of retained {what}", omit_none=True, pattern=EVIDENCE_ID)


def native_ids_field() -> Any:
    return field(
        "Native observation Evidence ids retained by this connection",
        factory=tuple,
        schema={"type": "array", "maxItems": 64, "items": {"type": "string", "pattern": EVIDENCE_ID}, "default": []},
    )


def native_observations_field() -> Any:
    return field(
        "Native Evidence to hand off to (unusable ones are named in limitations)",
        factory=tuple,
        schema={
            "type": "array",
            "items": {"type": "object", "description": "Native Evidence, complete inline"},
            "default": [],
        },
    )


# ------------------------------------------------------------------ arguments


def id_list(description: str, pattern: str = NODE_ID) -> Any:
    """A list of graph ids of one family (jag_node_ by default)."""
    return field(description, schema={"type": "array", "items": {"type": "string", "pattern": pattern}})


def limit_field(default: int, maximum: int, minimum: int = 1) -> Any:
    return field(f"default {default}", default=default, minimum=minimum, maximum=maximum)
