"""V8 inspector observations: what the runtime's own events say, built as the 6.x records.

Pure: the effect's `/json/version`, `/json/list` and raw events of one window arrive
structured (rea.javascript.devtools_answers); this module classifies locations, keys scripts and contexts, bounds console and
exception text, and says what the window could not see. What is sent is fixed here too:
enabling Runtime and Debugger replays the loaded scripts and live contexts, skipping all
pauses keeps a `debugger;` statement from stopping the runtime; nothing is evaluated.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote, urlsplit

import attrs

from rea.javascript.devtools_answers import DevtoolsVersion, Discovery, ListedTarget, Window
from rea.javascript.records import runtime as rt
from rea.loopback import origin_of

START: tuple[tuple[str, Mapping[str, object]], ...] = (
    ("Runtime.enable", {}),
    ("Debugger.enable", {}),
    ("Debugger.setSkipAllPauses", {"skip": True}),
)
FINISH: tuple[tuple[str, Mapping[str, object]], ...] = (("Debugger.disable", {}), ("Runtime.disable", {}))
LISTEN = (
    "Debugger.scriptParsed",
    "Runtime.executionContextCreated",
    "Runtime.executionContextDestroyed",
    "Runtime.executionContextsCleared",
    "Runtime.consoleAPICalled",
    "Runtime.exceptionThrown",
)
MAX_TEXT = 1024  # characters of one console or exception text
MAX_CONSOLE = 500

DIRECTLY_OBSERVED = (
    "Debugger.scriptParsed events (scripts loaded before attach are replayed by Debugger.enable while V8 still "
    "holds them)",
    "Runtime execution-context lifecycle events",
    "Runtime.consoleAPICalled and Runtime.exceptionThrown (V8 replays the console messages it still buffers on "
    "attach, then those of the window)",
)
UNAVAILABLE = (
    "Function execution, call counts and coverage (needs the Profiler domain)",
    "Network activity and file-system access (not in the V8 inspector)",
    "Scripts loaded before attach that V8 has already collected (a module whose code keeps no live function), and "
    "console messages older than V8's replay buffer",
    "Values of variables and objects (REA evaluates nothing in the runtime)",
)


def version_of(raw: DevtoolsVersion) -> rt.RuntimeVersion:
    return rt.RuntimeVersion(
        product=raw.browser or "unknown",
        protocol_version=raw.protocol_version or "unknown",
        v8_version=raw.v8_version,
    )


def _sanitized(url: str) -> str:
    parts = urlsplit(url)
    host = parts.hostname or ""
    host = f"[{host}]" if ":" in host else host
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{host}{port}{parts.path}"


def location_of(url: str) -> rt.Location | None:
    """A script's or target's location from its URL, or None when it names none (eval, anonymous)."""
    if not url:
        return None
    if url.startswith("node:"):
        return rt.BuiltinLocation(kind="builtin", specifier=url)
    if url.startswith("file://"):
        path = unquote(urlsplit(url).path)
        return rt.FileLocation(kind="file", file_path=path) if path.startswith("/") else None
    if url.startswith("/"):
        return rt.FileLocation(kind="file", file_path=url)
    try:
        origin = origin_of(url)
        if origin is not None and origin != "file://":
            return rt.UrlLocation(kind="url", origin=origin, sanitized_url=_sanitized(url))
    except ValueError:
        return None
    return None


def target_location(url: str) -> rt.TargetLocation | None:
    """Discovery metadata: a file URL cannot be verified from /json/list, so it stays unresolved."""
    found = location_of(url)
    if isinstance(found, rt.FileLocation):
        return rt.UnresolvedLocation(kind="unresolved", reported_url=url, reason="unverifiable-file-location")
    return found


def _target(raw: ListedTarget, location: rt.TargetLocation) -> rt.RuntimeTarget:
    return rt.RuntimeTarget(
        target_id=raw.id,
        protocol_type=raw.type or "unknown",
        attached=raw.attached,
        location=location,
        title=raw.title,
    )


def target_list(discovered: Discovery, offset: int, limit: int) -> rt.RuntimeTargetList:
    eligible, unsupported, unconnectable = [], 0, 0
    for raw in discovered.targets:
        location = target_location(raw.url)
        if location is None:
            unsupported += 1
        elif not raw.connectable:
            unconnectable += 1
        else:
            eligible.append(_target(raw, location))
    return rt.RuntimeTargetList(
        runtime=version_of(discovered.version),
        targets=tuple(eligible[offset : offset + limit]),
        excluded=rt.TargetExclusions(unsupported_location=unsupported, unconnectable=unconnectable),
        limitations=(
            "Target locations come from the endpoint's discovery metadata: file locations are unresolved until "
            "observe_javascript_runtime sees the runtime parse them.",
            "Only a loopback endpoint is contacted; the list is one moment's answer.",
        ),
        total=len(eligible),
    )


# ------------------------------------------------------------------ observation


def observation_key(prefix: str, *parts: object) -> str:
    """A stable key for an observed entity: the prefix and the SHA-256 of its identifying parts."""
    return prefix + hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()


def _bounded(text: str) -> str:
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT] + "…"


def _arg_text(arg: Mapping[Any, Any]) -> str:
    if "value" in arg:
        value = arg["value"]
        return value if isinstance(value, str) else json.dumps(value)
    return str(arg.get("description") or arg.get("unserializableValue") or arg.get("type", ""))


def _frame(stack: object) -> tuple[str | None, int | None]:
    frames = stack.get("callFrames") if isinstance(stack, dict) else None
    if frames and isinstance(frames[0], dict):
        line = frames[0].get("lineNumber")
        return _str(frames[0].get("url")), _nonneg(line)
    return None, None


def _ident(value: object) -> int | str | None:
    """A protocol id usable as a key (ints and strings; anything else a runtime sends is no id)."""
    return value if isinstance(value, int | str) and not isinstance(value, bool) else None


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _str(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _nonneg(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


class _Observation:
    """The fold's running state: contexts change state as events arrive, so they stay mutable until the end."""

    def __init__(self, target_id: str, max_scripts: int) -> None:
        self.target_id, self.max_scripts = target_id, max_scripts
        self.scripts: list[rt.RuntimeScript] = []
        self.seen_scripts, self.unsupported, self.invalid, self.scripts_dropped = 0, 0, 0, 0
        self.contexts: dict[int | str, rt.ExecutionContext] = {}
        self.context_keys: dict[int | str, str] = {}
        self.console: list[rt.ConsoleEvent] = []
        self.exceptions: list[rt.ExceptionEvent] = []
        self.console_dropped = 0

    def script(self, p: Mapping[Any, Any]) -> None:
        self.seen_scripts += 1
        if not isinstance(p.get("scriptId"), str) or not isinstance(p.get("url"), str):
            self.invalid += 1
            return
        location = location_of(p["url"])
        if location is None:
            self.unsupported += 1
            return
        if len(self.scripts) >= self.max_scripts:
            self.scripts_dropped += 1
            return
        context = _ident(p.get("executionContextId"))
        self.scripts.append(
            rt.RuntimeScript(
                script_key=observation_key("v8_script_", self.target_id, p["scriptId"], p["url"], p.get("hash")),
                location=location,
                execution_context_key=self.context_keys.get(context, f"ctx_{context}") if context is not None else None,
                cdp_hash=p.get("hash") if isinstance(p.get("hash"), str) else None,
                length=_nonneg(p.get("length")),
                is_module=p.get("isModule") if isinstance(p.get("isModule"), bool) else None,
                status="observed-loaded",
            )
        )

    def context(self, method: str, p: Mapping[Any, Any]) -> None:
        if method == "Runtime.executionContextsCleared":
            self.contexts = {k: attrs.evolve(v, state="cleared") for k, v in self.contexts.items()}
            return
        if method == "Runtime.executionContextCreated" and isinstance(p.get("context"), dict):
            c = p["context"]
            ident = _ident(c.get("id"))
            if ident is None:
                return
            unique = _ident(c.get("uniqueId"))
            key = f"ctx_{unique if unique is not None else ident}"
            self.context_keys[ident] = key
            self.contexts[ident] = rt.ExecutionContext(
                context_key=key,
                state="created",
                name=c.get("name") if isinstance(c.get("name"), str) else None,
                origin=_str(c.get("origin")),
            )
        elif method == "Runtime.executionContextDestroyed":
            gone = _ident(p.get("executionContextId"))
            if gone is not None and gone in self.contexts:
                self.contexts[gone] = attrs.evolve(self.contexts[gone], state="destroyed")

    def console_call(self, p: Mapping[Any, Any]) -> None:
        if len(self.console) >= MAX_CONSOLE:
            self.console_dropped += 1
            return
        args: list[Any] = p["args"] if isinstance(p.get("args"), list) else []
        url, line = _frame(p.get("stackTrace"))
        self.console.append(
            rt.ConsoleEvent(
                level=str(p.get("type") or "log"),
                text=_bounded(" ".join(_arg_text(a) for a in args if isinstance(a, dict))),
                timestamp=_number(p.get("timestamp")),
                url=url,
                line=line,
            )
        )

    def exception(self, p: Mapping[Any, Any]) -> None:
        d: dict[Any, Any] = p["exceptionDetails"] if isinstance(p.get("exceptionDetails"), dict) else {}
        thrown: dict[Any, Any] = d["exception"] if isinstance(d.get("exception"), dict) else {}
        text = " ".join(t for t in (d.get("text"), thrown.get("description")) if isinstance(t, str))
        self.exceptions.append(
            rt.ExceptionEvent(
                text=_bounded(text or "exception"),
                url=_str(d.get("url")),
                line=_nonneg(d.get("lineNumber")),
                column=_nonneg(d.get("columnNumber")),
                timestamp=_number(p.get("timestamp")),
            )
        )


