"""The application graph: a pure function of the scanned tree and per-file facts.

Node ids are readable and derived from paths and names only (`module:src/main.js`,
`ipc-channel:ping`), so they are stable under file order and across runs. Every node
and edge carries its evidence location: file path, line and byte range.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any
from collections.abc import Iterable, Mapping, Sequence

from rea.canonical_json import canonical_sha256
from rea.javascript.bundles import add_bundles, add_original_modules
from rea.javascript import tsconfig
from rea.javascript.resolve import Resolver, dirname, join, normalize
from rea.javascript.sourcemap import comparable_path, without_scheme

SCHEMA = "rea.javascript-application/v1"
RELATIONS = ("contains", "loads", "imports", "maps_to", "exposes", "sends", "invokes", "handles", "calls")
ROLES = ("main", "preload", "renderer", "utility")
MODULE_KINDS = ("module", "bundled-module", "original-source-module")
IMPORT_KINDS = ("import", "require", "dynamic-import", "re-export")

DEFAULT_LIMITS: Mapping[str, int] = {
    "max_entries": 100_000,
    "max_depth": 64,
    "max_text_files": 20_000,
    "max_text_file_bytes": 32 * 1024 * 1024,
    "max_total_text_bytes": 256 * 1024 * 1024,
    "max_ast_nodes": 2_000_000,
    "max_findings": 8_000,
    "max_source_map_sources": 5_000,
    "max_original_source_bytes": 64 * 1024 * 1024,
}
ZERO_DISABLES = ("max_original_source_bytes",)  # limits whose 0 turns the work off
LIMIT_MAXIMA: Mapping[str, int] = {
    "max_entries": 1_000_000,
    "max_depth": 100,
    "max_text_files": 100_000,
    "max_text_file_bytes": 64 * 1024 * 1024,
    "max_total_text_bytes": 1024 * 1024 * 1024,
    "max_ast_nodes": 20_000_000,
    "max_findings": 200_000,
    "max_source_map_sources": 100_000,
    "max_original_source_bytes": 1024 * 1024 * 1024,
}
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


def build_graph(
    scan: Mapping[str, Any],
    facts_list: Iterable[Mapping[str, Any]],
    limits: Mapping[str, int],
    read_omissions: Sequence[Mapping[str, Any]],
) -> dict[str, Any]:
    """The complete application record (the `normalized_result` of analyze_javascript_application)."""
    facts = {f["path"]: f for f in facts_list}
    files = scan["files"]
    b = _Builder()
    containers = {c["path"]: c for c in scan.get("containers", ())}
    packages = {
        dirname(p): f for p, f in facts.items() if p.rsplit("/", 1)[-1] == "package.json" and f.get("parse") == "ok"
    }
    paths = frozenset(f["path"] for f in files)
    configs = {f["path"]: facts[f["path"]] for f in files if f["kind"] == "tsconfig" and f["path"] in facts}
    compiler = {
        c: tsconfig.compiler_paths(c, configs, paths) if fact.get("parse") == "ok" else None
        for c, fact in configs.items()
        if tsconfig.governs(c)
    }
    resolver = Resolver(
        paths,
        packages,
        lambda importer: compiler.get(tsconfig.governing_config(importer, compiler)),
        root_is_node_modules=scan["root"].rstrip("/\\").rsplit("/", 1)[-1] == "node_modules",
    )
    package_dirs = sorted(packages, key=len, reverse=True)

    def owning_package(path: str) -> str | None:
        for d in package_dirs:
            if d == "" or path.startswith(d + "/"):
                return d
        return None

    # ---- files: modules, documents, source maps, packages
    for f in files:
        path, kind = f["path"], f["kind"]
        fact = facts.get(path, {})
        if kind in ("javascript", "typescript", "tsx", "type-declaration"):
            props: dict[str, Any] = {
                "path": path,
                "language": LANGUAGE[kind],
                "size": f["size"],
                "sha256": fact.get("sha256"),
                "parse": fact.get("parse", "not-read"),
            }
            pkg = owning_package(path)
            if pkg is not None:
                props["package"] = pkg or "."
            if fact.get("syntax_errors"):
                props["syntax_errors"] = fact["syntax_errors"]
            if fact.get("omitted_reason"):
                props["omitted_reason"] = fact["omitted_reason"]
            if fact.get("exports"):
                props["exports"] = [
                    {k: e[k] for k in ("name", "form", "shape", "line") if k in e} for e in fact["exports"]
                ]
            if fact.get("bundlers"):
                props["bundlers"] = fact["bundlers"]
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
            status = containers.get(path, {}).get("status", "not-read")
            b.node(f"asar:{path}", "asar", {"path": path}, path=path, size=f["size"], status=status)
            if status != "expanded":
                b.unknowns.append(
                    {"kind": "nested-asar-not-read", "node": f"asar:{path}", "path": path, "reason": status}
                )
    for pkg_dir, pkg in sorted(packages.items()):
        pid = f"package:{pkg_dir or '.'}"
        manifest = f"{pkg_dir}/package.json" if pkg_dir else "package.json"
        deps = {
            k: v
            for key in ("dependencies", "optionalDependencies", "peerDependencies")
            for k, v in pkg.get(key, {}).items()
        }
        b.node(
            pid,
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

    _config_nodes(b, configs, compiler, paths)

    def file_node(found: str) -> str:
        """The node of a file an edge reaches: its module, add-on or document, else a plain asset node."""
        for prefix in ("module", "native-addon", "html"):
            if f"{prefix}:{found}" in b.nodes:
                return f"{prefix}:{found}"
        size = next((f["size"] for f in files if f["path"] == found), None)
        b.node(f"asset:{found}", "asset", {"path": found}, path=found, size=size)
        return f"asset:{found}"

    # ---- imports (of modules only: a package.json's `imports` is a map, not a list of imports)
    for path, fact in sorted(facts.items()):
        source = f"module:{path}"
        if source not in b.nodes:
            continue
        for imp in fact.get("imports", ()):
            status, target, basis, detail = resolver.resolve(path, imp["specifier"], imp["kind"])
            loc = _loc(path, imp)
            extra = {"kind": imp["kind"], "specifier": imp["specifier"], "basis": basis, **dict(detail)}
            if imp.get("type_only"):
                extra["type_only"] = True
            if status == "module":
                target_id = file_node(target)
            elif status in ("builtin", "electron"):
                target_id = f"{status}:{target}"
                b.node(target_id, "builtin-module" if status == "builtin" else "electron-module", None, name=target)
            else:
                target_id = f"unresolved:{imp['specifier']}"
                b.node(target_id, "unresolved-module", loc, specifier=imp["specifier"])
                b.unknowns.append({"kind": "unresolved-import", "node": target_id, "reason": basis, **loc})
            b.edge(source, target_id, "imports", loc, **extra)

    # ---- HTML documents load scripts
    for path, fact in sorted(facts.items()):
        for script in fact.get("scripts", ()):
            src = script["src"]
            if "://" in src or src.startswith("//"):
                target_id = f"url:{src}"
                b.node(target_id, "url", _loc(path, script), url=src)
            else:
                found = resolver.file_or_directory(
                    normalize(src[1:]) if src.startswith("/") else join(dirname(path), src)
                )
                if found is None:
                    target_id = f"unresolved:{src}"
                    b.node(target_id, "unresolved-module", _loc(path, script), specifier=src)
                    b.unknowns.append({"kind": "unresolved-script", "node": target_id, **_loc(path, script)})
                else:
                    target_id = file_node(found)
            b.edge(f"html:{path}", target_id, "loads", _loc(path, script), kind="script")

    # ---- Electron: windows, preload, loadFile/loadURL, utility processes, IPC, contextBridge, routes, protocols
    roles: dict[str, set[str]] = defaultdict(set)
    role_basis: dict[tuple[str, str], str] = {}

    def give(node_id: str, role: str, basis: str) -> None:
        if node_id in b.nodes and b.nodes[node_id]["kind"] == "module":
            roles[node_id].add(role)
            role_basis.setdefault((node_id, role), basis)

    def locate(importer: str, ref: str, root_first: bool) -> tuple[str | None, str]:
        ref = ref.split("?", 1)[0].split("#", 1)[0]
        if ref.startswith("file://"):
            ref = ref[7:]
        tries = [normalize(ref.lstrip("/")), join(dirname(importer), ref)]
        if not root_first:
            tries.reverse()
        for candidate in tries:
            if candidate is not None and candidate in resolver.files:
                return candidate, "path"
            found = resolver.file_or_directory(candidate) if candidate is not None else None
            if found:
                return found, "path"
        base = ref.rsplit("/", 1)[-1]
        same = [p for p in resolver.files if p.rsplit("/", 1)[-1] == base and "node_modules/" not in p]
        if len(same) == 1:
            return same[0], "unique-basename"
        return None, "ambiguous-basename" if same else "not-found"

    root_pkg = packages.get("")
    electron_app = bool(
        root_pkg and "electron" in {**root_pkg.get("dependencies", {}), **root_pkg.get("devDependencies", {})}
    ) or any(e["to"].startswith("electron:") for e in b.edges.values())
    linked_maps: dict[str, str] = {}
    for path, fact in sorted(facts.items()):
        source = f"module:{path}"
        for new in fact.get("constructions", ()):
            loc = _loc(path, new)
            if new["constructor"] in ("BrowserWindow", "BrowserView", "WebContentsView"):
                wid = f"browser-window:{path}:{new.get('line', 0)}"
                prefs = {
                    k: new[k] for k in ("nodeIntegration", "contextIsolation", "sandbox", "webSecurity") if k in new
                }
                b.node(wid, "browser-window", loc, constructor=new["constructor"], web_preferences=prefs)
                b.edge(source, wid, "contains", loc)
                give(source, "main", "constructs-browser-window")
                for flag, bad, finding in (
                    ("nodeIntegration", True, "node-integration-enabled"),
                    ("contextIsolation", False, "context-isolation-disabled"),
                    ("sandbox", False, "sandbox-disabled"),
                    ("webSecurity", False, "web-security-disabled"),
                ):
                    if prefs.get(flag) is bad:
                        b.findings.append({"kind": finding, "node": wid, **loc})
                if new.get("preload"):
                    found, basis = locate(path, new["preload"], root_first=False)
                    if found is None:
                        target_id = f"unresolved:{new['preload']}"
                        b.node(target_id, "unresolved-module", loc, specifier=new["preload"])
                        b.unknowns.append({"kind": "unresolved-preload", "node": target_id, "reason": basis, **loc})
                    else:
                        target_id = file_node(found)
                        give(target_id, "preload", "browser-window-preload")
                    b.edge(
                        wid,
                        target_id,
                        "loads",
                        loc,
                        kind="preload",
                        basis=basis,
                        **({"computed": True} if new.get("preload_computed") else {}),
                    )
                elif new.get("preload_computed"):
                    b.unknowns.append({"kind": "dynamic-preload", "node": wid, **loc})
            elif new["constructor"] in ("Worker", "SharedWorker") and new.get("args") and new["args"][0]:
                found, basis = locate(path, new["args"][0], root_first=False)
                if found:
                    b.edge(source, file_node(found), "loads", loc, kind="worker", basis=basis)
        for call in fact.get("calls", ()):
            loc = _loc(path, call)
            parts = call["callee"].split(".")
            obj, prop = (parts[-2] if len(parts) > 1 else ""), parts[-1]
            args = call.get("args") or []
            first = args[0] if args else None
            if obj == "ipcMain" and prop in _IPC_MAIN_HANDLE:
                _ipc(b, source, first, "handles", "renderer-to-main", _IPC_MAIN_HANDLE[prop], loc)
                give(source, "main", "ipc-main")
            elif obj == "ipcRenderer" and prop in _IPC_RENDERER_SEND:
                _ipc(
                    b,
                    source,
                    first,
                    _IPC_RENDERER_SEND[prop],
                    "renderer-to-main",
                    "invoke" if prop == "invoke" else "send",
                    loc,
                )
            elif obj == "ipcRenderer" and prop in ("on", "once"):
                _ipc(b, source, first, "handles", "main-to-renderer", "send", loc)
            elif obj in ("webContents", "sender") and prop == "send":
                _ipc(b, source, first, "sends", "main-to-renderer", "send", loc)
                give(source, "main", "web-contents-send")
            elif obj == "contextBridge" and prop == "exposeInMainWorld":
                if first is None:
                    b.unknowns.append({"kind": "dynamic-context-bridge-key", "node": source, **loc})
                else:
                    api = f"context-bridge-api:{first}"
                    b.node(
                        api,
                        "context-bridge-api",
                        loc,
                        key=first,
                        members=call.get("members"),
                        **({"members_truncated": True} if call.get("members_truncated") else {}),
                    )
                    b.edge(source, api, "exposes", loc)
                    give(source, "preload", "context-bridge")
            elif prop in ("loadFile", "loadURL") and first:
                if prop == "loadURL" and "://" in first and not first.startswith("file://"):
                    uid = f"url:{first}"
                    b.node(uid, "url", loc, url=first)
                    b.edge(source, uid, "loads", loc, kind=prop)
                else:
                    found, basis = locate(path, first, root_first=True)
                    if found is None:
                        b.unknowns.append({"kind": "unresolved-load", "reference": first, "reason": basis, **loc})
                    else:
                        b.edge(source, file_node(found), "loads", loc, kind=prop, basis=basis)
                give(source, "main", prop)
            elif prop in ("loadFile", "loadURL"):
                b.unknowns.append({"kind": f"dynamic-{prop}", "node": source, **loc})
            elif obj == "utilityProcess" and prop == "fork":
                if first:
                    found, basis = locate(path, first, root_first=False)
                    if found:
                        b.edge(source, file_node(found), "loads", loc, kind="utility-process", basis=basis)
                        give(f"module:{found}", "utility", "utility-process-fork")
                        give(source, "main", "utility-process-fork")
                        continue
                b.unknowns.append({"kind": "unresolved-utility-process", "node": source, **loc})
            elif (
                obj == "protocol"
                and prop.startswith("register")
                or (obj == "protocol" and prop == "handle")
                or prop == "setAsDefaultProtocolClient"
            ):
                for scheme in (a for a in args if a):
                    pid = f"protocol:{scheme}"
                    b.node(pid, "protocol", loc, scheme=scheme)
                    b.edge(source, pid, "handles", loc, kind=prop)
                    if prop != "registerSchemesAsPrivileged":
                        break
            elif (
                prop in _ROUTE_VERBS
                and isinstance(first, str)
                and first.startswith("/")
                and obj not in ("ipcMain", "ipcRenderer")
            ):
                method = "DELETE" if prop == "del" else prop.upper()
                rid = f"route:{method} {first}"
                b.node(rid, "route", loc, method=method, route=first)
                b.edge(source, rid, "handles", loc)
        for url in fact.get("urls", ()):
            uid = f"url:{url['url']}"
            loc = {"path": path, "start": url["start"]}
            b.node(uid, "url", loc, url=url["url"])
            b.edge(source if f"module:{path}" in b.nodes else f"html:{path}", uid, "calls", loc, kind="literal")
        mapping = fact.get("source_mapping_url")
        if mapping:
            loc = {"path": path}
            if mapping == "inline":
                b.findings.append({"kind": "inline-source-map", "node": source, **loc})
            else:
                target = join(dirname(path), mapping)
                if target is not None and f"source-map:{target}" in b.nodes:
                    b.edge(source, f"source-map:{target}", "maps_to", loc, kind="sourceMappingURL")
                    linked_maps[path] = target
                else:
                    b.unknowns.append({"kind": "missing-source-map", "reference": mapping, **loc})
    # renderer globals that read a contextBridge key
    apis = {n["key"]: nid for nid, n in b.nodes.items() if n["kind"] == "context-bridge-api"}
    for path, fact in sorted(facts.items()):
        for name in fact.get("globals", ()):
            if name in apis:
                b.edge(f"module:{path}", apis[name], "calls", {"path": path}, kind="window-global")
    # source maps: original sources
    map_sources: dict[str, list[str | None]] = {}
    for path, fact in sorted(facts.items()):
        if fact.get("sources") is None:
            continue
        root = join(dirname(path), fact.get("source_root") or "") if fact.get("source_root") else dirname(path)
        with_content = 0
        for src in fact["sources"]:
            name = src["path"]
            if name is None:  # a null source keeps its index (the mappings count it)
                map_sources.setdefault(path, []).append(None)
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
            map_sources.setdefault(path, []).append(sid)
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

    # the maps of one directory come from one build: a lazy chunk's own map holds what the entry's imports
    by_directory: dict[str, dict[str, str]] = defaultdict(dict)
    for path in sorted(map_sources):
        for src, sid in zip(facts[path]["sources"], map_sources[path]):
            if sid is not None:
                by_directory[dirname(path)].setdefault(comparable_path(src["path"]), sid)
    for path in sorted(map_sources):
        add_original_modules(b, path, facts[path], map_sources[path], by_directory[dirname(path)])

    def map_of(path: str) -> str | None:
        """The map a bundle links to, else the map that names it as its `file` (`app.js` beside `app.js.map`)."""
        if path in linked_maps:
            return linked_maps[path]
        guess = f"{path}.map"
        return guess if guess in map_sources and facts[guess].get("file") in (None, path.rsplit("/", 1)[-1]) else None

    add_bundles(b, facts, map_of, map_sources)

    # ---- entry points and role propagation
    entries: list[dict[str, Any]] = []
    if root_pkg is not None:
        main_ref = root_pkg.get("main") or "index.js"
        found = resolver.file_or_directory(normalize(main_ref))
        if found:
            role = "main" if electron_app else None
            entries.append(
                {
                    "node": file_node(found),
                    "basis": "package.json main" if root_pkg.get("main") else "index.js",
                    "role": role,
                }
            )
            b.edge("package:.", file_node(found), "loads", {"path": "package.json"}, kind="main")
            if role:
                give(f"module:{found}", "main", "package-main")
        elif root_pkg.get("main"):
            b.unknowns.append({"kind": "missing-main", "reference": root_pkg["main"], "path": "package.json"})
        bins = root_pkg.get("bin")
        for name, ref in ({root_pkg.get("name") or "bin": bins} if isinstance(bins, str) else bins or {}).items():
            found = resolver.file_or_directory(normalize(ref))
            if found:
                entries.append({"node": file_node(found), "basis": f"package.json bin {name}", "role": None})
                b.edge("package:.", file_node(found), "loads", {"path": "package.json"}, kind="bin")
    for nid, node in sorted(b.nodes.items()):
        if node["kind"] == "html-document":
            entries.append({"node": nid, "basis": "html document", "role": "renderer"})
    for edge in list(b.edges.values()):
        if edge["from"].startswith("html:") and edge["to"].startswith("module:"):
            give(edge["to"], "renderer", "html-script")
    imports_out: dict[str, list[str]] = defaultdict(list)
    for edge in b.edges.values():
        if edge["relation"] == "imports" and edge["to"].startswith("module:") and not edge.get("type_only"):
            imports_out[edge["from"]].append(edge["to"])
    for role in ROLES:
        frontier = sorted(n for n, r in roles.items() if role in r)
        seen = set(frontier)
        while frontier:
            nxt = []
            for n in frontier:
                for t in imports_out.get(n, ()):
                    if t not in seen:
                        seen.add(t)
                        nxt.append(t)
                        give(t, role, "imported")
            frontier = sorted(nxt)
    for nid, rs in roles.items():
        b.nodes[nid]["roles"] = [{"role": r, "basis": role_basis[(nid, r)]} for r in ROLES if r in rs]

    # ---- findings (top facts) and limits
    for nid, node in sorted(b.nodes.items()):
        if node["kind"] == "ipc-channel":
            b.findings.append(
                {
                    "kind": "ipc-channel",
                    "node": nid,
                    "linked": node["linked"],
                    "path": node["location"]["path"],
                    "line": node["location"].get("line"),
                }
            )
        elif node["kind"] == "context-bridge-api":
            b.findings.append({"kind": "context-bridge-api", "node": nid, **node["location"]})
        elif node["kind"] == "protocol":
            b.findings.append({"kind": "custom-protocol", "node": nid, **node["location"]})
        elif node["kind"] == "source-map":
            b.findings.append(
                {
                    "kind": "source-map",
                    "node": nid,
                    "path": node["path"],
                    "sources_with_content": node.get("sources_with_content", 0),
                }
            )
        elif node["kind"] == "module" and node.get("bundlers"):
            b.findings.append(
                {"kind": "bundler-runtime", "node": nid, "bundlers": node["bundlers"], "path": node["path"]}
            )
    for e in entries:
        b.findings.append({"kind": "entry-point", "node": e["node"], "basis": e["basis"], "role": e["role"]})
    findings = sorted(b.findings, key=_order)
    limits_reached = sorted(
        {o["reason"] for o in (*scan["omitted"], *read_omissions) if o["reason"].startswith("max_")}
        | {f["omitted_reason"] for f in facts.values() if f.get("omitted_reason")}
        | {"max_original_source_bytes" for f in facts.values() if f.get("contents_not_parsed")}
    )
    if len(findings) > limits["max_findings"]:
        limits_reached = sorted({*limits_reached, "max_findings"})
    findings_omitted = max(0, len(findings) - limits["max_findings"])
    findings = findings[: limits["max_findings"]]

    nodes = sorted(b.nodes.values(), key=lambda n: n["id"])
    edges = sorted(
        b.edges.values(),
        key=lambda e: (
            e["from"],
            e["relation"],
            e["to"],
            e["location"].get("path", ""),
            e["location"].get("start", -1),
            e.get("kind", ""),
        ),
    )
    unknowns = sorted(b.unknowns, key=_order)
    omissions: dict[str, int] = defaultdict(int)
    for o in (*scan["omitted"], *read_omissions):
        omissions[o["reason"]] += 1
    for f in facts.values():
        if f.get("omitted_reason"):
            omissions[f["omitted_reason"]] += 1
    omissions["facts_per_file"] = sum(f.get("omitted_facts", 0) + f.get("urls_omitted", 0) for f in facts.values())
    if not omissions["facts_per_file"]:
        del omissions["facts_per_file"]
    if findings_omitted:
        omissions["max_findings"] = findings_omitted
    failures = sorted(
        ({"path": p, "error": f.get("error", "")} for p, f in facts.items() if f.get("parse") == "failed"),
        key=lambda f: f["path"],
    )
    kinds: dict[str, int] = defaultdict(int)
    for f in files:
        kinds[f["kind"]] += 1
    node_kinds: dict[str, int] = defaultdict(int)
    for n in nodes:
        node_kinds[n["kind"]] += 1
    relations: dict[str, int] = defaultdict(int)
    for e in edges:
        relations[e["relation"]] += 1
    statistics = {
        "entries": len(files) + len(scan["omitted"]),
        "files": len(files),
        "relevant_files": sum(1 for f in files if f["kind"] in TEXT_KINDS),
        "files_read": len(facts),
        "parsed_files": sum(1 for f in facts.values() if f.get("parse") in ("ok", "recovered") and "ast_nodes" in f),
        "recovered_parses": sum(1 for f in facts.values() if f.get("parse") == "recovered"),
        "parse_failures": len(failures),
        "bytes_read": sum(f.get("bytes_read", 0) for f in facts.values()),
        "ast_nodes": sum(f.get("ast_nodes", 0) for f in facts.values()),
        "modules": node_kinds.get("module", 0),
        "bundled_modules": node_kinds.get("bundled-module", 0),
        "original_source_modules": node_kinds.get("original-source-module", 0),
        "nodes": len(nodes),
        "edges": len(edges),
        "findings": len(findings),
        "unknowns": len(unknowns),
        "ipc_channels": node_kinds.get("ipc-channel", 0),
        "files_by_kind": dict(sorted(kinds.items())),
        "nodes_by_kind": dict(sorted(node_kinds.items())),
        "edges_by_relation": dict(sorted(relations.items())),
        "omissions_by_reason": dict(sorted(omissions.items())),
    }
    contradictions = sorted(
        [
            *scan.get("integrity_contradictions", ()),
            *(f["integrity_contradiction"] for f in facts.values() if f.get("integrity_contradiction")),
        ],
        key=lambda c: c["path"],
    )
    partial = bool(
        limits_reached or failures or contradictions or any(o["reason"] in ("unreadable",) for o in scan["omitted"])
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
