"""Module resolution over a known set of files: relative paths, node_modules packages
(with `exports` maps), package `imports` maps (`#x`), TypeScript `paths`/`baseUrl`, `node:`
builtins. Pure: it only looks at the paths and facts it is given."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from rea.javascript.tsconfig import CompilerPaths

NODE_BUILTINS = frozenset(
    (
        "assert",
        "assert/strict",
        "async_hooks",
        "buffer",
        "child_process",
        "cluster",
        "console",
        "constants",
        "crypto",
        "dgram",
        "diagnostics_channel",
        "dns",
        "dns/promises",
        "domain",
        "events",
        "fs",
        "fs/promises",
        "http",
        "http2",
        "https",
        "inspector",
        "module",
        "net",
        "os",
        "path",
        "path/posix",
        "path/win32",
        "perf_hooks",
        "process",
        "punycode",
        "querystring",
        "readline",
        "readline/promises",
        "repl",
        "stream",
        "stream/consumers",
        "stream/promises",
        "stream/web",
        "string_decoder",
        "sys",
        "timers",
        "timers/promises",
        "tls",
        "trace_events",
        "tty",
        "url",
        "util",
        "util/types",
        "v8",
        "vm",
        "wasi",
        "worker_threads",
        "zlib",
        "test",
        "sqlite",
        "sea",
    )
)
ELECTRON_MODULES = frozenset(("electron", "electron/main", "electron/renderer", "electron/common", "electron/utility"))
EXTENSIONS = ("", ".js", ".mjs", ".cjs", ".jsx", ".ts", ".tsx", ".mts", ".cts", ".json", ".node")
INDEXES = tuple("/index" + e for e in EXTENSIONS[1:])
_URL_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")


def normalize(path: str) -> str | None:
    """'a/./b/../c' -> 'a/c'; None when it climbs above the root."""
    out: list[str] = []
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if not out:
                return None
            out.pop()
        else:
            out.append(part)
    return "/".join(out)


def dirname(path: str) -> str:
    return path.rsplit("/", 1)[0] if "/" in path else ""


def join(base: str, rel: str) -> str | None:
    return normalize(f"{base}/{rel}" if base else rel)


class Resolution(NamedTuple):
    """One specifier's outcome. status: module|builtin|electron|unresolved; target: a path, a builtin name or
    the specifier; basis: the rule that decided (or the reason it failed); detail: the few facts an edge
    needs to be checked by hand (the mapped specifier, the inner basis)."""

    status: str
    target: str
    basis: str
    detail: tuple[tuple[str, str], ...] = ()


def conditions(kind: str) -> tuple[str, ...]:
    """The export/import conditions Node matches for an import kind, in its priority order."""
    return ("require", "node", "default") if kind == "require" else ("import", "node", "default")


class Resolver:
    """Resolves specifiers against one tree's files, package.json facts and, through `compiler`, the
    TypeScript settings that govern an importer (see rea.javascript.tsconfig)."""

    def __init__(
        self,
        files: Iterable[str],
        packages: Mapping[str, Mapping[str, Any]],
        compiler: Callable[[str], CompilerPaths | None] = lambda _importer: None,
        root_is_node_modules: bool = False,
    ) -> None:
        self.files = frozenset(files)
        self.packages = packages  # package directory ("" for the root) -> package.json facts
        self.compiler = compiler
        # analysing a node_modules directory itself: its top-level directories are the packages
        self.root_is_node_modules = root_is_node_modules

    def _file(self, path: str | None) -> str | None:
        if path is None:
            return None
        for ext in EXTENSIONS:
            if path + ext in self.files:
                return path + ext
        return None

    def _directory(self, path: str) -> str | None:
        package = self.packages.get(path)
        if package is not None and isinstance(package.get("main"), str):
            target = join(path, package["main"])
            found = self._file(target) or (self._index(target) if target is not None else None)
            if found:
                return found
        return self._index(path)

    def _index(self, path: str) -> str | None:
        for index in INDEXES:
            candidate = (path + index) if path else index[1:]
            if candidate in self.files:
                return candidate
        return None

    def file_or_directory(self, path: str | None) -> str | None:
        if path is None:
            return None
        return self._file(path) or self._directory(path)

    def _locate(self, path: str | None) -> str | None:
        """A file or directory, else the TypeScript source a `.js` name stands for."""
        return self.file_or_directory(path) or _typescript_source(path, self.files)

    def resolve(self, importer: str, specifier: str, kind: str) -> Resolution:
        spec = specifier.split("?", 1)[0].split("#", 1)[0] if not specifier.startswith("#") else specifier
        if spec.startswith(("./", "../")) or spec in (".", ".."):
            target = join(dirname(importer), spec)
            found = self.file_or_directory(target)
            if found:
                return Resolution("module", found, "relative")
            swapped = _typescript_source(target, self.files)
            return (
                Resolution("module", swapped, "relative-typescript-source")
                if swapped
                else Resolution("unresolved", spec, "relative-not-found")
            )
        if spec.startswith("/"):
            return Resolution("unresolved", spec, "absolute-path")
        if "://" in spec or spec.startswith(("data:", "http:", "https:")):
            return Resolution("unresolved", spec, "url-specifier")
        if spec.startswith("#"):
            return self._imports(importer, spec, kind)
        return self._builtin(spec) or self._compiler_paths(importer, spec, kind)

    def _builtin(self, spec: str) -> Resolution | None:
        if spec.startswith("node:"):
            return Resolution("builtin", spec[5:], "node-scheme")
        if spec in ELECTRON_MODULES:
            return Resolution("electron", spec, "electron-runtime")
        if spec in NODE_BUILTINS:
            return Resolution("builtin", spec, "builtin-name")
        return None

    def _scope(self, importer: str) -> str | None:
        """Node's LOOKUP_PACKAGE_SCOPE: the directory of the nearest package.json, never past node_modules."""
        directory = dirname(importer)
        while directory.rsplit("/", 1)[-1] != "node_modules":
            if (f"{directory}/package.json" if directory else "package.json") in self.files:
                return directory
            if not directory:
                return None
            directory = dirname(directory)
        return None

    def _imports(self, importer: str, spec: str, kind: str) -> Resolution:
        """Node's PACKAGE_IMPORTS_RESOLVE: `#x` through the `imports` map of the importer's own package."""
        if spec == "#":
            return Resolution("unresolved", spec, "invalid-specifier")
        scope = self._scope(importer)
        package = self.packages.get(scope, {}) if scope is not None else {}
        if package.get("imports_omitted"):
            return Resolution("unresolved", spec, "imports-omitted")
        imports = package.get("imports")
        target = map_target(imports, spec, conditions(kind)) if isinstance(imports, dict) else None
        if target is None or scope is None:
            return Resolution("unresolved", spec, "imports-not-defined")
        mapped = (("mapped", target),)
        if target.startswith("./"):
            found = self._locate(join(scope, target))
            return (
                Resolution("module", found, "package-imports", mapped)
                if found
                else Resolution("unresolved", spec, "imports-target-missing", mapped)
            )
        if target.startswith(("../", "/", "#")) or _URL_SCHEME.match(target):  # `node:fs` too, as Node says
            return Resolution("unresolved", spec, "imports-target-invalid", mapped)
        inner = self._builtin(target) or self._package(
            f"{scope}/package.json" if scope else "package.json", target, kind
        )
        detail = (*mapped, ("via", inner.basis))
        if inner.status == "unresolved":
            return Resolution("unresolved", spec, "imports-target-missing", detail)
        return Resolution(inner.status, inner.target, "package-imports", detail)

    def _compiler_paths(self, importer: str, spec: str, kind: str) -> Resolution:
        """TypeScript's order for a bare name: `paths` (exact key, else the longest-prefix pattern; each
        target in turn), then `baseUrl/name`, then node_modules. Builtins were answered before."""
        compiler = self.compiler(importer)
        if compiler is None:
            return self._package(importer, spec, kind)
        config = (("config", compiler.config),)
        alias, star = (
            (spec, "") if spec in compiler.paths else match_pattern(compiler.paths, spec, typescript=True) or (None, "")
        )
        if alias is not None and compiler.paths_base is not None:
            for target in compiler.paths[alias]:  # an empty `*` match leaves the target as written, as TypeScript does
                found = self._locate(join(compiler.paths_base, target.replace("*", star, 1) if star else target))
                if found:
                    return Resolution("module", found, "tsconfig-paths", (*config, ("alias", alias)))
        if compiler.base_url is not None:
            found = self._locate(join(compiler.base_url, spec))
            if found:
                return Resolution("module", found, "tsconfig-base-url", config)
        result = self._package(importer, spec, kind)
        if result.status == "unresolved" and alias is not None:
            return Resolution("unresolved", spec, "tsconfig-paths-target-missing", (*config, ("alias", alias)))
        return result

    def _package(self, importer: str, spec: str, kind: str) -> Resolution:
        parts = spec.split("/")
        count = 2 if spec.startswith("@") else 1
        if len(parts) < count or not all(parts[:count]):
            return Resolution("unresolved", spec, "invalid-specifier")
        name, subpath = "/".join(parts[:count]), "/".join(parts[count:])
        directory = dirname(importer)
        while True:
            base = (
                f"{directory}/node_modules/{name}"
                if directory
                else name
                if self.root_is_node_modules
                else f"node_modules/{name}"
            )
            package = self.packages.get(base)
            if package is not None or self._index(base) or any(base + e in self.files for e in EXTENSIONS[1:]):
                return self._in_package(base, package or {}, subpath, kind, spec)
            if not directory:
                break
            directory = dirname(directory)
            if directory.endswith("/node_modules") or directory == "node_modules":
                directory = dirname(directory)
        return Resolution("unresolved", spec, "package-not-found")

    def _in_package(self, base: str, package: Mapping[str, Any], subpath: str, kind: str, spec: str) -> Resolution:
        if package.get("exports_omitted"):
            return Resolution("unresolved", spec, "exports-omitted")
        exports = package.get("exports")
        if exports is not None:
            target = exports_target(exports, "./" + subpath if subpath else ".", conditions(kind))
            if target is None:
                return Resolution("unresolved", spec, "not-exported")
            found = self._locate(join(base, target))
            return (
                Resolution("module", found, "package-exports")
                if found
                else Resolution("unresolved", spec, "exports-target-missing")
            )
        if subpath:
            found = self.file_or_directory(join(base, subpath))
            return (
                Resolution("module", found, "package-subpath")
                if found
                else Resolution("unresolved", spec, "subpath-not-found")
            )
        found = self._directory(base)
        return (
            Resolution("module", found, "package-main")
            if found
            else Resolution("unresolved", spec, "package-main-missing")
        )


