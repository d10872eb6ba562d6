"""The application graph under construction: the node and edge builder (first location wins, one edge per
source, relation, target and place) and the state every pass of rea.javascript.graph shares (files, facts,
packages, tsconfig paths, the resolver, role bookkeeping)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any, NotRequired, Required, TypedDict

from rea.javascript import tsconfig
from rea.javascript.resolve import Resolver, dirname, join, normalize


class Location(TypedDict, total=False):
    """Where a node, edge, finding or unknown was seen: the file, and its line and byte range when known."""

    path: Required[str]
    line: int
    start: int
    end: int


class EntryPoint(TypedDict):
    """One way into the application: the node, why it is an entry (package.json main, bin or exports, an HTML
    document) and the role it starts; an `exports` entry adds its subpath, condition chains and load format."""

    node: str
    basis: str
    role: str | None
    subpath: NotRequired[str]
    conditions: NotRequired[list[list[str]]]
    format: NotRequired[str]
    syntax: NotRequired[str]


EdgeKey = tuple[str, str, str, str, int, Any]  # source, relation, target, path, start, kind: one edge per place


def fact_location(path: str, fact: Mapping[str, Any]) -> Location:
    """A fact's location in its file: the path, with the fact's line and byte range when it has them."""
    loc: Location = {"path": path}
    if "line" in fact:
        loc["line"] = fact["line"]
    if "start" in fact:
        loc["start"] = fact["start"]
    if "end" in fact:
        loc["end"] = fact["end"]
    return loc


def finding_order(item: Mapping[str, Any]) -> tuple[Any, ...]:
    return (
        item.get("kind", ""),
        item.get("node", ""),
        item.get("path", ""),
        item.get("start", -1) or -1,
        item.get("line", -1) or -1,
    )


class Builder:
    def __init__(self) -> None:
        self.nodes: dict[str, dict[str, Any]] = {}
        self.edges: dict[EdgeKey, dict[str, Any]] = {}
        self.unknowns: list[dict[str, Any]] = []
        self.findings: list[dict[str, Any]] = []

    def node(self, node_id: str, kind: str, loc: Location | None = None, **props: Any) -> dict[str, Any]:
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

    def edge(self, source: str, target: str, relation: str, loc: Location, **props: Any) -> None:
        key: EdgeKey = (source, relation, target, loc.get("path", ""), loc.get("start", -1), props.get("kind", ""))
        if key not in self.edges:
            self.edges[key] = {"from": source, "to": target, "relation": relation, "location": dict(loc), **props}


class GraphState:
    """What every pass shares: the builder, the tree's files and facts, the resolver and role bookkeeping."""

    def __init__(self, scan: Mapping[str, Any], facts_list: Iterable[Mapping[str, Any]]) -> None:
        self.scan = scan
        self.facts = {f["path"]: f for f in facts_list}
        self.files = scan["files"]
        self.sizes = {f["path"]: f["size"] for f in self.files}
        self.b = Builder()
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

    def unresolved(self, specifier: str, loc: Location, unknown: dict[str, Any]) -> str:
        target_id = f"unresolved:{specifier}"
        self.b.node(target_id, "unresolved-module", loc, specifier=specifier)
        self.b.unknowns.append({**unknown, "node": target_id, **loc})
        return target_id
