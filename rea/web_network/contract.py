"""Contracts of the web family's offline tools: inspect_web_network_capture and compare_web_screenshots.

The live-browser tools (CDP) are a separate module; these read files only and
never contact a recorded URL.
"""

from __future__ import annotations

import attrs

from rea.catalog.cli import Command, Positional
from rea.catalog.schemas import evidence_output
from rea.views.records.results import SummaryResult
from rea.web_network import text
from rea.web_network.records import CaptureArgs, NetworkCapture, ScreenshotArgs, ScreenshotDiff
from rea.wire.schema import Role, schema_of
from rea.wire.tool import evidence_tool

# the advertised example names two local PNGs: an artifact example would carry a whole screenshot, twice, into
# every model's context (a capture_web_screenshot artifact is passed back as it came, as the description says)
_EXAMPLE = {"before": {"path": "/tmp/before.png"}, "after": {"path": "/tmp/after.png"}, "channel_threshold": 0}

INSPECT_WEB_NETWORK_CAPTURE = evidence_tool(
    "inspect_web_network_capture",
    "Inspect Web Network Capture",
    (
        "Read a local HAR 1.2 file or mitmproxy flow dump without contacting recorded URLs: each record's "
        "ordinal, location (JSON pointer or byte range), fields, exact numbers and bodies by pointer "
        "(base64, sha256). Credentials (headers, cookies, URL secrets, API-key and JWT shapes) and "
        "sensitive_values are replaced by REDACTED and indexed by rule in redaction_index, never the "
        "values. A malformed record or a capture past 32 MiB fails whole. For large captures pass detail: "
        "summary (counts, first rows), then page records with inspect_analysis_view {kind: page, "
        "collection: records} or group request lines with {kind: api-surface}."
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
        "Compare two PNG screenshots pixel by pixel (no image written, no OCR). before and after are "
        "capture_web_screenshot artifacts {uri, sha256, bytes, media_type, data_base64}, verified against "
        "their digest, or {path} of a local PNG. Returns identical, different or dimension_mismatch with "
        "compared and changed pixels, changed ratio and maximum and mean RGBA channel delta (a channel "
        "differs past channel_threshold). Oversized, truncated or corrupt PNGs are refused."
    ),
    args=ScreenshotArgs,
    result=ScreenshotDiff,
    examples=[_EXAMPLE],
    surface="browser-provider",
    effects={"mutatesSession", "idempotent"},
    cli=Command(
        name="compare-web-screenshots",
        help="pixel metrics of two PNG screenshots",
        positionals=(
            Positional(argument="before", help="earlier PNG", path=True, value=text.png_file),
            Positional(argument="after", help="later PNG", path=True, value=text.png_file),
        ),
        render=text.screenshots,
    ),
)

# --api-surface adds a second call on the first one's Evidence, so it is written by hand (effects.web_network.cli)
CLI_COMMANDS = ("inspect-web-network-capture",)
TOOLS = (INSPECT_WEB_NETWORK_CAPTURE, COMPARE_WEB_SCREENSHOTS)
