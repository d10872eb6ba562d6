"""The semantic graph under construction (rea.javascript.semantic_graph): its vocabulary (relation
families, budgets, identifier strategies), the builder that makes nodes, relations and unknowns under those
budgets with ids digested from kind, identity and role, and one module's facts with its scopes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from hashlib import sha256
from typing import Any

from rea.javascript.ids import node_id as app_node_id
from rea.javascript.observations import Context, evidence_record

MAX_NODES = 100_000
MAX_RELATIONS = 200_000
MAX_UNKNOWNS = 10_000
MAX_CANDIDATES = 8
FAMILIES = (
    "boundary",
    "call-flow",
    "child-process",
    "closure",
    "configuration",
    "data-flow",
    "event",
    "object-flow",
    "promise-ownership",
    "request",
    "resource-lifecycle",
    "timer",
)
FAMILY = {
    "argument-to-parameter": "call-flow",
    "calls": "call-flow",
    "returns-to-call": "call-flow",
    "defines": "data-flow",
    "reads": "data-flow",
    "writes": "data-flow",
    "reads-property": "object-flow",
    "writes-property": "object-flow",
    "registers-listener": "event",
    "dispatches-candidate": "event",
}
MODELLED = frozenset(("call-flow", "data-flow", "object-flow", "event", "boundary"))
STRATEGY_NODE = {"strategy": "semantic-content-sha256", "stability": "artifact-version"}
STRATEGY_RELATION = {"strategy": "semantic-content-sha256", "stability": "relationship-exact"}
LIMITATIONS = (
    "Ownership is function_node_id (the enclosing function; null: the module): owns relations are derived from "
    "it when a query follows them, not stored.",
    "Names resolve lexically (function parameters and declarations, enclosing functions, the module) and "
    "across modules through resolved imports; block scoping, destructuring, aliasing through objects and "
    "this-binding are not modelled, so a relation missing here is not established absent.",
    "Property slots are keyed by property name across the application: a write and a read of the same name "
    "on different objects are joined (object identity is not modelled).",
)


Range = Sequence[int] | None
Refs = Sequence[Sequence[Any]]
Slots = dict[str, str | None]
Resolved = Mapping[tuple[str, Any], str]
ByPath = Mapping[str, "ModuleFacts"]
Names = Mapping[str, list[tuple["ModuleFacts", str]]]
Target = tuple["ModuleFacts", str, int | None]


def semantic_digest(*parts: Any) -> str:
    return _sha("\x00".join(map(str, parts)))


def _sha(text: str) -> str:
    return sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class SemanticBuilder:
    """Nodes and relations under budgets; ids are digests of kind, identity and role."""

    def __init__(self, limits: Mapping[str, int], ctx: Context) -> None:
        self.ctx = ctx
        self.nodes: dict[str, dict[str, Any]] = {}
        self.relations: dict[str, dict[str, Any]] = {}
        self.unknowns: dict[str, dict[str, Any]] = {}
        self.contexts: dict[str, dict[str, Any]] = {}
        self.fingerprints: list[dict[str, Any]] = []
        self.max_nodes = limits.get("max_semantic_nodes", MAX_NODES)
        self.max_relations = limits.get("max_semantic_relations", MAX_RELATIONS)
        self.omitted_nodes = 0
        self.omitted_relations = 0
        self.omitted_unknowns = 0
        self.shared: dict[str, str | None] = {}
        self.family_counts: dict[str, int] = dict.fromkeys(FAMILIES, 0)
        self.no_properties: dict[str, Any] = {}  # the graph's records without properties share one (never mutated)
        self.arguments: dict[int, dict[str, int]] = {}  # and each {"argument": i}
        self.slot_ids: set[str | None] = set()  # the property-slot nodes (a read of one is reads-property)

    def context(self, path: str, sha: str | None, app_id: str, partial: bool) -> str:
        cid = "jsrg_evidence_" + semantic_digest(path, sha)
        if cid not in self.contexts:
            record = evidence_record(self.ctx, path, "ast-static-analysis", "observed", "high", partial)
            del record["location"]  # each fact carries its own
            if partial:
                record["limitations"] = ["The module is larger than the semantic byte bound and was read in part."]
            self.contexts[cid] = {
                "context_id": cid,
                **record,
                "module_path": path,
                "artifact_sha256": sha,
                "application_node_id": app_id,
            }
        return cid

    def node(
        self,
        kind: str,
        m: ModuleFacts,
        rng: Sequence[int] | None,
        role: str,
        label: str | None = None,
        function_node_id: str | None = None,
        **extra: Any,
    ) -> str | None:
        # = semantic_digest(kind, sha, path, start, end, role), the f-string and sha256 inline (once per node)
        if rng is None:
            text = f"{kind}{m.key}None\x00None\x00{role}"
        else:
            text = f"{kind}{m.key}{rng[4]}\x00{rng[5]}\x00{role}"
        nid = "jsrg_node_" + sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
        nodes = self.nodes
        if nid in nodes:
            return nid
        if len(nodes) >= self.max_nodes:
            self.omitted_nodes += 1
            return None
        evidence, source_range = m.at(rng)
        nodes[nid] = {
            "node_id": nid,
            "kind": kind,
            "identity": {
                "artifact_sha256": m.sha,
                "module_path": m.path,
                "source_range": source_range,
                "role_key": role,
            },
            "function_node_id": function_node_id,
            "application_node_ids": m.app_ids,
            "label": label,
            "properties": extra or self.no_properties,
            "evidence": evidence,
            "identifier_strategy": STRATEGY_NODE,
        }
        return nid

    def relate(
        self,
        source: str | None,
        target: str | None,
        relation: str,
        m: ModuleFacts,
        rng: Range,
        argument: int | None = None,
        candidate: bool = False,
    ) -> None:
        if source is None or target is None or source == target:
            return
        start = None if rng is None else rng[4]
        text = f"{source}\x00{relation}\x00{target}\x00{start}\x00{argument}"  # ids and digits: ASCII
        rid = "jsrg_relation_" + sha256(text.encode()).hexdigest()
        relations = self.relations
        if rid in relations:
            return
        if len(relations) >= self.max_relations:
            self.omitted_relations += 1
            return
        self.family_counts[FAMILY[relation]] += 1
        props = self.no_properties if argument is None else self.arguments.setdefault(argument, {"argument": argument})
        relations[rid] = {
            "relation_id": rid,
            "source_node_id": source,
            "target_node_id": target,
            "relation": relation,
            "resolution": "candidate" if candidate else "resolved",
            "properties": props,
            "evidence": m.at(rng)[0],
            "identifier_strategy": STRATEGY_RELATION,
        }

    def unknown(
        self, node: str | None, family: str, relations: list[str], reason: str, detail: str, m: ModuleFacts, rng: Range
    ) -> None:
        uid = "jsrg_unknown_" + semantic_digest(node, family, reason, m.path, rng and rng[4])
        if uid in self.unknowns:
            return
        if len(self.unknowns) >= MAX_UNKNOWNS:
            self.omitted_unknowns += 1
            return
        self.unknowns[uid] = {
            "unknown_id": uid,
            "node_id": node,
            "family": family,
            "relation_kinds": relations,
            "reason": reason,
            "detail": detail,
            "candidate_node_ids": [],
            "evidence": m.at(rng)[0],
        }


def _at(context: str, path: str, rng: Sequence[int] | None) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """A fact's evidence ({context_id, location} in 6.x's location shape; the path is the evidence context's
    module_path) and its identity's source range, which share their start and end objects."""
    if rng is None:
        return {
            "context_id": context,
            "location": {"available": True, "value": {"kind": "artifact-path", "path": path}},
        }, None
    start, end = {"line": rng[0], "column": rng[1]}, {"line": rng[2], "column": rng[3]}
    value = {
        "kind": "source-range",
        "source": path,
        "start": start,
        "end": end,
        "start_byte": rng[4],
        "end_byte": rng[5],
    }
    return {"context_id": context, "location": {"available": True, "value": value}}, {"start": start, "end": end}


