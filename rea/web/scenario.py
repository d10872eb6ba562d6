"""A browser scenario's policy: what it may touch, decided before a browser exists, and its completeness.

Every destination (start URL, goto, cookie, storage origin, replay route and redirect) must lie
in the scenario's exact origins (the start URL's own when none are given); step and secret ids
are unique and every secret reference is declared. The runner enforces the same origins at run
time (requests elsewhere are failed by the browser), so a click on an outside link cannot leave.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from returns.result import Failure, Result, Success

from rea.errors import ReaError, invalid_request
from rea.loopback import origin_of, parse_endpoint, quote, quote_plus, urlencode, urlsplit
from rea.web.scope import ACCEPTED_ORIGIN, allowed_origins

Args = Mapping[str, Any]
MAX_EVENTS = 10_000
DEFAULT_ACTION_TIMEOUT_MS = 30_000
VALUE_ACTIONS = ("fill", "select_option")


def _url_problem(url: str) -> str | None:
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises on a malformed port
    except ValueError:
        return "is not a URL"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "is not an http(s) URL"
    if parts.username is not None or parts.password is not None:
        return "carries credentials (declare them as secrets instead)"
    return None


def _destinations(args: Args) -> Iterator[tuple[str, str]]:
    """(argument path, URL) of every place the scenario declares it will go."""
    yield "start_url", args["start_url"]["url"]
    for i, action in enumerate(args["actions"]):
        if action["action"] == "goto":
            yield f"actions[{i}].destination", action["destination"]["url"]
    for i, cookie in enumerate(args["storage"]["cookies"]):
        yield f"storage.cookies[{i}].destination", cookie["destination"]["url"]
    replay = args["request_replay"]
    for i, route in enumerate(replay.get("routes", ())):
        yield f"request_replay.routes[{i}].request", route["request"]["url"]
        if route["response"]["kind"] == "redirect":
            yield f"request_replay.routes[{i}].response.destination", route["response"]["destination"]["url"]


def _value_refs(value: Mapping[str, Any] | None) -> list[str]:
    return [value["secret_id"]] if value is not None and value.get("source") == "secret" else []


def _url_refs(destination: Mapping[str, Any]) -> list[str]:
    return [ref for q in destination.get("query", ()) for ref in _value_refs(q["value"])]


def secret_references(args: Args) -> list[str]:
    """Every secret_id the scenario uses, in first-use order."""
    refs = _url_refs(args["start_url"])
    for action in args["actions"]:
        if action["action"] in VALUE_ACTIONS:
            refs += _value_refs(action["value"])
        elif action["action"] == "goto":
            refs += _url_refs(action["destination"])
    storage = args["storage"]
    for cookie in storage["cookies"]:
        refs += _value_refs(cookie["value"]) + _url_refs(cookie["destination"])
    for collection in ("local_storage", "session_storage"):
        refs += [r for s in storage[collection] for e in s["entries"] for r in _value_refs(e["value"])]
    for route in args["request_replay"].get("routes", ()):
        refs += _url_refs(route["request"])
        response = route["response"]
        if response["kind"] == "redirect":
            refs += _url_refs(response["destination"])
        else:
            refs += [r for h in response["headers"] for r in _value_refs(h["value"])] + _value_refs(
                response.get("body")
            )
    return list(dict.fromkeys(refs))


def _duplicate(values: Iterable[str]) -> str | None:
    seen: set[str] = set()
    for value in values:
        if value in seen:
            return value
        seen.add(value)
    return None


def _uniqueness(args: Args) -> Result[None, ReaError]:
    checks = (
        ("actions", "step_id", [a["step_id"] for a in args["actions"]]),
        ("secrets", "secret_id", [s["secret_id"] for s in args["secrets"]]),
        ("secrets", "environment_variable", [s["environment_variable"] for s in args["secrets"]]),
        ("request_replay.routes", "route_id", [r["route_id"] for r in args["request_replay"].get("routes", ())]),
        (
            "request_replay.routes",
            "method and request",
            [f"{r['method']} {r['request']}" for r in args["request_replay"].get("routes", ())],
        ),
    )
    for where, what, values in checks:
        repeated = _duplicate(values)
        if repeated is not None:
            return Failure(
                invalid_request(f"{where}: {what} {repeated!r} is used twice", field=where, accepted=f"unique {what}s")
            )
    return Success(None)


def _replay_headers(args: Args) -> Result[None, ReaError]:
    for i, route in enumerate(args["request_replay"].get("routes", ())):
        names = [h["name"].lower() for h in route["response"].get("headers", ())]
        bad = next((n for n in names if n in ("content-length", "location", "transfer-encoding")), None)
        if bad is not None or _duplicate(names) is not None:
            return Failure(
                invalid_request(
                    f"request_replay.routes[{i}].response.headers: {bad or _duplicate(names)!r} is not allowed there",
                    field=f"request_replay.routes[{i}].response.headers",
                    accepted="unique header names other than content-length, location and transfer-encoding",
                )
            )
    return Success(None)


def scenario_origins(args: Args) -> Result[tuple[str, ...], ReaError]:
    """The scenario's exact origins, after the endpoint, every destination, id and secret reference is checked."""
    return (
        _connect_endpoint(args)
        .bind(lambda _: _destination_urls(args))
        .bind(lambda _: allowed_origins(args["allowed_origins"]))
        .map(lambda declared: declared or (str(origin_of(args["start_url"]["url"])),))
        .bind(lambda origins: _confined(args, origins))
    )