def _fold(window: Window, max_scripts: int) -> _Observation:
    seen = _Observation(window.target.id, max_scripts)
    for _at, method, params in window.events:
        p = params if isinstance(params, dict) else {}
        if method == "Debugger.scriptParsed":
            seen.script(p)
        elif method.startswith("Runtime.executionContext"):
            seen.context(method, p)
        elif method == "Runtime.consoleAPICalled":
            seen.console_call(p)
        elif method == "Runtime.exceptionThrown":
            seen.exception(p)
    return seen


def _capture(window: Window, args: rt.ObserveRuntimeArgs, seen: _Observation) -> rt.Capture:
    reasons = [f"max_events dropped {n} {m} events" for m, n in sorted(window.dropped.items())]
    if seen.scripts_dropped:
        reasons.append(f"max_scripts dropped {seen.scripts_dropped} scripts")
    if seen.console_dropped:
        reasons.append(f"{seen.console_dropped} console calls past {MAX_CONSOLE}")
    return rt.Capture(
        observation_ms=args.observation_ms,
        events_observed=window.observed,
        events_retained=len(window.events),
        events_dropped=sum(window.dropped.values()),
        metadata_bytes_retained=len(json.dumps(window.events, default=str).encode()),
        truncated=bool(reasons),
        truncation_reasons=tuple(reasons),
        status="partial" if window.exited else "complete",
        runtime_exited=window.exited,
        elapsed_ms=max(0, int(window.elapsed_ms)),
    )


