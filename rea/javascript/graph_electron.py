"""The application graph's Electron pass: windows and their preloads, loadFile/loadURL, utility processes,
IPC channels, contextBridge keys, routes, protocols, literal URLs and content security policies, read from
each file's calls and constructions."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rea.javascript.graph_builder import Builder, GraphState, Location, fact_location
from rea.javascript.resolve import dirname, join

_IPC_MAIN_HANDLE = {"handle": "invoke", "handleOnce": "invoke", "on": "send", "once": "send"}
_IPC_RENDERER_SEND = {
    "invoke": "invokes",
    "send": "sends",
    "sendSync": "sends",
    "postMessage": "sends",
    "sendTo": "sends",
}
_ROUTE_VERBS = {"get", "post", "put", "patch", "delete", "del", "all", "use", "head", "options"}


def add_file_facts(g: GraphState, path: str, fact: Mapping[str, Any]) -> None:
    source = f"module:{path}"
    for new in fact.get("constructions", ()):
        _construction(g, path, source, new)
    for call in fact.get("calls", ()):
        _call(g, path, source, call)
    for url in fact.get("urls", ()):
        uid = f"url:{url['url']}"
        loc: Location = {"path": path, "start": url["start"]}
        g.b.node(uid, "url", loc, url=url["url"])
        g.b.edge(source if source in g.b.nodes else f"html:{path}", uid, "calls", loc, kind="literal")
    mapping = fact.get("source_mapping_url")
    if mapping:
        _mapping_url(g, path, source, mapping)
    for policy in fact.get("csp", ()):  # a header set in code, a meta tag, a policy built from literals
        owner = source if source in g.b.nodes else f"html:{path}"
        g.b.findings.append({"kind": "content-security-policy", "node": owner, "path": path, **policy})


_INSECURE_PREFERENCES = (
    ("nodeIntegration", True, "node-integration-enabled"),
    ("contextIsolation", False, "context-isolation-disabled"),
    ("sandbox", False, "sandbox-disabled"),
    ("webSecurity", False, "web-security-disabled"),
)


def _construction(g: GraphState, path: str, source: str, new: Mapping[str, Any]) -> None:
    b, loc = g.b, fact_location(path, new)
    if new["constructor"] in ("BrowserWindow", "BrowserView", "WebContentsView"):
        wid = f"browser-window:{path}:{new.get('line', 0)}"
        prefs = {k: new[k] for k in ("nodeIntegration", "contextIsolation", "sandbox", "webSecurity") if k in new}
        b.node(wid, "browser-window", loc, constructor=new["constructor"], web_preferences=prefs)
        b.edge(source, wid, "contains", loc)
        g.give(source, "main", "constructs-browser-window")
        for flag, bad, finding in _INSECURE_PREFERENCES:
            if prefs.get(flag) is bad:
                b.findings.append({"kind": finding, "node": wid, **loc})
        if new.get("preload"):
            found, basis = g.locate(path, new["preload"], root_first=False)
            if found is None:
                target_id = g.unresolved(new["preload"], loc, {"kind": "unresolved-preload", "reason": basis})
            else:
                target_id = g.file_node(found)
                g.give(target_id, "preload", "browser-window-preload")
            computed = {"computed": True} if new.get("preload_computed") else {}
            b.edge(wid, target_id, "loads", loc, kind="preload", basis=basis, **computed)
        elif new.get("preload_computed"):
            b.unknowns.append({"kind": "dynamic-preload", "node": wid, **loc})
    elif new["constructor"] in ("Worker", "SharedWorker") and new.get("args") and new["args"][0]:
        found, basis = g.locate(path, new["args"][0], root_first=False)
        if found:
            b.edge(source, g.file_node(found), "loads", loc, kind="worker", basis=basis)


def _call(g: GraphState, path: str, source: str, call: Mapping[str, Any]) -> None:
    loc = fact_location(path, call)
    parts = call["callee"].split(".")
    obj, prop = (parts[-2] if len(parts) > 1 else ""), parts[-1]
    args = call.get("args") or []
    first = args[0] if args else None
    if _ipc_call(g, source, obj, prop, first, loc):
        return
    if obj == "contextBridge" and prop == "exposeInMainWorld":
        _bridge(g, source, first, call, loc)
    elif prop in ("loadFile", "loadURL"):
        _load(g, path, source, prop, first, loc)
    elif obj == "utilityProcess" and prop == "fork":
        _utility(g, path, source, first, loc)
    elif (obj == "protocol" and (prop.startswith("register") or prop == "handle")) or (
        prop == "setAsDefaultProtocolClient"
    ):
        for scheme in (a for a in args if a):
            pid = f"protocol:{scheme}"
            g.b.node(pid, "protocol", loc, scheme=scheme)
            g.b.edge(source, pid, "handles", loc, kind=prop)
            if prop != "registerSchemesAsPrivileged":
                break
    elif prop in _ROUTE_VERBS and isinstance(first, str) and first.startswith("/") and obj not in _IPC_OBJECTS:
        method = "DELETE" if prop == "del" else prop.upper()
        rid = f"route:{method} {first}"
        g.b.node(rid, "route", loc, method=method, route=first)
        g.b.edge(source, rid, "handles", loc)


_IPC_OBJECTS = ("ipcMain", "ipcRenderer")


def _ipc_call(g: GraphState, source: str, obj: str, prop: str, first: Any, loc: Location) -> bool:
    """Record an IPC end; False when the call is not one."""
    if obj == "ipcMain" and prop in _IPC_MAIN_HANDLE:
        _ipc(g.b, source, first, "handles", "renderer-to-main", _IPC_MAIN_HANDLE[prop], loc)
        g.give(source, "main", "ipc-main")
    elif obj == "ipcRenderer" and prop in _IPC_RENDERER_SEND:
        mode = "invoke" if prop == "invoke" else "send"
        _ipc(g.b, source, first, _IPC_RENDERER_SEND[prop], "renderer-to-main", mode, loc)
    elif obj == "ipcRenderer" and prop in ("on", "once"):
        _ipc(g.b, source, first, "handles", "main-to-renderer", "send", loc)
    elif obj in ("webContents", "sender") and prop == "send":
        _ipc(g.b, source, first, "sends", "main-to-renderer", "send", loc)
        g.give(source, "main", "web-contents-send")
    else:
        return False
    return True


def _bridge(g: GraphState, source: str, key: Any, call: Mapping[str, Any], loc: Location) -> None:
    if key is None:
        g.b.unknowns.append({"kind": "dynamic-context-bridge-key", "node": source, **loc})
        return
    api = f"context-bridge-api:{key}"
    truncated = {"members_truncated": True} if call.get("members_truncated") else {}
    g.b.node(api, "context-bridge-api", loc, key=key, members=call.get("members"), **truncated)
    g.b.edge(source, api, "exposes", loc)
    g.give(source, "preload", "context-bridge")


def _load(g: GraphState, path: str, source: str, prop: str, first: Any, loc: Location) -> None:
    if not first:
        g.b.unknowns.append({"kind": f"dynamic-{prop}", "node": source, **loc})
        return
    if prop == "loadURL" and "://" in first and not first.startswith("file://"):
        uid = f"url:{first}"
        g.b.node(uid, "url", loc, url=first)
        g.b.edge(source, uid, "loads", loc, kind=prop)
    else:
        found, basis = g.locate(path, first, root_first=True)
        if found is None:
            g.b.unknowns.append({"kind": "unresolved-load", "reference": first, "reason": basis, **loc})
        else:
            g.b.edge(source, g.file_node(found), "loads", loc, kind=prop, basis=basis)
    g.give(source, "main", prop)


def _utility(g: GraphState, path: str, source: str, first: Any, loc: Location) -> None:
    if first:
        found, basis = g.locate(path, first, root_first=False)
        if found:
            g.b.edge(source, g.file_node(found), "loads", loc, kind="utility-process", basis=basis)
            g.give(f"module:{found}", "utility", "utility-process-fork")
            g.give(source, "main", "utility-process-fork")
            return
    g.b.unknowns.append({"kind": "unresolved-utility-process", "node": source, **loc})


def _mapping_url(g: GraphState, path: str, source: str, mapping: str) -> None:
    loc: Location = {"path": path}
    if mapping == "inline":
        g.b.findings.append({"kind": "inline-source-map", "node": source, **loc})
        return
    target = join(dirname(path), mapping)
    if target is not None and f"source-map:{target}" in g.b.nodes:
        g.b.edge(source, f"source-map:{target}", "maps_to", loc, kind="sourceMappingURL")
        g.linked_maps[path] = target
    else:
        g.b.unknowns.append({"kind": "missing-source-map", "reference": mapping, **loc})


def add_bridge_globals(g: GraphState) -> None:
    """Renderer globals that read a contextBridge key."""
    apis = {n["key"]: nid for nid, n in g.b.nodes.items() if n["kind"] == "context-bridge-api"}
    for path, fact in sorted(g.facts.items()):
        for name in fact.get("globals", ()):
            if name in apis:
                g.b.edge(f"module:{path}", apis[name], "calls", {"path": path}, kind="window-global")


def _ipc(b: Builder, source: str, channel: str | None, relation: str, direction: str, mode: str, loc: Location) -> None:
    if channel is None:
        b.unknowns.append(
            {"kind": "dynamic-ipc-channel", "node": source, "relation": relation, "direction": direction, **loc}
        )
        return
    cid = f"ipc-channel:{channel}"
    node = b.node(cid, "ipc-channel", loc, channel=channel, ends={}, linked=False)
    key = f"{direction}:{'handler' if relation == 'handles' else 'sender'}"
    node["ends"][key] = node["ends"].get(key, 0) + 1
    node["ends"] = dict(sorted(node["ends"].items()))
    node["linked"] = any(
        k.endswith(":handler") and k.replace(":handler", ":sender") in node["ends"] for k in node["ends"]
    )
    b.edge(source, cid, relation, loc, kind=mode, direction=direction)
