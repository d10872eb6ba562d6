"""The inputs of reconcile_javascript_runtime, checked and read into plain records.

A static layer is complete analyze_javascript_application Evidence plus caller-declared runtime
mappings; a capture is the Evidence of one passive observation, recognized by its operation and
provider (ours, or the reference's), its parameters checked against its result (the target it was
asked for, source text only when sources were asked for, a page inside its recorded origins). Any
disagreement refuses the call with the JSON path of the offending value: a record whose parts do not
agree is not reconciled. Everything here is pure; the Evidence has already passed `parse_evidence`
(its id matches its content).
"""

from __future__ import annotations

import ntpath
import posixpath
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from rea.canonical_json import canonical_sha256
from rea.evidence import Evidence
from rea.javascript.records.reconciliation import FileRootMapping, RuntimeMapping, UrlPrefixMapping
from rea.loopback import urlsplit, urlunsplit
from rea.web.scope import exact_origin
from rea.wire.convert import to_wire

_SHA = re.compile(r"^[a-f0-9]{64}$")
_WINDOWS = re.compile(r"^(?:[A-Za-z]:[\\/]|\\\\|//[^/\\]+[/\\])")


class Refused(Exception):
    """An input that cannot be reconciled: where it is and why."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(message)
        self.path, self.message = path, message


@attrs.frozen(kw_only=True)
class Loc:
    kind: str  # file | url | unresolved
    value: str


@attrs.frozen(kw_only=True)
class Entity:
    """One runtime target, frame, script or worker of a capture, before it becomes a graph node."""

    kind: str  # target | frame | script | worker
    key: str
    location: Loc
    frame_key: str | None = None
    label: str = ""
    properties: Mapping[str, Any] = attrs.field(factory=dict)
    source_sha256: str | None = None


@attrs.frozen(kw_only=True)
class Layer:
    layer_id: str
    role: str
    evidence: Evidence
    result: Mapping[str, Any]  # the stored analyze_javascript_application result, read as it was written
    graph: Mapping[str, Any]  # its graph (the static graph's own shape; read, not rebuilt, here)
    mappings: tuple[RuntimeMapping, ...]
    source_map_read_approved: bool


@attrs.frozen(kw_only=True)
class Completeness:
    """The only fields of a capture's completeness reconciliation reads, checked (or implied for a capture
    kind that states none)."""

    status: str
    conditions: tuple[str, ...]
    truncated_sections: tuple[str, ...]
    unavailable_sections: tuple[str, ...]
    dropped_scripts: int


@attrs.frozen(kw_only=True)
class Capture:
    kind: str  # browser | electron | v8-inspector | electron-active
    evidence: Evidence
    capture_sha256: str
    target: Entity
    frames: tuple[Entity, ...]
    scripts: tuple[Entity, ...]
    workers: tuple[Entity, ...]
    completeness: Completeness
    scripts_complete: bool

    def section_complete(self, section: str) -> bool:
        if section == "target":
            return True
        if section == "scripts":
            return self.scripts_complete
        c = self.completeness
        return section not in c.truncated_sections and section not in c.unavailable_sections


# ------------------------------------------------------------------ mappings


def safe_prefix(value: str) -> bool:
    return value == "" or (
        not value.startswith("/") and "\\" not in value and all(p not in ("", ".", "..") for p in value.split("/"))
    )


def url_prefix(value: str) -> str | None:
    """An exact http(s) origin and a path ending in '/' (added), without query or fragment; None otherwise."""
    try:
        parts = urlsplit(value)
    except ValueError:
        return None
    origin = exact_origin(urlunsplit((parts.scheme, parts.netloc, "", "", "")))
    if origin is None or parts.query or parts.fragment or "?" in value or "#" in value:
        return None
    path = parts.path or "/"
    return origin + (path if path.endswith("/") else path + "/")


def _mapping(value: RuntimeMapping, path: str) -> RuntimeMapping:
    prefix = value.artifact_prefix
    if not safe_prefix(prefix):
        raise Refused(f"{path}.artifact_prefix", f"artifact_prefix {prefix!r} is not a safe relative POSIX path")
    if isinstance(value, FileRootMapping):
        root = value.root
        if _WINDOWS.match(root):
            return FileRootMapping(kind="file-root", root=ntpath.normpath(root), artifact_prefix=prefix)
        if not root.startswith("/"):
            raise Refused(f"{path}.root", f"file-root root {root!r} is not absolute")
        return FileRootMapping(kind="file-root", root=posixpath.normpath(root), artifact_prefix=prefix)
    normalized = url_prefix(value.prefix)
    if normalized is None:
        raise Refused(f"{path}.prefix", "url-prefix must be http(s) without credentials, query or fragment")
    return UrlPrefixMapping(kind="url-prefix", prefix=normalized, artifact_prefix=prefix)


def mapping_base(m: RuntimeMapping) -> str:
    """A file-root mapping's root or a url-prefix mapping's prefix."""
    return m.root if isinstance(m, FileRootMapping) else m.prefix


def _mapping_key(m: RuntimeMapping) -> str:
    return "\0".join((m.kind, mapping_base(m), m.artifact_prefix))


def mappings(values: Sequence[RuntimeMapping], path: str) -> tuple[RuntimeMapping, ...]:
    """Normalized, deduplicated and sorted (the order a caller wrote them in changes nothing)."""
    unique = {_mapping_key(m): m for m in (_mapping(v, f"{path}[{i}]") for i, v in enumerate(values))}
    return tuple(unique[k] for k in sorted(unique))


# ------------------------------------------------------------------ layers


def layer(role: str, evidence: Evidence, result: Mapping[str, Any], maps: tuple[RuntimeMapping, ...]) -> Layer:
    graph = result.get("graph")
    if not isinstance(graph, Mapping) or not isinstance(graph.get("nodes"), list):
        raise Refused("analysis.normalized_result.graph", "the application Evidence carries no graph")
    params = evidence.parameters
    return Layer(
        layer_id="jrl_"
        + canonical_sha256(
            {"role": role, "evidence_id": evidence.evidence_id, "runtime_mappings": [to_wire(m) for m in maps]}
        ),
        role=role,
        evidence=evidence,
        result=result,
        graph=graph,
        mappings=maps,
        source_map_read_approved=params.get("source_map_read_approved") is True,
    )


# ------------------------------------------------------------------ captures


def _obj(value: Any, path: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise Refused(path, "expected an object")
    return value


def _list(value: Any, path: str) -> list[Any]:
    if not isinstance(value, list):
        raise Refused(path, "expected an array")
    return value


def _str(value: Any, path: str, *, nullable: bool = False) -> Any:
    if value is None and nullable:
        return None
    if not isinstance(value, str) or not value:
        raise Refused(path, "expected a non-empty string")
    return value


def _opt(value: Any, path: str) -> str | None:
    """A string or null (an optional key: frame, parent, opener)."""
    if value is not None and not isinstance(value, str):
        raise Refused(path, "expected a string or null")
    return value


def _strings(value: Any, path: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise Refused(path, "expected an array of strings")
    return value


def read_completeness(value: Any, path: str) -> Completeness:
    """The capture's completeness, with the only fields reconciliation reads checked."""
    c = _obj(value, path)
    dropped = c.get("dropped_events", {})
    scripts = _obj(dropped, f"{path}.dropped_events").get("scripts", 0)
    if type(scripts) is not int or scripts < 0:
        raise Refused(f"{path}.dropped_events.scripts", "expected a count")
    return Completeness(
        status=_str(c.get("status"), f"{path}.status"),
        conditions=tuple(_strings(c.get("conditions", []), f"{path}.conditions")),
        truncated_sections=tuple(_strings(c.get("truncated_sections", []), f"{path}.truncated_sections")),
        unavailable_sections=tuple(_strings(c.get("unavailable_sections", []), f"{path}.unavailable_sections")),
        dropped_scripts=scripts,
    )