def _connect_endpoint(args: Args) -> Result[None, ReaError]:
    """A connected browser's endpoint is a loopback DevTools endpoint (a launched one has none)."""
    if args["browser"]["mode"] != "connect":
        return Success(None)
    return parse_endpoint(args["browser"]["cdp_endpoint"], argument="browser.cdp_endpoint").map(lambda _: None)


def _destination_urls(args: Args) -> Result[None, ReaError]:
    """Every destination is an http(s) URL."""
    for where, url in _destinations(args):
        problem = _url_problem(url)
        if problem is not None:
            return Failure(invalid_request(f"{where} {url!r} {problem}", field=where, accepted="an http(s) URL"))
    return Success(None)


def _confined(args: Args, origins: tuple[str, ...]) -> Result[tuple[str, ...], ReaError]:
    """The origins, when every destination and storage origin lies within them and the ids and secret
    references hold."""
    for where, url in _destinations(args):
        if origin_of(url) not in origins:
            return Failure(
                invalid_request(
                    f"{where}: origin {origin_of(url)} is not declared in allowed_origins {list(origins)}",
                    field=where,
                    accepted="a URL whose origin is in allowed_origins",
                    reason="target_not_allowed",
                )
            )
    for collection in ("local_storage", "session_storage"):
        for i, entry in enumerate(args["storage"][collection]):
            if origin_of(entry["origin"]) not in origins or entry["origin"].rstrip("/") != origin_of(entry["origin"]):
                return Failure(
                    invalid_request(
                        f"storage.{collection}[{i}].origin {entry['origin']!r} is not one of allowed_origins",
                        field=f"storage.{collection}[{i}].origin",
                        accepted=ACCEPTED_ORIGIN + " within allowed_origins",
                    )
                )
    return _uniqueness(args).bind(lambda _: _replay_headers(args)).bind(lambda _: _secrets_declared(args, origins))


def _secrets_declared(args: Args, origins: tuple[str, ...]) -> Result[tuple[str, ...], ReaError]:
    """Every secret reference names a declared secret."""
    declared_ids = {s["secret_id"] for s in args["secrets"]}
    undeclared = [r for r in secret_references(args) if r not in declared_ids]
    if undeclared:
        return Failure(
            invalid_request(
                f"secret reference {undeclared[0]!r} is not declared in secrets",
                field="secrets",
                accepted="a secrets entry {secret_id, environment_variable} for every secret_id used",
            )
        )
    return Success(origins)


# ------------------------------------------------------------------ completeness

ARTIFACT_SECTIONS = ("screenshot", "dom", "accessibility", "url", "history", "storage")
UNOBSERVED_FAMILIES = {"websockets": "websockets", "workers": "workers", "popups": "popups", "downloads": "events"}


