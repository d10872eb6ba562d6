"""Where each native procedure came from: the program's own code, a library, or the runtime.

A gcc -static binary holds a few of the program's functions among a thousand of glibc's; an agent
wants the program's first. The file often says it outright, and where it does not, the installed
static libraries do (the worker reads both; see effects.native.origin_facts). The classifier is a
pure function of one procedure (address, name, size, kind) and the loader facts, so whatever
produces the procedure list (angr's CFG, the metadata preview, a fast linear index) calls it the
same way, in one place: `annotate`.

Rules, first that speaks wins:

1. imports (and thunks to them) are library code; an engine placeholder is `unknown`; other code in
   the sections the linker and crt objects own (`.init`, `.fini`, `.plt`'s resolver entry) is the runtime's;
2. Go: the pclntab name's package (`main.` and the build info's module are the program,
   `runtime.`, `internal/`, compiler-generated `type..`/`go.` and package-less assembly the runtime,
   every other package a library);
3. Rust: the mangled path's crate (std, core, alloc and their support crates are library);
4. DWARF: the compile unit covering the address (a unit under a system or toolchain path is a
   library's, others the program's);
5. the symbol table's FILE entry before a local function (`*.o`: an archive member, a library;
   crt objects and `crtstuff.c`: runtime; a source file: the program);
6. the function's bytes equal an installed static library's (relocated fields masked), or, below the
   size bytes can decide, its symbol name is one such a library defines;
7. a known C runtime name (`_start`, `_init`, `frame_dummy`, ...);
8. otherwise: the program's, when the binary's library code could be identified at all (a dynamic
   link, or static libraries, DWARF or FILE entries to compare with), else `unknown`. A short
   run of unnamed unmatched functions between two library functions (or a library function and the end)
   is a library's, a run of short ones (padding, stubs) between runtime functions the runtime's: link
   order keeps the program's objects together, ahead of the archives' members.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

import attrs

from rea.native.addresses import value

OriginKind = Literal["program", "library", "runtime", "unknown"]
ORIGIN_KINDS: tuple[OriginKind, ...] = ("program", "library", "runtime", "unknown")
SYNTHETIC_PREFIXES = ("sub_", "fcn.", "FUN_")
# functions shorter than this are not matched by bytes (a `ret` is in every library); the worker says so
MIN_MATCHED_SIZE = 16

RUNTIME_NAMES = frozenset(
    {
        "_start",
        "_init",
        "_fini",
        "frame_dummy",
        "register_tm_clones",
        "deregister_tm_clones",
        "__do_global_dtors_aux",
        "__do_global_ctors_aux",
        "__libc_csu_init",
        "__libc_csu_fini",
        "_dl_relocate_static_pie",
    }
)
RUNTIME_FILES = frozenset(
    {"crt1.o", "Scrt1.o", "rcrt1.o", "gcrt1.o", "crti.o", "crtn.o", "crtstuff.c", "start.S", "crti.S", "crtn.S"}
)
RUST_LIBRARY_CRATES = frozenset(
    {
        "std",
        "core",
        "alloc",
        "proc_macro",
        "test",
        "panic_unwind",
        "panic_abort",
        "compiler_builtins",
        "std_detect",
        "hashbrown",
        "gimli",
        "addr2line",
        "object",
        "miniz_oxide",
        "adler",
        "adler2",
        "rustc_demangle",
        "memchr",
        "unwind",
        "libc",
        "cfg_if",
        "rustc_std_workspace_core",
        "rustc_std_workspace_alloc",
        "__rustc",
    }
)
# code the linker and the C runtime objects put in sections of their own
RUNTIME_SECTIONS = frozenset({".init", ".fini", ".plt", ".plt.got", ".plt.sec", ".iplt", "__stubs", "__stub_helper"})
# a compile unit named or built under one of these is a library's or the toolchain's
LIBRARY_PATHS = ("/usr/include/", "/usr/src/", "sysdeps/", "/build/glibc", "libgcc", "/rustc/", "/.cargo/registry/")

_RUST_LEGACY = re.compile(r"^_?_ZN(.*)17h[0-9a-f]{16}E")
_RUST_V0_START = re.compile(r"^_?_R\d*")
_RUST_V0_ROOT = re.compile(r"(?:s[0-9A-Za-z]*_)?(\d+)")
_RUST_DEMANGLED = re.compile(r"^<?([A-Za-z_][A-Za-z0-9_]*)::")


@attrs.frozen(kw_only=True)
class Origin:
    """Who wrote a procedure's code, what said so, and the unit it names (file, package, crate, member)."""

    kind: OriginKind
    source: str
    unit: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "source": self.source, "unit": self.unit}


