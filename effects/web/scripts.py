"""Handlers of the script tools' effects: tree-sitter facts of captured sources, bounded source-map
fetches from allowed origins, and local files read with their digest.

The parser is the JavaScript family's tree-sitter grammar (effects.javascript.extract); its byte
positions become UTF-16 offsets, one-based lines and zero-based UTF-16 columns here, the units the
browser and source maps use. Nothing here evaluates a script.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any

import anyio
from returns.result import Failure, Result, Success

from effects.javascript import extract
from effects.javascript.recover import publish_tree
from effects.progress import Progress
from rea.errors import ReaError, invalid_request
from rea.javascript import syntax_facts, text_facts
from rea.web.scope import in_scope
from rea.web.script_effects import FetchSourceMaps, ParseWebScripts, PublishWebScripts, ReadLocalFile

MAX_FACTS = 4_096  # facts of each kind kept per script (the pure core bounds findings further)
MAX_TEXT = 4_096
FETCH_TIMEOUT_S = 5.0
MAX_REDIRECTS = 5

# calls whose arguments matter: module loading, routes, network and WebMCP registration
_CALLEE = re.compile(
    r"^(?:.*\.)?(?:fetch|require|importScripts|route|addRoute|useRoutes|createBrowserRouter|createHashRouter|open|"
    r"get|post|put|patch|delete|request|registerTool|sendBeacon|axios)$"
)
_QUERY = """
(import_statement source: (string) @src) @import
(export_statement source: (string) @src) @reexport
(call_expression function: (import) arguments: (arguments . (_) @arg)) @dynamic
(call_expression function: (_) @fn arguments: (arguments) @args) @call
(new_expression constructor: (_) @fn arguments: (arguments) @args) @new
(pair key: [(property_identifier) (string)] @key value: (string) @value) @pair
"""


@lru_cache(maxsize=1)
def _parser() -> Any:
    ts, _queries, errors, parsers = extract.grammars()
    parser = parsers["javascript"]
    return ts, parser, ts.Query(parser.language, _QUERY), errors["javascript"]


class Positions:
    """Byte offsets of one text as (UTF-16 offset, one-based line, zero-based UTF-16 column), computed in one
    pass over the offsets in order."""

    def __init__(self, data: bytes, offsets: Iterable[int]) -> None:
        self.table: dict[int, dict[str, int]] = {}
        at, units, line, line_units = 0, 0, 1, 0
        for offset in sorted(set(offsets)):
            chunk = data[at:offset].decode("utf-8", "surrogatepass")
            newline = chunk.rfind("\n")
            if newline >= 0:
                line += chunk.count("\n")
                line_units = units + _utf16(chunk[: newline + 1])
            units += _utf16(chunk)
            self.table[offset] = {"offset": units, "line": line, "column": units - line_units}
            at = offset

    def __getitem__(self, offset: int) -> dict[str, int]:
        return self.table[offset]


def _utf16(text: str) -> int:
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def _text(node: Any) -> str:
    return syntax_facts.node_text(node)[:MAX_TEXT]


def _callee(node: Any) -> str:
    return re.sub(r"\s+", "", _text(node))[:256]


def _object_strings(obj: Any) -> dict[str, Any]:
    """name/description strings and the input schema's property names of a registerTool({...}) literal."""
    out: dict[str, Any] = {"name": None, "description": None, "property_names": []}
    if obj is None or obj.type != "object":
        return out
    for pair in obj.named_children:
        if pair.type != "pair":
            continue
        key = syntax_facts.string_value(pair.child_by_field_name("key")) or _text(pair.child_by_field_name("key"))
        value = pair.child_by_field_name("value")
        if key in ("name", "description"):
            out[key] = syntax_facts.string_value(value)
        elif key in ("inputSchema", "input_schema") and value is not None and value.type == "object":
            props = next(
                (
                    p.child_by_field_name("value")
                    for p in value.named_children
                    if p.type == "pair"
                    and (syntax_facts.string_value(p.child_by_field_name("key")) or _text(p.child_by_field_name("key")))
                    == "properties"
                ),
                None,
            )
            holder = props if props is not None and props.type == "object" else value
            out["property_names"] = [
                syntax_facts.string_value(p.child_by_field_name("key")) or _text(p.child_by_field_name("key"))
                for p in holder.named_children
                if p.type == "pair"
            ][:256]
    return out


