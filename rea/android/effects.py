"""The one effect of the Android family: ask the owned androguard worker about an APK."""

from __future__ import annotations

from typing import Any, Literal
from collections.abc import Mapping

import attrs

Operation = Literal["package", "classes", "class", "method", "references"]


@attrs.frozen(kw_only=True)
class AndroidQuery:
    """Facts about the APK at `path` (identified by `sha256`, the cache key) from the worker.

    Answers `{"engine": {...}, "facts": {...}}`; the worker's limits and deadline travel in
    `limits` (max_apk_bytes, max_member_bytes, max_compression_ratio, deadline_ms)."""

    path: str
    sha256: str
    operation: Operation
    params: Mapping[str, Any] = attrs.field(factory=dict)
    limits: Mapping[str, Any] = attrs.field(factory=dict)
