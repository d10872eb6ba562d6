"""Module resolution over a known set of files: relative paths, node_modules packages
(with `exports` maps), `node:` builtins. Pure: it only looks at the paths it is given."""

from __future__ import annotations

from typing import Any, Iterable, Mapping

NODE_BUILTINS = frozenset((
    "assert", "assert/strict", "async_hooks", "buffer", "child_process", "cluster", "console", "constants", "crypto",
    "dgram", "diagnostics_channel", "dns", "dns/promises", "domain", "events", "fs", "fs/promises", "http", "http2",
    "https", "inspector", "module", "net", "os", "path", "path/posix", "path/win32", "perf_hooks", "process",
    "punycode", "querystring", "readline", "readline/promises", "repl", "stream", "stream/consumers",
    "stream/promises", "stream/web", "string_decoder", "sys", "timers", "timers/promises", "tls", "trace_events",
    "tty", "url", "util", "util/types", "v8", "vm", "wasi", "worker_threads", "zlib", "test", "sqlite", "sea",
))
ELECTRON_MODULES = frozenset(("electron", "electron/main", "electron/renderer", "electron/common", "electron/utility"))
EXTENSIONS = ("", ".js", ".mjs", ".cjs", ".jsx", ".ts", ".tsx", ".mts", ".cts", ".json", ".node")
INDEXES = tuple("/index" + e for e in EXTENSIONS[1:])


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


class Resolver:
    """Resolves specifiers against one tree's files and package.json facts."""

    def __init__(self, files: Iterable[str], packages: Mapping[str, Mapping[str, Any]]) -> None:
        self.files = frozenset(files)
        self.packages = packages  # package directory ("" for the root) -> package.json facts

    def _file(self, path: str | None) -> str | None:
        if path is None:
            return None
        for ext in EXTENSIONS:
            if path + ext in self.files:
                return path + ext
        return None

    def _directory(self, path: str) -> str | None:
        package = self.packages.get(path)
        if package is not None:
            for field in ("main",):
                if isinstance(package.get(field), str):
                    target = join(path, package[field])
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

    def resolve(self, importer: str, specifier: str, kind: str) -> tuple[str, str, str]:
        """(status, target, basis): status module|builtin|electron|unresolved."""
        spec = specifier.split("?", 1)[0].split("#", 1)[0] if not specifier.startswith("#") else specifier
        if spec.startswith("node:"):
            return ("builtin", spec[5:], "node-scheme")
        if spec in ELECTRON_MODULES:
            return ("electron", spec, "electron-runtime")
        if spec.startswith(("./", "../")) or spec in (".", ".."):
            target = join(dirname(importer), spec)
            found = self.file_or_directory(target)
            if found:
                return ("module", found, "relative")
            swapped = _typescript_source(target, self.files)
            return ("module", swapped, "relative-typescript-source") if swapped else ("unresolved", spec, "relative-not-found")
        if spec.startswith("/"):
            return ("unresolved", spec, "absolute-path")
        if "://" in spec or spec.startswith(("data:", "http:", "https:")):
            return ("unresolved", spec, "url-specifier")
        if spec.startswith("#"):
            return ("unresolved", spec, "package-imports-unsupported")
        if spec in NODE_BUILTINS:
            return ("builtin", spec, "builtin-name")
        return self._package(importer, spec, kind)

    def _package(self, importer: str, spec: str, kind: str) -> tuple[str, str, str]:
        parts = spec.split("/")
        count = 2 if spec.startswith("@") else 1
        if len(parts) < count or not all(parts[:count]):
            return ("unresolved", spec, "invalid-specifier")
        name, subpath = "/".join(parts[:count]), "/".join(parts[count:])
        directory = dirname(importer)
        while True:
            base = f"{directory}/node_modules/{name}" if directory else f"node_modules/{name}"
            package = self.packages.get(base)
            if package is not None or self._index(base) or any(base + e in self.files for e in EXTENSIONS[1:]):
                return self._in_package(base, package or {}, subpath, kind, spec)
            if not directory:
                break
            directory = dirname(directory)
            if directory.endswith("/node_modules") or directory == "node_modules":
                directory = dirname(directory)
        return ("unresolved", spec, "package-not-found")

    def _in_package(self, base: str, package: Mapping[str, Any], subpath: str, kind: str, spec: str) -> tuple[str, str, str]:
        exports = package.get("exports")
        if exports is not None:
            conditions = ("require", "node", "default") if kind == "require" else ("import", "node", "default")
            target = exports_target(exports, "./" + subpath if subpath else ".", conditions)
            if target is None:
                return ("unresolved", spec, "not-exported")
            found = self._file(join(base, target)) if join(base, target) in self.files else None
            found = found or self.file_or_directory(join(base, target))
            return ("module", found, "package-exports") if found else ("unresolved", spec, "exports-target-missing")
        if subpath:
            found = self.file_or_directory(join(base, subpath))
            return ("module", found, "package-subpath") if found else ("unresolved", spec, "subpath-not-found")
        found = self._directory(base)
        return ("module", found, "package-main") if found else ("unresolved", spec, "package-main-missing")


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
    if not isinstance(exports, dict):
        return None
    if subpath in exports:
        return _conditional(exports[subpath], conditions)
    best: tuple[int, str, str] | None = None
    for key in exports:
        if "*" in key:
            prefix, _, suffix = key.partition("*")
            if subpath.startswith(prefix) and subpath.endswith(suffix) and len(subpath) >= len(prefix) + len(suffix):
                if best is None or len(prefix) > best[0]:
                    best = (len(prefix), key, subpath[len(prefix): len(subpath) - len(suffix) if suffix else None])
        elif key.endswith("/") and subpath.startswith(key):
            if best is None or len(key) > best[0]:
                best = (len(key), key, subpath[len(key):])
    if best is None:
        return None
    target = _conditional(exports[best[1]], conditions)
    if target is None:
        return None
    return target.replace("*", best[2]) if "*" in best[1] else target + best[2]