def _source_sha(script: Mapping[str, Any], path: str) -> str | None:
    source = script.get("source")
    if not isinstance(source, Mapping) or source.get("included") is not True:
        return None
    digest = _obj(source.get("artifact"), f"{path}.source.artifact").get("sha256")
    if not isinstance(digest, str) or not _SHA.match(digest):
        raise Refused(f"{path}.source.artifact.sha256", "expected a lowercase SHA-256")
    return digest


def _where(item: Mapping[str, Any], path: str) -> Loc:
    if isinstance(item.get("file_path"), str):
        return Loc(kind="file", value=_str(item["file_path"], f"{path}.file_path"))
    return Loc(kind="url", value=_str(item.get("url"), f"{path}.url"))


def _script(item: Any, path: str, *, source_map: bool) -> Entity:
    s = _obj(item, path)
    loc = _where(s, path)
    sha = _source_sha(s, path)
    props: dict[str, Any] = {
        "location": loc.value,
        "cdp_hash": s.get("cdp_hash"),
        "length": s.get("length"),
        "is_module": s.get("is_module"),
        "language": s.get("language"),
        "source_sha256": sha,
    }
    if source_map:
        props["source_map_url"] = s.get("source_map_url")
    key = _str(s.get("script_key"), f"{path}.script_key")
    return Entity(
        kind="script",
        key=key,
        location=loc,
        frame_key=_opt(s.get("frame_id"), f"{path}.frame_id"),
        label=loc.value,
        properties=props,
        source_sha256=sha,
    )


