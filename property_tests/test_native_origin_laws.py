"""Laws of the procedure-origin classifier (rea.native.origin): total over hostile names and facts, one origin
per procedure in the given order, Go packages and Rust crates read back from names built the way the
toolchains build them, and the neighbour rule never overriding a name or a fact."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from rea.native import origin

IDENT = st.from_regex(r"[a-z][a-z0-9_]{0,11}", fullmatch=True)
ADDRESS = st.integers(min_value=0x1000, max_value=0xFFFF_FFFF).map(lambda a: f"0x{a:x}")
KIND = st.sampled_from(["function", "thunk", "external"])


@st.composite
def procedure_lists(draw):
    starts = sorted(set(draw(st.lists(st.integers(min_value=0x1000, max_value=0x10_0000), max_size=40))))
    return [
        {
            "address": f"0x{a:x}",
            "name": draw(st.one_of(st.none(), st.text(max_size=30), IDENT)),
            "size": draw(st.integers(min_value=0, max_value=200)),
            "kind": draw(KIND),
        }
        for a in starts
    ]


@st.composite
def loaders(draw, procs):
    """Loader facts that say arbitrary (possibly contradictory) things about the given procedures."""
    addresses = [p["address"] for p in procs] or ["0x1000"]
    pick = st.sampled_from(addresses)
    matches = [
        {"address": draw(pick), "name": "f", "library": "libc.a", "member": draw(IDENT), "kind": "library"}
        for _ in range(draw(st.integers(0, 5)))
    ]
    files = [{"file": draw(st.sampled_from(["t.c", "printf.o", "crtstuff.c"])), "functions": [draw(pick)]}]
    lo = draw(st.integers(0x1000, 0x10_0000))
    units = [{"name": "t.c", "directory": draw(st.sampled_from(["/src", "/usr/src/glibc"])), "ranges": []}]
    units[0]["ranges"] = [[f"0x{lo:x}", f"0x{lo + draw(st.integers(0, 4096)):x}"]]
    return {
        "symbols": [],
        "sections": [],
        "origin_facts": {
            "linkage": draw(st.sampled_from([None, "static", "dynamic"])),
            "file_symbols": files if draw(st.booleans()) else [],
            "compile_units": units if draw(st.booleans()) else [],
            "library_matches": {"libraries": [{"path": "libc.a"}], "matches": matches} if draw(st.booleans()) else None,
        },
    }


@given(st.data())
def test_every_procedure_gets_one_origin_in_order(data):
    procs = data.draw(procedure_lists())
    loader = data.draw(loaders(procs))
    rows = origin.annotate(procs, loader)
    assert [r["address"] for r in rows] == [p["address"] for p in procs]
    for row in rows:
        found = origin.of(row)
        assert found.kind in origin.ORIGIN_KINDS and found.source
    assert sum(origin.counts(rows).values()) == len(procs)


@given(st.data())
def test_names_and_facts_are_never_overridden_by_neighbours(data):
    procs = data.draw(procedure_lists())
    loader = data.draw(loaders(procs))
    index = origin.facts(loader)
    for row in origin.annotate(procs, loader):
        if row["origin"]["source"] == "neighbours":
            assert origin.synthetic(row.get("name"))
            alone = origin.classify(row["address"], row.get("name"), row["size"], row["kind"], index)
            assert alone.source == "unmatched"


@given(procedure_lists())
def test_without_facts_nothing_is_claimed_but_what_names_say(procs):
    """Only a name can speak without the file's facts: a Rust crate path, an import, or one of the C
    runtime's own well-known names (frame_dummy, _start: origin.RUNTIME_NAMES)."""
    for row in origin.annotate(procs, {}):
        found = origin.of(row)
        assert found.kind == "unknown" or found.source in ("rust-crate", "import", "runtime-name")
        if found.source == "runtime-name":
            assert row.get("name") in origin.RUNTIME_NAMES


@given(st.lists(IDENT, min_size=1, max_size=4), IDENT, IDENT)
def test_go_package_of_a_qualified_name(path, package, function):
    pkg = "/".join([*path, package]) if len(path) > 1 else package
    assert origin.go_package(f"{pkg}.{function}") == pkg
    assert origin.go_package(f"{pkg}.(*T).{function}") == pkg
    assert origin.go_package(f"{pkg}.{function}[go.shape.*uint8]") == pkg


@given(st.lists(IDENT, min_size=2, max_size=5), st.from_regex(r"[0-9a-f]{16}", fullmatch=True))
def test_rust_crate_of_a_legacy_mangled_name(path, digest):
    mangled = "_ZN" + "".join(f"{len(part)}{part}" for part in path) + f"17h{digest}E"
    assert origin.rust_crate(mangled) == path[0]
    expected = "library" if path[0] in origin.RUST_LIBRARY_CRATES else "program"
    assert origin.rust_origin(mangled) == origin.Origin(kind=expected, source="rust-crate", unit=path[0])


@given(IDENT, IDENT, st.from_regex(r"[0-9A-Za-z]{0,8}", fullmatch=True))
def test_rust_crate_of_a_v0_mangled_name(crate, function, disambiguator):
    mangled = f"_RNvCs{disambiguator}_{len(crate)}{crate}{len(function)}{function}"
    assert origin.rust_crate(mangled) == crate


@given(st.text(max_size=60))
def test_hostile_names_are_classified_without_error(name):
    index = origin.facts({"go": {"functions": [{"address": "0x1", "name": "x", "size": 1}]}})
    assert origin.classify("0x1000", name, 3, "function", index).kind in origin.ORIGIN_KINDS
    origin.rust_crate(name)
    origin.go_package(name)


@given(st.data())
def test_origins_do_not_depend_on_the_order_procedures_come_in(data):
    procs = data.draw(procedure_lists())
    loader = data.draw(loaders(procs))
    shuffled = data.draw(st.permutations(procs))
    first = {r["address"]: r["origin"] for r in origin.annotate(procs, loader)}
    assert {r["address"]: r["origin"] for r in origin.annotate(shuffled, loader)} == first


@given(st.integers(min_value=1, max_value=6), st.lists(st.integers(min_value=1, max_value=200), min_size=1))
def test_unnamed_code_between_two_library_functions_is_library(gap, sizes):
    """A run of unnamed, unmatched functions between two byte-matched library functions takes their kind."""
    procs = [{"address": "0x1000", "name": "sub_1000", "size": 64, "kind": "function"}]
    at = 0x1040
    for size in sizes[:gap]:
        procs.append({"address": f"0x{at:x}", "name": f"sub_{at:x}", "size": size, "kind": "function"})
        at += size
    procs.append({"address": f"0x{at:x}", "name": None, "size": 64, "kind": "function"})
    matched = [
        {"address": p["address"], "name": "f", "library": "libc.a", "member": "m.o", "kind": "library"}
        for p in (procs[0], procs[-1])
    ]
    loader = {"origin_facts": {"linkage": "static", "library_matches": {"libraries": [{}], "matches": matched}}}
    rows = origin.annotate(procs, loader)
    assert [r["origin"]["kind"] for r in rows] == ["library"] * len(procs)
    assert {r["origin"]["source"] for r in rows[1:-1]} == {"neighbours"}
    assert rows[1]["origin"]["unit"] == "libc.a(m.o)"