UNKNOWN = Origin(kind="unknown", source="no-facts")


@attrs.frozen(kw_only=True)
class Unit:
    start: int
    end: int
    name: str | None
    library: bool


@attrs.frozen(kw_only=True)
class Facts:
    """The loader facts indexed for classification: built once per snapshot by `facts`."""

    linkage: str | None = None
    files: Mapping[int, str] = attrs.field(factory=dict)
    units: tuple[Unit, ...] = ()
    matches: Mapping[int, Origin] = attrs.field(factory=dict)
    imports: frozenset[str] = frozenset()
    stubs: tuple[tuple[int, int, str], ...] = ()  # RUNTIME_SECTIONS: (start, end, name)
    go: frozenset[str] = frozenset()  # the pclntab's function names
    go_module: str | None = None
    comparable: bool = False  # some fact could tell library code from the program's

    @property
    def unit_starts(self) -> list[int]:
        return [u.start for u in self.units]


# ------------------------------------------------------------------------------- the facts


def _library_unit(unit: Mapping[str, Any]) -> bool:
    where = f"{unit.get('directory') or ''}/{unit.get('name') or ''}"
    return any(marker in where for marker in LIBRARY_PATHS)


def _units(rows: Iterable[Mapping[str, Any]]) -> tuple[Unit, ...]:
    found = []
    for row in rows:
        for lo, hi in row.get("ranges", ()):
            start, end = value(lo), value(hi)
            if end > start:
                found.append(Unit(start=start, end=end, name=row.get("name"), library=_library_unit(row)))
    return tuple(sorted(found, key=lambda u: (u.start, u.end)))


def _matches(library: Mapping[str, Any] | None) -> dict[int, Origin]:
    found: dict[int, Origin] = {}
    for row in (library or {}).get("matches", ()):
        member = f"({row['member']})" if row.get("member") else ""
        kind: OriginKind = "runtime" if row.get("kind") == "runtime" else "library"
        source = "library-name" if row.get("by") == "name" else "library-match"
        found.setdefault(value(row["address"]), Origin(kind=kind, source=source, unit=f"{row['library']}{member}"))
    return found


def facts(loader: Mapping[str, Any]) -> Facts:
    """Index the loader's origin facts (absent keys are simply no facts: another engine's loader)."""
    raw = loader.get("origin_facts") or {}
    files = {value(a): row["file"] for row in raw.get("file_symbols", ()) for a in row.get("functions", ())}
    library = raw.get("library_matches") or {}
    units = _units(raw.get("compile_units", ()))
    go = loader.get("go") or {}
    build = go.get("build_info") or {}
    imports = frozenset(s["name"] for s in loader.get("symbols", ()) if s.get("source") == "external")
    stubs = tuple(
        (value(s["start"]), value(s["start"]) + int(s["size"]), s["name"])
        for s in loader.get("sections", ())
        if s.get("name") in RUNTIME_SECTIONS and ":" not in s["start"]
    )
    return Facts(
        linkage=raw.get("linkage"),
        stubs=stubs,
        files=files,
        units=units,
        matches=_matches(library),
        imports=imports,
        go=frozenset(f["name"] for f in go.get("functions", ()) if f.get("name")),
        go_module=build.get("module_path"),
        comparable=raw.get("linkage") == "dynamic" or bool(library.get("libraries") or files or units),
    )


