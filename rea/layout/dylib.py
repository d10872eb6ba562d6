"""trace_dylib_resolution: dyld's static load-path resolution over a snapshot of the analyzed directory.

The effect layer hands over every entry below the root and the load-command facts of
every Mach-O file there; this module decides, per process root and slice, which file
each LC_*_DYLIB reaches: @rpath through the LC_RPATH entries of the loader and then up
its load chain (innermost first), @loader_path, @executable_path, literal paths. dyld4's
order is kept: every dependency of an image, then the images it newly loaded. An image
is loaded once per process; a loop of rpaths or dependencies ends there.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from rea.layout.dyld_paths import Tree, compatible_slice, directory_of, expand, lookup
from rea.layout.dylib_findings import LIMITATIONS, findings

Facts = Mapping[str, Any]  # {"status": parsed|malformed|unsupported|not-mach-o, "reason", "slices", "sha256"}
NOT_MACHO: Facts = {"status": "not-mach-o", "reason": None, "slices": []}
EXTERNAL = ("outside-target", "escapes-target", "unsupported", "undetermined")


@attrs.define
class _Loaded:
    slice: Facts
    chain: list[str]
    conditional: bool


@attrs.define
class _Process:
    tree: Tree
    images: Mapping[str, Facts]
    root: str
    architecture: str
    executable: str | None
    loaded: dict[str, _Loaded] = attrs.field(factory=dict)
    by_install_name: dict[str, str] = attrs.field(factory=dict)
    seen: set[str] = attrs.field(factory=set)  # images whose facts this trace looked at


def _facts(process: _Process, path: str) -> Facts:
    process.seen.add(path)
    return process.images.get(path, NOT_MACHO)


def _templates(dependency: Facts, loader: str, process: _Process) -> list[dict[str, Any]]:
    """The candidate paths of one load, in dyld's order (before looking at any of them)."""
    name = dependency["install_name"]
    if not name.startswith("@rpath/"):
        source = (
            "executable_path"
            if name.startswith("@executable_path")
            else "loader_path"
            if name.startswith("@loader_path")
            else "literal"
        )
        scope, path = expand(name, directory_of(loader), process.executable)
        return [{"scope": scope, "path": path, "source": source, "rpath": None, "rpath_owner": None}]
    rest = name[len("@rpath/") :]
    owners = list(reversed(process.loaded[loader].chain if loader in process.loaded else [loader]))
    out = []
    for owner in owners:
        for rpath in process.loaded[owner].slice["rpaths"] if owner in process.loaded else ():
            scope, base = expand(rpath, directory_of(owner), process.executable)
            path = f"{base.rstrip('/')}/{rest}" if scope == "outside" else (f"{base}/{rest}" if base else rest)
            out.append({"scope": scope, "path": path, "source": "rpath", "rpath": rpath, "rpath_owner": owner})
    return out


def _evaluate(template: Mapping[str, Any], process: _Process) -> dict[str, Any]:
    base = {k: template[k] for k in ("path", "source", "rpath", "rpath_owner")}
    if template["scope"] == "outside":
        return {**base, "outcome": "outside-target", "resolved_path": None}
    if template["scope"] == "undetermined":
        return {**base, "outcome": "undetermined", "resolved_path": None}
    kind, found = lookup(process.tree, template["path"])
    if kind == "escapes":
        return {**base, "outcome": "escapes-target", "resolved_path": None}
    if found is None:
        return {**base, "outcome": "absent", "resolved_path": None}
    facts = _facts(process, found)
    if facts["status"] != "parsed":
        outcome = facts["status"]
    elif compatible_slice(facts["slices"], process.architecture) is None:
        outcome = "architecture-missing"
    else:
        outcome = "resolved"
    return {**base, "outcome": outcome, "resolved_path": found}


