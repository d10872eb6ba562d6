"""Bundled modules: what a shipped bundle was built from.

Recovered three ways (`recovered_by`):
- a module table: webpack 4/5 and rspack (production numeric ids or development paths), with
  the dependencies between modules read from each module's own `__webpack_require__`, or
  browserify, whose modules carry their own dependency maps;
- esbuild's `// path` comments (and webpack's `/***/ "path":` comments when the file's
  tree was not read);
- the source map's mappings, for bundles that keep no boundaries in their code (rollup,
  vite, minifiers): each original source with mapped segments is a module, located by the
  generated lines its runs cover.

When a table and a map are both present, each table module takes its original path from
the source its generated range maps to, so numeric ids get names. A map's embedded sources
give the structure back too: their imports between each other and their exports
(`add_original_modules`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from rea.javascript.resolve import Resolver, dirname
from rea.javascript.sourcemap import Run, comparable_path, source_at

MAX_ORIGINAL_UNKNOWNS = 256  # unresolved imports of original sources listed per map (the rest are counted)


def _module_node(b: Any, bundle: str, key: str, loc: Mapping[str, Any], **props: Any) -> str:
    mid = f"bundled-module:{bundle}#{key}"
    b.node(mid, "bundled-module", loc, bundle=bundle, **props)
    b.edge(f"module:{bundle}", mid, "contains", loc, kind="bundled")
    return mid


def add_bundles(
    b: Any,
    facts: Mapping[str, Mapping[str, Any]],
    map_of: Callable[[str], str | None],
    map_sources: Mapping[str, Sequence[str | None]],
) -> None:
    """Add bundled-module nodes and their edges for every bundle in `facts`.

    `map_of(path)` names the source map a bundle links to; `map_sources[map]` lists the node id of each of
    that map's sources by index (None past the sources limit).
    """
    tables = {p: f["bundle_table"] for p, f in facts.items() if f.get("bundle_table")}
    by_dir: dict[tuple[str, str], list[str]] = {}
    for path, table in tables.items():
        for module in table["modules"]:
            by_dir.setdefault((dirname(path), module["id"]), []).append(path)

    for path in sorted(facts):
        fact = facts[path]
        smap = map_of(path)
        runs = [Run(*r) for r in facts[smap].get("runs", ())] if smap is not None else []
        sources = map_sources.get(smap, ()) if smap is not None else ()
        if path in tables:
            _table(b, path, tables[path], runs, sources, facts.get(smap, {}) if smap is not None else {}, by_dir)
        elif fact.get("bundled_modules"):
            for mod in fact["bundled_modules"]:
                _module_node(
                    b,
                    path,
                    mod["path"],
                    {"path": path, "start": mod["start"]},
                    path=mod["path"],
                    recovered_by="path-comment",
                )
        elif smap is not None and runs and (fact.get("bundlers") or len({r.source for r in runs}) > 1):
            # runs come only from a linked map; several sources (or a bundler's marks) say it is not a transpile
            _from_mappings(b, path, smap, runs, sources, facts[smap])
        elif set(fact.get("bundlers", ())) & {"rollup", "vite"}:
            b.unknowns.append(
                {
                    "kind": "bundle-boundaries-not-recoverable",
                    "node": f"module:{path}",
                    "path": path,
                    "reason": "this bundler keeps no module boundaries in its output and no source map "
                    "is linked; ship or supply its .map file to recover them",
                }
            )


def _source_of(
    sources: Sequence[str | None], raw: Sequence[Mapping[str, Any]], index: int | None
) -> tuple[str | None, str | None]:
    if index is None or index >= len(sources) or sources[index] is None:
        return None, None
    return sources[index], raw[index]["path"]


def _table(
    b: Any,
    path: str,
    table: Mapping[str, Any],
    runs: Sequence[Run],
    sources: Sequence[str | None],
    smap: Mapping[str, Any],
    by_dir: Mapping[tuple[str, str], list[str]],
) -> None:
    ids: dict[str, str] = {}
    for module in table["modules"]:
        loc = {"path": path, "start": module["start"], "end": module["end"], "line": module["line"]}
        props: dict[str, Any] = {
            "module_id": module["id"],
            "recovered_by": table.get("format", "webpack-module-table"),
            "path": module["id"] if "/" in module["id"] else None,
        }
        if module["exports"]:
            props["exports"] = [{"name": name, "form": "webpack-getter"} for name in module["exports"]]
        if runs:
            sid, raw = _source_of(
                sources,
                smap.get("sources", ()),
                source_at(runs, (module["line"] - 1, module["column"]), (module["end_line"] - 1, module["end_column"])),
            )
            if sid is not None:
                props.update(source=raw, path=props["path"] or b.nodes[sid]["path"])
        ids[module["id"]] = _module_node(b, path, module["id"], loc, **props)
        if "source" in props:
            b.edge(ids[module["id"]], sid, "maps_to", loc, kind="mappings")
    if table.get("modules_omitted"):
        b.unknowns.append(
            {
                "kind": "bundled-modules-omitted",
                "node": f"module:{path}",
                "path": path,
                "count": table["modules_omitted"],
            }
        )

    same_file = "browserify-dependency-map" if table.get("format") == "browserify-module-table" else "webpack-module-id"

    def target(module_id: str) -> tuple[str | None, str]:
        if module_id in ids:
            return ids[module_id], same_file
        elsewhere = [p for p in by_dir.get((dirname(path), module_id), ()) if p != path]
        if len(elsewhere) == 1:  # a chunk beside this file defines it (chunk ids are build-wide)
            return f"bundled-module:{elsewhere[0]}#{module_id}", "webpack-module-id-sibling-chunk"
        return None, "ambiguous-module-id" if elsewhere else "module-id-not-found"

    def link(source: str, module_id: str, kind: str, loc: Mapping[str, Any], specifier: str | None = None) -> None:
        to, basis = target(module_id)
        if to is None:
            b.unknowns.append(
                {"kind": "unresolved-bundled-module", "module_id": module_id, "reason": basis, "node": source, **loc}
            )
            return
        b.edge(
            source,
            to,
            "imports",
            loc,
            kind=kind,
            specifier=specifier or module_id,
            basis=basis,
            **({"module_id": module_id} if specifier else {}),
        )

    for module in table["modules"]:
        loc = {"path": path, "start": module["start"], "line": module["line"]}
        for dep in module["requires"]:
            link(ids[module["id"]], dep, "bundled-require", loc, module.get("specifiers", {}).get(dep))
        for dep in module["async"]:
            link(ids[module["id"]], dep, "bundled-dynamic-import", loc)
    for dep in table.get("entry_requires", ()):
        link(f"module:{path}", dep, "bundled-require", {"path": path})
    for dep in table.get("entry_async", ()):
        link(f"module:{path}", dep, "bundled-dynamic-import", {"path": path})


def _from_mappings(
    b: Any, path: str, smap: str | None, runs: Sequence[Run], sources: Sequence[str | None], fact: Mapping[str, Any]
) -> None:
    spans: dict[int, list[Any]] = {}
    for i, run in enumerate(runs):
        end = runs[i + 1][:2] if i + 1 < len(runs) else None
        span = spans.setdefault(run.source, [run, end, 0, 0])
        span[1], span[2], span[3] = end, span[2] + run.segments, span[3] + 1
    for index, (first, end, segments, count) in sorted(spans.items(), key=lambda kv: kv[1][0][:2]):
        sid, raw = _source_of(sources, fact.get("sources", ()), index)
        if sid is None:
            continue
        loc = {"path": path, "line": first.line + 1}
        mid = _module_node(
            b,
            path,
            b.nodes[sid]["path"],
            loc,
            path=b.nodes[sid]["path"],
            source=raw,
            recovered_by="source-map-mappings",
            segments=segments,
            runs=count,
            generated_lines=[first.line + 1, (end[0] + 1) if end is not None else None],
        )
        b.edge(mid, sid, "maps_to", loc, kind="mappings")
    if fact.get("runs_truncated"):
        b.unknowns.append(
            {
                "kind": "source-map-runs-truncated",
                "node": f"module:{path}",
                "path": smap,
                "reason": "more source runs than the bound; later bundled modules are not listed",
            }
        )


def add_original_modules(
    b: Any, map_path: str, fact: Mapping[str, Any], sids: Sequence[str | None], siblings: Mapping[str, str]
) -> None:
    """The module structure a source map's embedded sources still carry: their exports on each
    original-source-module, and `imports` edges between them, resolved among the map's own sources (relative
    paths, `node_modules` sources, builtins), then among the sources of the maps beside it (`siblings`,
    comparable path -> node id: one build's chunks). A minified bundle loses this structure; its map keeps it."""
    if not any(src.get("original") for src in fact["sources"]):
        return
    virtual: dict[str, str] = {}
    for src, sid in zip(fact["sources"], sids):
        if sid is not None:
            virtual.setdefault(comparable_path(src["path"]), sid)
    resolver = Resolver(virtual, {})
    beside = Resolver(siblings, {}) if set(siblings) - set(virtual) else None
    unresolved, parsed = 0, 0
    for src, sid in zip(fact["sources"], sids):
        original = src.get("original") if sid is not None else None
        if original is None:
            continue
        parsed += 1
        node = b.nodes[sid]
        node["parse"] = original["parse"]
        if original.get("exports"):
            node["exports"] = original["exports"]
        importer = comparable_path(src["path"])
        for imp in original.get("imports", ()):
            status, target, basis = resolver.resolve(importer, imp["specifier"], imp["kind"])[:3]
            if basis == "package-not-found":  # the map's node_modules sit wherever the build ran, not beside it
                unique = _unique_package(resolver, virtual, imp["specifier"])
                if unique is not None:  # else it stays unresolved, and an unresolved import's target is unused
                    status, target, basis = "module", unique, "source-map-package"
            if status == "unresolved" and beside is not None:  # another chunk of the same build
                found = beside.resolve(importer, imp["specifier"], imp["kind"])
                if found.status == "module":
                    status, target, basis = "module", found.target, "source-map-sibling"
            loc = {"path": map_path}
            extra = {"kind": imp["kind"], "specifier": imp["specifier"], "basis": basis, "source_line": imp["line"]}
            if imp.get("type_only"):
                extra["type_only"] = True
            if status == "module" and (target in virtual or target in siblings):
                b.edge(sid, virtual.get(target) or siblings[target], "imports", loc, **extra)
            elif status in ("builtin", "electron"):
                target_id = f"{status}:{target}"
                b.node(target_id, "builtin-module" if status == "builtin" else "electron-module", None, name=target)
                b.edge(sid, target_id, "imports", loc, **extra)
            else:
                unresolved += 1
                if unresolved <= MAX_ORIGINAL_UNKNOWNS:
                    b.unknowns.append(
                        {
                            "kind": "unresolved-original-import",
                            "node": sid,
                            "specifier": imp["specifier"],
                            "reason": basis,
                            "path": map_path,
                            "source_line": imp["line"],
                        }
                    )
    if unresolved > MAX_ORIGINAL_UNKNOWNS:
        b.unknowns.append(
            {
                "kind": "unresolved-original-imports-omitted",
                "path": map_path,
                "count": unresolved - MAX_ORIGINAL_UNKNOWNS,
            }
        )
    if f"source-map:{map_path}" in b.nodes:
        b.nodes[f"source-map:{map_path}"]["sources_parsed"] = parsed


def _unique_package(resolver: Resolver, virtual: Mapping[str, str], specifier: str) -> str | None:
    """A bare specifier's file among the map's sources when exactly one `node_modules/<name>` holds it."""
    parts = specifier.split("/")
    count = 2 if specifier.startswith("@") else 1
    if len(parts) < count:
        return None
    name, subpath = "/".join(parts[:count]), "/".join(parts[count:])
    marker = f"node_modules/{name}/"
    roots = {
        path[: path.index(marker) + len(marker) - 1]
        for path in virtual
        if path.startswith(marker) or f"/{marker}" in path
    }
    if len(roots) != 1:
        return None
    root = roots.pop()
    found = resolver.file_or_directory(f"{root}/{subpath}" if subpath else root)
    if found is None and not subpath:  # no package.json in a map: a package that shipped one file is that file
        inside = [path for path in virtual if path.startswith(root + "/")]
        found = inside[0] if len(inside) == 1 else None
    return found