def _facts(data: bytes, budget: int) -> tuple[dict[str, Any], int]:
    """One script's facts, and the syntax nodes it cost."""
    ts, parser, query, errors = _parser()
    root = parser.parse(data).root_node
    nodes = root.descendant_count
    facts: dict[str, Any] = {"ast_nodes": nodes, "syntax_errors": 0}
    if nodes > budget:
        return {**facts, "parse": "omitted"}, budget
    if root.has_error:
        facts["syntax_errors"] = len(ts.QueryCursor(errors).captures(root).get("e", []))
    facts["parse"] = "recovered" if root.has_error else "ok"
    raw: dict[str, list[dict[str, Any]]] = {"imports": [], "calls": [], "news": [], "pairs": [], "registrations": []}
    offsets: list[int] = []
    for _pattern, caps in ts.QueryCursor(query).matches(root):
        kind, fact, node = _one(caps)
        if kind is None or len(raw[kind]) >= MAX_FACTS:
            continue
        raw[kind].append(fact)
        offsets.extend(fact.pop("_offsets"))
        if kind == "calls" and fact["callee"].endswith("registerTool"):
            args = caps["args"][0].named_children
            raw["registrations"].append({**_object_strings(args[0] if args else None), "at": fact["at"]})
    positions = Positions(data, offsets)
    for rows in raw.values():
        for row in rows:
            for key in ("at", "end", "expression_start"):
                if key in row:
                    row[key] = positions[row[key]]
    return {**facts, **raw}, nodes


def _one(caps: Mapping[str, Any]) -> tuple[str | None, dict[str, Any], Any]:
    for kind, name in (("import", "static-import"), ("reexport", "re-export")):
        if kind in caps:
            node, src = caps[kind][0], caps["src"][0]
            return "imports", _import(name, node, src, syntax_facts.string_value(src)), node
    if "dynamic" in caps:
        node, arg = caps["dynamic"][0], caps["arg"][0]
        return "imports", _import("dynamic-import", node, arg, syntax_facts.string_value(arg)), node
    if "call" in caps or "new" in caps:
        node = caps.get("call", caps.get("new"))[0]
        callee = _callee(caps["fn"][0])
        if "call" in caps and not _CALLEE.match(callee):
            return None, {}, node
        args = [syntax_facts.string_value(a) for a in caps["args"][0].named_children[:3]]
        kind = "calls" if "call" in caps else "news"
        return kind, {"callee": callee, "args": args, "at": node.start_byte, "_offsets": [node.start_byte]}, node
    if "pair" in caps:
        node = caps["pair"][0]
        key = syntax_facts.string_value(caps["key"][0]) or _text(caps["key"][0])
        if key not in ("path", "route"):
            return None, {}, node
        value = syntax_facts.string_value(caps["value"][0])
        return "pairs", {"key": key, "value": value, "at": node.start_byte, "_offsets": [node.start_byte]}, node
    return None, {}, None


def _import(kind: str, node: Any, spec_node: Any, specifier: str | None) -> dict[str, Any]:
    return {
        "kind": kind,
        "specifier": specifier,
        "expression": _text(spec_node),
        "at": node.start_byte,
        "end": node.end_byte,
        "expression_start": spec_node.start_byte,
        "_offsets": [node.start_byte, node.end_byte, spec_node.start_byte],
    }


def parse_scripts(effect: ParseWebScripts) -> list[dict[str, Any]]:
    """Facts per script, in order; once the node budget is spent, later scripts are `omitted`."""
    remaining = effect.max_ast_nodes
    out = []
    for script in effect.scripts:
        data = script["text"].encode("utf-8", "surrogatepass")
        bundlers = text_facts.text_signals(data).get("bundlers", [])
        if remaining <= 0:
            out.append({"script_key": script["script_key"], "parse": "omitted", "ast_nodes": 0, "bundlers": bundlers})
            continue
        facts, cost = _facts(data, remaining)
        remaining -= cost
        out.append({"script_key": script["script_key"], "bundlers": bundlers, **facts})
    return out


async def parse(effect: ParseWebScripts, progress: Progress) -> Result[Any, ReaError]:
    return Success(await anyio.to_thread.run_sync(parse_scripts, effect, abandon_on_cancel=True))