_TS_FOR_JS = {".js": (".ts", ".tsx"), ".jsx": (".tsx",), ".mjs": (".mts",), ".cjs": (".cts",)}


def _typescript_source(target: str | None, files: frozenset[str]) -> str | None:
    """TypeScript sources import './x.js' meaning './x.ts' (the compiled name)."""
    if target is None:
        return None
    for js, candidates in _TS_FOR_JS.items():
        if target.endswith(js):
            for ts in candidates:
                if target[: -len(js)] + ts in files:
                    return target[: -len(js)] + ts
    return None


def _conditional(value: Any, conditions: tuple[str, ...]) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        for item in value:
            found = _conditional(item, conditions)
            if found is not None:
                return found
        return None
    if isinstance(value, dict):
        for key, inner in value.items():  # object order is the package author's priority
            if key in conditions:
                found = _conditional(inner, conditions)
                if found is not None:
                    return found
    return None


def exports_target(exports: Any, subpath: str, conditions: tuple[str, ...]) -> str | None:
    """The target of `subpath` ('.' or './x') in a package.json `exports` value, or None when not exported."""
    if isinstance(exports, (str, list)) or (isinstance(exports, dict) and not any(k.startswith(".") for k in exports)):
        return _conditional(exports, conditions) if subpath == "." else None
    return map_target(exports, subpath, conditions) if isinstance(exports, dict) else None


