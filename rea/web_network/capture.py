"""inspect_web_network_capture's records: producer fields kept, bytes by pointer, credentials and declared values out.

The effect hands over plain data: a HAR document whose numbers are `NumberText`
(the producer's exact text), or mitmproxy flow states whose bytes arrive as
`{"$bytes": base64}`. One walk per record builds the reported object and its
sidecars (pointers relative to that object): binary fields, numeric literals and
redactions. Every record is decoded before ordinal selection, and a malformed
record fails the whole capture (no partial success, as the reference does).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

import attrs

from rea.web_network.model import MAX_DEPTH, NumberText
from rea.web_network.records import (
    BinaryField,
    ByteRangeLocation,
    CaptureArtifact,
    CaptureRecord,
    Container,
    NumericLiteral,
    PointerLocation,
    Redaction,
    UnknownLocation,
)
from rea.web_network.url_redaction import REASON as URL_REASON
from rea.web_network.url_redaction import credential_name, redact_text

# headers whose values authenticate the transport: always excluded (names compared lowercased)
CREDENTIAL_HEADERS = frozenset(
    {"authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "x-auth-token", "x-csrf-token"}
)
HAR_VERSIONS = ("1.2", "1.1")
LIMITATIONS = (
    "Browser transaction ids and runtime attribution (which script or frame made each request) are unknown.",
    "Recorded URLs were not contacted; the capture is historical.",
)
HAR_TEXT_LIMITATION = "HAR text bodies are Unicode text: the original bytes on the wire are unknown."
MIGRATED = (
    "The dump wrote this flow in format {found}; mitmproxy's reader migrated it to format {version}, so its fields "
    "are that reading (connection ids the migration invents are numbered per dump, not the producer's)."
)
Reason = Literal["transport-credential", "explicit-sensitive-value"]
Scope = Literal["property-name"] | None
UrlComponent = Literal["query", "fragment", "userinfo", "text", "form"]
Representation = Literal["producer-bytes", "har-base64-content"]
ProducerType = Literal["json-number", "integer", "float"]
Location = PointerLocation | ByteRangeLocation | UnknownLocation


@attrs.frozen
class Rule:
    """Which rule withheld a value, and for a credential inside a string where it was (never the value)."""

    rule: str | None
    url_component: UrlComponent | None = None
    parameter: str | None = None


SENSITIVE = Rule(rule="sensitive-value")
CREDENTIAL_HEADER = Rule(rule="credential-header")


# HAR {name, value} lists whose value is withheld when the name is a credential parameter (url_redaction's table)
PARAMETER_LISTS: Mapping[str, UrlComponent] = {"queryString": "query", "params": "form"}
# keys whose strings are bodies: the producer's content, never rewritten (sensitive_values still apply)
BODY_KEYS = frozenset({"text"})


class Malformed(ValueError):
    """A record the format does not allow; `pointer` names where."""

    def __init__(self, pointer: str, message: str) -> None:
        super().__init__(message)
        self.pointer = pointer


def escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


@attrs.define
class _Sidecars:
    """What one walk collects beside the reported object."""

    sensitive: tuple[str, ...]
    numbers: list[NumericLiteral] = attrs.Factory(list)
    redactions: list[Redaction] = attrs.Factory(list)
    binaries: list[BinaryField] = attrs.Factory(list)

    def hides(self, text: str) -> bool:
        return any(s in text for s in self.sensitive)

    def hides_bytes(self, data: bytes) -> bool:
        return any(s.encode("utf-8") in data for s in self.sensitive)

    def redact(self, pointer: str, reason: Reason, scope: Scope = None, rule: Rule | None = None) -> None:
        """One withheld value; `rule` names the rule (and for URLs the component and parameter), never the value."""
        where = rule or Rule(rule=None)
        self.redactions.append(
            Redaction(
                pointer=pointer,
                reason=reason,
                scope=scope,
                rule=where.rule,
                url_component=where.url_component,
                parameter=where.parameter,
            )
        )

    def url_text(self, text: str, pointer: str) -> str:
        """The text with URL credentials and key-shaped values replaced, each listed as a redaction."""
        rewritten, hits = redact_text(text)
        for hit in hits:
            self.redact(
                pointer, URL_REASON, rule=Rule(rule=hit.rule, url_component=hit.component, parameter=hit.parameter)
            )
        return rewritten

    def binary(self, pointer: str, representation: Representation, data: bytes) -> None:
        encoded = base64.b64encode(data).decode("ascii")
        if self.hides_bytes(data) or self.hides(encoded):
            self.redact(pointer, "explicit-sensitive-value", rule=SENSITIVE)
            self.binaries.append(
                BinaryField(
                    pointer=pointer,
                    representation=representation,
                    state="redacted",
                    content_base64=None,
                    bytes=None,
                    sha256=None,
                )
            )
            return
        self.binaries.append(
            BinaryField(
                pointer=pointer,
                representation=representation,
                state="retained",
                content_base64=encoded,
                bytes=len(data),
                sha256=hashlib.sha256(data).hexdigest(),
            )
        )


def _credential_pair(value: Sequence[Any]) -> bool:
    """A mitmproxy header [name, value] whose name is a transport credential."""
    if len(value) != 2:
        return False
    name = value[0]
    if isinstance(name, Mapping) and set(name) == {"$bytes"}:
        name = _bytes(name, "").decode("utf-8", "replace")
    return isinstance(name, str) and name.lower() in CREDENTIAL_HEADERS


def _credential_object(value: Mapping[str, Any], parent_key: str) -> Rule | None:
    """The rule withholding a HAR {name, value} header, cookie or credential parameter's value, or None."""
    if parent_key == "cookies":
        return Rule(rule="cookie")
    name = value.get("name")
    if not isinstance(name, str):
        return None
    if parent_key == "headers" and name.lower() in CREDENTIAL_HEADERS:
        return CREDENTIAL_HEADER
    if parent_key in PARAMETER_LISTS and credential_name(name):
        return Rule(rule="credential-parameter", url_component=PARAMETER_LISTS[parent_key], parameter=name[:128])
    return None


