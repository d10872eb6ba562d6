"""Facts the artifact readers report, the effects that ask for them, limits and path rules.

Readers live in `effects/artifacts/`, their decisions in `rea.artifacts.traversal`; everything here is a plain
value.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from rea.managed.cli_header import cli_header_present
from rea.native.dos import is_dos_mz

INTEGRITY_POLICIES = ("fail", "record-and-continue")
ENTRY_KINDS = ("file", "directory", "symlink", "slice")
HASH_STATUSES = ("verified", "mismatched", "not-hashed-limit", "unavailable")
# ZIP-based packages, named by their extension (a CRX is named by its "Cr24" header)
ZIP_FORMATS = ("zip", "jar", "apk", "aab", "aar", "ipa", "whl", "msix", "appx", "crx")
CONTAINER_FORMATS = frozenset({*ZIP_FORMATS, "asar", "tar", "ar", "directory"})
ROOT_ONLY_FORMATS = frozenset({"dmg", "pkg"})
# inventory coverage and sections, and comparison outcomes (the catalog's enums)
COVERAGE_SCOPES = ("root", "container-entries")
COVERAGE_STATUSES = ("complete", "unknown")
LEGACY_STATUSES = ("complete", "partial")
SECTIONS = ("nodes", "occurrences", "edges", "integrity_contradictions")
CLASSIFICATIONS = ("added", "removed", "changed", "unknown", "contradiction")
DIMENSIONS = ("content", "kind", "format", "size", "executable", "relations", "metadata", "availability", "integrity")
STATUSES = ("unchanged", "added", "removed", "changed", "truncated", "unknown", "contradiction")

LIMIT_BOUNDS: Mapping[str, tuple[int, int, int | float]] = {
    # name: (minimum, maximum, default)
    "max_entries": (1, 1_000_000, 10_000),
    "max_total_bytes": (1, 2**53 - 1, 1 << 30),
    "max_entry_bytes": (1, 2**53 - 1, 256 << 20),
    "max_compression_ratio": (1, 100_000, 1000),
    "max_depth": (0, 100, 20),
    "max_path_bytes": (1, 65_535, 4096),
}


@attrs.frozen(kw_only=True)
class Limits:
    max_entries: int = 10_000
    max_total_bytes: int = 1 << 30
    max_entry_bytes: int = 256 << 20
    max_compression_ratio: float = 1000
    max_depth: int = 20
    max_path_bytes: int = 4096

    def to_json(self) -> dict[str, Any]:
        return attrs.asdict(self)


def limits_from(args: Mapping[str, Any]) -> Limits:
    return Limits(**{k: args[k] for k in LIMIT_BOUNDS if k in args})


@attrs.frozen(kw_only=True)
class EntryFact:
    """One member observed by a reader. `parent` indexes the containing entry (None: the root)."""

    index: int
    parent: int | None
    logical_path: str
    entry_kind: str
    format: str = "file"
    managed_role: str | None = None  # managed_role() of its first bytes
    declared_size: int | None = None
    compressed_size: int | None = None
    size: int | None = None
    sha256: str | None = None
    hash_status: str = "unavailable"
    executable: bool = False
    encrypted: bool = False
    source_offset: int | None = None
    source_length: int | None = None
    unpacked: bool = False
    declared_sha256: str | None = None
    integrity_detail: str | None = None  # how declared integrity blocks contradict the bytes read
    link_target: str | None = None
    expanded: bool = False
    limitations: tuple[str, ...] = ()


@attrs.frozen(kw_only=True)
class LimitHit:
    limit: str
    value: int | float
    logical_path: str | None
    message: str


@attrs.frozen(kw_only=True)
class Omission:
    """An entry deliberately not opened or not recorded (special files, unsafe names)."""

    logical_path: str
    entry_type: str
    reason: str


@attrs.frozen(kw_only=True)
class InventoryFacts:
    root_name: str
    root_sha256: str
    root_size: int
    root_format: str
    entries: tuple[EntryFact, ...]
    limit_hits: tuple[LimitHit, ...] = ()
    omissions: tuple[Omission, ...] = ()
    limitations: tuple[str, ...] = ()
    root_managed_role: str | None = None


@attrs.frozen(kw_only=True)
class ExtractedFile:
    chain: tuple[str, ...]
    relative_path: str
    sha256: str
    bytes_written: int


@attrs.frozen(kw_only=True)
class ExtractionFacts:
    output_root: str
    files: tuple[ExtractedFile, ...]
    containment_verified: bool
    refused: tuple[Omission, ...] = ()


@attrs.frozen(kw_only=True)
class InventoryArtifact:
    """Walk a file or directory and report every member as EntryFacts (streaming, bounded)."""

    path: str
    limits: Limits
    integrity_policy: str = "fail"
    # the digest open_binary took; the reader re-hashes the root only when the size no longer matches
    known_sha256: str | None = None
    known_size: int | None = None


@attrs.frozen(kw_only=True)
class ExtractArtifact:
    """Materialize members named by their container chains into a fresh REA-chosen temp directory. Only the
    selected members and the containers on their chains are read; the rest are listed, not read."""

    path: str
    chains: tuple[tuple[str, ...], ...]
    limits: Limits
    integrity_policy: str = "fail"
    known_sha256: str | None = None
    known_size: int | None = None


ArtifactEffect = InventoryArtifact | ExtractArtifact


# ------------------------------------------------------------------ paths


def normalize_member_name(name: str, max_path_bytes: int) -> tuple[str | None, str | None]:
    """A member name as a normalized relative POSIX path, or (None, why it is refused)."""
    if "\x00" in name:
        return None, "contains a NUL byte"
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return None, "is not valid UTF-8"
    if "\\" in name:
        return None, "contains a backslash"
    if name.startswith("/"):
        return None, "is absolute"
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if not parts:
        return None, "is empty"
    if any(p == ".." for p in parts):
        return None, "contains a .. segment"
    path = "/".join(parts)
    if len(path.encode("utf-8", "surrogateescape")) > max_path_bytes:
        return None, f"is longer than max_path_bytes ({max_path_bytes})"
    return path, None


# Mach-O CPU types a fat slice names (the low 24 bits; 0x01000000 marks the 64-bit ABI)
FAT_CPU_TYPES = frozenset({1, 6, 7, 10, 11, 12, 13, 14, 15, 16, 18})
# Java's first class-file major version (JDK 1.1); a fat header's slice count is far below it
JAVA_FIRST_MAJOR = 45


def is_fat_macho(head: bytes) -> bool:
    """`cafebabe` opens both a fat Mach-O (then nfat_arch, big-endian) and a Java class file (then
    minor and major version). As file(1) does, a second word below 45 with a known CPU type in the
    first slice is a fat header; anything else (major version 45 and up) is a class file."""
    if len(head) < 12:
        return False
    count = int.from_bytes(head[4:8], "big")
    cpu = int.from_bytes(head[8:12], "big")
    return 0 < count < JAVA_FIRST_MAJOR and (cpu & 0xFFFFFF) in FAT_CPU_TYPES and cpu >> 24 in (0, 1, 2)


def format_for_name(name: str, head: bytes) -> str:
    """The storage format of a member, by magic bytes and then by its name."""
    lowered = name.lower()
    if head.startswith(b"Cr24"):
        return "crx"
    if head.startswith(b"PK\x03\x04") or head.startswith(b"PK\x05\x06"):
        ext = lowered.rsplit(".", 1)[-1]
        return ext if ext in ZIP_FORMATS else "zip"
    if head.startswith(b"!<arch>\n"):
        return "ar"
    if head.startswith((b"\x1f\x8b", b"BZh", b"\xfd7zXZ\x00", b"\x28\xb5\x2f\xfd")) and (
        ".tar" in lowered or lowered.endswith((".tgz", ".tbz2", ".txz", ".tzst"))
    ):
        return "tar"
    if len(head) > 262 and head[257:262] == b"ustar":
        return "tar"
    if lowered.endswith(".asar") and len(head) >= 16 and head[:4] == b"\x04\x00\x00\x00":
        return "asar"
    if head.startswith(b"xar!") or lowered.endswith(".pkg"):
        return "pkg"
    if lowered.endswith(".dmg"):
        return "dmg"
    if head.startswith(b"\x7fELF"):
        return "elf"
    if head.startswith(b"MZ"):
        return "dos-mz" if is_dos_mz(head) else "pe"
    if head[:4] in (b"\xfe\xed\xfa\xce", b"\xfe\xed\xfa\xcf", b"\xce\xfa\xed\xfe", b"\xcf\xfa\xed\xfe"):
        return "mach-o"
    if head[:4] in (b"\xca\xfe\xba\xbe", b"\xca\xfe\xba\xbf"):
        return "mach-o-universal" if is_fat_macho(head) else "file"
    if head.startswith(b"\x00asm"):
        return "wasm"
    if head.startswith(b"bplist"):
        return "plist"
    if lowered.endswith((".js", ".mjs", ".cjs")):
        return "javascript"
    if lowered.endswith(".map"):
        return "source-map"
    if lowered.endswith(".plist"):
        return "plist"
    return "file"


def managed_role(head: bytes) -> str | None:
    """The .NET role the first bytes show: `assembly` (a PE whose CLI header directory is set) or
    `portable-pdb` (a file that starts with the metadata root signature BSJB; Windows PDBs are MSF files)."""
    if cli_header_present(head):
        return "assembly"
    if head.startswith(b"BSJB"):
        return "portable-pdb"
    return None


def kind_for(fmt: str, name: str, executable: bool) -> str:
    lowered = name.lower()
    if fmt in CONTAINER_FORMATS or fmt in ROOT_ONLY_FORMATS:
        return "container"
    if fmt == "javascript":
        return "javascript"
    if fmt == "source-map":
        return "source-map"
    if fmt == "plist":
        return "plist"
    if lowered.endswith(".node"):
        return "native-addon"
    if lowered.endswith((".so", ".dylib", ".dll")) or ".so." in lowered:
        return "dynamic-library"
    if fmt in ("elf", "pe", "mach-o", "mach-o-universal", "dos-mz") or executable:
        return "executable"
    if lowered.endswith(("metadata", "manifest.mf", "package.json", "pkg-info", "record", "androidmanifest.xml")):
        return "package-metadata"
    return "resource"
