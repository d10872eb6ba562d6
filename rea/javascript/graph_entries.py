"""The application graph's entry points: package.json main and bin, the packages' `exports` and `imports`
maps (with their condition chains and the format Node loads each target in), HTML documents; then the
roles (main, preload, renderer, utility) carried along imports."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from rea.javascript.graph_builder import EntryPoint, GraphState
from rea.javascript.graph_kinds import ROLES
from rea.javascript.resolve import condition_leaves, dirname, join, normalize, pattern_matches, subpath_map


def package_maps(g: GraphState) -> list[EntryPoint]:
    """Every package's `exports` and `imports` maps read as loads: one edge from the package to each file a
    subpath (or `#` specifier) reaches, with the condition chains that select it (node/browser/import/require/
    default, nested) and the format Node loads it in, `*` patterns expanded over the files present. Returns
    the root package's public entry points (its `exports`); a target missing from the tree is an unknown."""
    public: list[EntryPoint] = []
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
                    entry: EntryPoint = {
                        "node": node,
                        "basis": f"package.json exports {subpath}",
                        "role": None,
                        "subpath": subpath,
                        "conditions": chains,
                        "format": fmt,
                    }
                    if extra:
                        entry["syntax"] = extra["syntax"]
                    public.append(entry)
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


def _map_targets(g: GraphState, pkg_dir: str, key: str, target: str, manifest: str) -> list[tuple[str, str]]:
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


def _module_format(g: GraphState, path: str) -> str:
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


def entry_points(g: GraphState, electron_app: bool, public: Sequence[EntryPoint] = ()) -> list[EntryPoint]:
    b, root_pkg = g.b, g.root_pkg
    entries: list[EntryPoint] = []
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
    entries.extend(e.copy() for e in public)
    for nid, node in sorted(b.nodes.items()):
        if node["kind"] == "html-document":
            entries.append({"node": nid, "basis": "html document", "role": "renderer"})
    return entries


def propagate_roles(g: GraphState) -> None:
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
