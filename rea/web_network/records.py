"""Wire records of the web family's offline tools: inspect_web_network_capture and compare_web_screenshots.

Shapes follow REA 6.x (domain/webNetworkCapture, domain/webScreenshot). Our
extras: `compare_web_screenshots` also takes a PNG file by path (what
`chromium --headless --screenshot` writes) beside the reference's inline
artifact, and the capture result names its input limit.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

import attrs

from rea.web.records.screenshot import ScreenshotArtifact
from rea.wire.schema import Open, field, local_path

SHA256 = "^[a-f0-9]{64}$"
POINTER = "RFC 6901 pointer in the producer's reported object"


# ------------------------------------------------------------ network capture


@attrs.frozen(kw_only=True)
class CaptureArgs:
    capture_path: str = local_path("Absolute local HAR or mitmproxy capture path")
    format: Literal["har", "mitmproxy"] = field("har: a HAR 1.2 JSON file; mitmproxy: a native flow dump")
    record_ordinals: tuple[int, ...] | None = field(
        "Zero-based record ordinals, in your order; omitted: every record",
        omit_none=True,
        default=None,
        minItems=1,
        items={"type": "integer", "minimum": 0},
    )
    sensitive_values: tuple[str, ...] = field(
        "Literal text excluded from payloads, byte/numeric projections, coordinates, paths and digests",
        default=(),
        items={"type": "string", "minLength": 1},
    )
    detail: Literal["complete", "summary"] = field(
        (
            "complete: every selected record; summary: counts, first rows, redaction index and "
            "parent_evidence_id to page from"
        ),
        default="complete",
    )


@attrs.frozen(kw_only=True)
class Redaction:
    pointer: str = field(POINTER)
    reason: Literal["transport-credential", "explicit-sensitive-value"] = field("Why the value was excluded")
    scope: Literal["property-name"] | None = field(
        "property-name: an omitted property name (pointer names its parent)", omit_none=True, default=None
    )
    rule: str | None = field(
        "Our extra: the rule that withheld it (credential-header, cookie, sensitive-value, credential-parameter, "
        "userinfo-password, or a key shape: google-api-key, aws-access-key-id, github-token, slack-token, "
        "stripe-secret-key, jwt)",
        omit_none=True,
        default=None,
    )
    url_component: Literal["query", "fragment", "userinfo", "text", "form"] | None = field(
        "Our extra, for a credential inside a string: where it was (the rest of the string is kept, the value "
        "replaced by REDACTED)",
        omit_none=True,
        default=None,
    )
    parameter: str | None = field(
        "Our extra: the credential parameter's name (never its value)", omit_none=True, default=None
    )


@attrs.frozen(kw_only=True)
class BinaryField:
    pointer: str = field(POINTER)
    representation: Literal["producer-bytes", "har-base64-content"] = field(
        "producer-bytes: bytes the producer stored; har-base64-content: a HAR content.text with encoding base64"
    )
    state: Literal["retained", "redacted"] = field("redacted: the bytes held a sensitive value")
    content_base64: str | None = field("The exact bytes, base64 (null when redacted)")
    bytes: int | None = field("Their length (null when redacted)", minimum=0)
    sha256: str | None = field("Their SHA-256 (null when redacted)", pattern=SHA256)


@attrs.frozen(kw_only=True)
class NumericLiteral:
    pointer: str = field(POINTER)
    producer_type: Literal["json-number", "integer", "float"] = field("json-number for HAR; integer/float for flows")
    literal: str = field("The number exactly as the producer wrote it")


@attrs.frozen(kw_only=True)
class PointerLocation:
    kind: Literal["json-pointer"] = field("The record's place in the HAR document")
    pointer: str = field(POINTER)


@attrs.frozen(kw_only=True)
class ByteRangeLocation:
    kind: Literal["byte-range"] = field("The record's bytes in the flow dump")
    offset: int = field("First byte", minimum=0)
    bytes: int = field("Length", minimum=1)


@attrs.frozen(kw_only=True)
class UnknownLocation:
    kind: Literal["unknown"] = field("The coordinate held a sensitive value")
    reason: Literal["explicit-sensitive-value"] = field("Why it is withheld")


@attrs.frozen(kw_only=True)
class CaptureRecord:
    ordinal: int = field("Zero-based producer ordinal", minimum=0)
    location: PointerLocation | ByteRangeLocation | UnknownLocation = field("Where the record is in the file")
    reported: Open = field("The producer's record (bodies and bytes by pointer in binary_fields; redactions null)")
    binary_fields: tuple[BinaryField, ...] = field("Bodies and other bytes, exact, by pointer")
    numeric_literals: tuple[NumericLiteral, ...] = field("Every number's exact producer text")
    redactions: tuple[Redaction, ...] = field("Values excluded from reported")
    limitations: tuple[str, ...] = field("What this record does not show")


@attrs.frozen(kw_only=True)
class CaptureArtifact:
    path: str = field("Selected artifact path; empty when excluded by a sensitive declaration")
    sha256: str | None = field("Observed SHA-256; null only when excluded by a sensitive declaration", pattern=SHA256)
    bytes: int = field("File size", minimum=0)


@attrs.frozen(kw_only=True)
class Decoder:
    id: str = field("Decoder id", minLength=1)
    name: str = field("Decoder name", minLength=1)
    version: str = field("Decoder version", minLength=1)


@attrs.frozen(kw_only=True)
class Container:
    reported: Open = field("The capture's fields outside its records (HAR log without entries; flow format)")
    numeric_literals: tuple[NumericLiteral, ...] = field("Numbers of the container, exact")
    redactions: tuple[Redaction, ...] = field("Values excluded from the container")
    records_pointer: str | None = field("Where the records sit (HAR: /log/entries; flows: null)")


@attrs.frozen(kw_only=True)
class RedactionIndexEntry:
    rule: str = field("The rule that withheld the values (see Redaction.rule)")
    reason: Literal["transport-credential", "explicit-sensitive-value"] = field("The redactions' reason")
    scope: Literal["record", "container"] = field("In records, or in the capture's fields outside them")
    location: str = field("The redactions' pointer with array indexes as *, e.g. /request/headers/*/value")
    url_component: Literal["query", "fragment", "userinfo", "text", "form"] | None = field(
        "Where inside the string (null: the whole value)"
    )
    parameter: str | None = field("The credential parameter's name (null: not a parameter)")
    redactions: int = field("Redactions of this kind", minimum=1)
    records: int = field("Records holding at least one", minimum=0)
    record_ordinals: tuple[int, ...] = field("The first 16 of those records' ordinals")


@attrs.frozen(kw_only=True)
class RedactionIndex:
    """Our extra: what was withheld across the whole capture (every record, before selection), never the values."""

    total_redactions: int = field("Redactions in the capture", minimum=0)
    records_with_redactions: int = field("Records with at least one redaction", minimum=0)
    by_rule: Mapping[str, int] = field("Redactions per rule")
    entries: tuple[RedactionIndexEntry, ...] = field("Per rule, location, component and parameter; most first")
    total_entries: int = field("Entries in the whole index", minimum=0)
    truncated: bool = field("Entries were left out (the first 256, or 24 in a summary, are listed)")


@attrs.frozen(kw_only=True)
class NetworkCapture:
    artifact: CaptureArtifact = field("The capture file")
    format: Literal["har", "mitmproxy"] = field("The capture format")
    decoder: Decoder = field("The parser that read it")
    container: Container = field("Fields outside the records")
    total_records: int = field("Records in the file (all decoded before selection)", minimum=0)
    records: tuple[CaptureRecord, ...] = field("Selected records, in the caller's order")
    runtime_attribution: Literal["unknown"] = field("Which browser transaction or script caused each is unknown")
    limitations: tuple[str, ...] = field("What this inspection did not observe")
    max_input_bytes: int = field("Our extra: the largest capture read", minimum=1)
    redaction_index: RedactionIndex = field(
        "Our extra: every redaction of the capture (all records, before record_ordinals selects) by rule and location"
    )


# ---------------------------------------------------------------- screenshots


@attrs.frozen(kw_only=True)
class ScreenshotFile:
    """Our extra: a PNG on disk (for instance `chromium --headless --screenshot`)."""

    path: str = local_path("Absolute PNG file path")


@attrs.frozen(kw_only=True)
class ScreenshotArgs:
    before: ScreenshotArtifact | ScreenshotFile = field("The earlier screenshot: inline artifact or {path}")
    after: ScreenshotArtifact | ScreenshotFile = field("The later screenshot: inline artifact or {path}")
    channel_threshold: int = field("A channel differs when |delta| > this", default=0, minimum=0, maximum=255)
    maximum_pixels: int = field(
        "Largest image (width x height) decoded", default=16_000_000, minimum=1, maximum=32_000_000
    )


@attrs.frozen(kw_only=True)
class Dimensions:
    width: int = field("Pixels", minimum=1)
    height: int = field("Pixels", minimum=1)


@attrs.frozen(kw_only=True)
class ScreenshotDiff:
    schema_version: Literal[1] = field("Diff schema")
    status: Literal["identical", "different", "dimension_mismatch"] = field("What the comparison found")
    before: Dimensions = field("Earlier image size")
    after: Dimensions = field("Later image size")
    channel_threshold: int = field("The threshold used", minimum=0, maximum=255)
    compared_pixels: int = field("Pixels compared (0 on dimension mismatch)", minimum=0)
    changed_pixels: int | None = field("Pixels with a channel past the threshold (null on mismatch)", minimum=0)
    changed_ratio: float | None = field("changed / compared (null on mismatch)", minimum=0, maximum=1)
    maximum_channel_delta: int | None = field("Largest |delta| of any RGBA channel", minimum=0, maximum=255)
    mean_absolute_channel_delta: float | None = field("Mean |delta| over all RGBA channels", minimum=0, maximum=255)
    limitations: tuple[str, ...] = field("What the comparison does not cover")


# ------------------------------------------------------- the capture's summary view


@attrs.frozen(kw_only=True)
class CaptureOrigin:
    origin: str = field("scheme://host[:port], or (none) for records without a request line")
    requests: int = field("Records to it", minimum=1)


@attrs.frozen(kw_only=True)
class CaptureCounts:
    methods: Mapping[str, int] = field(
        "Records per request method (the 20 commonest; methods clipped to 32 characters)"
    )
    status_classes: Mapping[str, int] = field("Records per response status class (1xx..5xx, none)")
    origins: tuple[CaptureOrigin, ...] = field("The 20 origins with most records")
    total_origins: int = field("Distinct origins", minimum=0)
    binary_fields: int = field("Bodies and other bytes held by pointer", minimum=0)
    binary_bytes: int = field("Their bytes (redacted ones not counted)", minimum=0)
    redactions: int = field("Redactions in the records of the Evidence", minimum=0)


@attrs.frozen(kw_only=True)
class CaptureRow:
    ordinal: int = field("Producer ordinal", minimum=0)
    method: str | None = field("Request method")
    url: str | None = field("Request URL (credentials redacted; clipped to 256 characters with …)")
    status: int | None = field("Response status")
    binary_fields: int = field("Bytes held by pointer in the record", minimum=0)
    redactions: int = field("Values withheld from the record", minimum=0)


@attrs.frozen(kw_only=True)
class ViewCall:
    name: Literal["inspect_analysis_view"] = field("The tool")
    arguments: Open = field("Its arguments: the retained parent and a view")


@attrs.frozen(kw_only=True)
class CaptureCalls:
    records: ViewCall = field("The first page of records (follow coverage.next_offset)")
    api_surface: ViewCall = field("Request lines grouped by method, origin and path template")


@attrs.frozen(kw_only=True)
class CaptureSummary:
    """inspect_web_network_capture: counts, first rows and the redaction index; bounded whatever the capture."""

    format: Literal["har", "mitmproxy"] = field("The capture format")
    decoder: Decoder = field("The parser that read it")
    capture: CaptureArtifact = field("The capture file")
    total_records: int = field("Records in the file", minimum=0)
    records_in_evidence: int = field("Records the parent Evidence holds (record_ordinals may select fewer)", minimum=0)
    format_versions_found: tuple[str, ...] = field("mitmproxy: the flow format versions the dump wrote (0.12, 17)")
    counts: CaptureCounts = field("Counts over the records of the Evidence")
    first_records: tuple[CaptureRow, ...] = field("The first 20 records as request lines")
    redaction_index: RedactionIndex = field("What was withheld, where and by which rule (first 24 entries)")
    continue_with: CaptureCalls = field("Ready calls that page the retained parent")
