"""The semantic companion graph of an application (pure): functions, parameters, bindings, literals,
call and return sites, property slots, events and boundaries, with def-use, call, argument/return
binding, property read/write and ownership relations.

Built from the per-file facts effects.javascript.semantic_facts reads from tree-sitter trees. Names
resolve through lexical scopes (a function's parameters and declarations, then its enclosing
functions, then the module), imports through the application graph's resolved `imports` edges.
What cannot be resolved statically (eval, `Function`, computed properties, calls of computed
callees) is a semantic unknown; a method call resolved only by name is a `candidate` relation.
Bounded by node and relation budgets; a bound reached makes coverage partial and says so.
"""

from __future__ import annotations

from hashlib import sha256
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from rea.canonical_json import canonical_sha256, without_floats
from rea.collector import collector_paused
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
_IPC_SEND = {("ipcRenderer", p) for p in ("send", "invoke", "sendSync", "postMessage", "sendTo")}
_IPC_LISTEN = {("ipcMain", p) for p in ("handle", "handleOnce", "on", "once")} | {
    ("ipcRenderer", "on"),
    ("ipcRenderer", "once"),
}
_LISTEN = frozenset(("on", "once", "addEventListener", "addListener", "prependListener"))
_EMIT = frozenset(("emit",))
_ROUTE_VERBS = frozenset(("get", "post", "put", "patch", "delete", "del", "all", "head", "options"))
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
ByPath = Mapping[str, "_Module"]
Names = Mapping[str, list[tuple["_Module", str]]]
Target = tuple["_Module", str, int | None]


def _digest(*parts: Any) -> str:
    return _sha("\x00".join(map(str, parts)))


def _sha(text: str) -> str:
    return sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class _Builder:
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
        cid = "jsrg_evidence_" + _digest(path, sha)
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
        m: _Module,
        rng: Sequence[int] | None,
        role: str,
        label: str | None = None,
        function_node_id: str | None = None,
        **extra: Any,
    ) -> str | None:
        # = _digest(kind, sha, path, start, end, role), the f-string and sha256 inline (once per node)
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
        m: _Module,
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
        self, node: str | None, family: str, relations: list[str], reason: str, detail: str, m: _Module, rng: Range
    ) -> None:
        uid = "jsrg_unknown_" + _digest(node, family, reason, m.path, rng and rng[4])
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


class _Module:
    """One module's facts, its node ids and its scopes."""

    def __init__(self, b: _Builder, path: str, fact: Mapping[str, Any]) -> None:
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


@collector_paused()
def build_semantic_graph(
    facts_list: Iterable[Mapping[str, Any]],
    built_edges: Sequence[Mapping[str, Any]],
    application_graph_id: str,
    root_sha256: str,
    limits: Mapping[str, int],
    ctx: Context,
) -> dict[str, Any]:
    """The companion graph record (schema JavaScriptSemanticRelationGraph), sealed with its graph_id. ctx names
    the files read and the extractor, for the evidence contexts. Built with the collector paused."""
    b = _Builder(limits, ctx)
    resolved = {
        (e["from"][7:], e.get("specifier")): e["to"][7:]
        for e in built_edges
        if e["relation"] == "imports" and e["from"].startswith("module:") and e["to"].startswith("module:")
    }
    # first-party modules first: when a budget runs out, it runs out in dependencies, not in the app's own code
    ordered = sorted(facts_list, key=lambda f: ("node_modules/" in f["path"], f["path"]))
    modules = [_Module(b, f["path"], f) for f in ordered if f.get("semantic")]
    for m in modules:
        _declare(b, m)
    by_path = {m.path: m for m in modules}
    names: dict[str, list[tuple[_Module, str]]] = {}
    for m in modules:
        for fid, fn in zip(m.functions, m.facts["functions"]):
            if fid is not None and fn["name"]:
                names.setdefault(fn["name"], []).append((m, fid))
    slots: dict[str, str | None] = {}
    for m in modules:
        _flows(b, m, slots)
    for m in modules:
        _calls(b, m, by_path, resolved, names, slots)
    truncated = [m.path for m in modules if m.facts.get("truncated")]
    return _seal(b, modules, truncated, application_graph_id, root_sha256)


