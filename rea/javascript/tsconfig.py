"""TypeScript's module-resolution settings: which tsconfig.json/jsconfig.json governs a file, and the
`baseUrl` and `paths` it ends up with after following `extends`. Pure: configs arrive as facts.

The governing config is the nearest `tsconfig.json` (else `jsconfig.json`) up the file's directory chain,
outside node_modules; files inside node_modules are governed by none (their authors compiled them with
their own configs, and Node never reads `paths`). `include`, `files` and project references are not
consulted: an approximation of how editors pick a file's project.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from rea.javascript.resolve import dirname, join

GOVERNING = ("tsconfig.json", "jsconfig.json")  # in this order of preference within one directory
MAX_EXTENDS_DEPTH = 8
MAX_EXTENDS_VISITS = 64


class CompilerPaths(NamedTuple):
    """What one governing config means for resolution. Directories are tree paths ("" is the root)."""

    config: str
    base_url: str | None  # `baseUrl`, relative to the config that set it
    paths: Mapping[str, tuple[str, ...]]  # `paths`, as written
    paths_base: str | None  # what `paths` targets are relative to: baseUrl, else their config
    paths_from: str | None  # the config that set `paths`
    truncated: str | None  # "cycle" or "max-depth" when the extends chain was cut


def governs(path: str) -> bool:
    parts = path.split("/")
    return parts[-1] in GOVERNING and "node_modules" not in parts


def governing_config(importer: str, configs: Mapping[str, Any]) -> str | None:
    """The config that governs `importer`: a key of `configs` (failed parses included: they still govern)."""
    if "node_modules" in importer.split("/")[:-1]:
        return None
    directory = dirname(importer)
    while True:
        for name in GOVERNING:
            config = f"{directory}/{name}" if directory else name
            if config in configs:
                return config
        if not directory:
            return None
        directory = dirname(directory)


def extends_target(config: str, ref: str, files: frozenset[str]) -> str | None:
    """The file an `extends` entry names. A relative one is a path (TypeScript adds `.json` when the file is
    absent); another is looked up in node_modules up the chain as the file, `.json`, or the package's
    tsconfig.json (a package.json `exports` or `tsconfig` field is not consulted)."""
    directory = dirname(config)
    if ref.startswith(("./", "../")):
        path = join(directory, ref)
        candidates = [path] if path is None or path.endswith(".json") else [path, path + ".json"]
        return next((c for c in candidates if c is not None and c in files), None)
    while True:
        base = f"{directory}/node_modules/{ref}" if directory else f"node_modules/{ref}"
        for candidate in (base, base + ".json", base + "/tsconfig.json"):
            if candidate in files:
                return candidate
        if not directory:
            return None
        directory = dirname(directory)


def compiler_paths(config: str, configs: Mapping[str, Mapping[str, Any]], files: frozenset[str]) -> CompilerPaths:
    """The effective `baseUrl`/`paths` of a config: its own over those of its `extends` (later entries of an
    extends list over earlier ones), each `baseUrl` relative to the config that set it. The chain is cut at
    a cycle, past MAX_EXTENDS_DEPTH, or after MAX_EXTENDS_VISITS configs (a diamond can multiply them)."""
    found: dict[str, tuple[Any, str]] = {}
    cut: list[str] = []
    visits = [0]

    def inherit(current: str, trail: tuple[str, ...]) -> None:
        fact = configs.get(current, {})
        if fact.get("parse") != "ok":
            return
        for ref in fact.get("extends", ()):
            target = extends_target(current, ref, files)
            if target is None or target not in configs:
                continue  # the graph records it per config as an unknown
            if target in trail or len(trail) > MAX_EXTENDS_DEPTH or visits[0] >= MAX_EXTENDS_VISITS:
                cut.append("cycle" if target in trail else "max-depth")
                continue
            visits[0] += 1
            inherit(target, (*trail, target))
        if fact.get("paths_omitted"):  # an oversized map still overrides the base's (the graph says it was omitted)
            found["paths"] = ({}, current)
        for option in ("base_url", "paths"):
            if isinstance(fact.get(option), (str, dict)):
                found[option] = (fact[option], current)

    inherit(config, (config,))
    base_url, paths = found.get("base_url"), found.get("paths")
    base_dir = join(dirname(base_url[1]), base_url[0]) if base_url else None
    return CompilerPaths(
        config=config,
        base_url=base_dir,
        paths={k: tuple(v) for k, v in paths[0].items()} if paths else {},
        paths_base=base_dir if base_dir is not None else (dirname(paths[1]) if paths else None),
        paths_from=paths[1] if paths else None,
        truncated=min(cut) if cut else None,
    )
