"""The one effect of the Android family: ask the owned androguard worker about an APK."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import attrs

Operation = Literal["package", "classes", "class", "method", "references", "bridges"]


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


ClientTool = Literal["adb", "apktool"]


@attrs.frozen(kw_only=True)
class ProbeClient:
    """Resolve a client (its REA_*_PATH/COMMAND variable, else PATH) and run its version command.

    Answers `{"command": absolute path, "source": "environment" | "path", "output": version text}`,
    or capability_unavailable naming how to install or select it. Never contacts a device."""

    tool: ClientTool
    deadline_ms: int = 30_000


@attrs.frozen(kw_only=True)
class DecodeResources:
    """`apktool d --no-src` of the APK into an owned workspace (removed after reading it).

    Answers the decoded manifest text (up to `max_manifest_bytes`), apktool.yml as data, the
    string rows of `res/values[-locale]/strings.xml`, the string locales and the file count."""

    command: str
    path: str
    locale: str | None
    include_strings: bool
    max_manifest_bytes: int
    deadline_ms: int
