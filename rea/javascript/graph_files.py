"""The application graph's file passes: a node per module, document, source map, add-on, nested asar,
package and tsconfig; the import and script edges between them; and the original sources the source maps
name (rea.javascript.bundles then reads the structure their embedded contents keep)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from typing import Any

from rea.javascript import tsconfig
from rea.javascript.bundles import add_original_modules
from rea.javascript.graph_builder import Builder, GraphState, fact_location
from rea.javascript.graph_kinds import LANGUAGE
from rea.javascript.resolve import dirname, join, normalize
from rea.javascript.sourcemap import comparable_path, without_scheme


def add_file(g: GraphState, f: Mapping[str, Any]) -> None:
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


def add_packages(g: GraphState) -> None:
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


def add_imports(g: GraphState) -> None:
    """Imports of modules only: a package.json's `imports` is a map, not a list of imports."""
    b = g.b
    for path, fact in sorted(g.facts.items()):
        source = f"module:{path}"
        if source not in b.nodes:
            continue
        for imp in fact.get("imports", ()):
            status, target, basis, detail = g.resolver.resolve(path, imp["specifier"], imp["kind"])
            loc = fact_location(path, imp)
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


def add_scripts(g: GraphState) -> None:
    """HTML documents load scripts."""
    for path, fact in sorted(g.facts.items()):
        for script in fact.get("scripts", ()):
            src, loc = script["src"], fact_location(path, script)
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


def add_configs(
    b: Builder,
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


def add_source_maps(g: GraphState) -> None:
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


def _map_sources(g: GraphState, path: str, fact: Mapping[str, Any]) -> None:
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


def map_of(g: GraphState, path: str) -> str | None:
    """The map a bundle links to, else the map that names it as its `file` (`app.js` beside `app.js.map`)."""
    if path in g.linked_maps:
        return g.linked_maps[path]
    guess = f"{path}.map"
    if guess in g.map_sources and g.facts[guess].get("file") in (None, path.rsplit("/", 1)[-1]):
        return guess
    return None


def _source_path(name: str, root: str) -> str | None:
    """Where a source-map source lives in the tree's terms. `webpack://<namespace>/<path>` is relative to the
    build's context directory, not to the map, so only its namespace is dropped; other sources are relative to
    the map's directory (or its sourceRoot). None when the path climbs above the root."""
    clean = without_scheme(name)
    return normalize(clean) if clean.startswith("/") or name.startswith("webpack://") else join(root, clean)