def _frame(item: Any, path: str) -> Entity:
    f = _obj(item, path)
    loc = _where(f, path)
    key = _str(f.get("frame_id"), f"{path}.frame_id")
    props = {"parent_frame_id": _opt(f.get("parent_frame_id"), f"{path}.parent_frame_id"), "location": loc.value}
    return Entity(kind="frame", key=key, location=loc, frame_key=key, label=loc.value, properties=props)


def _worker(item: Any, path: str) -> Entity:
    w = _obj(item, path)
    loc = _where(w, path)
    props = {
        "runtime_type": w.get("type"),
        "location": loc.value,
        "attached": w.get("attached"),
        "opener_target_id": w.get("opener_target_id"),
        "parent_frame_id": w.get("parent_frame_id"),
    }
    key = _str(w.get("target_id"), f"{path}.target_id")
    return Entity(
        kind="worker", key=key, location=loc, frame_key=w.get("parent_frame_id"), label=loc.value, properties=props
    )


def _target(t: Mapping[str, Any], loc: Loc, path: str) -> Entity:
    props: dict[str, Any] = {"runtime_type": t.get("type") or t.get("protocol_type"), "attached": t.get("attached")}
    if loc.kind == "unresolved":
        props.update(reported_url=loc.value, location_kind="unresolved", location_reason="unverifiable-file-location")
    else:
        props["location"] = loc.value
    key = _str(t.get("target_id"), f"{path}.target_id")
    return Entity(kind="target", key=key, location=loc, label=str(t.get("title") or loc.value), properties=props)


def _complete_scripts(c: Completeness) -> bool:
    cut = "scripts" in c.truncated_sections or "scripts" in c.unavailable_sections
    return not cut and c.dropped_scripts == 0


def _items(
    result: Mapping[str, Any], section: str, read: Callable[[Any, str], Entity], path: str
) -> tuple[Entity, ...]:
    return tuple(
        read(v, f"{path}.{section}[{i}]") for i, v in enumerate(_list(result.get(section, []), f"{path}.{section}"))
    )


def _page(kind: str, evidence: Evidence, path: str) -> Capture:
    """inspect_web_page (kind browser) and inspect_electron_page (kind electron): the same page shape."""
    r = _obj(evidence.normalized_result, f"{path}.normalized_result")
    rp = f"{path}.normalized_result"
    t = _obj(r.get("target"), f"{rp}.target")
    scripts = _obj(r.get("scripts"), f"{rp}.scripts")
    items = _list(scripts.get("items"), f"{rp}.scripts.items")
    browser = kind == "browser"
    completeness = read_completeness(r.get("completeness"), f"{rp}.completeness")
    capture = Capture(
        kind=kind,
        evidence=evidence,
        capture_sha256=canonical_sha256(r),
        target=_target(t, _where(t, f"{rp}.target"), f"{rp}.target"),
        frames=_items(r, "frames", _frame, rp),
        scripts=tuple(_script(v, f"{rp}.scripts.items[{i}]", source_map=browser) for i, v in enumerate(items)),
        workers=_items(r, "workers", _worker, rp),
        completeness=completeness,
        scripts_complete=_complete_scripts(completeness),
    )
    _check_page_parameters(capture, t, path)
    return capture


def _check_page_parameters(capture: Capture, target: Mapping[str, Any], path: str) -> None:
    params = capture.evidence.parameters
    if params.get("target_id") != capture.target.key:
        raise Refused(f"{path}.parameters.target_id", "the Evidence's target_id disagrees with its captured target")
    if any(s.source_sha256 for s in capture.scripts) and params.get("include_script_sources") is not True:
        raise Refused(
            f"{path}.parameters.include_script_sources", "the Evidence holds script sources it was not asked for"
        )
    if capture.kind == "browser":
        origins = params.get("allowed_origins")
        # none given scopes a page to its own origin (rea.web.scope), so only a list that was given can exclude it
        if isinstance(origins, list) and origins and target.get("origin") not in origins:
            raise Refused(f"{path}.parameters.allowed_origins", "the page is outside the origins it was captured under")


def _v8_location(value: Any, path: str) -> Loc:
    loc = _obj(value, path)
    kind = loc.get("kind")
    if kind == "file":
        return Loc(kind="file", value=_str(loc.get("file_path"), f"{path}.file_path"))
    if kind == "url":
        return Loc(kind="url", value=_str(loc.get("sanitized_url"), f"{path}.sanitized_url"))
    if kind == "builtin":
        spec = _str(loc.get("specifier"), f"{path}.specifier")
        if not spec.startswith("node:"):
            raise Refused(f"{path}.specifier", "a builtin location must be a node: specifier")
        return Loc(kind="url", value=spec)
    if kind == "unresolved":
        return Loc(kind="unresolved", value=_str(loc.get("reported_url"), f"{path}.reported_url"))
    raise Refused(f"{path}.kind", "expected file, url, builtin or unresolved")


