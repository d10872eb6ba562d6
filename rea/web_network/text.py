"""The compare-web-screenshots command's pieces (rea.catalog.cli): its PNG positionals and its text output."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def png_file(path: str) -> dict[str, str]:
    """A screenshot argument naming a local PNG (the word typed, already made absolute)."""
    return {"path": path}


def screenshots(value: Mapping[str, Any]) -> str:
    r = value["normalized_result"]
    size = f"{r['before']['width']}x{r['before']['height']} vs {r['after']['width']}x{r['after']['height']}"
    return (
        f"{value['operation']} {value['evidence_id']}\n  {r['status']} {size}: {r['changed_pixels']} of "
        f"{r['compared_pixels']} pixels changed (max channel delta {r['maximum_channel_delta']})"
    )