def completeness(missing: Iterable[str], truncated: Iterable[str]) -> dict[str, Any]:
    """The reference's three-way classification: truncated > incomplete > complete."""
    gone, cut = sorted(set(missing)), sorted(set(truncated))
    status = "truncated" if cut else "incomplete" if gone else "complete"
    return {
        "status": status,
        "equality_eligible": status == "complete",
        "missing_sections": gone,
        "truncated_sections": cut,
    }


def step_completeness(step: Mapping[str, Any]) -> dict[str, Any]:
    artifacts = step["artifacts"]
    missing = [k for k in ARTIFACT_SECTIONS if artifacts[k]["state"] == "missing"]
    truncated = [k for k in ARTIFACT_SECTIONS if artifacts[k]["state"] == "truncated"]
    if step["status"] != "completed":
        missing.append("action")
    return completeness(missing, truncated)


def capture_result(args: Args, origins: Sequence[str], raw: Mapping[str, Any]) -> dict[str, Any]:
    """The normalized capture from the runner's facts (already redacted in the effect)."""
    steps = [{**s, "completeness": step_completeness(s)} for s in raw["steps"]]
    missing = [m for s in steps for m in s["completeness"]["missing_sections"]]
    truncated = [t for s in steps for t in s["completeness"]["truncated_sections"]]
    limitations = list(raw["limitations"])
    for family in args["capture"]["events"]:
        if family in UNOBSERVED_FAMILIES:
            missing.append(UNOBSERVED_FAMILIES[family])
            limitations.append(f"The {family} event family is not observed by this provider.")
    if args["storage"]["local_storage"] or args["storage"]["session_storage"]:
        missing.append("storage")
        limitations.append(
            "Seeding local or session storage is not applied by this provider yet; the page began without it."
        )
    if raw["events_dropped"]:
        truncated.append("events")
        limitations.append(f"{raw['events_dropped']} events past the {MAX_EVENTS}-event bound were dropped.")
    limitations.append(
        "Activity before the scenario's first step is not observed; runtime attribution of requests is unknown."
    )
    return {
        "schema_version": 1,
        "browser": raw["browser"],
        "scenario": {
            "start_origin": str(origin_of(args["start_url"]["url"])),
            "allowed_origins": list(origins),
            "action_count": len(args["actions"]),
            "secret_references": secret_references(args),
        },
        "duration_ms": raw["duration_ms"],
        "steps": steps,
        "events": {"retained": len(raw["events"]), "dropped": raw["events_dropped"], "items": raw["events"]},
        "completeness": completeness(missing, truncated),
        "limitations": limitations[:64],
    }


# ------------------------------------------------------------------ redaction


def secret_forms(secrets: Mapping[str, str]) -> list[tuple[str, str]]:
    """(text form, replacement) for every secret, longest first: raw and URL-encoded forms both."""
    forms: dict[str, str] = {}
    for secret_id, value in secrets.items():
        if value:
            for form in (value, quote(value, safe=""), quote_plus(value)):
                forms.setdefault(form, f"[redacted:{secret_id}]")
    return sorted(forms.items(), key=lambda item: -len(item[0]))


def redact(text: str, forms: Sequence[tuple[str, str]]) -> str:
    for form, replacement in forms:
        text = text.replace(form, replacement)
    return text


def holds_secret(text: str, forms: Sequence[tuple[str, str]]) -> bool:
    return any(form in text for form, _ in forms)


def with_query(destination: Mapping[str, Any], secrets: Mapping[str, str]) -> str:
    """The destination URL with its declared query entries appended (secret values resolved)."""
    url = str(destination["url"])
    entries = [
        (q["name"], secrets[q["value"]["secret_id"]] if q["value"]["source"] == "secret" else q["value"]["value"])
        for q in destination.get("query", ())
    ]
    if not entries:
        return url
    base, _, fragment = url.partition("#")
    joined = base + ("&" if "?" in base else "?") + urlencode(entries)
    return joined + ("#" + fragment if fragment else "")


def value_of(value: Mapping[str, Any], secrets: Mapping[str, str]) -> str:
    return secrets[value["secret_id"]] if value["source"] == "secret" else str(value["value"])
