"""compare_web_screenshots: value-only pixel metrics over two decoded PNGs (no OCR, no image written)."""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Mapping
from typing import Any

from rea.web_network.png import Image

LIMITATIONS = (
    "Pixel metrics over RGBA8 samples (16-bit channels compared by their high byte); no OCR, layout or "
    "semantic comparison.",
)


def artifact_bytes(artifact: Mapping[str, Any]) -> bytes | str:
    """The PNG bytes of a self-verifying inline artifact, or why it does not verify."""
    text = artifact["data_base64"]
    try:
        data = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return "data_base64 is not base64"
    if not data or base64.b64encode(data).decode("ascii") != text:
        return "data_base64 is not canonical base64"
    digest = hashlib.sha256(data).hexdigest()
    if len(data) != artifact["bytes"] or digest != artifact["sha256"]:
        return f"its bytes ({len(data)}, sha256 {digest}) do not match bytes and sha256"
    if artifact["uri"] != f"rea://web-screenshot/sha256/{digest}":
        return "its uri does not name its sha256"
    return data


def compare(before: Image, after: Image, threshold: int) -> dict[str, Any]:
    """The reference's diff record for two decoded images."""
    sizes = {
        "before": {"width": before.width, "height": before.height},
        "after": {"width": after.width, "height": after.height},
    }
    base = {"schema_version": 1, **sizes, "channel_threshold": threshold, "limitations": list(LIMITATIONS)}
    if sizes["before"] != sizes["after"]:
        return {
            **base,
            "status": "dimension_mismatch",
            "compared_pixels": 0,
            "changed_pixels": None,
            "changed_ratio": None,
            "maximum_channel_delta": None,
            "mean_absolute_channel_delta": None,
        }
    import numpy as np  # noqa: PLC0415 - a tenth of a second to import: a comparison pays it, not every first call

    a = np.frombuffer(before.rgba, dtype=np.uint8).reshape(-1, 4).astype(np.int16)
    b = np.frombuffer(after.rgba, dtype=np.uint8).reshape(-1, 4).astype(np.int16)
    delta = np.abs(a - b)
    pixels = int(a.shape[0])
    changed = int(np.count_nonzero((delta > threshold).any(axis=1)))
    return {
        **base,
        "status": "different" if changed else "identical",
        "compared_pixels": pixels,
        "changed_pixels": changed,
        "changed_ratio": changed / pixels,
        "maximum_channel_delta": int(delta.max()),
        "mean_absolute_channel_delta": float(delta.sum(dtype=np.int64)) / (pixels * 4),
    }