def map_target(mapping: Mapping[str, Any], key: str, conditions: tuple[str, ...]) -> str | None:
    """Node's PACKAGE_IMPORTS_EXPORTS_RESOLVE over an `exports` subpath map or an `imports` map: an exact key,
    else the best `*` pattern (or legacy trailing-`/` folder key), its target with the match substituted."""
    if key in mapping and "*" not in key:
        return _conditional(mapping[key], conditions)
    best = match_pattern(mapping, key)
    if best is None:
        return None
    matched, star = best
    target = _conditional(mapping[matched], conditions)
    if target is None:
        return None
    return target.replace("*", star) if "*" in matched else target + star


def match_pattern(keys: Iterable[str], key: str, typescript: bool = False) -> tuple[str, str] | None:
    """The pattern key that matches `key` best and what its `*` stands for. The longest prefix wins, then the
    longest key (Node's PATTERN_KEY_COMPARE; TypeScript's `paths` agree on the prefix). Node wants the `*` to
    match at least one character and reads a key ending in `/` as a folder; TypeScript does neither."""
    best: tuple[int, int, str, str] | None = None
    for candidate in keys:
        if "*" in candidate:
            prefix, _, suffix = candidate.partition("*")
            if (
                "*" in suffix
                or not (key.startswith(prefix) and key.endswith(suffix))
                or len(key) < len(prefix) + len(suffix) + (0 if typescript else 1)
            ):
                continue
            found = (len(prefix), len(candidate), candidate, key[len(prefix) : len(key) - len(suffix)])
        elif not typescript and candidate.endswith("/") and key.startswith(candidate):
            found = (len(candidate), len(candidate), candidate, key[len(candidate) :])
        else:
            continue
        if best is None or found[:2] > best[:2]:
            best = found
    return None if best is None else (best[2], best[3])


