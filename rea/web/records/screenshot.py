"""Wire records of capture_web_screenshot: one PNG of a page's viewport, content-addressed."""

from __future__ import annotations

from typing import Literal

import attrs

from rea.web.records.browser import SHA256, BrowserVersion, Completeness, endpoint_field, origins_field, target_field
from rea.web.records.webmcp import PageRef
from rea.wire.schema import field

# ------------------------------------------------------ capture_web_screenshot

MAX_SCREENSHOT_BYTES = 8 << 20


@attrs.frozen(kw_only=True)
class CaptureWebScreenshotArgs:
    cdp_endpoint: str = endpoint_field()
    allowed_origins: tuple[str, ...] = origins_field()
    target_id: str = target_field()
    approved: bool = field("Ignored (kept for older clients)", default=True)
    screenshot_approved: bool = field("Ignored (kept for older clients)", default=True)
    maximum_image_bytes: int = field("Largest PNG retained", default=4 << 20, minimum=1, maximum=MAX_SCREENSHOT_BYTES)


@attrs.frozen(kw_only=True)
class ScreenshotArtifact:
    uri: str = field("rea://web-screenshot/sha256/<sha256>", pattern="^rea://web-screenshot/sha256/[a-f0-9]{64}$")
    sha256: str = field("SHA-256 of the PNG bytes", pattern=SHA256)
    bytes: int = field("", minimum=1, maximum=MAX_SCREENSHOT_BYTES)
    media_type: Literal["image/png"] = field("")
    data_base64: str = field("The PNG, canonical base64")


@attrs.frozen(kw_only=True)
class Viewport:
    width: int = field("", minimum=1)
    height: int = field("", minimum=1)


@attrs.frozen(kw_only=True)
class WebScreenshot:
    schema_version: Literal[1] = field("")
    browser: BrowserVersion = field("")
    target: PageRef = field("")
    captured_at: str = field("")
    viewport: Viewport = field("From the PNG's own IHDR")
    artifact: ScreenshotArtifact = field("")
    completeness: Completeness = field("")
    limitations: tuple[str, ...] = field("")
