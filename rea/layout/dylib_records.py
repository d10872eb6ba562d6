"""Wire records of trace_dylib_resolution: the REA 6.x dylib resolution shape (domain/apple/dylibResolutionSchema).

Paths in the result are relative to `root_path` (the open bundle directory, or the
directory holding the open Mach-O file), as the reference reports them.
"""

from __future__ import annotations

from typing import Literal

import attrs

from rea.wire.schema import field

SHA256 = "^[a-f0-9]{64}$"
# a normalized path below the root: segments that are neither empty, "." nor "..", no backslash or NUL
# (the reference's rule, spelled without look-around so RE2-style validators accept it)
_SEGMENT = r"(?:[^/\\\x00.][^/\\\x00]*|\.[^/\\\x00.][^/\\\x00]*|\.\.[^/\\\x00]+)"
ROOT_RELATIVE = f"^{_SEGMENT}(?:/{_SEGMENT})*$"
DependencyCommand = Literal[
    "LC_LOAD_DYLIB", "LC_LOAD_WEAK_DYLIB", "LC_REEXPORT_DYLIB", "LC_LAZY_LOAD_DYLIB", "LC_LOAD_UPWARD_DYLIB"
]
FileType = Literal["execute", "dylib", "bundle", "other"]
CandidateSource = Literal["literal", "executable_path", "loader_path", "rpath", "already-loaded"]
CandidateOutcome = Literal[
    "resolved",
    "absent",
    "not-mach-o",
    "malformed",
    "unsupported",
    "architecture-missing",
    "outside-target",
    "shared-cache",
    "escapes-target",
    "undetermined",
]
ResolutionStatus = Literal["resolved", "conditional", "shared-cache", "unresolved", "undetermined"]
FindingKind = Literal[
    "required-load-unresolved",
    "weak-load-unresolved",
    "lazy-load-unresolved",
    "earlier-rpath-candidate-absent",
    "dyld-environment-present",
]


@attrs.frozen(kw_only=True)
class DylibArgs:
    """The reference's input: process roots and one slice of the open Mach-O or bundle directory."""

    roots: tuple[str, ...] | None = field(
        (
            "Process roots (Mach-O files relative to the root); default: the open Mach-O, or every "
            "executable in the bundle"
        ),
        omit_none=True,
        minItems=1,
        items={"type": "string", "minLength": 1, "pattern": ROOT_RELATIVE},
    )
    architecture: Literal["arm64", "arm64e", "x86_64"] | None = field(
        "Trace only this slice of each root (default: every slice)", omit_none=True
    )
    shared_cache: str | None = field(
        "A dyld shared cache for system install paths (refused: not read on this host)",
        omit_none=True,
        minLength=1,
    )
    max_entries: int = field(
        "At most this many directory entries are walked below the root", default=100_000, minimum=1
    )


@attrs.frozen(kw_only=True)
class Platform:
    id: int = field("PLATFORM_* number of LC_BUILD_VERSION or the LC_VERSION_MIN_* command")
    name: str | None = field("loader.h name (macos, ios, ...), null when unknown")


@attrs.frozen(kw_only=True)
class Slice:
    architecture: str = field("The slice (arm64, arm64e, x86_64, x86_64h, i386, ...)", minLength=1)
    file_type: FileType = field("MH_EXECUTE, MH_DYLIB, MH_BUNDLE, or another type")
    install_name: str | None = field("LC_ID_DYLIB name")
    rpaths: tuple[str, ...] = field("LC_RPATH paths, in load-command order")
    dyld_environment: tuple[str, ...] = field("LC_DYLD_ENVIRONMENT strings")
    code_signature_present: bool = field("LC_CODE_SIGNATURE present")
    platforms: tuple[Platform, ...] = field("LC_BUILD_VERSION / LC_VERSION_MIN_* platforms")


@attrs.frozen(kw_only=True)
class Image:
    path: str = field("Relative to root_path")
    sha256: str = field("SHA-256 of the file", pattern=SHA256)
    parse_status: Literal["parsed", "malformed", "unsupported"] = field("Whether its load commands were read")
    reason: str | None = field("Why it was not parsed")
    slices: tuple[Slice, ...] = field("Its slices (empty unless parsed)")


@attrs.frozen(kw_only=True)
class Candidate:
    path: str = field("The path dyld would try (relative to root_path inside it, else as written)")
    source: CandidateSource = field("How the path was formed")
    rpath: str | None = field("The LC_RPATH entry used")
    rpath_owner: str | None = field("The image whose LC_RPATH it is")
    outcome: CandidateOutcome = field("What is at the path")
    resolved_path: str | None = field("The file reached (symlinks resolved inside the root)")


@attrs.frozen(kw_only=True)
class Resolution:
    status: ResolutionStatus = field("resolved, conditional (an undecidable earlier candidate), unresolved, ...")
    image: str | None = field("The image loaded")


@attrs.frozen(kw_only=True)
class Edge:
    root: str = field("The process root")
    architecture: str = field("The process's slice")
    loader: str = field("The image whose load command this is")
    via: tuple[str, ...] = field("Images from the root to the loader (its rpath stack)")
    command: DependencyCommand = field("The load command")
    encoding: Literal["dylib_command", "dylib_use_command"] = field("How the command is encoded")
    install_name: str = field("The name the command loads")
    weak: bool = field("A weak load (missing is not fatal)")
    upward: bool = field("LC_LOAD_UPWARD_DYLIB")
    reexport: bool = field("LC_REEXPORT_DYLIB")
    delayed_init: bool = field("dylib_use_command delayed-init flag")
    current_version: str = field("a.b.c")
    compatibility_version: str = field("a.b.c")
    candidates: tuple[Candidate, ...] = field("Paths tried, in dyld's order, up to the first loadable")
    resolution: Resolution = field("What the load reaches")
    install_name_matches: bool | None = field("The reached image's LC_ID_DYLIB equals install_name")
    loader_conditional: bool = field("The loader itself loads only conditionally")


@attrs.frozen(kw_only=True)
class Finding:
    kind: FindingKind = field("What was derived")
    edge_index: int | None = field("Index into edges", minimum=0)
    image: str | None = field("The image concerned")
    basis: Literal["derived"] = field("Derived from the edges")
    explanation: str = field("Why it matters", minLength=1)


@attrs.frozen(kw_only=True)
class Root:
    image: str = field("A process root")
    architecture: str = field("Its traced slice")


@attrs.frozen(kw_only=True)
class DylibCoverage:
    status: Literal["complete", "partial"] = field("partial: something below was not decided")
    unparsed_images: tuple[str, ...] = field("Mach-O files whose load commands could not be read")
    roots_without_architecture: tuple[str, ...] = field("Roots without the requested slice")
    unverified_shared_cache_images: tuple[str, ...] = field("Cache images not verified (no cache is read)")


@attrs.frozen(kw_only=True)
class DylibResolution:
    root_path: str = field("The analyzed directory")
    target_sha256: str = field("SHA-256 of the open target", pattern=SHA256)
    shared_cache: None = field("The dyld shared cache read (none: not read on this host)")
    roots: tuple[Root, ...] = field("Process roots traced, one per slice")
    images: tuple[Image, ...] = field("Every Mach-O image looked at, by path")
    edges: tuple[Edge, ...] = field("Every load command of every loaded image, unresolved ones kept")
    findings: tuple[Finding, ...] = field("Unresolved loads, shadowable rpath fallbacks, dyld environment")
    coverage: DylibCoverage = field("What was not decided")
    limitations: tuple[str, ...] = field("What the static model does not decide")