def _bytes(tagged: Mapping[str, Any], pointer: str) -> bytes:
    try:
        return base64.b64decode(str(tagged["$bytes"]), validate=True)
    except (binascii.Error, ValueError):
        raise Malformed(pointer, "the flow reader's bytes are not base64") from None


class _Walk:
    """One record's walk; `flow` selects mitmproxy's bytes rule (bodies by pointer, text headers as strings)."""

    def __init__(self, side: _Sidecars, flow: bool) -> None:
        self.side = side
        self.flow = flow

    def value(self, value: Any, pointer: str, parent_key: str, depth: int) -> Any:
        if depth > MAX_DEPTH:
            raise Malformed(pointer, f"it is nested deeper than {MAX_DEPTH} levels")
        if isinstance(value, NumberText):
            return self._number(value, pointer)
        if isinstance(value, str):
            if self.side.hides(value):
                self.side.redact(pointer, "explicit-sensitive-value", rule=SENSITIVE)
                return None
            return value if parent_key in BODY_KEYS else self.side.url_text(value, pointer)
        if isinstance(value, Mapping):
            if self.flow and set(value) == {"$bytes"}:
                return self._flow_bytes(_bytes(value, pointer), pointer, parent_key)
            return self._object(value, pointer, parent_key, depth)
        if isinstance(value, list):
            if self.flow and parent_key == "headers" and _credential_pair(value):
                kept = [self.value(value[0], pointer + "/0", "", depth + 1), None]
                self.side.redact(pointer + "/1", "transport-credential", rule=CREDENTIAL_HEADER)
                return kept
            return [self.value(item, f"{pointer}/{i}", parent_key, depth + 1) for i, item in enumerate(value)]
        return value

    def _number(self, value: NumberText, pointer: str) -> Any:
        if self.side.hides(value):
            self.side.redact(pointer, "explicit-sensitive-value", rule=SENSITIVE)
            return None
        kind: ProducerType = "json-number"
        if self.flow:
            kind = "float" if any(c in value for c in ".eE") else "integer"
        self.side.numbers.append(NumericLiteral(pointer=pointer, producer_type=kind, literal=str(value)))
        return value.value()

    def _flow_bytes(self, data: bytes, pointer: str, parent_key: str) -> Any:
        """Bodies (content) always by pointer; other bytes as text when they are UTF-8, else by pointer."""
        if parent_key != "content":
            try:
                return self.value(data.decode("utf-8"), pointer, parent_key, 0)
            except UnicodeDecodeError:
                pass
        self.side.binary(pointer, "producer-bytes", data)
        return None

    def _object(self, value: Mapping[str, Any], pointer: str, parent_key: str, depth: int) -> dict[str, Any]:
        credential = None if self.flow else _credential_object(value, parent_key)
        cleaned: dict[str, Any] = {}
        for key, item in value.items():
            if self.side.hides(key):
                self.side.redact(pointer, "explicit-sensitive-value", "property-name", rule=SENSITIVE)
                continue
            child = f"{pointer}/{escape(key)}"
            if credential is not None and key == "value":
                self.side.redact(child, "transport-credential", rule=credential)
                cleaned[key] = None
                continue
            cleaned[key] = self.value(item, child, key, depth + 1)
        return cleaned


