"""analyze_web_bundle's result from a page capture and the parser's facts of its scripts (pure).

Edges, routes, endpoints and WebMCP declarations are observations of literal syntax; vendor and
runtime fingerprints are inferences with their basis. One `max_findings` budget covers them all,
deduplicated; what it drops is counted. Nothing here runs a script.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from rea.loopback import urljoin, urlsplit, urlunsplit
from rea.web.records.scripts import ChunkEdge, ChunkEdgeKind, Finding, SourceLocation, SourceMaps, WebMcpDeclaration
from rea.web.scope import clean_url
from rea.wire.convert import to_wire

T = TypeVar("T")

MAX_VALUE = 4096
ROUTE_CALLS = ("route", "addRoute", "useRoutes", "createBrowserRouter", "createHashRouter")
HTTP_METHODS = ("get", "post", "put", "patch", "delete", "request")

# (value, detector, text marks, confidence, kind): the reference's fingerprints, plus the bundler marks the
# JavaScript family's text signals find
VENDORS: tuple[tuple[str, str, tuple[str, ...], str, str], ...] = (
    ("webpack", "webpack-runtime", ("__webpack_require__",), "high", "bundle_runtime"),
    ("Vite", "vite-runtime", ("__vite__", "import.meta.hot"), "medium", "bundle_runtime"),
    (
        "React",
        "react-runtime",
        ("__REACT_DEVTOOLS_GLOBAL_HOOK__", "React.createElement"),
        "medium",
        "vendor_fingerprint",
    ),
    ("Vue", "vue-runtime", ("__VUE__", "createApp("), "medium", "vendor_fingerprint"),
    ("Next.js", "next-runtime", ("__NEXT_DATA__", "/_next/"), "high", "vendor_fingerprint"),
    ("Angular", "angular-runtime", ("\u0275\u0275defineComponent",), "high", "vendor_fingerprint"),
    ("Svelte", "svelte-runtime", ("svelte/internal",), "medium", "vendor_fingerprint"),
)
LIMITATIONS = (
    "Static bundle findings are observations or bounded inferences; REA does not execute captured JavaScript.",
    "String-built routes and endpoints, encrypted configuration, and server-side behavior may remain unknown.",
    "Page-declared WebMCP metadata is untrusted and is never registered or invoked as an REA tool.",
    "Scripts are parsed as JavaScript by tree-sitter with error recovery; a script with syntax errors still "
    "yields what parsed and counts as a parse failure.",
)


class Findings:
    """Every finding kind under one deduplicated `max_findings` budget. The inferences stay JSON: their basis
    reads artifact_sha256 before script_key, which is not InferenceBasis's field order."""

    def __init__(self, maximum: int) -> None:
        self.maximum = maximum
        self.seen: set[tuple[Any, ...]] = set()
        self.edges: list[ChunkEdge] = []
        self.routes: list[Finding] = []
        self.endpoints: list[Finding] = []
        self.webmcp: list[WebMcpDeclaration] = []
        self.inferences: list[dict[str, Any]] = []
        self.dropped = 0

    def _kept(self) -> int:
        return len(self.edges) + len(self.routes) + len(self.endpoints) + len(self.webmcp) + len(self.inferences)

    def add(self, kept: list[T], key: tuple[Any, ...], value: T) -> None:
        """`value` into `kept` (one of the lists above), once per key (which starts with the kind's name)."""
        if key in self.seen:
            return
        if self._kept() >= self.maximum:
            self.dropped += 1
            return
        self.seen.add(key)
        kept.append(value)


def resolve(specifier: str, base: str) -> str | None:
    """An import's URL against the script's (null for a bare specifier or a non-http(s) result)."""
    if not specifier.startswith(("/", "./", "../", "http://", "https://")):
        return None
    try:
        joined = urljoin(base, specifier)
    except ValueError:
        return None
    return clean_url(joined) if joined.startswith(("http://", "https://")) else None


def candidate(value: str) -> str:
    """A route or endpoint without query values and fragment, relative ones kept relative."""
    bounded = value[:MAX_VALUE]
    try:
        parts = urlsplit(bounded)
    except ValueError:
        return bounded.split("#", 1)[0].split("?", 1)[0]
    return urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))


def _loc(key: str, at: Mapping[str, int] | None) -> SourceLocation:
    return SourceLocation(script_key=key, line=at["line"] if at else None, column=at["column"] if at else None)


def _name_matches(callee: str, names: Sequence[str]) -> str | None:
    tail = callee.rsplit(".", 1)[-1]
    return tail if tail in names else None


