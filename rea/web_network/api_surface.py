"""The api-surface view of inspect_web_network_capture Evidence: request lines grouped by method, origin, path template.

A path segment is templated when a format rule (RULES, first match wins) says it is
an identifier; such a segment is an inference, every other segment is observed. A
numbered file (`30.xy`, `31.xy`) is an identifier with an extension: it templates to
`{integer}.xy`, so numbered tiles or chunks of one kind fall into one group. The
grouping is computed over every record before paging, so whether the view is
inferred (any group templated) or derived (none) is a property of the whole
grouping, the same on every page.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal

import attrs
from returns.result import Failure, Result, Success

from rea.evidence import Evidence
from rea.views.projection import page_rows, view_error
from rea.views.records.results import ApiSurfaceGroup, PathSegment
from rea.wire.convert import to_wire

Rule = Literal["uuid", "integer", "hex", "token"]
# (rule, placeholder, pattern): a segment fully matching the pattern is templated
RULES: tuple[tuple[Rule, str, re.Pattern[str]], ...] = (
    ("uuid", "{uuid}", re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")),
    ("integer", "{integer}", re.compile(r"[0-9]+")),
    ("hex", "{hex}", re.compile(r"[0-9a-fA-F]{16,}")),
    ("token", "{token}", re.compile(r"(?=[A-Za-z0-9_-]*[0-9])(?=[A-Za-z0-9_-]*[A-Za-z])[A-Za-z0-9_-]{24,}")),
)
# RFC 3986 absolute URL: scheme, authority, path (query and fragment dropped); urllib is IO-adjacent, so a rule
URL = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*)://([^/?#]*)([^?#]*)")
AUTHORITY = re.compile(r"(?:[^@]*@)?(\[[^\]]*\]|[^:]*)(?::([0-9]*))?")
DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}
# a numbered file: digits, then an extension of letters (so a version such as 1.2 stays observed)
NUMBERED_FILE = re.compile(r"[0-9]+((?:\.[A-Za-z][A-Za-z0-9]{0,15})+)")
MAX_PATHS = 16  # distinct observed paths kept per group


def segment(text: str, last: bool = True) -> PathSegment:
    """One path segment, templated by the first rule it fully matches (a numbered file only as the last one)."""
    for rule, placeholder, pattern in RULES:
        if pattern.fullmatch(text):
            return PathSegment(text=placeholder, basis="inferred", rule=rule)
    numbered = NUMBERED_FILE.fullmatch(text) if last else None
    if numbered is not None:
        return PathSegment(text="{integer}" + numbered.group(1), basis="inferred", rule="integer")
    return PathSegment(text=text, basis="observed", rule=None)


def _origin(scheme: str, host: str, port: int | None) -> str:
    shown = "" if port is None or DEFAULT_PORTS.get(scheme) == port else f":{port}"
    return f"{scheme}://{host}{shown}"


def request_line(reported: Mapping[str, Any]) -> tuple[str, str, str] | None:
    """(method, origin, path) of a HAR entry or a mitmproxy flow; None when the record has no request."""
    request = reported.get("request")
    if not isinstance(request, Mapping) or not isinstance(request.get("method"), str):
        return None
    method = str(request["method"])
    url = request.get("url")
    if isinstance(url, str):
        parts = URL.match(url)
        authority = AUTHORITY.fullmatch(parts.group(2)) if parts else None
        if parts is None or authority is None:
            return None
        port = int(authority.group(2)) if authority.group(2) else None
        return method, _origin(parts.group(1).lower(), authority.group(1).lower(), port), parts.group(3) or "/"
    scheme, host, path = (request.get(k) for k in ("scheme", "host", "path"))
    if isinstance(scheme, str) and isinstance(host, str) and isinstance(path, str):
        port = request.get("port")
        clean = re.split(r"[?#]", path, maxsplit=1)[0] or "/"
        return method, _origin(scheme.lower(), host.lower(), port if isinstance(port, int) else None), clean
    return None


def _template(path: str) -> tuple[str, tuple[PathSegment, ...]]:
    texts = path.split("/")[1:]
    parts = tuple(
        segment(s, i == len(texts) - 1) if s else PathSegment(text="", basis="observed", rule=None)
        for i, s in enumerate(texts)
    )
    return "/" + "/".join(p.text for p in parts), parts


@attrs.define
class _Group:
    """A group while records are added to it."""

    method: str
    origin: str
    path_template: str
    segments: tuple[PathSegment, ...]
    record_ordinals: list[int] = attrs.field(factory=list)
    observed_paths: list[str] = attrs.field(factory=list)

    def record(self) -> ApiSurfaceGroup:
        return ApiSurfaceGroup(
            method=self.method,
            origin=self.origin,
            path_template=self.path_template,
            segments=self.segments,
            templated=any(p.basis == "inferred" for p in self.segments),
            request_count=len(self.record_ordinals),
            record_ordinals=tuple(self.record_ordinals),
            observed_paths=tuple(self.observed_paths),
        )


def groups_of(records: list[Mapping[str, Any]]) -> tuple[list[ApiSurfaceGroup], int]:
    """Every group, sorted by origin, template and method; and how many records had no request line."""
    found: dict[tuple[str, str, str], _Group] = {}
    skipped = 0
    for record in records:
        line = request_line(record.get("reported") or {})
        if line is None:
            skipped += 1
            continue
        method, origin, path = line
        template, parts = _template(path)
        group = found.setdefault(
            (origin, template, method), _Group(method=method, origin=origin, path_template=template, segments=parts)
        )
        group.record_ordinals.append(record["ordinal"])
        if path not in group.observed_paths and len(group.observed_paths) < MAX_PATHS:
            group.observed_paths.append(path)
    return [found[k].record() for k in sorted(found)], skipped


def api_surface_view(source: Evidence, view: Mapping[str, Any]) -> Result[dict[str, Any], Any]:
    result = source.normalized_result
    if view["kind"] != "api-surface":
        return Failure(
            view_error(
                f"inspect_web_network_capture Evidence has only the api-surface view, not {view['kind']}.",
                ("view", "kind"),
                accepted="api-surface",
            )
        )
    records = list(result["records"])
    groups, skipped = groups_of(records)
    page, coverage = page_rows(groups, view["offset"], view["limit"])
    inferred = any(g.templated for g in groups)
    limitations = list(source.limitations)
    if result["total_records"] != len(records):
        limitations.append(
            f"The capture Evidence holds {len(records)} of {result['total_records']} records (record_ordinals): "
            "the grouping covers those only."
        )
    if skipped:
        limitations.append(f"{skipped} records have no readable request line and are not grouped.")
    return Success(
        {
            "kind": "api-surface",
            "view": dict(view),
            "format": result["format"],
            "groups": to_wire(page),
            "total_groups": len(groups),
            "grouped_records": len(records) - skipped,
            "inferred": inferred,
            "coverage": coverage,
            "limitations": limitations,
            "unknowns": ["runtime attribution of each request"],
        }
    )