def _object_at(value: Any, pointer: str, what: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise Malformed(pointer, f"{what} is not an object")
    return value


def _check_entry(entry: Any, pointer: str) -> None:
    """The HAR 1.2 fields every record needs; anything else is the producer's."""
    entry = _object_at(entry, pointer, "the entry")
    request = _object_at(entry.get("request"), pointer + "/request", "request")
    response = _object_at(entry.get("response"), pointer + "/response", "response")
    for field, where in (("method", request), ("url", request)):
        if not isinstance(where.get(field), str) or isinstance(where.get(field), NumberText):
            raise Malformed(f"{pointer}/request/{field}", f"request.{field} is not a string")
    if not isinstance(response.get("status"), NumberText):
        raise Malformed(pointer + "/response/status", "response.status is not a number")
    for side, where in (("request", request), ("response", response)):
        if not isinstance(where.get("headers"), list):
            raise Malformed(f"{pointer}/{side}/headers", f"{side}.headers is not an array")


def _har_body(reported: dict[str, Any], entry: Mapping[str, Any], side: _Sidecars, pointer: str) -> list[str]:
    """A base64 response body decoded strictly and moved to binary_fields; text bodies stay the producer's text."""
    content = entry["response"].get("content")
    if not isinstance(content, Mapping) or not isinstance(content.get("text"), str):
        return []
    if content.get("encoding") != "base64":
        return [HAR_TEXT_LIMITATION]
    text = str(content["text"])
    try:
        data = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise Malformed(pointer + "/response/content/text", "a base64 response body does not decode") from None
    out = reported["response"].get("content")
    if isinstance(out, dict) and "text" in out:
        out["text"] = None
        side.redactions[:] = [r for r in side.redactions if r.pointer != "/response/content/text"]
    side.binary("/response/content/text", "har-base64-content", data)
    return []


def _record(ordinal: int, reported: Any, side: _Sidecars, location: Location, limits: list[str]) -> CaptureRecord:
    return CaptureRecord(
        ordinal=ordinal,
        location=location,
        reported=reported,
        binary_fields=tuple(side.binaries),
        numeric_literals=tuple(side.numbers),
        redactions=tuple(side.redactions),
        limitations=tuple(limits),
    )


def _located(location: PointerLocation | ByteRangeLocation, sensitive: tuple[str, ...]) -> Location:
    """The record's place, unless its coordinates (pointer, or offset and length) hold a declared value."""
    parts = (location.pointer,) if isinstance(location, PointerLocation) else (location.offset, location.bytes)
    text = " ".join(str(v) for v in parts)
    if any(s in text for s in sensitive):
        return UnknownLocation(kind="unknown", reason="explicit-sensitive-value")
    return location


def har_records(document: Any, sensitive: tuple[str, ...]) -> tuple[Container, list[CaptureRecord]]:
    """(container, records) of a HAR document; Malformed when it is not HAR 1.2 (1.1 is read too)."""
    log = _object_at(_object_at(document, "", "the document").get("log"), "/log", "log")
    version = log.get("version")
    if version not in HAR_VERSIONS:
        raise Malformed("/log/version", f"HAR version {version!r} is not read (accepted: {', '.join(HAR_VERSIONS)})")
    entries = log.get("entries")
    if not isinstance(entries, list):
        raise Malformed("/log/entries", "log.entries is not an array")
    side = _Sidecars(sensitive)
    shell = {"log": {k: v for k, v in log.items() if k != "entries"}}
    reported = _Walk(side, flow=False).value(shell, "", "", 0)
    container = Container(
        reported=reported,
        numeric_literals=tuple(side.numbers),
        redactions=tuple(side.redactions),
        records_pointer="/log/entries",
    )
    records = []
    for i, entry in enumerate(entries):
        pointer = f"/log/entries/{i}"
        _check_entry(entry, pointer)
        side = _Sidecars(sensitive)
        reported = _Walk(side, flow=False).value(entry, "", "", 0)
        limits = _har_body(reported, entry, side, pointer)
        location = _located(PointerLocation(kind="json-pointer", pointer=pointer), sensitive)
        records.append(_record(i, reported, side, location, limits))
    return container, records


def version_text(version: Any) -> str:
    """A flow format version as mitmproxy numbers it: [0, 12] (before 4) is 0.12, later ones are integers."""
    if isinstance(version, list):
        return ".".join(str(part) for part in version)
    return str(version)


def flow_records(
    flows: Iterable[Mapping[str, Any]], version: int, sensitive: tuple[str, ...]
) -> tuple[Container, list[CaptureRecord]]:
    """(container, records) of mitmproxy flow states, each at its byte range in the dump.

    `version` is the format mitmproxy's reader migrated every record to; each record's
    own version is listed in the container (format_versions_found) and a migrated
    record says so in its limitations."""
    found: list[str] = []
    records = []
    for i, flow in enumerate(flows):
        side = _Sidecars(sensitive)
        reported = _Walk(side, flow=True).value(flow["state"], "", "", 0)
        where = ByteRangeLocation(kind="byte-range", offset=flow["offset"], bytes=flow["bytes"])
        location = _located(where, sensitive)
        declared = version_text(flow.get("version", version))
        if declared not in found:
            found.append(declared)
        limits = [] if declared == str(version) else [MIGRATED.format(found=declared, version=version)]
        records.append(_record(i, reported, side, location, limits))
    container = Container(
        reported={"flow_format_version": version, "format_versions_found": found},
        numeric_literals=(),
        redactions=(),
        records_pointer=None,
    )
    return container, records


def select(records: list[CaptureRecord], ordinals: Sequence[int] | None) -> list[CaptureRecord] | int:
    """Records in the caller's order, or the first ordinal that names none."""
    if ordinals is None:
        return records
    for ordinal in ordinals:
        if ordinal >= len(records):
            return ordinal
    return [records[o] for o in ordinals]


def artifact_view(artifact: Mapping[str, Any], sensitive: tuple[str, ...]) -> CaptureArtifact:
    """The file identity, with a path or digest that holds a declared value excluded."""
    hidden = any(s in artifact["path"] for s in sensitive)
    digest = None if any(s in artifact["sha256"] for s in sensitive) else artifact["sha256"]
    return CaptureArtifact(path="" if hidden else artifact["path"], sha256=digest, bytes=artifact["bytes"])
