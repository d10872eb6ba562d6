"""A viewport screenshot as a self-verifying, content-addressed PNG artifact.

The viewport is read from the PNG's own IHDR (the bytes are the evidence), not from a
separate layout query that could disagree with them.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from returns.result import Failure, Result, Success

from rea.browser_failures import browser_failure
from rea.errors import ReaError
from rea.web.completeness import Ledger, classify
from rea.web.records.screenshot import ScreenshotArtifact, Viewport, WebScreenshot
from rea.web.records.webmcp import PageRef
from rea.web.scope import clean_url, origin_text
from rea.web.targets import browser_version

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
LIMITATIONS = ("Only the visible viewport is captured; the page is not scrolled or resized.",)


def png_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from IHDR, or None when the bytes are not a PNG."""
    if len(data) < 24 or not data.startswith(PNG_SIGNATURE) or data[12:16] != b"IHDR":
        return None
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    return (width, height) if width > 0 and height > 0 else None


def artifact(data: bytes) -> ScreenshotArtifact:
    digest = hashlib.sha256(data).hexdigest()
    return ScreenshotArtifact(
        uri=f"rea://web-screenshot/sha256/{digest}",
        sha256=digest,
        bytes=len(data),
        media_type="image/png",
        data_base64=base64.b64encode(data).decode("ascii"),
    )


def screenshot(
    version: Mapping[str, Any], target: Mapping[str, Any], raw: Mapping[str, Any], origins: Sequence[str]
) -> Result[WebScreenshot, ReaError]:
    data = bytes(raw["png"])
    size = png_size(data)
    if size is None:
        return Failure(
            browser_failure("capture_web_screenshot", "invalid_endpoint_response", "the browser's capture is not a PNG")
        )
    url = str((raw.get("frame") or {}).get("url") or target.get("url", ""))
    return Success(
        WebScreenshot(
            schema_version=1,
            browser=browser_version(version),
            target=PageRef(target_id=str(target["id"]), url=clean_url(url), origin=origin_text(url)),
            captured_at=raw["captured_at"],
            viewport=Viewport(width=size[0], height=size[1]),
            artifact=artifact(data),
            completeness=classify(Ledger()),
            limitations=LIMITATIONS,
        )
    )