class ModuleFacts:
    """One module's facts, its node ids and its scopes."""

    def __init__(self, b: SemanticBuilder, path: str, fact: Mapping[str, Any]) -> None:
        self.path, self.sha, self.facts = path, fact.get("sha256"), fact["semantic"]
        self.app_id = app_node_id(f"module:{path}")
        self.context = b.context(path, self.sha, self.app_id, bool(self.facts.get("truncated")))
        self.id: str | None = None
        self.functions: list[str | None] = []
        self.fn_index: dict[str, int] = {}
        self.params: dict[tuple[int, str], str | None] = {}
        self.param_list: list[list[str | None]] = []
        self.bindings: dict[tuple[int, str], str | None] = {}
        self.binding_fn: dict[str, str] = {}  # binding -> the function it is initialised to
        self.imports: dict[str, dict[str, Any]] = {}  # binding id -> {specifier, name}
        self.literals: list[str | None] = []
        self.calls: list[str | None] = []
        self.returns: dict[int, list[str]] = {}  # function index -> return-site ids
        self.parent = [f["scope"] for f in self.facts["functions"]]
        self.key = f"\x00{self.sha}\x00{self.path}\x00"  # what every node id of the module digests
        self.spans: dict[tuple[int, int] | None, tuple[dict[str, Any], dict[str, Any] | None]] = {}
        self.app_ids = [self.app_id]  # every node of the module stands for its module node: one list

    def at(self, rng: Sequence[int] | None) -> tuple[dict[str, Any], dict[str, Any] | None]:
        """The evidence and the identity source range of a range in this module, made once per range: a
        function's node, its parameters, its fingerprint and the relations evidenced at the same range share
        them (the JSON is the same, the graph holds fewer objects: less memory and less to hash and walk)."""
        key = None if rng is None else (rng[4], rng[5])
        found = self.spans.get(key)
        if found is None:
            found = self.spans[key] = _at(self.context, self.path, rng)
        return found

    def owner_function(self, scope: int) -> str | None:
        return self.functions[scope] if 0 <= scope < len(self.functions) else None

    def owner(self, scope: int) -> str | None:
        return self.functions[scope] if 0 <= scope < len(self.functions) else self.id

    def lookup(self, name: str, scope: int) -> str | None:
        params, bindings, parent = self.params, self.bindings, self.parent
        for _ in range(256):
            key = (scope, name)
            found = params.get(key) or bindings.get(key)
            if found is not None or scope < 0:
                return found
            scope = parent[scope] if scope < len(parent) else -1
        return None
