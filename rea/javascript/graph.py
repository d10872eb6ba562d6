"""The application graph: a pure function of the scanned tree and per-file facts.

Node keys are readable and derived from paths and names only (`module:src/main.js`,
`ipc-channel:ping`), so they are stable under file order and across runs; the wire ids
are their digests (rea.javascript.ids). Every node and edge carries its evidence
location: file path, line and byte range.
"""

from __future__ import annotations

import typing
from collections import defaultdict
from typing import Any
from collections.abc import Iterable, Mapping, Sequence

from rea.canonical_json import canonical_sha256
from rea.javascript.bundles import add_bundles, add_original_modules
from rea.javascript import tsconfig
from rea.javascript.resolve import (
    Resolver,
    condition_leaves,
    dirname,
    join,
    normalize,
    pattern_matches,
    subpath_map,
)
from rea.javascript.sourcemap import comparable_path, without_scheme
from rea.wire.convert import to_wire
from rea.javascript.records.arguments import AnalyzeLimits
from rea.javascript.records.fields import Relation

SCHEMA = "rea.javascript-application/v1"
RELATIONS = typing.get_args(Relation)
ROLES = ("main", "preload", "renderer", "utility")
MODULE_KINDS = ("module", "bundled-module", "original-source-module")
IMPORT_KINDS = ("import", "require", "dynamic-import", "re-export")

DEFAULT_LIMITS: Mapping[str, int] = to_wire(AnalyzeLimits())  # written once, in the argument record
LANGUAGE = {
    "javascript": "javascript",
    "typescript": "typescript",
    "tsx": "typescript",
    "type-declaration": "typescript",
}
PARSED_KINDS = ("javascript", "typescript", "tsx")
TEXT_KINDS = ("package-json", "javascript", "typescript", "tsx", "html", "source-map", "tsconfig")

_IPC_MAIN_HANDLE = {"handle": "invoke", "handleOnce": "invoke", "on": "send", "once": "send"}
_IPC_RENDERER_SEND = {
    "invoke": "invokes",
    "send": "sends",
    "sendSync": "sends",
    "postMessage": "sends",
    "sendTo": "sends",
}
_ROUTE_VERBS = {"get", "post", "put", "patch", "delete", "del", "all", "use", "head", "options"}