def _declare(b: _Builder, m: _Module) -> None:
    """Module, function, parameter, import and declared-name nodes (what names resolve to)."""
    m.id = b.node("module", m, None, "module", label=m.path)
    for fn in m.facts["functions"]:
        fid = b.node(
            "function",
            m,
            fn["range"],
            "function",
            label=fn["name"],
            function_node_id=None,
            arity=len(fn["params"]),
            parameters=fn["params"],
            **({"async": True} if fn["async"] else {}),
        )
        m.functions.append(fid)
        if fid is not None:
            m.fn_index[fid] = len(m.functions) - 1
        if fn["name"] and fn["scope"] >= -1:
            m.bindings.setdefault((fn["scope"], fn["name"]), fid)
        params: list[str | None] = []
        for i, name in enumerate(fn["params"]):
            pid = b.node("parameter", m, fn["range"], f"parameter:{i}", label=name, function_node_id=fid, index=i)
            params.append(pid)
            if name:
                m.params[(len(m.functions) - 1, name)] = pid
        m.param_list.append(params)
        if fid is not None:
            b.fingerprints.append(_fingerprint(fid, fn, m))
    for imp in m.facts["imports"]:
        bid = b.node(
            "binding",
            m,
            imp["range"],
            f"import:{imp['local']}",
            label=imp["local"],
            imports={"specifier": imp["specifier"], "name": imp["name"]},
        )
        m.bindings[(-1, imp["local"])] = bid
        if bid is not None:
            m.imports[bid] = {"specifier": imp["specifier"], "name": imp["name"]}
    for flow in m.facts["flows"]:
        if flow["kind"] == "define" and (flow["scope"], flow["name"]) not in m.bindings:
            bid = b.node(
                "binding",
                m,
                flow["range"],
                f"binding:{flow['name']}",
                label=flow["name"],
                function_node_id=m.owner(flow["scope"]) if flow["scope"] >= 0 else None,
                **({"require": flow["require"]} if "require" in flow else {}),
            )
            m.bindings[(flow["scope"], flow["name"])] = bid
            if bid is not None and "require" in flow:
                m.imports[bid] = {"specifier": flow["require"], "name": "*"}
            if bid is not None and len(flow["refs"]) == 1 and flow["refs"][0][0] == "fn":
                target = _fn(m, flow["refs"][0][1])
                if target is not None:
                    m.binding_fn[bid] = target
    for lit in m.facts["literals"]:
        props = _endpoint(lit["value"])
        fid = m.functions[lit["scope"]] if 0 <= lit["scope"] < len(m.functions) else None
        lid = b.node(
            "literal",
            m,
            lit["range"],
            "literal",
            label=lit["value"] or None,
            function_node_id=fid,
            value=lit["value"],
            **props,
        )
        m.literals.append(lid)
    for call in m.facts["calls"]:
        scope = call.get("scope", -1)
        fid = m.functions[scope] if 0 <= scope < len(m.functions) else None
        cid = b.node(
            "call-site",
            m,
            call["range"],
            "call",
            label=call.get("callee") or None,
            function_node_id=fid,
            **({"dynamic": call["dynamic"]} if call.get("dynamic") else {}),
        )
        m.calls.append(cid)


def _fn(m: _Module, index: Any) -> str | None:
    return m.functions[index] if isinstance(index, int) and 0 <= index < len(m.functions) else None


def _endpoint(value: str) -> dict[str, Any]:
    if "://" in value[:16] and value.split("://", 1)[0].isalpha():
        return {"endpoint": "url"}
    return {}


def _fingerprint(fid: str, fn: Mapping[str, Any], m: _Module) -> dict[str, Any]:
    fp = fn["fingerprint"]
    components = {
        "parameter_arity": len(fn["params"]),
        "normalized_ast_sha256": fp["normalized_ast_sha256"],
        "control_flow_sha256": fp["control_flow_sha256"],
        "relation_shape_sha256": _digest(len(fn["params"]), fp["control_flow_sha256"]),
        "literal_set_sha256": fp["literal_set_sha256"],
        "effects": fp["effects"],
    }
    digest = canonical_sha256(components)
    return {
        "fingerprint_id": "jsrg_fingerprint_" + _digest(fid, digest),
        "function_node_id": fid,
        "algorithm": "rea.javascript-semantic-function",
        "status": fp["status"],
        "components": components,
        "fingerprint_sha256": digest,
        "limitations": [] if fp["status"] == "complete" else ["function larger than 64 KiB: syntax not hashed"],
        "evidence": m.at(fn["range"])[0],
    }


