"""The application graph: a pure function of the scanned tree and per-file facts.

Node keys are readable and derived from paths and names only (`module:src/main.js`,
`ipc-channel:ping`), so they are stable under file order and across runs; the wire ids
are their digests (rea.javascript.ids). Every node and edge carries its evidence
location: file path, line and byte range.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from rea.canonical_json import canonical_sha256
from rea.javascript.bundles import add_bundles
from rea.javascript.graph_builder import GraphState
from rea.javascript.graph_electron import add_bridge_globals, add_file_facts
from rea.javascript.graph_entries import entry_points, package_maps, propagate_roles
from rea.javascript.graph_files import (
    add_configs,
    add_file,
    add_imports,
    add_packages,
    add_scripts,
    add_source_maps,
    map_of,
)
from rea.javascript.graph_kinds import TEXT_KINDS
from rea.javascript.graph_record import assemble


def select_text_files(
    files: Sequence[Mapping[str, Any]], limits: Mapping[str, int]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Which text files to read, in path order, under the file-count and byte limits; the rest are omissions."""
    chosen: list[dict[str, Any]] = []
    omitted: list[dict[str, Any]] = []
    total = 0
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


def build_graph(
    scan: Mapping[str, Any],
    facts_list: Iterable[Mapping[str, Any]],
    limits: Mapping[str, int],
    read_omissions: Sequence[Mapping[str, Any]],
) -> dict[str, Any]:
    """The application record before its wire projection (rea.javascript.record): passes in order."""
    g = GraphState(scan, facts_list)
    for f in g.files:
        add_file(g, f)
    add_packages(g)
    add_configs(g.b, g.configs, g.compiler, g.paths)
    add_imports(g)
    add_scripts(g)
    electron_app = bool(
        g.root_pkg and "electron" in {**g.root_pkg.get("dependencies", {}), **g.root_pkg.get("devDependencies", {})}
    ) or any(e["to"].startswith("electron:") for e in g.b.edges.values())
    for path, fact in sorted(g.facts.items()):
        add_file_facts(g, path, fact)
    add_bridge_globals(g)
    add_source_maps(g)
    add_bundles(g.b, g.facts, lambda path: map_of(g, path), g.map_sources)
    public = package_maps(g)
    entries = entry_points(g, electron_app, public)
    propagate_roles(g)
    return assemble(g, entries, limits, read_omissions, electron_app)