# ------------------------------------------------------------------------------ the rules


def go_package(name: str) -> str | None:
    """The package of a Go symbol (`net/http.(*Client).Do` -> `net/http`), or None if it is not one."""
    plain = name.split("[", 1)[0]
    slash = plain.rfind("/")
    dot = plain.find(".", slash + 1)
    if dot <= 0:
        return None
    return plain[:dot]


def _in_module(package: str, module: str | None) -> bool:
    """A package of the main module (`go build file.go` names it command-line-arguments: only main is)."""
    if not module or module == "command-line-arguments":
        return False
    return package == module or package.startswith(module + "/")


def go_origin(name: str, module: str | None) -> Origin | None:
    package = go_package(name)
    if package is None:
        return None
    if package == "main" or _in_module(package, module):
        return Origin(kind="program", source="go-package", unit=package)
    if package in ("runtime", "type", "go") or package.startswith(("runtime/", "internal/")):
        return Origin(kind="runtime", source="go-package", unit=package)
    return Origin(kind="library", source="go-package", unit=package)


def rust_crate(name: str) -> str | None:
    """The crate a Rust symbol belongs to (legacy `_ZN...17h<hash>E`, v0 `_R...`, or demangled `a::b`)."""
    legacy = _RUST_LEGACY.match(name)
    if legacy:
        path = legacy.group(1)
        digits = re.match(r"\d+", path)
        if digits is None:
            return None
        first = path[len(digits.group()) : len(digits.group()) + int(digits.group())]
        return _legacy_crate(first)
    return _v0_crate(name)


_LEGACY_ESCAPES = (("$LT$", "<"), ("$GT$", ">"), ("$u20$", " "), ("$RF$", "&"), ("$BP$", "*"), ("..", "::"))
_IMPL_SELF = re.compile(r"^_?<+[&*\[\s]*(?:mut |const )?([A-Za-z_][A-Za-z0-9_]*)::")
_IMPL_TRAIT = re.compile(r" as ([A-Za-z_][A-Za-z0-9_]*)::")


def _legacy_crate(first: str) -> str | None:
    """The crate of a legacy path's first component; an impl (`<alloc::string::String as core::fmt::Display>`)
    belongs to its type's crate when the type is a path, else to its trait's (`<usize as core::fmt::Debug>`)."""
    text = first
    for escape, plain in _LEGACY_ESCAPES:
        text = text.replace(escape, plain)
    if "<" not in text:
        return text.split("::", 1)[0].lstrip("_") or None
    found = _IMPL_SELF.match(text) or _IMPL_TRAIT.search(text)
    return found.group(1) if found else None


def _v0_crate(name: str) -> str | None:
    """The first crate root of a v0 symbol (`_R` then path prefixes I, M, X, Y, N<namespace> before `C`)."""
    head = _RUST_V0_START.match(name)
    if head is None:
        return None
    at = head.end()
    while at < len(name):
        tag = name[at]
        if tag == "C":
            root = _RUST_V0_ROOT.match(name, at + 1)
            if root is None:
                return None
            start = root.end() + name.startswith("_", root.end())  # `_` separates a name starting with _ or a digit
            return name[start : start + int(root.group(1))] or None
        if tag == "N":
            at += 2
        elif tag in "IMXY":
            at += 1
            if tag != "I" and name.startswith("s", at):  # an impl path's disambiguator
                at = name.find("_", at) + 1 or len(name)
        else:
            return None
    return None


def rust_origin(name: str) -> Origin | None:
    crate = rust_crate(name)
    if crate is None:
        return None
    kind: OriginKind = "library" if crate in RUST_LIBRARY_CRATES else "program"
    return Origin(kind=kind, source="rust-crate", unit=crate)


def file_origin(file: str) -> Origin:
    base = file.rsplit("/", 1)[-1]
    if base in RUNTIME_FILES:
        return Origin(kind="runtime", source="symtab-file", unit=file)
    if base.endswith(".o"):  # an archive member's object name: Debian's glibc, libgcc
        return Origin(kind="library", source="symtab-file", unit=file)
    return Origin(kind="program", source="symtab-file", unit=file)