# ----------------------------------------------------------------- source maps


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def _get(url: str, limit: int) -> tuple[int, str | None, bytes]:
    """(status, Location, body up to limit + 1 bytes); no proxies, no cookies, no redirects followed."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}), _NoRedirect())
    request = urllib.request.Request(url, headers={"Accept": "application/json, application/source-map+json;q=0.9"})
    try:
        with opener.open(request, timeout=FETCH_TIMEOUT_S) as reply:
            return int(reply.status), None, bytes(reply.read(limit + 1))
    except urllib.error.HTTPError as exc:
        return int(exc.code), exc.headers.get("Location"), b""


def _fetch_one(request: Mapping[str, str], origins: tuple[str, ...], limit: int) -> dict[str, Any]:
    url = request["fetch_url"]
    for _ in range(MAX_REDIRECTS + 1):
        if not url.startswith(("http://", "https://")) or not in_scope(url, origins):
            return {"status": "policy_filtered", "bytes_read": 0, "url": url}
        try:
            status, location, body = _get(url, limit)
        except (urllib.error.URLError, OSError, TimeoutError, ValueError) as exc:
            return {"status": "fetch_failed", "bytes_read": 0, "message": f"{exc}"[:512]}
        if 300 <= status < 400 and location:
            url = urllib.parse.urljoin(url, location)
            continue
        if status >= 400:
            return {"status": "fetch_failed", "bytes_read": 0, "message": f"HTTP {status}"}
        if len(body) > limit:
            return {"status": "truncated", "bytes_read": len(body)}
        return {"status": "fetched", "bytes_read": len(body), "body": body}
    return {"status": "fetch_failed", "bytes_read": 0, "message": f"more than {MAX_REDIRECTS} redirects"}


def fetch_maps(effect: FetchSourceMaps) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    remaining = effect.max_total_bytes
    for request in effect.requests[: effect.max_maps]:
        if remaining <= 0:
            break
        got = _fetch_one(request, effect.allowed_origins, min(effect.max_map_bytes, remaining))
        remaining -= got["bytes_read"]
        out.append({**request, **got})
    return out


async def fetch(effect: FetchSourceMaps, progress: Progress) -> Result[Any, ReaError]:
    return Success(await anyio.to_thread.run_sync(fetch_maps, effect, abandon_on_cancel=True))


# ----------------------------------------------------------------- local files


def read_local(effect: ReadLocalFile) -> Result[dict[str, Any], ReaError]:
    path = effect.path
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            return Failure(invalid_request(f"{path!r} is not a regular file", field=effect.argument, accepted="a file"))
        if info.st_size > effect.max_bytes:
            return Failure(
                ReaError(
                    code="resource_constraint",
                    message=f"{path!r} has {info.st_size} bytes, more than the {effect.max_bytes}-byte limit",
                    details={"path": path, "bytes": info.st_size, "limit": effect.max_bytes, "field": effect.argument},
                )
            )
        with open(path, "rb") as handle:
            data = handle.read(effect.max_bytes + 1)
    except FileNotFoundError:
        return Failure(invalid_request(f"{path!r} does not exist", field=effect.argument, accepted="an existing file"))
    except OSError as exc:
        return Failure(
            invalid_request(
                f"{path!r} cannot be read: {exc.strerror or exc}", field=effect.argument, accepted="a readable file"
            )
        )
    if len(data) > effect.max_bytes:
        return Failure(invalid_request(f"{path!r} grew past the limit while read", field=effect.argument))
    return Success({"path": path, "data": data, "sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)})


async def read(effect: ReadLocalFile, progress: Progress) -> Result[Any, ReaError]:
    return await anyio.to_thread.run_sync(read_local, effect, abandon_on_cancel=True)


# ----------------------------------------------------------------- publication


def publish_scripts(effect: PublishWebScripts) -> Result[dict[str, Any], ReaError]:
    published = publish_tree(effect.output_directory, effect.files_of, "rea-web-scripts", ".rea-web-scripts-")
    return published.map(lambda root: {"output_directory": root, "digests": _digests(effect, root)})


def _digests(effect: PublishWebScripts, root: str) -> dict[str, str]:
    """Each published file's SHA-256 as it reads back from disk."""
    digests = {}
    for planned in effect.files_of(root):
        with open(os.path.join(root, planned.rel), "rb") as handle:
            digests[planned.rel] = hashlib.sha256(handle.read()).hexdigest()
    return digests


async def publish(effect: PublishWebScripts, progress: Progress) -> Result[Any, ReaError]:
    return await anyio.to_thread.run_sync(publish_scripts, effect, abandon_on_cancel=False)


HANDLERS = {ParseWebScripts: parse, FetchSourceMaps: fetch, ReadLocalFile: read, PublishWebScripts: publish}
