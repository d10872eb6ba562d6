"""The layout effect: what the program asks the reader for."""

from __future__ import annotations

import attrs


@attrs.frozen(kw_only=True)
class ReadBinaryLayout:
    """Read the layout facts of one file (a universal Mach-O: the named slice), keeping at most the caps."""

    path: str
    architecture: str | None
    max_symbols: int
    max_relocations: int


@attrs.frozen(kw_only=True)
class ReadArchitectures:
    """The slices of a Mach-O file (thin: its one image), with the universal header checked."""

    path: str


@attrs.frozen(kw_only=True)
class ReadMacho:
    """inspect_macho facts of one Mach-O image (a universal file: the named slice).

    known_sha256/known_stamp: the open target's digest and the stamp it was taken under; an unchanged stamp
    means unchanged bytes, so the reader need not hash the file again."""

    path: str
    architecture: str | None
    max_symbols: int
    known_sha256: str | None = None
    known_stamp: str | None = None


@attrs.frozen(kw_only=True)
class DemangleSwift:
    """Run swift-demangle on the symbols (one per line on stdin), when a Swift toolchain provides it."""

    symbols: tuple[str, ...]


@attrs.frozen(kw_only=True)
class ReadSignature:
    """The embedded code signature of one Mach-O image (a universal file: the named slice)."""

    path: str
    architecture: str | None


@attrs.frozen(kw_only=True)
class ReadRecordedCrash:
    """The recorded facts of one Linux x86-64 ELF core; with gdb's core-only view when asked."""

    path: str
    include_debugger_context: bool


@attrs.frozen(kw_only=True)
class ReadPlist:
    """One property list file (XML, binary or JSON), converted to a bounded JSON tree."""

    path: str
    max_nodes: int
    max_depth: int


@attrs.frozen(kw_only=True)
class ReadDylibTree:
    """Every entry below a directory (lstat, links not followed) and the dyld load facts of its Mach-O files."""

    root: str
    max_entries: int