def _unit_at(facts: Facts, address: int) -> Unit | None:
    """The compile unit whose range holds the address (a few earlier ranges are checked: units nest)."""
    index = bisect.bisect_right(facts.unit_starts, address) - 1
    for unit in facts.units[max(index - 8, 0) : index + 1][::-1]:
        if unit.start <= address < unit.end:
            return unit
    return None


def _imported(name: str, kind: str, facts: Facts) -> Origin:
    if kind == "thunk" or name in facts.imports or facts.linkage == "dynamic":
        return Origin(kind="library", source="import", unit=None)
    return Origin(kind="unknown", source="engine-placeholder", unit=None)


def classify(address: str, name: str | None, size: int, kind: str, facts: Facts) -> Origin:
    """One procedure's origin from its own facts (the neighbour rule is `annotate`'s)."""
    text = name or ""
    if kind in ("external", "thunk"):
        return _imported(text, kind, facts)
    if (found := _by_name(text, facts)) is not None:
        return found
    at = value(address) if ":" not in address else None
    if at is None:
        return UNKNOWN
    stub = next((name for lo, hi, name in facts.stubs if lo <= at < hi), None)
    if stub is not None:
        return Origin(kind="runtime", source="runtime-section", unit=stub)
    unit = _unit_at(facts, at)
    if unit is not None:
        return Origin(kind="library" if unit.library else "program", source="dwarf", unit=unit.name)
    if at in facts.files:
        return file_origin(facts.files[at])
    if at in facts.matches:
        return facts.matches[at]
    if text in RUNTIME_NAMES:
        return Origin(kind="runtime", source="runtime-name", unit=None)
    if facts.comparable:
        return Origin(kind="program", source="unmatched", unit=None)
    return UNKNOWN


def _by_name(text: str, facts: Facts) -> Origin | None:
    """The origin a function's name alone decides (rules 2 and 3), else None."""
    if facts.go and (found := go_origin(text, facts.go_module)) is not None:
        return found
    if text in facts.go:  # a pclntab name without a package: the runtime's assembly (_rt0_amd64_linux, cmpbody)
        return Origin(kind="runtime", source="go-package", unit=None)
    return rust_origin(text)


