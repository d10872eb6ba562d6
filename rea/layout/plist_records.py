"""Wire records of inspect_plist: the reference's 3.1 result, with the file's identity as an extra."""

from __future__ import annotations

from typing import Literal

import attrs

from rea.layout.records import LayoutArtifact
from rea.wire.schema import Open, field, local_path


@attrs.frozen(kw_only=True)
class PlistArgs:
    relative_path: str = field(
        "The plist inside the open bundle directory",
        default="Contents/Info.plist",
        minLength=1,
        maxLength=1024,
    )
    path: str | None = local_path(
        "A plist file; replaces relative_path, needs no open target",
        default=None,
        omit_none=True,
    )
    max_nodes: int = field("At most this many values are converted", default=100_000, minimum=1)
    max_depth: int = field("Deeper values are replaced by null", default=64, minimum=1, maximum=256)


@attrs.frozen(kw_only=True)
class BundleIdentity:
    identifier: str | None = field("CFBundleIdentifier")
    executable: str | None = field("CFBundleExecutable")
    name: str | None = field("CFBundleName")
    version: str | None = field("CFBundleVersion")
    short_version: str | None = field("CFBundleShortVersionString")


@attrs.frozen(kw_only=True)
class PlistResult:
    format: Literal["xml", "binary", "json", "unknown"] = field("How the file is encoded")
    value: Open = field(
        'The plist as JSON: data {"$data": base64}, dates {"$date": ISO-8601}, UIDs {"$uid": n}, '
        'integers beyond 2^53 {"$integer": "decimal"}; values past the limits are null'
    )
    bundle: BundleIdentity = field("The CFBundle* identity of a top-level dictionary")
    source_path: str = field("The file read")
    provenance: tuple[Open, ...] = field("Commands run (none: plistlib decodes in process)")
    limitations: tuple[str, ...] = field("What was not converted, and why")
    artifact: LayoutArtifact = field("Our extra: the file's path, SHA-256 and size")