def _unknowns(window: Window, args: rt.ObserveRuntimeArgs) -> tuple[str, ...]:
    unknowns = []
    if window.exited:
        unknowns.append(
            f"The runtime closed the connection {window.elapsed_ms} ms into the {args.observation_ms} ms window: "
            "later activity is unobserved."
        )
    if args.runtime_kind is not None:
        unknowns.append(
            f"runtime_kind {args.runtime_kind!r} is the caller's declaration; the inspector does not confirm it."
        )
    return tuple(unknowns)


def observation(window: Window, args: rt.ObserveRuntimeArgs) -> rt.RuntimeObservation:
    """The observe_javascript_runtime result from one window's raw events."""
    target = window.target
    seen = _fold(window, args.max_scripts)
    declared = args.runtime_kind
    location = target_location(target.url) or rt.UnresolvedLocation(
        kind="unresolved", reported_url=target.url or "(none)", reason="unverifiable-file-location"
    )
    return rt.RuntimeObservation(
        runtime=version_of(window.version),
        target=rt.ObservedTarget(
            target_id=target.id,
            protocol_type=target.type or "unknown",
            attached=target.attached,
            location=location,
            title=target.title,
            runtime_kind=declared or "unknown",
            runtime_kind_authority="caller-declared-unverified" if declared else "not-declared",
        ),
        capture=_capture(window, args, seen),
        scripts=rt.RuntimeScripts(
            items=tuple(seen.scripts),
            observed_total=seen.seen_scripts,
            excluded=rt.ScriptExclusions(unsupported_location=seen.unsupported, invalid_protocol_value=seen.invalid),
        ),
        execution_contexts=tuple(seen.contexts.values()),
        directly_observed=DIRECTLY_OBSERVED,
        unavailable_without_instrumentation=UNAVAILABLE,
        unknowns=_unknowns(window, args),
        limitations=(
            f"One {args.observation_ms} ms window after attach; scripts loaded later are not listed.",
            *[f"{e.method} failed ({e.reason})" for e in window.errors],
        ),
        modules_loaded=tuple(
            sorted({s.location.file_path for s in seen.scripts if isinstance(s.location, rt.FileLocation)})
        ),
        console=tuple(seen.console),
        exceptions=tuple(seen.exceptions),
    )