def _v8_script(item: Any, path: str) -> Entity:
    s = _obj(item, path)
    loc = _v8_location(s.get("location"), f"{path}.location")
    props: dict[str, Any] = {"cdp_hash": s.get("cdp_hash"), "length": s.get("length"), "is_module": s.get("is_module")}
    props.update({"language": None, "source_sha256": None})
    props.update(
        {"location_kind": "unresolved", "reported_url": loc.value}
        if loc.kind == "unresolved"
        else {"location": loc.value}
    )
    key = _str(s.get("script_key"), f"{path}.script_key")
    frame = _opt(s.get("execution_context_key"), f"{path}.execution_context_key")
    return Entity(kind="script", key=key, location=loc, frame_key=frame, label=loc.value, properties=props)


def _v8(evidence: Evidence, path: str) -> Capture:
    rp = f"{path}.normalized_result"
    r = _obj(evidence.normalized_result, rp)
    t = _obj(r.get("target"), f"{rp}.target")
    scripts = _obj(r.get("scripts"), f"{rp}.scripts")
    capture = _obj(r.get("capture"), f"{rp}.capture")
    truncated = capture.get("truncated") is True
    completeness = Completeness(
        status="truncated" if truncated else "attach_limited",
        conditions=("attach_limited", *(["truncated"] if truncated else [])),
        truncated_sections=("scripts",) if truncated else (),
        unavailable_sections=("frames", "script_sources", "workers"),
        dropped_scripts=0,
    )
    params = evidence.parameters
    if params.get("target_id") != t.get("target_id"):
        raise Refused(f"{path}.parameters.target_id", "the Evidence's target_id disagrees with its observed target")
    declared = params.get("runtime_kind")
    if declared is not None and declared != t.get("runtime_kind"):
        raise Refused(f"{path}.parameters.runtime_kind", "the declared runtime_kind disagrees with the result")
    items = _list(scripts.get("items"), f"{rp}.scripts.items")
    return Capture(
        kind="v8-inspector",
        evidence=evidence,
        capture_sha256=canonical_sha256(r),
        target=_target(t, _v8_location(t.get("location"), f"{rp}.target.location"), f"{rp}.target"),
        frames=(),
        scripts=tuple(_v8_script(v, f"{rp}.scripts.items[{i}]") for i, v in enumerate(items)),
        workers=(),
        completeness=completeness,
        scripts_complete=False,  # an attach sees what is loaded then; later loads may fall outside the window
    )


def _active(evidence: Evidence, path: str) -> Capture:
    rp = f"{path}.normalized_result"
    app = _obj(_obj(evidence.normalized_result, rp).get("application"), f"{rp}.application")
    app_path = _str(app.get("application_path"), f"{rp}.application.application_path")
    if evidence.parameters.get("application_path") not in (None, app_path):
        raise Refused(f"{rp}.application.application_path", "the application path disagrees with the parameters")
    key = "electron-active:" + canonical_sha256(app_path)[:32]
    target = {"target_id": key, "type": "electron-application", "title": app_path, "attached": True}
    return Capture(
        kind="electron-active",
        evidence=evidence,
        capture_sha256=canonical_sha256(evidence.normalized_result),
        target=_target(target, Loc(kind="file", value=app_path), f"{rp}.application"),
        frames=(),
        scripts=(),
        workers=(),
        completeness=Completeness(
            status="attach_limited",
            conditions=("attach_limited",),
            truncated_sections=(),
            unavailable_sections=("frames", "scripts", "script_sources", "workers"),
            dropped_scripts=0,
        ),
        scripts_complete=False,
    )


# operation -> (accepted provider ids: ours and the reference's, reader)
READERS: Mapping[str, tuple[frozenset[str], Callable[[Evidence, str], Capture]]] = {
    "inspect_web_page": (frozenset({"chromium-cdp", "rea-cdp-browser"}), lambda e, p: _page("browser", e, p)),
    "inspect_electron_page": (frozenset({"rea-cdp-electron"}), lambda e, p: _page("electron", e, p)),
    "observe_javascript_runtime": (frozenset({"rea-v8-inspector"}), _v8),
    "capture_electron_scenario": (frozenset({"chromium-cdp", "rea-playwright-electron-active"}), _active),
}
PASSIVE_AUTHORITIES = frozenset({"external-service", "controlled-replay"})


def capture(evidence: Evidence, path: str) -> Capture:
    reader = READERS.get(evidence.operation)
    if reader is None:
        raise Refused(
            f"{path}.operation",
            f"{evidence.operation} Evidence is not a runtime capture; give {', '.join(sorted(READERS))} Evidence",
        )
    providers, read = reader
    if evidence.provider.id not in providers or evidence.authority not in PASSIVE_AUTHORITIES:
        raise Refused(
            f"{path}.provider", f"this {evidence.operation} Evidence was not made by a known capture provider"
        )
    return read(evidence, path)
