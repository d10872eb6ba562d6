"""package.json and tsconfig/jsconfig facts, decided purely from their bytes: what module resolution needs,
with resolution maps kept whole or not at all."""

from __future__ import annotations

import json
from typing import Any

import orjson

from rea import jsonc
from rea.javascript.text_facts import MAX_STRING
from rea.text import printable


def read_json(data: bytes) -> Any:
    """orjson, else the standard library: JavaScript strings may hold lone surrogates (`"\\ud800"` in a
    map's sourcesContent), which JSON allows as escapes and orjson refuses."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        pass
    try:
        return _printable_strings(json.loads(data))
    except (ValueError, RecursionError):
        return None


def _printable_strings(value: Any) -> Any:
    """A document the standard library parsed, with any lone surrogate percent-escaped (`rea.text`), except in
    a map's sourcesContent, which is source text (hashed and parsed as bytes) rather than a name."""
    if isinstance(value, str):
        return printable(value)
    if isinstance(value, list):
        return [_printable_strings(v) for v in value]
    if isinstance(value, dict):
        return {printable(k): v if k == "sourcesContent" else _printable_strings(v) for k, v in value.items()}
    return value


MAX_MAP_BYTES = 16384  # an exports, imports or paths map larger than this is omitted (and says so)


def _bounded(out: dict[str, Any], key: str, value: Any) -> None:
    """Keep a resolution map whole or not at all: half a map would resolve wrongly without saying so."""
    if len(orjson.dumps(value)) <= MAX_MAP_BYTES:
        out[key] = value
    else:
        out[key] = None
        out[f"{key}_omitted"] = f"larger than {MAX_MAP_BYTES} bytes"


def package_facts(data: bytes) -> dict[str, Any]:
    doc = read_json(data)
    if not isinstance(doc, dict):
        return {"parse": "failed", "error": "package.json is not a JSON object"}
    out: dict[str, Any] = {"parse": "ok"}
    for key in ("name", "version", "main", "module", "browser", "type", "types"):
        if isinstance(doc.get(key), str):
            out[key] = doc[key][:MAX_STRING]
    for key in ("exports", "imports"):
        if key in doc:
            _bounded(out, key, doc[key])
    if isinstance(doc.get("bin"), (str, dict)):
        out["bin"] = (
            doc["bin"] if isinstance(doc["bin"], str) else {str(k): str(v) for k, v in list(doc["bin"].items())[:64]}
        )
    for key in ("dependencies", "devDependencies", "optionalDependencies", "peerDependencies"):
        deps = doc.get(key)
        if isinstance(deps, dict):
            out[key] = {str(k): str(v)[:128] for k, v in list(deps.items())[:1024]}
    return out


def tsconfig_facts(data: bytes) -> dict[str, Any]:
    """What module resolution needs from a tsconfig/jsconfig (read as JSONC, as TypeScript does): `extends`,
    `compilerOptions.baseUrl` and `compilerOptions.paths`. Bad JSONC raises, and becomes a parse failure."""
    doc = orjson.loads(jsonc.to_json(data.decode("utf-8-sig")))
    if not isinstance(doc, dict):
        return {"parse": "failed", "error": "the config is not a JSON object"}
    out: dict[str, Any] = {"parse": "ok"}
    refs = doc.get("extends")
    refs = (
        [refs] if isinstance(refs, str) else [r for r in refs if isinstance(r, str)] if isinstance(refs, list) else []
    )
    if refs:
        out["extends"] = [r[:MAX_STRING] for r in refs[:16]]
    raw_options = doc.get("compilerOptions")
    options: dict[str, Any] = raw_options if isinstance(raw_options, dict) else {}
    if isinstance(options.get("baseUrl"), str):
        out["base_url"] = options["baseUrl"][:MAX_STRING]
    if isinstance(options.get("paths"), dict):
        _bounded(
            out,
            "paths",
            {str(k): [t for t in v if isinstance(t, str)] for k, v in options["paths"].items() if isinstance(v, list)},
        )
    return out