def _source(b: _Builder, m: _Module, ref: Sequence[Any], scope: int, slots: dict[str, str | None]) -> str | None:
    kind, value = ref[0], ref[1]
    if kind == "name":  # the most common
        return m.lookup(value, scope)
    if kind == "lit":
        return m.literals[value] if value < len(m.literals) else None
    if kind == "call":
        return m.calls[value] if value < len(m.calls) else None
    if kind == "fn":
        return _fn(m, value)
    if kind == "prop":
        return _slot(b, m, value, slots)
    return None


def _slot(b: _Builder, m: _Module, name: str, slots: dict[str, str | None]) -> str | None:
    """The application-wide slot of a property name (created where it is first seen)."""
    if name not in slots:
        slots[name] = slot = b.node("property-slot", m, None, f"property:{name}", label=name, name=name)
        b.slot_ids.add(slot)
    return slots[name]


def _relate_refs(
    b: _Builder,
    m: _Module,
    refs: Refs,
    scope: int,
    target: str | None,
    relation: str,
    rng: Range,
    slots: Slots,
    **props: Any,
) -> list[str]:
    out = []
    reads, slot_ids = relation == "reads", b.slot_ids
    for ref in refs:
        src = _source(b, m, ref, scope, slots)
        if src is None:
            continue
        b.relate(src, target, "reads-property" if reads and src in slot_ids else relation, m, rng, **props)
        out.append(src)
    return out


def _flows(b: _Builder, m: _Module, slots: dict[str, str | None]) -> None:
    """Definitions, writes, property writes and returns: value -> binding / slot / return site."""
    for flow in m.facts["flows"]:
        scope, rng = flow["scope"], flow["range"]
        if flow["kind"] in ("define", "write"):
            target = m.lookup(flow["name"], scope)
            _relate_refs(
                b, m, flow["refs"], scope, target, "defines" if flow["kind"] == "define" else "writes", rng, slots
            )
        elif flow["kind"] == "write-property":
            target = _slot(b, m, flow["property"], slots)
            _relate_refs(b, m, flow["refs"], scope, target, "writes-property", rng, slots)
        elif flow["kind"] == "return":
            fid = m.functions[scope] if 0 <= scope < len(m.functions) else None
            rid = b.node("return-site", m, rng, "return", function_node_id=fid)
            _relate_refs(b, m, flow["refs"], scope, rid, "reads", rng, slots)
            if rid is not None and scope >= 0:
                m.returns.setdefault(scope, []).append(rid)
    for d in m.facts["dynamic"]:
        owner = m.owner(d["scope"])
        family = "call-flow" if d["reason"] == "eval-or-generated-code" else "object-flow"
        relations = ["calls"] if family == "call-flow" else ["writes-property"]
        b.unknown(
            owner, family, relations, d["reason"], f"{d['callee']} (never run; recorded as dynamic)", m, d["range"]
        )


def _calls(b: _Builder, m: _Module, by_path: ByPath, resolved: Resolved, names: Names, slots: Slots) -> None:
    """Arguments into call sites and parameters, calls to functions, returns back to call sites, IPC
    channels, events and routes."""
    for index, call in enumerate(m.facts["calls"]):
        cid = m.calls[index]
        if cid is None:
            continue
        scope, rng = call.get("scope", -1), call["range"]
        args = call.get("args", [])
        for i, refs in enumerate(args):
            _relate_refs(b, m, refs, scope, cid, "reads", rng, slots, argument=i)
        targets, candidate = _callee(m, call, scope, by_path, resolved, names)
        for target_module, fid, fn_index in targets:
            b.relate(cid, fid, "calls", target_module, rng, candidate=candidate)
            params = target_module.param_list[fn_index] if fn_index is not None else []
            for i, refs in enumerate(args[: len(params)]):
                for src in _refs_sources(b, m, refs, scope, slots):
                    b.relate(src, params[i], "argument-to-parameter", m, rng, argument=i, candidate=candidate)
            for rid in target_module.returns.get(fn_index, []) if fn_index is not None else []:
                b.relate(rid, cid, "returns-to-call", m, rng, candidate=candidate)
        if call.get("dynamic"):
            what = call.get("callee") or "a computed callee"
            note = " (generated code: recorded, never run)" if call["dynamic"] == "eval-or-generated-code" else ""
            b.unknown(cid, "call-flow", ["calls"], call["dynamic"], f"call of {what}{note}", m, rng)
        _boundary(b, m, call, cid, scope, slots)