def condition_leaves(value: Any, chain: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], str]]:
    """Every target of one `exports`/`imports` value with the chain of conditions that selects it, in the
    author's order: `{"node": {"import": "./a.mjs"}, "default": "./b.js"}` -> [(node, import) ./a.mjs,
    (default) ./b.js]. An array's items are fallbacks, each listed; null (an excluded subpath) lists nothing."""
    if isinstance(value, str):
        return [(chain, value)]
    if isinstance(value, list):
        return [leaf for item in value for leaf in condition_leaves(item, chain)]
    if isinstance(value, dict):
        return [
            leaf
            for key, inner in value.items()
            if isinstance(key, str) and not key.startswith(".")
            for leaf in condition_leaves(inner, (*chain, key))
        ]
    return []


def subpath_map(exports: Any) -> dict[str, Any]:
    """An `exports` value as Node reads it: a string, an array or a conditions object is the "." subpath;
    an object of "./" keys is the subpath map."""
    if isinstance(exports, dict) and any(isinstance(k, str) and k.startswith(".") for k in exports):
        return {k: v for k, v in exports.items() if isinstance(k, str) and k.startswith(".")}
    return {".": exports}


def pattern_matches(package_dir: str, key: str, target: str, files: Iterable[str]) -> list[tuple[str, str]]:
    """The (subpath, file) pairs a `*` pattern entry reaches among `files`: `"./dist/client/*":
    "./dist/client/*"` -> every file under dist/client/, its subpath with the `*` replaced by what it
    stands for. Node's rule: `*` stands for one or more characters, `/` included."""
    prefix, _, suffix = target.partition("*")
    base = join(package_dir, prefix[2:]) if prefix.startswith("./") else None
    if base is None or "*" in suffix:
        return []
    start = base + "/" if prefix.endswith("/") and base else base
    out = []
    for path in files:
        if path.startswith(start) and path.endswith(suffix) and len(path) > len(start) + len(suffix):
            star = path[len(start) : len(path) - len(suffix)]
            out.append((key.replace("*", star, 1), path))
    return sorted(out)
