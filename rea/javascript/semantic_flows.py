"""The semantic graph's relations: values into bindings, property slots and return sites; arguments into
call sites and parameters; calls to the functions they reach (by scope, by import, or by name as a
candidate); IPC channels, bridge keys, events and their listeners."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rea.javascript.semantic_declare import function_at
from rea.javascript.semantic_model import (
    MAX_CANDIDATES,
    ByPath,
    ModuleFacts,
    Names,
    Range,
    Refs,
    Resolved,
    SemanticBuilder,
    Slots,
    Target,
)

_IPC_SEND = {("ipcRenderer", p) for p in ("send", "invoke", "sendSync", "postMessage", "sendTo")}
_IPC_LISTEN = {("ipcMain", p) for p in ("handle", "handleOnce", "on", "once")} | {
    ("ipcRenderer", "on"),
    ("ipcRenderer", "once"),
}
_LISTEN = frozenset(("on", "once", "addEventListener", "addListener", "prependListener"))
_EMIT = frozenset(("emit",))
_ROUTE_VERBS = frozenset(("get", "post", "put", "patch", "delete", "del", "all", "head", "options"))


def _source(
    b: SemanticBuilder, m: ModuleFacts, ref: Sequence[Any], scope: int, slots: dict[str, str | None]
) -> str | None:
    kind, value = ref[0], ref[1]
    if kind == "name":  # the most common
        return m.lookup(value, scope)
    if kind == "lit":
        return m.literals[value] if value < len(m.literals) else None
    if kind == "call":
        return m.calls[value] if value < len(m.calls) else None
    if kind == "fn":
        return function_at(m, value)
    if kind == "prop":
        return _slot(b, m, value, slots)
    return None


def _slot(b: SemanticBuilder, m: ModuleFacts, name: str, slots: dict[str, str | None]) -> str | None:
    """The application-wide slot of a property name (created where it is first seen)."""
    if name not in slots:
        slots[name] = slot = b.node("property-slot", m, None, f"property:{name}", label=name, name=name)
        b.slot_ids.add(slot)
    return slots[name]


def _relate_refs(
    b: SemanticBuilder,
    m: ModuleFacts,
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


def add_flows(b: SemanticBuilder, m: ModuleFacts, slots: dict[str, str | None]) -> None:
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


def add_calls(
    b: SemanticBuilder, m: ModuleFacts, by_path: ByPath, resolved: Resolved, names: Names, slots: Slots
) -> None:
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


def _refs_sources(b: SemanticBuilder, m: ModuleFacts, refs: Refs, scope: int, slots: Slots) -> list[str]:
    return [s for s in (_source(b, m, r, scope, slots) for r in refs) if s is not None]


def _callee(
    m: ModuleFacts, call: Mapping[str, Any], scope: int, by_path: ByPath, resolved: Resolved, names: Names
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


def _exported(m: ModuleFacts, specifier: str, name: str, by_path: ByPath, resolved: Resolved) -> list[Target]:
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


def _boundary(b: SemanticBuilder, m: ModuleFacts, call: Mapping[str, Any], cid: str, scope: int, slots: Slots) -> None:
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
            fid = function_at(m, ref[1]) if ref[0] == "fn" else m.lookup(ref[1], scope) if ref[0] == "name" else None
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


def _shared(b: SemanticBuilder, m: ModuleFacts, kind: str, family: str, name: str, **props: Any) -> str | None:
    """A channel, bridge key or event is one node for the whole application, made where it is first named."""
    key = f"{family}:{name}"
    if key not in b.shared:
        b.shared[key] = b.node(kind, m, None, key, label=name, **props)
    return b.shared[key]