def select_text_files(
    files: Sequence[Mapping[str, Any]], limits: Mapping[str, int]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Which text files to read, in path order, under the file-count and byte limits; the rest are omissions."""
    chosen, omitted, total = [], [], 0
    for f in files:
        if f["kind"] not in TEXT_KINDS:
            continue
        if f["size"] > limits["max_text_file_bytes"]:
            omitted.append({"path": f["path"], "reason": "max_text_file_bytes", "size": f["size"]})
        elif len(chosen) >= limits["max_text_files"]:
            omitted.append({"path": f["path"], "reason": "max_text_files", "size": f["size"]})
        elif total + f["size"] > limits["max_total_text_bytes"]:
            omitted.append({"path": f["path"], "reason": "max_total_text_bytes", "size": f["size"]})
        else:
            chosen.append(dict(f))
            total += f["size"]
    return chosen, omitted


def tree_digest(files: Sequence[Mapping[str, Any]], facts: Mapping[str, Mapping[str, Any]]) -> str:
    """Identity of the tree: every entry's path and size, and the content digest of every file read."""
    return canonical_sha256(
        [{"path": f["path"], "size": f["size"], "sha256": facts.get(f["path"], {}).get("sha256")} for f in files]
    )


def _loc(path: str, fact: Mapping[str, Any]) -> dict[str, Any]:
    loc: dict[str, Any] = {"path": path}
    for key in ("line", "start", "end"):
        if key in fact:
            loc[key] = fact[key]
    return loc


class _Builder:
    def __init__(self) -> None:
        self.nodes: dict[str, dict[str, Any]] = {}
        self.edges: dict[tuple, dict[str, Any]] = {}
        self.unknowns: list[dict[str, Any]] = []
        self.findings: list[dict[str, Any]] = []

    def node(self, node_id: str, kind: str, loc: Mapping[str, Any] | None = None, **props: Any) -> dict[str, Any]:
        existing = self.nodes.get(node_id)
        if existing is None:
            existing = {"id": node_id, "kind": kind, **props}
            if loc is not None:
                existing["location"] = dict(loc)
            self.nodes[node_id] = existing
        elif loc is not None and "location" in existing:
            a, b = existing["location"], loc
            if (b.get("path", ""), b.get("start", 0)) < (a.get("path", ""), a.get("start", 0)):
                existing["location"] = dict(loc)
        return existing

    def edge(self, source: str, target: str, relation: str, loc: Mapping[str, Any], **props: Any) -> None:
        key = (source, relation, target, loc.get("path", ""), loc.get("start", -1), props.get("kind", ""))
        if key not in self.edges:
            self.edges[key] = {"from": source, "to": target, "relation": relation, "location": dict(loc), **props}


class _Graph:
    """What every pass shares: the builder, the tree's files and facts, the resolver and role bookkeeping."""

    def __init__(self, scan: Mapping[str, Any], facts_list: Iterable[Mapping[str, Any]]) -> None:
        self.scan = scan
        self.facts = {f["path"]: f for f in facts_list}
        self.files = scan["files"]
        self.sizes = {f["path"]: f["size"] for f in self.files}
        self.b = _Builder()
        self.containers = {c["path"]: c for c in scan.get("containers", ())}
        self.packages = {
            dirname(p): f
            for p, f in self.facts.items()
            if p.rsplit("/", 1)[-1] == "package.json" and f.get("parse") == "ok"
        }
        self.paths = frozenset(self.sizes)
        self.configs = {
            f["path"]: self.facts[f["path"]] for f in self.files if f["kind"] == "tsconfig" and f["path"] in self.facts
        }
        self.compiler = {
            c: tsconfig.compiler_paths(c, self.configs, self.paths) if fact.get("parse") == "ok" else None
            for c, fact in self.configs.items()
            if tsconfig.governs(c)
        }
        compiler = self.compiler
        self.resolver = Resolver(
            self.paths,
            self.packages,
            lambda importer: compiler.get(tsconfig.governing_config(importer, compiler)),
            root_is_node_modules=scan["root"].rstrip("/\\").rsplit("/", 1)[-1] == "node_modules",
        )
        self.package_dirs = sorted(self.packages, key=len, reverse=True)
        self.roles: dict[str, set[str]] = defaultdict(set)
        self.role_basis: dict[tuple[str, str], str] = {}
        self.linked_maps: dict[str, str] = {}
        self.map_sources: dict[str, list[str | None]] = {}
        self.root_pkg = self.packages.get("")
        self.package_files: dict[str, list[str]] = {}  # a package's own files, for its `*` map patterns

    def owning_package(self, path: str) -> str | None:
        for d in self.package_dirs:
            if d == "" or path.startswith(d + "/"):
                return d
        return None

    def file_node(self, found: str) -> str:
        """The node of a file an edge reaches: its module, add-on or document, else a plain asset node."""
        for prefix in ("module", "native-addon", "html"):
            if f"{prefix}:{found}" in self.b.nodes:
                return f"{prefix}:{found}"
        self.b.node(f"asset:{found}", "asset", {"path": found}, path=found, size=self.sizes.get(found))
        return f"asset:{found}"

    def give(self, node_id: str, role: str, basis: str) -> None:
        if node_id in self.b.nodes and self.b.nodes[node_id]["kind"] == "module":
            self.roles[node_id].add(role)
            self.role_basis.setdefault((node_id, role), basis)

    def locate(self, importer: str, ref: str, root_first: bool) -> tuple[str | None, str]:
        """The file a path literal names: from the root or beside the importer, else a unique basename."""
        ref = ref.split("?", 1)[0].split("#", 1)[0]
        if ref.startswith("file://"):
            ref = ref[7:]
        tries = [normalize(ref.lstrip("/")), join(dirname(importer), ref)]
        if not root_first:
            tries.reverse()
        for candidate in tries:
            if candidate is not None and candidate in self.resolver.files:
                return candidate, "path"
            found = self.resolver.file_or_directory(candidate) if candidate is not None else None
            if found:
                return found, "path"
        base = ref.rsplit("/", 1)[-1]
        same = [p for p in self.resolver.files if p.rsplit("/", 1)[-1] == base and "node_modules/" not in p]
        if len(same) == 1:
            return same[0], "unique-basename"
        return None, "ambiguous-basename" if same else "not-found"

    def unresolved(self, specifier: str, loc: Mapping[str, Any], unknown: dict[str, Any]) -> str:
        target_id = f"unresolved:{specifier}"
        self.b.node(target_id, "unresolved-module", loc, specifier=specifier)
        self.b.unknowns.append({**unknown, "node": target_id, **loc})
        return target_id


def build_graph(
    scan: Mapping[str, Any],
    facts_list: Iterable[Mapping[str, Any]],
    limits: Mapping[str, int],
    read_omissions: Sequence[Mapping[str, Any]],
) -> dict[str, Any]:
    """The application record before its wire projection (rea.javascript.record): passes in order."""
    g = _Graph(scan, facts_list)
    for f in g.files:
        _file_node(g, f)
    _package_nodes(g)
    _config_nodes(g.b, g.configs, g.compiler, g.paths)
    _import_edges(g)
    _script_edges(g)
    electron_app = bool(
        g.root_pkg and "electron" in {**g.root_pkg.get("dependencies", {}), **g.root_pkg.get("devDependencies", {})}
    ) or any(e["to"].startswith("electron:") for e in g.b.edges.values())
    for path, fact in sorted(g.facts.items()):
        _file_facts(g, path, fact)
    _bridge_globals(g)
    _source_maps(g)
    add_bundles(g.b, g.facts, lambda path: _map_of(g, path), g.map_sources)
    public = _package_maps(g)
    entries = _entry_points(g, electron_app, public)
    _propagate_roles(g)
    return _assemble(g, entries, limits, read_omissions, electron_app)


# ---- files: modules, documents, source maps, packages


def _file_node(g: _Graph, f: Mapping[str, Any]) -> None:
    b, path, kind = g.b, f["path"], f["kind"]
    fact = g.facts.get(path, {})
    if kind in ("javascript", "typescript", "tsx", "type-declaration"):
        props: dict[str, Any] = {
            "path": path,
            "language": LANGUAGE[kind],
            "size": f["size"],
            "sha256": fact.get("sha256"),
            "parse": fact.get("parse", "not-read"),
        }
        pkg = g.owning_package(path)
        if pkg is not None:
            props["package"] = pkg or "."
        for key in ("syntax_errors", "omitted_reason", "bundlers"):
            if fact.get(key):
                props[key] = fact[key]
        if fact.get("exports"):
            props["exports"] = [{k: e[k] for k in ("name", "form", "shape", "line") if k in e} for e in fact["exports"]]
        if fact.get("exports_open"):
            props["exports_open"] = fact["exports_open"]
            for reason in fact["exports_open"]:
                b.unknowns.append({"kind": "exports-not-enumerated", "node": f"module:{path}", "path": path, **reason})
        if fact.get("es_module"):
            props["es_module"] = True
        b.node(f"module:{path}", "module", {"path": path}, roles=[], **props)
    elif kind == "html":
        b.node(
            f"html:{path}",
            "html-document",
            {"path": path},
            path=path,
            size=f["size"],
            sha256=fact.get("sha256"),
            inline_scripts=fact.get("inline_scripts", 0),
        )
    elif kind == "source-map":
        b.node(
            f"source-map:{path}",
            "source-map",
            {"path": path},
            path=path,
            size=f["size"],
            sha256=fact.get("sha256"),
            parse=fact.get("parse", "not-read"),
        )
    elif kind == "native-addon":
        b.node(f"native-addon:{path}", "native-addon", {"path": path}, path=path, size=f["size"])
    elif kind == "asar":
        status = g.containers.get(path, {}).get("status", "not-read")
        b.node(f"asar:{path}", "asar", {"path": path}, path=path, size=f["size"], status=status)
        if status != "expanded":
            b.unknowns.append({"kind": "nested-asar-not-read", "node": f"asar:{path}", "path": path, "reason": status})


def _package_nodes(g: _Graph) -> None:
    for pkg_dir, pkg in sorted(g.packages.items()):
        manifest = f"{pkg_dir}/package.json" if pkg_dir else "package.json"
        deps = {
            k: v
            for key in ("dependencies", "optionalDependencies", "peerDependencies")
            for k, v in pkg.get(key, {}).items()
        }
        g.b.node(
            f"package:{pkg_dir or '.'}",
            "package",
            {"path": manifest},
            path=manifest,
            name=pkg.get("name"),
            version=pkg.get("version"),
            main=pkg.get("main"),
            type=pkg.get("type"),
            has_exports="exports" in pkg,
            has_imports="imports" in pkg,
            bin=pkg.get("bin"),
            dependencies=dict(sorted(deps.items())),
            dev_dependencies=dict(sorted(pkg.get("devDependencies", {}).items())) if pkg_dir == "" else None,
        )


def _import_edges(g: _Graph) -> None:
    """Imports of modules only: a package.json's `imports` is a map, not a list of imports."""
    b = g.b
    for path, fact in sorted(g.facts.items()):
        source = f"module:{path}"
        if source not in b.nodes:
            continue
        for imp in fact.get("imports", ()):
            status, target, basis, detail = g.resolver.resolve(path, imp["specifier"], imp["kind"])
            loc = _loc(path, imp)
            extra = {"kind": imp["kind"], "specifier": imp["specifier"], "basis": basis, **dict(detail)}
            if imp.get("type_only"):
                extra["type_only"] = True
            if status == "module":
                target_id = g.file_node(target)
            elif status in ("builtin", "electron"):
                target_id = f"{status}:{target}"
                b.node(target_id, "builtin-module" if status == "builtin" else "electron-module", None, name=target)
            else:
                target_id = g.unresolved(imp["specifier"], loc, {"kind": "unresolved-import", "reason": basis})
            b.edge(source, target_id, "imports", loc, **extra)


def _script_edges(g: _Graph) -> None:
    """HTML documents load scripts."""
    for path, fact in sorted(g.facts.items()):
        for script in fact.get("scripts", ()):
            src, loc = script["src"], _loc(path, script)
            if "://" in src or src.startswith("//"):
                target_id = f"url:{src}"
                g.b.node(target_id, "url", loc, url=src)
            else:
                found = g.resolver.file_or_directory(
                    normalize(src[1:]) if src.startswith("/") else join(dirname(path), src)
                )
                if found is None:
                    target_id = g.unresolved(src, loc, {"kind": "unresolved-script"})
                else:
                    target_id = g.file_node(found)
            g.b.edge(f"html:{path}", target_id, "loads", loc, kind="script")


# ---- Electron: windows, preload, loadFile/loadURL, utility processes, IPC, contextBridge, routes, protocols


def _file_facts(g: _Graph, path: str, fact: Mapping[str, Any]) -> None:
    source = f"module:{path}"
    for new in fact.get("constructions", ()):
        _construction(g, path, source, new)
    for call in fact.get("calls", ()):
        _call(g, path, source, call)
    for url in fact.get("urls", ()):
        uid = f"url:{url['url']}"
        loc = {"path": path, "start": url["start"]}
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


def _construction(g: _Graph, path: str, source: str, new: Mapping[str, Any]) -> None:
    b, loc = g.b, _loc(path, new)
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


def _call(g: _Graph, path: str, source: str, call: Mapping[str, Any]) -> None:
    loc = _loc(path, call)
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


def _ipc_call(g: _Graph, source: str, obj: str, prop: str, first: Any, loc: Mapping[str, Any]) -> bool:
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


def _bridge(g: _Graph, source: str, key: Any, call: Mapping[str, Any], loc: Mapping[str, Any]) -> None:
    if key is None:
        g.b.unknowns.append({"kind": "dynamic-context-bridge-key", "node": source, **loc})
        return
    api = f"context-bridge-api:{key}"
    truncated = {"members_truncated": True} if call.get("members_truncated") else {}
    g.b.node(api, "context-bridge-api", loc, key=key, members=call.get("members"), **truncated)
    g.b.edge(source, api, "exposes", loc)
    g.give(source, "preload", "context-bridge")


def _load(g: _Graph, path: str, source: str, prop: str, first: Any, loc: Mapping[str, Any]) -> None:
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


def _utility(g: _Graph, path: str, source: str, first: Any, loc: Mapping[str, Any]) -> None:
    if first:
        found, basis = g.locate(path, first, root_first=False)
        if found:
            g.b.edge(source, g.file_node(found), "loads", loc, kind="utility-process", basis=basis)
            g.give(f"module:{found}", "utility", "utility-process-fork")
            g.give(source, "main", "utility-process-fork")
            return
    g.b.unknowns.append({"kind": "unresolved-utility-process", "node": source, **loc})


def _mapping_url(g: _Graph, path: str, source: str, mapping: str) -> None:
    loc = {"path": path}
    if mapping == "inline":
        g.b.findings.append({"kind": "inline-source-map", "node": source, **loc})
        return
    target = join(dirname(path), mapping)
    if target is not None and f"source-map:{target}" in g.b.nodes:
        g.b.edge(source, f"source-map:{target}", "maps_to", loc, kind="sourceMappingURL")
        g.linked_maps[path] = target
    else:
        g.b.unknowns.append({"kind": "missing-source-map", "reference": mapping, **loc})


def _bridge_globals(g: _Graph) -> None:
    """Renderer globals that read a contextBridge key."""
    apis = {n["key"]: nid for nid, n in g.b.nodes.items() if n["kind"] == "context-bridge-api"}
    for path, fact in sorted(g.facts.items()):
        for name in fact.get("globals", ()):
            if name in apis:
                g.b.edge(f"module:{path}", apis[name], "calls", {"path": path}, kind="window-global")


# ---- source maps: original sources, then the structure their embedded contents keep


def _source_maps(g: _Graph) -> None:
    for path, fact in sorted(g.facts.items()):
        if fact.get("sources") is not None:
            _map_sources(g, path, fact)
    # the maps of one directory come from one build: a lazy chunk's own map holds what the entry's imports
    by_directory: dict[str, dict[str, str]] = defaultdict(dict)
    for path in sorted(g.map_sources):
        for src, sid in zip(g.facts[path]["sources"], g.map_sources[path]):
            if sid is not None:
                by_directory[dirname(path)].setdefault(comparable_path(src["path"]), sid)
    for path in sorted(g.map_sources):
        add_original_modules(g.b, path, g.facts[path], g.map_sources[path], by_directory[dirname(path)])


def _map_sources(g: _Graph, path: str, fact: Mapping[str, Any]) -> None:
    b = g.b
    root = join(dirname(path), fact.get("source_root") or "") if fact.get("source_root") else dirname(path)
    with_content = 0
    for src in fact["sources"]:
        name = src["path"]
        if name is None:  # a null source keeps its index (the mappings count it)
            g.map_sources.setdefault(path, []).append(None)
            continue
        resolved = _source_path(name, root or "")
        sid = f"source:{resolved if resolved is not None else name}"
        b.node(
            sid,
            "original-source-module",
            {"path": path},
            path=resolved or name,
            source=name,
            content_sha256=src["content"],
            **({"segments": src["segments"]} if "segments" in src else {}),
        )
        g.map_sources.setdefault(path, []).append(sid)
        with_content += src["content"] is not None
        b.edge(f"source-map:{path}", sid, "maps_to", {"path": path}, kind="source")
    node = b.nodes.get(f"source-map:{path}")
    if node is not None:
        node.update(
            sources=len(fact["sources"]),
            sources_with_content=with_content,
            sources_omitted=fact.get("sources_omitted", 0),
        )
    if fact.get("sources_omitted"):
        b.unknowns.append({"kind": "source-map-sources-omitted", "count": fact["sources_omitted"], "path": path})
    if fact.get("contents_not_parsed"):
        b.unknowns.append(
            {
                "kind": "original-sources-not-parsed",
                "count": fact["contents_not_parsed"],
                "path": path,
                "reason": "max_original_source_bytes",
            }
        )


def _map_of(g: _Graph, path: str) -> str | None:
    """The map a bundle links to, else the map that names it as its `file` (`app.js` beside `app.js.map`)."""
    if path in g.linked_maps:
        return g.linked_maps[path]
    guess = f"{path}.map"
    if guess in g.map_sources and g.facts[guess].get("file") in (None, path.rsplit("/", 1)[-1]):
        return guess
    return None


# ---- entry points and role propagation


def _package_maps(g: _Graph) -> list[dict[str, Any]]:
    """Every package's `exports` and `imports` maps read as loads: one edge from the package to each file a
    subpath (or `#` specifier) reaches, with the condition chains that select it (node/browser/import/require/
    default, nested) and the format Node loads it in, `*` patterns expanded over the files present. Returns
    the root package's public entry points (its `exports`); a target missing from the tree is an unknown."""
    public: list[dict[str, Any]] = []
    for pkg_dir, pkg in sorted(g.packages.items()):
        manifest = f"{pkg_dir}/package.json" if pkg_dir else "package.json"
        for field, kind in (("exports", "exports"), ("imports", "imports")):
            value = pkg.get(field)
            if value is None:
                continue
            table = subpath_map(value) if field == "exports" else value if isinstance(value, dict) else {}
            reached: dict[tuple[str, str], list[list[str]]] = {}
            for key, target_value in table.items():
                for chain, target in condition_leaves(target_value):
                    for subpath, found in _map_targets(g, pkg_dir, key, target, manifest):
                        reached.setdefault((subpath, found), []).append(list(chain))
            for (subpath, found), chains in sorted(reached.items()):
                node = g.file_node(found)
                fmt = _module_format(g, found)
                written = _syntax(g.facts.get(found, {})) if node.startswith("module:") else None
                extra = {"syntax": written} if written is not None and written != fmt else {}
                g.b.edge(
                    f"package:{pkg_dir or '.'}",
                    node,
                    "loads",
                    {"path": manifest},
                    kind=kind,
                    subpath=subpath,
                    conditions=chains,
                    format=fmt,
                    **extra,
                )
                if pkg_dir == "" and kind == "exports":
                    public.append(
                        {
                            "node": node,
                            "basis": f"package.json exports {subpath}",
                            "role": None,
                            "subpath": subpath,
                            "conditions": chains,
                            "format": fmt,
                            **extra,
                        }
                    )
    return public


def _syntax(fact: Mapping[str, Any]) -> str | None:
    """What the file is written in, from its facts: import/export statements are ESM, module.exports or
    require CommonJS (None when neither is seen). It differs from `format` where a bundler's `module` or
    `import` condition names ESM text that Node itself would load as CommonJS."""
    forms = {e.get("form", "") for e in fact.get("exports", ())}
    kinds = {i.get("kind") for i in fact.get("imports", ())}
    if any(f.startswith("esm") for f in forms) or kinds & {"import", "re-export"}:
        return "esm"
    if any(f.startswith("cjs") for f in forms) or "require" in kinds:
        return "commonjs"
    return None


def _map_targets(g: _Graph, pkg_dir: str, key: str, target: str, manifest: str) -> list[tuple[str, str]]:
    """The (subpath, file) pairs one map entry reaches. Only `./` targets name the package's own files (a bare
    target names another package, resolved when something imports it)."""
    if not target.startswith("./"):
        return []
    if "*" in key and "*" in target:
        if pkg_dir not in g.package_files:  # once per package, not per pattern leaf
            inside = pkg_dir + "/" if pkg_dir else ""
            g.package_files[pkg_dir] = [
                p for p in g.paths if p.startswith(inside) and "node_modules/" not in p[len(inside) :]
            ]
        return pattern_matches(pkg_dir, key, target, g.package_files[pkg_dir])
    found = join(pkg_dir, target)
    if found is not None and found in g.paths:
        return [(key, found)]
    g.b.unknowns.append(
        {
            "kind": "package-map-target-missing",
            "path": manifest,
            "reference": f"{key} -> {target}",
            "reason": "not-found",
        }
    )
    return []


def _module_format(g: _Graph, path: str) -> str:
    """How Node loads the file: .mjs/.mts as ESM, .cjs/.cts as CommonJS, .js by the nearest package.json's
    `type`; other files (JSON, .d.ts, .node) by their kind."""
    name = path.rsplit("/", 1)[-1]
    if name.endswith((".d.ts", ".d.mts", ".d.cts")):
        return "types"
    if name.endswith((".mjs", ".mts")):
        return "esm"
    if name.endswith((".cjs", ".cts")):
        return "commonjs"
    if name.endswith((".js", ".ts", ".jsx", ".tsx")):
        directory = dirname(path)
        while True:
            pkg = g.packages.get(directory)
            if pkg is not None or f"{directory}/package.json" in g.paths:
                return "esm" if (pkg or {}).get("type") == "module" else "commonjs"
            if not directory or directory.rsplit("/", 1)[-1] == "node_modules":
                return "commonjs"
            directory = dirname(directory)
    return name.rsplit(".", 1)[-1] if "." in name else "other"


def _entry_points(g: _Graph, electron_app: bool, public: Sequence[Mapping[str, Any]] = ()) -> list[dict[str, Any]]:
    b, root_pkg = g.b, g.root_pkg
    entries: list[dict[str, Any]] = []
    if root_pkg is not None:
        main_ref = root_pkg.get("main") or "index.js"
        found = g.resolver.file_or_directory(normalize(main_ref))
        if found:
            role = "main" if electron_app else None
            basis = "package.json main" if root_pkg.get("main") else "index.js"
            entries.append({"node": g.file_node(found), "basis": basis, "role": role})
            b.edge("package:.", g.file_node(found), "loads", {"path": "package.json"}, kind="main")
            if role:
                g.give(f"module:{found}", "main", "package-main")
        elif root_pkg.get("main"):
            b.unknowns.append({"kind": "missing-main", "reference": root_pkg["main"], "path": "package.json"})
        bins = root_pkg.get("bin")
        for name, ref in ({root_pkg.get("name") or "bin": bins} if isinstance(bins, str) else bins or {}).items():
            found = g.resolver.file_or_directory(normalize(ref))
            if found:
                entries.append({"node": g.file_node(found), "basis": f"package.json bin {name}", "role": None})
                b.edge("package:.", g.file_node(found), "loads", {"path": "package.json"}, kind="bin")
    entries.extend(dict(e) for e in public)
    for nid, node in sorted(b.nodes.items()):
        if node["kind"] == "html-document":
            entries.append({"node": nid, "basis": "html document", "role": "renderer"})
    return entries


def _propagate_roles(g: _Graph) -> None:
    """Renderer roles from HTML scripts, then every role along (non type-only) imports."""
    for edge in list(g.b.edges.values()):
        if edge["from"].startswith("html:") and edge["to"].startswith("module:"):
            g.give(edge["to"], "renderer", "html-script")
    imports_out: dict[str, list[str]] = defaultdict(list)
    for edge in g.b.edges.values():
        if edge["relation"] == "imports" and edge["to"].startswith("module:") and not edge.get("type_only"):
            imports_out[edge["from"]].append(edge["to"])
    for role in ROLES:
        frontier = sorted(n for n, r in g.roles.items() if role in r)
        seen = set(frontier)
        while frontier:
            nxt = []
            for n in frontier:
                for t in imports_out.get(n, ()):
                    if t not in seen:
                        seen.add(t)
                        nxt.append(t)
                        g.give(t, role, "imported")
            frontier = sorted(nxt)
    for nid, rs in g.roles.items():
        g.b.nodes[nid]["roles"] = [{"role": r, "basis": g.role_basis[(nid, r)]} for r in ROLES if r in rs]


# ---- the record: findings, statistics, coverage


def _node_findings(b: _Builder, entries: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    for nid, node in sorted(b.nodes.items()):
        kind = node["kind"]
        if kind == "ipc-channel":
            loc = node["location"]
            b.findings.append(
                {"kind": kind, "node": nid, "linked": node["linked"], "path": loc["path"], "line": loc.get("line")}
            )
        elif kind in ("context-bridge-api", "protocol"):
            b.findings.append(
                {"kind": "custom-protocol" if kind == "protocol" else kind, "node": nid, **node["location"]}
            )
        elif kind == "source-map":
            with_content = node.get("sources_with_content", 0)
            b.findings.append({"kind": kind, "node": nid, "path": node["path"], "sources_with_content": with_content})
        elif kind == "module" and node.get("bundlers"):
            b.findings.append(
                {"kind": "bundler-runtime", "node": nid, "bundlers": node["bundlers"], "path": node["path"]}
            )
    for e in entries:
        b.findings.append({"kind": "entry-point", "node": e["node"], "basis": e["basis"], "role": e["role"]})
    return sorted(b.findings, key=_order)


def _omissions(
    scan: Mapping[str, Any], facts: Mapping[str, Mapping[str, Any]], read_omissions: Sequence[Mapping[str, Any]]
) -> dict[str, int]:
    omissions: dict[str, int] = defaultdict(int)
    for o in (*scan["omitted"], *read_omissions):
        omissions[o["reason"]] += 1
    for f in facts.values():
        if f.get("omitted_reason"):
            omissions[f["omitted_reason"]] += 1
    per_file = sum(f.get("omitted_facts", 0) + f.get("urls_omitted", 0) for f in facts.values())
    if per_file:
        omissions["facts_per_file"] = per_file
    return omissions


def _counts(items: Iterable[Mapping[str, Any]], key: str) -> dict[str, int]:
    out: dict[str, int] = defaultdict(int)
    for item in items:
        out[item[key]] += 1
    return dict(sorted(out.items()))


def _statistics(
    g: _Graph, nodes: Sequence[Mapping[str, Any]], edges: Sequence[Mapping[str, Any]], sizes: Mapping[str, int]
) -> dict[str, Any]:
    facts, files = g.facts, g.files
    node_kinds = _counts(nodes, "kind")
    return {
        "entries": len(files) + len(g.scan["omitted"]),
        "files": len(files),
        "relevant_files": sum(1 for f in files if f["kind"] in TEXT_KINDS),
        "files_read": len(facts),
        "parsed_files": sum(1 for f in facts.values() if f.get("parse") in ("ok", "recovered") and "ast_nodes" in f),
        "recovered_parses": sum(1 for f in facts.values() if f.get("parse") == "recovered"),
        "parse_failures": sizes["parse_failures"],
        "bytes_read": sum(f.get("bytes_read", 0) for f in facts.values()),
        "ast_nodes": sum(f.get("ast_nodes", 0) for f in facts.values()),
        "modules": node_kinds.get("module", 0),
        "bundled_modules": node_kinds.get("bundled-module", 0),
        "original_source_modules": node_kinds.get("original-source-module", 0),
        "nodes": len(nodes),
        "edges": len(edges),
        "findings": sizes["findings"],
        "unknowns": sizes["unknowns"],
        "ipc_channels": node_kinds.get("ipc-channel", 0),
        "files_by_kind": _counts(files, "kind"),
        "nodes_by_kind": node_kinds,
        "edges_by_relation": _counts(edges, "relation"),
        **_reference_statistics(g, sizes),
    }


def _reference_statistics(g: _Graph, sizes: Mapping[str, int]) -> dict[str, int]:
    """The reference's reconstruction counts, in its names (some repeat ours under another name)."""
    facts = g.facts
    truncated = ("omitted_reason", "omitted_facts", "urls_omitted", "sources_omitted", "contents_not_parsed")
    return {
        "nested_asar_containers": sum(1 for f in g.files if f["kind"] == "asar"),
        "text_bytes_read": sum(f.get("bytes_read", 0) for f in facts.values()),
        "invalid_utf8_files": 0,  # bytes are parsed as UTF-8 with replacement; not counted
        "parsed_javascript_files": sum(
            1 for f in facts.values() if f.get("parse") in ("ok", "recovered") and "ast_nodes" in f
        ),
        "visited_ast_nodes": sum(f.get("ast_nodes", 0) for f in facts.values()),
        "truncated_scopes": sum(1 for f in facts.values() if any(f.get(k) for k in truncated)),
        "text_files_selected": len(facts),
        "omitted_text_files": sizes["omitted_text_files"],
        "limit_omitted_text_files": sizes["limit_omitted_text_files"],
        "policy_filtered_text_files": 0,
    }


def _edge_order(e: Mapping[str, Any]) -> tuple:
    loc = e["location"]
    return (e["from"], e["relation"], e["to"], loc.get("path", ""), loc.get("start", -1), e.get("kind", ""))


def _assemble(
    g: _Graph,
    entries: list[dict[str, Any]],
    limits: Mapping[str, int],
    read_omissions: Sequence[Mapping[str, Any]],
    electron_app: bool,
) -> dict[str, Any]:
    scan, facts = g.scan, g.facts
    findings = _node_findings(g.b, entries)
    limits_reached = sorted(
        {o["reason"] for o in (*scan["omitted"], *read_omissions) if o["reason"].startswith("max_")}
        | {f["omitted_reason"] for f in facts.values() if f.get("omitted_reason")}
        | {"max_original_source_bytes" for f in facts.values() if f.get("contents_not_parsed")}
        | ({"max_findings"} if len(findings) > limits["max_findings"] else set())
    )
    omissions = _omissions(scan, facts, read_omissions)
    if len(findings) > limits["max_findings"]:
        omissions["max_findings"] = len(findings) - limits["max_findings"]
    findings = findings[: limits["max_findings"]]
    nodes = sorted(g.b.nodes.values(), key=lambda n: n["id"])
    edges = sorted(g.b.edges.values(), key=_edge_order)
    unknowns = sorted(g.b.unknowns, key=_order)
    failures = sorted(
        ({"path": p, "error": f.get("error", "")} for p, f in facts.items() if f.get("parse") == "failed"),
        key=lambda f: f["path"],
    )
    sizes = {
        "parse_failures": len(failures),
        "findings": len(findings),
        "unknowns": len(unknowns),
        "omitted_text_files": len(read_omissions),
        "limit_omitted_text_files": sum(1 for o in read_omissions if o["reason"].startswith("max_")),
    }
    statistics = _statistics(g, nodes, edges, sizes)
    statistics["omissions_by_reason"] = dict(sorted(omissions.items()))
    contradictions = sorted(
        [
            *scan.get("integrity_contradictions", ()),
            *(f["integrity_contradiction"] for f in facts.values() if f.get("integrity_contradiction")),
        ],
        key=lambda c: c["path"],
    )
    partial = bool(
        limits_reached or failures or contradictions or any(o["reason"] == "unreadable" for o in scan["omitted"])
    )
    coverage = {
        "status": "partial" if partial else "complete",
        "limits_reached": limits_reached,
        "parse_failures": len(failures),
        "integrity_contradictions": len(contradictions),
        "note": (
            "Static analysis of the files read: dynamic requires, computed channels and runtime-only "
            "behaviour are recorded as unknowns, never as absence."
        ),
    }
    return {
        "schema": SCHEMA,
        "application": {"root": scan["root"], "format": scan["kind"], "electron": electron_app},
        "limits": dict(limits),
        "coverage": coverage,
        "statistics": statistics,
        "entry_points": entries,
        "nodes": nodes,
        "edges": edges,
        "findings": findings,
        "unknowns": unknowns,
        "parse_failures": failures,
        "omitted_entries": sorted([*scan["omitted"], *read_omissions], key=lambda o: o["path"])[:1000],
        "integrity_contradictions": contradictions,
    }


def _source_path(name: str, root: str) -> str | None:
    """Where a source-map source lives in the tree's terms. `webpack://<namespace>/<path>` is relative to the
    build's context directory, not to the map, so only its namespace is dropped; other sources are relative to
    the map's directory (or its sourceRoot). None when the path climbs above the root."""
    clean = without_scheme(name)
    return normalize(clean) if clean.startswith("/") or name.startswith("webpack://") else join(root, clean)


def _config_nodes(
    b: _Builder,
    configs: Mapping[str, Mapping[str, Any]],
    compiler: Mapping[str, tsconfig.CompilerPaths | None],
    files: frozenset[str],
) -> None:
    """A node per tsconfig/jsconfig read, with counts rather than maps; `extends` become `loads` edges (an
    unfollowed one is an unknown outside node_modules), and a governing config says what it ends up with
    (and from which config) after its extends chain."""
    for path, fact in sorted(configs.items()):
        cid = f"tsconfig:{path}"
        props: dict[str, Any] = {
            "path": path,
            "parse": fact.get("parse", "not-read"),
            "extends": fact.get("extends", []),
            "base_url": fact.get("base_url"),
            "paths": len(fact.get("paths") or {}),
        }
        if fact.get("paths_omitted"):
            props["paths_omitted"] = fact["paths_omitted"]
            b.unknowns.append({"kind": "tsconfig-paths-omitted", "node": cid, "path": path})
        effective = compiler.get(path)
        if path in compiler:
            props["governs"] = True
        if effective is not None:
            props["effective"] = {
                "base_url": effective.base_url,
                "paths": len(effective.paths),
                "paths_from": effective.paths_from,
            }
            if effective.truncated:
                b.unknowns.append(
                    {"kind": "tsconfig-extends-not-followed", "node": cid, "reason": effective.truncated, "path": path}
                )
        b.node(cid, "tsconfig", {"path": path}, **props)
        for ref in fact.get("extends", ()):
            target = tsconfig.extends_target(path, ref, files)
            if target is not None and target in configs:
                b.edge(cid, f"tsconfig:{target}", "loads", {"path": path}, kind="extends", reference=ref)
            elif "node_modules" not in path.split("/"):  # a package's own dev config governs nothing here
                b.unknowns.append(
                    {
                        "kind": "tsconfig-extends-not-followed",
                        "node": cid,
                        "reference": ref,
                        "reason": "not-found" if target is None else "not-read",
                        "path": path,
                    }
                )


def _order(item: Mapping[str, Any]) -> tuple:
    return (
        item.get("kind", ""),
        item.get("node", ""),
        item.get("path", ""),
        item.get("start", -1) or -1,
        item.get("line", -1) or -1,
    )


def _ipc(
    b: _Builder, source: str, channel: str | None, relation: str, direction: str, mode: str, loc: Mapping[str, Any]
) -> None:
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
