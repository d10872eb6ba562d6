"""The semantic graph's declarations: a module's functions (with their fingerprints), parameters, imports,
declared names, literals and call sites, the nodes every name later resolves to."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rea.canonical_json import canonical_sha256
from rea.javascript.semantic_model import ModuleFacts, SemanticBuilder, semantic_digest


def declare(b: SemanticBuilder, m: ModuleFacts) -> None:
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
                target = function_at(m, flow["refs"][0][1])
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


def function_at(m: ModuleFacts, index: Any) -> str | None:
    return m.functions[index] if isinstance(index, int) and 0 <= index < len(m.functions) else None


def _endpoint(value: str) -> dict[str, Any]:
    if "://" in value[:16] and value.split("://", 1)[0].isalpha():
        return {"endpoint": "url"}
    return {}


def _fingerprint(fid: str, fn: Mapping[str, Any], m: ModuleFacts) -> dict[str, Any]:
    fp = fn["fingerprint"]
    components = {
        "parameter_arity": len(fn["params"]),
        "normalized_ast_sha256": fp["normalized_ast_sha256"],
        "control_flow_sha256": fp["control_flow_sha256"],
        "relation_shape_sha256": semantic_digest(len(fn["params"]), fp["control_flow_sha256"]),
        "literal_set_sha256": fp["literal_set_sha256"],
        "effects": fp["effects"],
    }
    digest = canonical_sha256(components)
    return {
        "fingerprint_id": "jsrg_fingerprint_" + semantic_digest(fid, digest),
        "function_node_id": fid,
        "algorithm": "rea.javascript-semantic-function",
        "status": fp["status"],
        "components": components,
        "fingerprint_sha256": digest,
        "limitations": [] if fp["status"] == "complete" else ["function larger than 64 KiB: syntax not hashed"],
        "evidence": m.at(fn["range"])[0],
    }