def _edges(script: Mapping[str, Any], facts: Mapping[str, Any], found: Findings) -> None:
    key, url = script["script_key"], script["url"]
    kinds: dict[str, ChunkEdgeKind] = {
        "static-import": "static_import",
        "re-export": "static_import",
        "dynamic-import": "dynamic_import",
    }
    rows: list[tuple[ChunkEdgeKind, str, Any]] = [
        (kinds[i["kind"]], i["specifier"], i["at"]) for i in facts.get("imports", []) if i["specifier"] is not None
    ]
    for call in facts.get("calls", []):
        tail = call["callee"].rsplit(".", 1)[-1]
        if tail in ("require", "importScripts") and call["args"] and call["args"][0] is not None:
            rows.append(("require" if tail == "require" else "worker_import", call["args"][0], call["at"]))
    for new in facts.get("news", []):
        if new["callee"] in ("Worker", "SharedWorker") and new["args"] and new["args"][0] is not None:
            rows.append(("worker_import", new["args"][0], new["at"]))
    for kind, specifier, at in rows:
        spec = specifier[:MAX_VALUE]
        found.add(
            found.edges,
            ("edges", key, kind, spec),
            ChunkEdge(
                from_script_key=key, kind=kind, specifier=spec, resolved_url=resolve(spec, url), location=_loc(key, at)
            ),
        )


def _endpoint(callee: str, args: Sequence[str | None]) -> str | None:
    tail = callee.rsplit(".", 1)[-1]
    if tail in ("fetch", "sendBeacon", "axios") or callee in ("WebSocket", "EventSource"):
        return args[0] if args else None
    if tail == "open" and len(args) > 1:
        return args[1]
    if tail in HTTP_METHODS and args and args[0] is not None and args[0].startswith(("/", "http://", "https://")):
        return args[0]
    return None


def _finding(found: Findings, kind: str, key: str, raw: str, mechanism: str, at: Mapping[str, int]) -> None:
    value = candidate(raw)
    kept = found.routes if kind == "routes" else found.endpoints
    found.add(kept, (kind, mechanism, key, value), Finding(value=value, mechanism=mechanism, location=_loc(key, at)))


def _calls(script: Mapping[str, Any], facts: Mapping[str, Any], found: Findings) -> None:
    key = script["script_key"]
    for call in [*facts.get("calls", []), *({**n, "new": True} for n in facts.get("news", []))]:
        callee, args, at = call["callee"], call["args"], call["at"]
        mechanism = f"new:{callee}" if call.get("new") else f"call:{callee}"
        route = _name_matches(callee, ROUTE_CALLS)
        if route is not None and not call.get("new"):
            if args and args[0] is not None:
                _finding(found, "routes", key, args[0], mechanism, at)
            framework = (
                "React Router-compatible route API"
                if route in ("useRoutes", "createBrowserRouter")
                else "Generic route registration API"
            )
            found.add(
                found.inferences,
                ("inferences", "route-framework", key, framework),
                {
                    "kind": "route_framework",
                    "value": framework,
                    "confidence": "medium",
                    "basis": [_basis(script, f"call:{callee}", at)],
                },
            )
        endpoint = _endpoint(callee, args)
        if endpoint is not None:
            _finding(found, "endpoints", key, endpoint, mechanism, at)
    for pair in facts.get("pairs", []):
        if pair["value"] is not None:
            _finding(found, "routes", key, pair["value"], f"property:{pair['key']}", pair["at"])


def _webmcp(script: Mapping[str, Any], facts: Mapping[str, Any], found: Findings) -> None:
    key = script["script_key"]
    for reg in facts.get("registrations", []):
        names = sorted({n[:256] for n in reg["property_names"] if n})[:256]
        found.add(
            found.webmcp,
            ("webmcp", key, reg["name"] or "", *names),
            WebMcpDeclaration(
                name=reg["name"][:256] if reg["name"] is not None else None,
                description=reg["description"][:2048] if reg["description"] is not None else None,
                schema_property_names=tuple(names),
                trust="page-declared-untrusted",
                location=_loc(key, reg["at"]),
            ),
        )


def _basis(script: Mapping[str, Any], detector: str, at: Mapping[str, int] | None = None) -> dict[str, Any]:
    return {
        "artifact_sha256": script["source"]["artifact"]["sha256"],
        **to_wire(_loc(script["script_key"], at)),
        "detector": detector,
    }