def _resolution(candidates: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    external = False
    for candidate in candidates:
        if candidate["outcome"] == "resolved":
            return {"status": "conditional" if external else "resolved", "image": candidate["resolved_path"]}
        external = external or candidate["outcome"] in EXTERNAL  # dyld might load these; the root cannot say
    return {"status": "undetermined" if external else "unresolved", "image": None}


def _edge(dependency: Facts, loader: str, process: _Process) -> dict[str, Any]:
    current = process.loaded.get(loader)
    reused = process.by_install_name.get(dependency["install_name"])
    if reused is not None:
        candidates = [
            {
                "path": dependency["install_name"],
                "source": "already-loaded",
                "rpath": None,
                "rpath_owner": None,
                "outcome": "resolved",
                "resolved_path": reused,
            }
        ]
    else:
        candidates = []
        for template in _templates(dependency, loader, process):
            candidates.append(_evaluate(template, process))
            if candidates[-1]["outcome"] == "resolved":  # dyld stops at the first loadable candidate
                break
    resolution = _resolution(candidates)
    if reused is not None and process.loaded[reused].conditional and resolution["status"] == "resolved":
        resolution["status"] = "conditional"
    image = resolution["image"]
    reached = compatible_slice(_facts(process, image)["slices"], process.architecture) if image else None
    matches = (
        None
        if reached is None or reached["install_name"] is None
        else reached["install_name"] == dependency["install_name"]
    )
    return {
        "root": process.root,
        "architecture": process.architecture,
        "loader": loader,
        "via": list(current.chain if current else [loader]),
        **{k: v for k, v in dependency.items()},
        "candidates": candidates,
        "resolution": resolution,
        "install_name_matches": matches,
        "loader_conditional": current.conditional if current else False,
    }


def _trace_process(process: _Process, root_slice: Facts) -> list[dict[str, Any]]:
    """dyld4's dependents-first order: every dependency of one image, then the images it newly loaded."""
    edges: list[dict[str, Any]] = []
    process.loaded[process.root] = _Loaded(root_slice, [process.root], False)
    if root_slice["install_name"] is not None:
        process.by_install_name[root_slice["install_name"]] = process.root
    pending = [process.root]
    while pending:
        loader = pending.pop()
        current = process.loaded[loader]
        created: list[str] = []
        for dependency in current.slice["dependencies"]:
            edge = _edge(dependency, loader, process)
            edges.append(edge)
            image = edge["resolution"]["image"]
            if dependency["command"] == "LC_LAZY_LOAD_DYLIB" or image is None or image in process.loaded:
                continue  # lazy loads happen on first use; a loaded image is not loaded twice (loops end here)
            chosen = compatible_slice(_facts(process, image)["slices"], process.architecture)
            if chosen is None:
                continue
            conditional = current.conditional or edge["resolution"]["status"] == "conditional"
            process.loaded[image] = _Loaded(chosen, [*current.chain, image], conditional)
            if chosen["install_name"] is not None:
                process.by_install_name.setdefault(chosen["install_name"], image)
            created.append(image)
        pending.extend(reversed(created))
    return edges


def default_roots(images: Mapping[str, Facts]) -> tuple[list[str], list[str]]:
    """Every Mach-O with an executable slice is a process root; unparsed ones are unclassified (partial)."""
    roots = sorted(p for p, f in images.items() if any(s["file_type"] == "execute" for s in f.get("slices", ())))
    unclassified = sorted(p for p, f in images.items() if f["status"] in ("malformed", "unsupported"))
    return roots, unclassified


def _image_row(path: str, facts: Facts) -> dict[str, Any]:
    return {
        "path": path,
        "sha256": facts["sha256"],
        "parse_status": "unsupported" if facts["status"] == "not-mach-o" else facts["status"],
        "reason": facts.get("reason") if facts["status"] in ("malformed", "unsupported") else None,
        "slices": [{k: v for k, v in s.items() if k != "dependencies"} for s in facts.get("slices", ())],
    }


def trace(
    tree: Tree,
    images: Mapping[str, Facts],
    roots: list[str],
    unclassified: list[str],
    architecture: str | None,
) -> dict[str, Any]:
    """The result's roots, images, edges, findings, coverage and limitations for the requested roots."""
    seen = set(unclassified) | set(roots)
    out_roots: list[dict[str, str]] = []
    edges: list[dict[str, Any]] = []
    without: list[str] = []
    for root in roots:
        facts = images.get(root, NOT_MACHO)
        if facts["status"] != "parsed":
            continue
        slices = [s for s in facts["slices"] if architecture is None or s["architecture"] == architecture]
        if not slices:
            without.append(root)
        for chosen in slices:
            out_roots.append({"image": root, "architecture": chosen["architecture"]})
            executable = root if chosen["file_type"] == "execute" else None
            process = _Process(tree, images, root, chosen["architecture"], executable)
            edges.extend(_trace_process(process, chosen))
            seen |= process.seen
    reported = sorted(p for p in seen if images.get(p, NOT_MACHO)["status"] != "not-mach-o")
    unparsed = [p for p in reported if images[p]["status"] != "parsed"]
    environment = [r["image"] for r in out_roots if _root_slice(images, r).get("dyld_environment")]
    limitations = list(LIMITATIONS)
    if environment:
        limitations.append(
            f"Roots {', '.join(environment)} set dyld environment variables (LC_DYLD_ENVIRONMENT); the search "
            "paths they add are not modeled, so their resolutions may differ."
        )
    return {
        "roots": out_roots,
        "images": [_image_row(p, images[p]) for p in reported],
        "edges": edges,
        "findings": findings(edges, [(r["image"], _root_slice(images, r)) for r in out_roots]),
        "coverage": {
            "status": "complete" if not (unparsed or without or environment) else "partial",
            "unparsed_images": unparsed,
            "roots_without_architecture": without,
            "unverified_shared_cache_images": [],
        },
        "limitations": limitations,
    }


def _root_slice(images: Mapping[str, Facts], root: Mapping[str, str]) -> Facts:
    for item in images[root["image"]]["slices"]:
        if item["architecture"] == root["architecture"]:
            return dict(item)
    return {}
