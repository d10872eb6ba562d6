"""inspect_plist: which file a request names, and the record of what it holds.

The plist itself is decoded by the effect (plistlib, or json for JSON plists) into a
bounded JSON tree: data as `{"$data": base64}`, dates as `{"$date": ISO-8601}`, keyed-archive
UIDs as `{"$uid": n}`, integers beyond 2^53 as `{"$integer": "decimal"}`. Here: the
bundle-relative path rule (no absolute paths, no `..`, no control characters) and the
record with the bundle's CFBundle* identity.
"""

from __future__ import annotations

from typing import Any, Literal

import attrs
from returns.result import Failure, Result, Success

from rea.errors import ReaError, invalid_request
from rea.layout.plist_records import BundleIdentity, PlistResult
from rea.layout.records import LayoutArtifact

BUNDLE_KEYS = {
    "identifier": "CFBundleIdentifier",
    "executable": "CFBundleExecutable",
    "name": "CFBundleName",
    "version": "CFBundleVersion",
    "short_version": "CFBundleShortVersionString",
}
ACCEPTED_RELATIVE = "a path inside the open bundle directory, e.g. Contents/Info.plist (no leading /, no ..)"


def inside_bundle(relative: str) -> Result[str, ReaError]:
    """A bundle-relative path that stays inside the bundle; else why it cannot be used (it would leave the
    bundle or is not a path)."""
    parts = relative.replace("\\", "/").split("/")
    if relative.startswith(("/", "\\")) or (len(relative) > 1 and relative[1] == ":"):
        reason = "it is absolute"
    elif ".." in parts:
        reason = "it climbs out of the bundle with .."
    elif any(ord(c) < 0x20 or ord(c) == 0x7F for c in relative):
        reason = "it holds control characters"
    else:
        return Success(relative)
    return Failure(
        invalid_request(
            f"relative_path {relative!r} is refused: {reason}.", field="relative_path", accepted=ACCEPTED_RELATIVE
        )
    )


def bundle_of(value: Any) -> BundleIdentity:
    """The CFBundle* identity of a top-level dictionary (null where absent or not a string)."""
    table = value if isinstance(value, dict) else {}
    return BundleIdentity(
        **{field: (v if isinstance(v := table.get(key), str) else None) for field, key in BUNDLE_KEYS.items()}
    )


@attrs.frozen(kw_only=True)
class PlistRead:
    """ReadPlist's answer: the file's identity, its encoding, the bounded JSON tree and what was cut."""

    artifact: LayoutArtifact
    format: Literal["xml", "binary", "json", "unknown"]
    value: Any  # the converted property list: a JSON tree
    limitations: tuple[str, ...]


def plist_result(read: PlistRead, source_path: str) -> PlistResult:
    limitations = list(read.limitations)
    if not isinstance(read.value, dict):
        limitations.append("the top level is not a dictionary: no bundle identity is read")
    return PlistResult(
        format=read.format,
        value=read.value,
        bundle=bundle_of(read.value),
        source_path=source_path,
        provenance=(),  # decoded in process by plistlib: no command runs
        limitations=tuple(limitations),
        artifact=read.artifact,
    )
