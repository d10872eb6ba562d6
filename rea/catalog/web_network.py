"""Contracts of the web family's offline tools: inspect_web_network_capture and compare_web_screenshots.

The live-browser tools (CDP) are a separate module; these read files only and
never contact a recorded URL.
"""

from __future__ import annotations

import attrs

from rea.catalog.schemas import evidence_output
from rea.wire.schema import Role, schema_of
from rea.wire.views import SummaryResult
from rea.wire.tool import evidence_tool
from rea.wire.web_network import CaptureArgs, NetworkCapture, ScreenshotArgs, ScreenshotDiff

_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8/5+hHgAHggJ/PzWvWQAAAABJRU5ErkJggg=="
_PNG_SHA = "153cf6c9a526a63053a37b10234c2fd85df38887c2dc0a800d90abfa6631d01c"
_ARTIFACT = {
    "uri": f"rea://web-screenshot/sha256/{_PNG_SHA}",
    "sha256": _PNG_SHA,
    "bytes": 70,
    "media_type": "image/png",
    "data_base64": _PNG,
}

INSPECT_WEB_NETWORK_CAPTURE = evidence_tool(
    "inspect_web_network_capture",
    "Inspect Web Network Capture",
    (
        "Inspect a retained local HAR 1.2 file or native mitmproxy flow dump without contacting recorded URLs. "
        "Returns each record's original ordinal and location (HAR: JSON pointer; mitmproxy: byte range), the "
        "producer's fields, every number's exact text, and bodies and other bytes exactly (base64, sha256) by "
        "pointer. Transport credentials (Authorization, Cookie, Set-Cookie, API-key headers, HAR cookies), "
        "credentials inside URLs wherever a URL appears (key, api_key, token, access_token, auth, sig, signature, "
        "password and similar query or fragment parameters, userinfo passwords, values shaped like Google, AWS, "
        "GitHub, Slack or Stripe keys or JWTs: replaced by REDACTED in place) and every sensitive_values literal "
        "are excluded and listed as redactions with their rule; redaction_index lists them capture-wide (which "
        "records, where, which rule; never the values); declared values are never persisted in Evidence "
        "parameters. Every record is decoded before record_ordinals selects; a malformed record, a base64 body "
        "that does not decode or a capture past 32 MiB returns no partial success. mitmproxy dumps are read by "
        "Debian's mitmproxy flow reader (an owned child process) exactly as mitmdump reads them, old formats "
        "(0.11 on) migrated; the versions found are listed, and a version mitmproxy refuses is refused with its "
        "reason. detail: summary (recommended for large captures) retains the Evidence and returns its summary "
        'view; page records with inspect_analysis_view {"kind": "page", "collection": "records", offset, limit} '
        'and group request lines with {"kind": "api-surface"}.'
    ),
    args=CaptureArgs,
    result=NetworkCapture,
    examples=[
        {"capture_path": "/captures/session.har", "format": "har", "record_ordinals": [0, 2]},
        {"capture_path": "/captures/session.flows", "format": "mitmproxy", "sensitive_values": ["s3cr3t"]},
        {"capture_path": "/captures/large.har", "format": "har", "detail": "summary"},
    ],
    surface="browser-provider",
    effects={"mutatesSession", "idempotent", "launchesProcess"},
)
INSPECT_WEB_NETWORK_CAPTURE = attrs.evolve(
    INSPECT_WEB_NETWORK_CAPTURE,
    # detail summary answers the summary view only, so only that member of the view union is advertised
    output_schema=evidence_output({"anyOf": [schema_of(NetworkCapture), schema_of(SummaryResult, Role.OUTPUT)]}),
)

COMPARE_WEB_SCREENSHOTS = evidence_tool(
    "compare_web_screenshots",
    "Compare Web Screenshots",
    (
        "Compare two PNG screenshots pixel by pixel in REA's own code (zlib decoding, no image written, no OCR). "
        "before and after are capture_web_screenshot artifacts {uri, sha256, bytes, media_type, data_base64} "
        "(verified against their digest) or, our extra, {path} of a local PNG. Returns status identical | "
        "different | dimension_mismatch, compared and changed pixels, changed ratio, maximum and mean absolute "
        "RGBA channel delta; a channel differs when its delta exceeds channel_threshold. Images past "
        "maximum_pixels, truncated PNGs, bad CRCs and lying chunk lengths are refused."
    ),
    args=ScreenshotArgs,
    result=ScreenshotDiff,
    examples=[{"before": _ARTIFACT, "after": _ARTIFACT, "channel_threshold": 0, "maximum_pixels": 16_000_000}],
    surface="browser-provider",
    effects={"mutatesSession", "idempotent"},
)

CLI_COMMANDS = ("inspect-web-network-capture", "compare-web-screenshots")
TOOLS = (INSPECT_WEB_NETWORK_CAPTURE, COMPARE_WEB_SCREENSHOTS)