def _refs_sources(b: _Builder, m: _Module, refs: Refs, scope: int, slots: Slots) -> list[str]:
    return [s for s in (_source(b, m, r, scope, slots) for r in refs) if s is not None]


def _callee(
    m: _Module, call: Mapping[str, Any], scope: int, by_path: ByPath, resolved: Resolved, names: Names
) -> tuple[list[Target], bool]:
    """The functions a call reaches: resolved by scope or import; a method call by name is a candidate."""
    callee = call.get("callee") or ""
    if "object" not in call:
        bid = m.lookup(callee, scope)
        if bid is None:
            return [], False
        if bid in m.fn_index:
            return [(m, bid, m.fn_index[bid])], False
        if bid in m.binding_fn:
            fid = m.binding_fn[bid]
            return [(m, fid, m.fn_index[fid])], False
        link = m.imports.get(bid)
        if link is not None and link["name"] != "*":
            return _exported(m, link["specifier"], link["name"], by_path, resolved), False
        return [], False
    obj = m.lookup(call["object"], scope) if call["object"].isidentifier() else None
    link = m.imports.get(obj) if obj is not None else None
    if link is not None:
        return _exported(m, link["specifier"], call["property"], by_path, resolved), False
    found = names.get(call["property"], [])
    if 0 < len(found) <= MAX_CANDIDATES:
        out: list[Target] = [(owner, fid, owner.fn_index[fid]) for owner, fid in found]
        return out, True
    return [], False


def _exported(m: _Module, specifier: str, name: str, by_path: ByPath, resolved: Resolved) -> list[Target]:
    """The function a resolved import names: a top-level function or function binding of that name."""
    target = by_path.get(resolved.get((m.path, specifier), ""))
    if target is None:
        return []
    for i, fn in enumerate(target.facts["functions"]):
        fid = target.functions[i]
        if fid is not None and fn["name"] == name and fn["scope"] == -1:
            return [(target, fid, i)]
    bid = target.bindings.get((-1, name))
    if bid is not None and bid in target.binding_fn:
        fid = target.binding_fn[bid]
        return [(target, fid, target.fn_index[fid])]
    return []


def _boundary(b: _Builder, m: _Module, call: Mapping[str, Any], cid: str, scope: int, slots: Slots) -> None:
    """IPC channels and bridge keys (boundary nodes), events, routes."""
    obj, prop, first = (call.get("object") or "").rsplit(".", 1)[-1], call.get("property"), call.get("first")
    if prop is None or not isinstance(first, str):
        return
    args, rng = call.get("args", []), call["range"]
    is_send = (obj, prop) in _IPC_SEND or (obj in ("webContents", "sender") and prop == "send")
    is_listen = (obj, prop) in _IPC_LISTEN
    is_ipc = is_send or is_listen
    if is_ipc:
        node = _shared(b, m, "boundary", "ipc", first, field=first, channel=first, boundary="ipc")
    elif obj == "contextBridge" and prop == "exposeInMainWorld":
        node = _shared(b, m, "boundary", "bridge", first, field=first, boundary="context-bridge")
        for refs in args[1:2]:
            _relate_refs(b, m, refs, scope, node, "writes", rng, slots)
        return
    elif prop in _LISTEN or prop in _EMIT:
        node = _shared(b, m, "event", "event", first, event=first)
        is_send, is_listen = prop in _EMIT, prop in _LISTEN
    else:
        return
    if is_send:
        for i, refs in enumerate(args[1:], start=1):
            _relate_refs(b, m, refs, scope, node, "writes", rng, slots, argument=i)
        b.relate(cid, node, "dispatches-candidate" if prop in _EMIT else "writes", m, rng)
        if prop == "invoke":
            b.relate(node, cid, "returns-to-call", m, rng)
    if is_listen and len(args) > 1:
        for ref in args[1]:
            fid = _fn(m, ref[1]) if ref[0] == "fn" else m.lookup(ref[1], scope) if ref[0] == "name" else None
            if fid is None or fid not in m.fn_index:
                continue
            b.relate(node, fid, "registers-listener", m, rng)
            fi = m.fn_index[fid]
            skip = 1 if is_ipc else 0  # an IPC listener's first parameter is the event
            for pid in m.param_list[fi][skip:]:
                b.relate(node, pid, "argument-to-parameter", m, rng)
            if prop in ("handle", "handleOnce"):
                for rid in m.returns.get(fi, []):
                    b.relate(rid, node, "writes", m, rng)


