"""Byte-level facts of an application's text files, decided purely: a file's kind by its name, URLs, the
sourceMappingURL, the bundler that built it (with the tie-breaks between bundlers whose marks overlap) and the
modules it names, and an HTML page's scripts and Content-Security-Policy."""

from __future__ import annotations

import re
from typing import Any

from rea.javascript import csp

MAX_STRING = 512  # characters kept of any literal
MAX_PER_FILE = 256  # facts of one kind kept per file (the rest are counted as omitted)

_URL = re.compile(rb"""\b(?:https?|wss?|file)://[^\s'"`<>()\\]{1,512}""")
MAPPING_URL = re.compile(rb"""[#@]\s*sourceMappingURL=([^\s'"*]+)""")
_SCRIPT = re.compile(rb"""<script\b([^>]*)>""", re.I)
_SRC = re.compile(rb"""\bsrc\s*=\s*["']([^"']+)["']""", re.I)
_WEBPACK_KEY = re.compile(rb"""/\*{3}/ \s*["']([^"']+)["']\s*:""")
_ESBUILD_MARK = re.compile(rb"""^// ((?:[\w@.\-]+/)*[\w@.\-]+\.(?:[cm]?[jt]sx?|json|vue|svelte))\n""", re.M)
_BROWSERIFY_PRELUDE = (b'"function"==typeof require&&require', b'typeof require=="function"&&require')
_BUNDLERS = (
    ("rspack", (b"__rspack_", b"rspackChunk")),
    (
        "webpack",
        (b"__webpack_require__", b"webpackChunk", b"__webpack_modules__", b"webpackJsonp", b"l:!1,exports:{}"),
    ),  # webpack 4: its chunk global, its minified bootstrap
    ("esbuild", (b"__commonJS(", b"__toESM(", b"__esm(")),
    ("vite", (b"__vitePreload", b"__vite__mapDeps", b"/@vite/client", b'supports("modulepreload")')),
    ("rollup", (b"rollup", b"Rollup")),
)


def text_signals(data: bytes) -> dict[str, Any]:
    """Byte-level signals of any text file: URLs, sourceMappingURL, bundler runtime and bundled modules."""
    out: dict[str, Any] = {}
    urls: list[dict[str, Any]] = []
    for m in _URL.finditer(data):
        if len(urls) >= MAX_PER_FILE:
            out["urls_omitted"] = out.get("urls_omitted", 0) + 1
            continue
        urls.append({"url": m.group(0).decode("utf-8", "replace")[:MAX_STRING], "start": m.start()})
    if urls:
        out["urls"] = urls
    mapping = None
    for m in MAPPING_URL.finditer(data):
        mapping = m
    if mapping is not None:
        value = mapping.group(1).decode("utf-8", "replace")
        out["source_mapping_url"] = "inline" if value.startswith("data:") else value[:MAX_STRING]
    bundlers = [name for name, marks in _BUNDLERS if any(mark in data for mark in marks)]
    if "rollup" in bundlers and not data.lstrip().startswith((b"/*", b"//")):
        bundlers.remove("rollup")  # only a header banner names rollup
    if "rspack" in bundlers and "webpack" in bundlers:
        bundlers.remove("webpack")
    if b"MODULE_NOT_FOUND" in data and any(mark in data for mark in _BROWSERIFY_PRELUDE):
        bundlers.append("browserify")  # its prelude: a require that falls back to the host's `require`
    if bundlers:
        out["bundlers"] = bundlers
        recovered: list[dict[str, Any]] = []
        pattern = (
            _WEBPACK_KEY if bundlers[0] in ("webpack", "rspack") else _ESBUILD_MARK if "esbuild" in bundlers else None
        )
        if pattern is not None:
            seen = set()
            for m in pattern.finditer(data):
                name = m.group(1).decode("utf-8", "replace")[:MAX_STRING]
                if name in seen:
                    continue
                seen.add(name)
                if len(recovered) < 4 * MAX_PER_FILE:
                    recovered.append({"path": name, "start": m.start()})
            if recovered:
                out["bundled_modules"] = recovered
    return out


def html_facts(data: bytes) -> dict[str, Any]:
    scripts: list[dict[str, Any]] = []
    inline = 0
    for m in _SCRIPT.finditer(data):
        attrs = m.group(1)
        src = _SRC.search(attrs)
        if src is None:
            inline += 1
        elif len(scripts) < MAX_PER_FILE:
            scripts.append(
                {
                    "src": src.group(1).decode("utf-8", "replace")[:MAX_STRING],
                    "module": b"module" in attrs.lower(),
                    "start": m.start(),
                    "line": data.count(b"\n", 0, m.start()) + 1,
                }
            )
    policies = csp.meta_policies(data)
    return {"scripts": scripts, "inline_scripts": inline, **({"csp": policies} if policies else {})}


_CONFIG = re.compile(r"(?:ts|js)config(?:\.[^/]+)?\.json")  # tsconfig.json, tsconfig.base.json, jsconfig.json


def classify(path: str) -> str:
    """What a file is, by name: the pure core gets this label with the file's size."""
    lower = path.lower()
    base = lower.rsplit("/", 1)[-1]
    if base == "package.json":
        return "package-json"
    if _CONFIG.fullmatch(base):
        return "tsconfig"
    if lower.endswith((".js", ".mjs", ".cjs", ".jsx")):
        return "javascript"
    if lower.endswith((".d.ts", ".d.mts", ".d.cts")):
        return "type-declaration"
    if lower.endswith((".ts", ".mts", ".cts")):
        return "typescript"
    if lower.endswith(".tsx"):
        return "tsx"
    if lower.endswith((".html", ".htm")):
        return "html"
    if lower.endswith(".map"):
        return "source-map"
    if lower.endswith(".asar"):
        return "asar"
    if lower.endswith(".node"):
        return "native-addon"
    if lower.endswith(".json"):
        return "json"
    return "asset"
