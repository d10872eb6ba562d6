"""The apktool and adb clients as the reference reports them, and the resource decode result: pure.

The effect layer resolves the client and runs it; this module reads its version text and
bounds what a decode returns (strings, manifest), saying so in `coverage`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from rea.android.records import (
    AdbClient,
    ApktoolClient,
    DecodeMetadata,
    DecodeResult,
    DecodeTarget,
    StringEntry,
)

_ADB_PROTOCOL = re.compile(r"^Android Debug Bridge version (\S+)", re.M)
_ADB_VERSION = re.compile(r"^Version (\S+)", re.M)
_ADB_INSTALLED = re.compile(r"^Installed as (.+)$", re.M)


def adb_client(probe: Mapping[str, Any]) -> AdbClient:
    text = probe["output"]

    def first(pattern: re.Pattern[str]) -> str | None:
        found = pattern.search(text)
        return found.group(1).strip() if found else None

    return AdbClient(
        binary_path=probe["command"],
        path_source=probe["source"],
        version=first(_ADB_VERSION),
        installed_path=first(_ADB_INSTALLED),
        protocol_version=first(_ADB_PROTOCOL),
    )


def apktool_client(probe: Mapping[str, Any]) -> ApktoolClient:
    lines = [line.strip() for line in probe["output"].splitlines() if line.strip()]
    return ApktoolClient(
        command=probe["command"], command_source=probe["source"], apktool_version=lines[-1] if lines else None
    )


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def decode_result(
    client: ApktoolClient,
    target: DecodeTarget,
    facts: Mapping[str, Any],
    *,
    locale: str | None,
    max_strings: int,
) -> tuple[DecodeResult, list[str]]:
    yml = facts.get("apktool_yml") or {}
    version = yml.get("versionInfo") or {}
    sdk = yml.get("sdkInfo") or {}
    rows = facts["strings"]
    kept = rows[:max_strings]
    limitations = []
    if len(rows) > max_strings:
        limitations.append(f"strings cut at {max_strings} of {len(rows)} entries")
    if facts["manifest_truncated"]:
        limitations.append(f"manifest cut at {len(facts['manifest'] or '')} characters")
    if locale is not None and not facts["strings_found"]:
        limitations.append(f"no res/values-{locale}/strings.xml: no strings for that locale")
    result = DecodeResult(
        client=client,
        target=target,
        metadata=DecodeMetadata(
            version_name=_text(version.get("versionName")),
            version_code=_text(version.get("versionCode")),
            min_sdk_version=_text(sdk.get("minSdkVersion")),
            target_sdk_version=_text(sdk.get("targetSdkVersion")),
            package_name=facts.get("package_name"),
        ),
        manifest=facts["manifest"],
        strings=tuple(StringEntry(name=n, value=v) for n, v in kept),
        locale=locale,
        locales=tuple(facts["locales"]),
        decoded_file_count=facts["decoded_file_count"],
        coverage="partial" if len(rows) > max_strings or facts["manifest_truncated"] else "complete",
        total_strings=len(rows),
        apktool_yml_version=_text(yml.get("version")),
    )
    return result, limitations