def _shared(b: _Builder, m: _Module, kind: str, family: str, name: str, **props: Any) -> str | None:
    """A channel, bridge key or event is one node for the whole application, made where it is first named."""
    key = f"{family}:{name}"
    if key not in b.shared:
        b.shared[key] = b.node(kind, m, None, key, label=name, **props)
    return b.shared[key]


def _seal(b: _Builder, modules: Sequence[_Module], truncated: list[str], gid: str, root_sha: str) -> dict[str, Any]:
    node_ids, relation_ids = sorted(b.nodes), sorted(b.relations)
    nodes = [b.nodes[k] for k in node_ids]  # keyed by their ids: the same order as sorting by id
    relations = [b.relations[k] for k in relation_ids]
    unknowns = [b.unknowns[k] for k in sorted(b.unknowns)]
    cut = bool(b.omitted_nodes or b.omitted_relations or b.omitted_unknowns or truncated)
    limits = [
        {"name": "max_semantic_nodes", "value": b.max_nodes, "unit": "items"},
        {"name": "max_semantic_relations", "value": b.max_relations, "unit": "items"},
        {"name": "max_semantic_file_bytes", "value": 1024 * 1024, "unit": "bytes"},
    ]
    by_family: dict[str, list[str]] = {f: [] for f in FAMILIES}
    for u in unknowns:
        by_family[u["family"]].append(u["unknown_id"])
    families = [
        {
            "family": f,
            "status": ("partial" if cut or by_family[f] else "complete") if f in MODELLED else "unsupported",
            "retained_relations": b.family_counts[f],
            "omitted_relations": (b.omitted_relations if cut else 0) if f in MODELLED else None,
            "unknown_ids": by_family[f][:1000],
        }
        for f in FAMILIES
    ]
    limitations = list(LIMITATIONS)
    if truncated:
        limitations.append(
            f"{len(truncated)} module(s) are larger than the semantic byte bound and were read in part: "
            + ", ".join(truncated[:10])
        )
    if b.omitted_nodes or b.omitted_relations:
        limitations.append(f"Budgets reached: {b.omitted_nodes} nodes and {b.omitted_relations} relations omitted.")
    roots = [m.id for m in modules if m.id is not None]
    body = {
        "schema": "JavaScriptSemanticRelationGraph",
        "schema_version": 1,
        "application_graph_id": gid,
        "root_artifact_sha256": root_sha,
        "root_node_ids": roots,
        "evidence_contexts": sorted(b.contexts.values(), key=lambda c: c["context_id"]),
        "nodes": nodes,
        "relations": relations,
        "fingerprints": sorted(b.fingerprints, key=lambda f: f["fingerprint_id"]),
        "unknowns": unknowns,
        "coverage": {
            "status": "partial" if cut else "complete",
            "truncated": cut,
            "omitted_nodes": b.omitted_nodes,
            "omitted_relations": b.omitted_relations,
            "limits": limits,
            "families": families,
            "truncated_modules": truncated[:1000],
        },
        "limitations": limitations,
    }
    with without_floats(node_ids, relation_ids):  # ids: strings
        digest = canonical_sha256({"application_graph_id": gid, "nodes": node_ids, "relations": relation_ids})
    return {**body, "graph_id": "jsrg_" + digest}