def worth_comparing(functions: Iterable[Mapping[str, Any]], loader: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The functions a comparison with the static libraries could tell something of: not those whose name
    decides their origin first (a Go pclntab name, a Rust path: rules 2 and 3 speak before rule 6), so a Go
    executable's thousands of functions are not hashed against libc.a for nothing. A synthetic name is always
    compared: a match also names the function (rea.native.index.library_names)."""
    index = facts(loader)
    return [f for f in functions if synthetic(f.get("name")) or _by_name(f.get("name") or "", index) is None]


def synthetic(name: str | None) -> bool:
    """A name an engine made up from the address (no symbol named the function)."""
    return not name or name.startswith(SYNTHETIC_PREFIXES)


def _filler(origin: Origin, name: str | None) -> bool:
    """Unnamed code no fact placed: its neighbours may."""
    return origin.source == "unmatched" and synthetic(name)


def _run_origin(before: Origin | None, after: Origin | None, sizes: Sequence[int]) -> Origin | None:
    """What the placed functions around a run of unnamed unmatched code say of it. It is the library's between
    two pieces of one archive member (that member's static functions), when it is one or two pieces between
    two members (cold parts), or short pieces running to the end of the list after library code: with
    -ffunction-sections a program's code can be laid out among the libraries' members, so library on both
    sides of a long run is not enough. A run of short pieces only (alignment, stubs) between runtime code is
    the runtime's. Anything else stays the program's."""
    present = [n for n in (before, after) if n is not None]
    kinds = {n.kind for n in present}
    units = {n.unit for n in present}
    unit = units.pop() if len(units) == 1 else None
    if kinds == {"library"} and before is not None and after is not None and (unit is not None or len(sizes) <= 2):
        # between two pieces of one archive member (its static functions), or one or two pieces between two
        # members (their cold parts); a longer run is the program's: with -ffunction-sections a program's code
        # can be laid out among the libraries' members (busybox)
        return Origin(kind="library", source="neighbours", unit=unit)
    if kinds == {"library"} and (before is None or after is None) and all(size < MIN_MATCHED_SIZE for size in sizes):
        return Origin(kind="library", source="neighbours", unit=unit)
    if before is not None and before.kind == "library" and after is not None and after.kind == "runtime":
        # library code before the C runtime's start-up: the cold parts the linker puts ahead of `_start`;
        # the program's slot is the other way round (after crt, before the archives)
        if all(size < MIN_MATCHED_SIZE for size in sizes):
            return Origin(kind="library", source="neighbours", unit=before.unit)
    if kinds == {"runtime"} and all(size < MIN_MATCHED_SIZE for size in sizes):
        return Origin(kind="runtime", source="neighbours", unit=unit)
    return None


def _neighboured(origins: list[Origin], sizes: Sequence[int], names: Sequence[str | None]) -> list[Origin]:
    """Runs of unnamed unmatched code placed by the functions around them (a named function is not a filler:
    the libraries' names were compared, and its name is in none of them)."""
    out = list(origins)
    i = 0
    while i < len(origins):
        if not _filler(origins[i], names[i]):
            i += 1
            continue
        j = i
        while j < len(origins) and _filler(origins[j], names[j]):
            j += 1
        found = _run_origin(origins[i - 1] if i > 0 else None, origins[j] if j < len(origins) else None, sizes[i:j])
        if found is not None:
            out[i:j] = [found] * (j - i)
        i = j
    return out


def origins(procs: Sequence[Mapping[str, Any]], loader: Mapping[str, Any]) -> list[Origin]:
    """Every procedure's origin, in the order given."""
    index = facts(loader)
    order = sorted(range(len(procs)), key=lambda i: (":" in procs[i]["address"], _sort_key(procs[i]["address"])))
    ordered = [
        classify(procs[i]["address"], procs[i].get("name"), int(procs[i].get("size") or 0), procs[i]["kind"], index)
        for i in order
    ]
    sizes = [int(procs[i].get("size") or 0) for i in order]
    ordered = _neighboured(ordered, sizes, [procs[i].get("name") for i in order])
    result: list[Origin] = [UNKNOWN] * len(procs)
    for position, i in enumerate(order):
        result[i] = ordered[position]
    return result


def _sort_key(address: str) -> int:
    return value(address.rpartition(":")[2])


def with_matches(loader: Mapping[str, Any], cfg: Mapping[str, Any]) -> Mapping[str, Any]:
    """The loader facts with the library matches of functions only the CFG found (the loader's come first)."""
    extra = cfg.get("origin_matches") or ()
    raw = loader.get("origin_facts") or {}
    if not extra or not raw.get("library_matches"):
        return loader
    library = raw["library_matches"]
    merged = {**library, "matches": [*library.get("matches", ()), *extra]}
    return {**loader, "origin_facts": {**raw, "library_matches": merged}}


def annotate(procs: Iterable[Mapping[str, Any]], loader: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The snapshot's procedures, each with its `origin` (the one place snapshots are classified)."""
    rows = [dict(p) for p in procs]
    for row, origin in zip(rows, origins(rows, loader), strict=True):
        row["origin"] = origin.to_json()
    return rows


def of(p: Mapping[str, Any]) -> Origin:
    """A snapshot procedure's origin (a snapshot cached before origins were recorded: unknown)."""
    raw = p.get("origin")
    return Origin(**raw) if raw else UNKNOWN


def counts(procs: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    """Procedures per origin kind, every kind present."""
    found: dict[str, int] = dict.fromkeys(ORIGIN_KINDS, 0)
    for p in procs:
        found[of(p).kind] += 1
    return found