def _vendors(script: Mapping[str, Any], facts: Mapping[str, Any], found: Findings) -> None:
    text = script["source"]["artifact"]["text"]
    key = script["script_key"]
    rows = [(v, d, c, k) for v, d, marks, c, k in VENDORS if any(m in text for m in marks)]
    known = {v.lower() for v, *_ in rows}
    rows += [(b, f"{b}-marks", "medium", "bundle_runtime") for b in facts.get("bundlers", []) if b.lower() not in known]
    for value, detector, confidence, kind in rows:
        found.add(
            found.inferences,
            ("inferences", "vendor", key, value),
            {
                "kind": kind,
                "value": value,
                "confidence": confidence,
                "basis": [_basis(script, detector)],
            },
        )


def _unknowns(unavailable: list[str], failed: list[str], source_maps: SourceMaps) -> list[dict[str, Any]]:
    out = []
    if unavailable:
        out.append(
            {
                "dimension": "script_source",
                "reason": "Source artifact was not captured within approved limits",
                "affected_script_keys": unavailable,
            }
        )
    if failed:
        out.append(
            {
                "dimension": "javascript_ast",
                "reason": "One or more source artifacts could not be parsed (or were past max_ast_nodes)",
                "affected_script_keys": failed,
            }
        )
    if source_maps.status not in ("not_requested", "included"):
        keys = {i.script_key for i in source_maps.items if i.status != "included"}
        out.append(
            {
                "dimension": "source_maps",
                "reason": "Source-map evidence was truncated by approved limits"
                if source_maps.status == "truncated"
                else "One or more requested source maps were unavailable or incomplete",
                "affected_script_keys": sorted(keys | set(source_maps.dropped_script_keys)),
            }
        )
    return out


def analysis(
    page: Mapping[str, Any],
    facts: Sequence[Mapping[str, Any]],
    source_maps: SourceMaps,
    limits: Mapping[str, int],
) -> dict[str, Any]:
    """The 6.x webBundleAnalysis of one inspect_web_page result and the facts of its captured scripts."""
    items = page["scripts"]["items"]
    captured = [s for s in items if s["source"]["included"]]
    by_key = {f["script_key"]: f for f in facts}
    found = Findings(limits["max_findings"])
    failed, visited = [], 0
    for script in captured:
        f = by_key.get(script["script_key"], {"parse": "omitted", "ast_nodes": 0})
        visited += int(f.get("ast_nodes", 0)) if f["parse"] != "omitted" else 0
        if f["parse"] != "ok":
            failed.append(script["script_key"])
        if f["parse"] == "omitted":
            continue
        for step in (_vendors, _edges, _calls, _webmcp):
            step(script, f, found)
    ast_cut = any(by_key.get(s["script_key"], {}).get("parse") == "omitted" for s in captured)
    unavailable = [s["script_key"] for s in items if not s["source"]["included"]]
    truncated = ast_cut or found.dropped > 0 or source_maps.status == "truncated"
    partial = bool(failed or unavailable) or source_maps.status in ("partial", "unavailable")
    return {
        "schema_version": 1,
        "capture": {
            "target_url": page["target"]["url"],
            "scripts_observed": page["scripts"]["total"],
            "scripts_analyzed": len(captured),
            "source_artifacts": [
                {**{k: v for k, v in s["source"]["artifact"].items() if k != "text"}, "text_available": True}
                for s in captured
            ],
        },
        "observations": {
            "chunks": {
                "nodes": [
                    {
                        "script_key": s["script_key"],
                        "url": s["url"],
                        "artifact_sha256": s["source"]["artifact"]["sha256"],
                        "bytes": s["source"]["artifact"]["bytes"],
                    }
                    for s in captured
                ],
                "edges": to_wire(found.edges),
            },
            "routes": to_wire(found.routes),
            "endpoints": to_wire(found.endpoints),
            "webmcp_declarations": to_wire(found.webmcp),
            "source_maps": to_wire(source_maps),
        },
        "inferences": found.inferences,
        "unknowns": _unknowns(unavailable, failed, source_maps),
        "completeness": {
            "status": "truncated" if truncated else "partial" if partial else "complete_within_limits",
            "parsed_scripts": sum(1 for s in captured if by_key.get(s["script_key"], {}).get("parse") == "ok"),
            "parse_failures": len(failed),
            "visited_ast_nodes": visited,
            "dropped_findings": found.dropped,
        },
        "limitations": list(LIMITATIONS),
        "parser": {"name": "tree-sitter", "grammar": "tree-sitter-javascript"},
        "capture_completeness": page["completeness"],
    }
