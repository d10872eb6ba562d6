"""Laws of the metadata-side native parsers: the multi-encoding string scan over arbitrary bytes,
fragment folding over arbitrary procedure layouts, and which source names a function start."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from rea.native import metadata
from rea.native import strings as native_strings
from rea.native.strings import CODECS, MIN_CHARS, WIDTHS, Run, decoded, runs, with_scanned

TEXT = st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E), min_size=4, max_size=12)
ENCODING = st.sampled_from(sorted(CODECS))
WIDE = st.sampled_from(["utf-16le", "utf-16be", "utf-32le", "utf-32be"])
# bytes that make text likely: ASCII, NULs, UTF-8 lead and continuation bytes, and noise
BYTE = st.sampled_from([0, 0, 0, 0x20, 0x26, 0x41, 0x7E, 0x0A, 0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xF0, 0x9F, 0xFF, 0x01])
TEXTY = st.lists(BYTE, max_size=512).map(bytes) | st.binary(max_size=1024)


def encode(text: str, encoding: str) -> bytes:
    return text.encode(CODECS[encoding]) + b"\x00" * WIDTHS[encoding]


def exact(r: Run | dict, data: bytes, base: int = 0) -> bool:
    """A run's value is its bytes less the terminator, decoded; the terminator is NUL."""
    offset, length, term = (
        (r.offset, r.length, r.terminator)
        if isinstance(r, Run)
        else (int(r["address"], 16) - base, r["length"], r["terminator"])
    )
    encoding = r.encoding if isinstance(r, Run) else r["encoding"]
    value = r.value if isinstance(r, Run) else r["value"]
    tail = data[offset + length - term : offset + length]
    return tail == b"\x00" * term and value == data[offset : offset + length - term].decode(CODECS[encoding])


@given(TEXTY)
def test_runs_are_ordered_disjoint_aligned_exact_and_long_enough(data):
    last_end = 0
    for r in runs(data):
        assert r.offset >= last_end and r.offset + r.length <= len(data)
        assert r.offset % WIDTHS[r.encoding] == 0 and r.terminator in (0, WIDTHS[r.encoding])
        assert len(r.value) >= MIN_CHARS and exact(r, data)
        assert r.encoding != "utf-8" or r.terminator == 1  # a UTF-8 run is always terminated
        last_end = r.offset + r.length


@given(st.lists(st.tuples(TEXT, ENCODING), min_size=1, max_size=8))
def test_every_planted_string_is_found_in_its_encoding(planted):
    data, expected = b"", []
    for text, encoding in planted:
        data += b"\xff" * (-len(data) % 4 + 4)  # a non-text byte between runs, keeping 4-byte alignment
        width = WIDTHS[encoding]
        expected.append(
            Run(offset=len(data), value=text, encoding=encoding, length=len(encode(text, encoding)), terminator=width)
        )
        data += encode(text, encoding)
    assert list(runs(data)) == expected


@given(
    st.lists(
        st.text(alphabet="&#;0123456789abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=6), min_size=1, max_size=6
    ),
    WIDE,
    st.booleans(),
)
def test_a_packed_wide_table_is_one_run_with_its_exact_length(entries, encoding, at_end):
    """Entries back to back without terminators (and of any length) are one run: at the end of the data
    it is unterminated, before a NUL code unit terminated by it."""
    table = "".join(entries).encode(CODECS[encoding])
    data = b"\xff" * 4 + table + (b"" if at_end else b"\x00" * 4)
    found = list(runs(data))
    if len("".join(entries)) < MIN_CHARS:
        assert found == []
        return
    width = WIDTHS[encoding]
    terminator = 0 if at_end else width
    assert found == [
        Run(offset=4, value="".join(entries), encoding=encoding, length=len(table) + terminator, terminator=terminator)
    ]


@st.composite
def joined(draw):
    """Scanned runs of some bytes, and CFG strings angr might report in them: any address, any guessed
    size, read back exactly as the worker reads them, some referenced."""
    data = draw(
        st.lists(
            st.sampled_from(
                [b"\x00", b"\xff", b"abcd", b"&\x00#\x00", b"&\x00\x00\x00l\x00\x00\x00", b"efgh\x00", b"xy"]
            ),
            max_size=24,
        ).map(b"".join)
    )
    base = 0x1000
    scanned = [native_strings.row(f"0x{base + r.offset:x}", r, section=".rodata") for r in runs(data)]
    recovered = []
    for address in sorted(set(draw(st.lists(st.integers(0, max(len(data) - 1, 0)), max_size=8)))) if data else []:
        size, encoding = draw(st.integers(1, 24)), draw(st.sampled_from(["utf-8", "utf-16le"]))
        run = decoded(data[address : address + size], encoding)
        refs = [f"0x{r:x}" for r in draw(st.lists(st.integers(0x10, 0x20), max_size=2))]
        where = f"0x{base + address:x}"
        if run is None:
            recovered.append(
                {
                    "address": where,
                    "value": None,
                    "truncated": False,
                    "encoding": encoding,
                    "length": size,
                    "terminator": 0,
                    "referenced_by": refs,
                }
            )
        else:
            recovered.append(native_strings.row(where, run, referenced_by=refs))
    return data, base, scanned, recovered


@given(joined(), st.booleans())
def test_joined_strings_never_start_inside_another_and_are_exact(case, length_addressed):
    data, base, scanned, recovered = case
    out = with_scanned(recovered, scanned, length_addressed=length_addressed)
    starts = [int(r["address"], 16) for r in out]
    assert starts == sorted(starts)
    last_end = 0
    for r in out:
        start = int(r["address"], 16)
        assert start >= last_end, "a string starts inside another"
        assert len(r["value"]) >= MIN_CHARS and exact(r, data, base)
        last_end = start + r["length"]
    holder = native_strings.holders(out)
    for c in recovered:  # a reference into a reported string stays on it
        held = holder(c["address"])
        if held is not None:
            assert set(c["referenced_by"]) <= set(next(r for r in out if r["address"] == held)["referenced_by"])
    if not length_addressed:  # the scan's runs all stay, whole
        assert [(s["address"], s["length"]) for s in scanned] == [
            (r["address"], r["length"]) for r in out if r["address"] in {s["address"] for s in scanned}
        ]


@given(joined(), st.booleans(), st.randoms())
def test_joining_is_idempotent_and_order_free(case, length_addressed, rnd):
    _, _, scanned, recovered = case
    out = with_scanned(recovered, scanned, length_addressed=length_addressed)
    assert with_scanned(out, scanned, length_addressed=length_addressed) == out
    shuffled_recovered, shuffled_scanned = list(recovered), list(scanned)
    rnd.shuffle(shuffled_recovered)
    rnd.shuffle(shuffled_scanned)
    assert with_scanned(shuffled_recovered, shuffled_scanned, length_addressed=length_addressed) == out


@st.composite
def layouts(draw):
    """Functions with metadata extents, and CFG procedures some of which start inside them."""
    starts, at = [], 0x1000
    for _ in range(draw(st.integers(1, 6))):
        size = draw(st.integers(8, 64))
        starts.append({"address": f"0x{at:x}", "size": size, "source": "exception-frames"})
        at += size
    procs = []
    for s in starts:
        base = int(s["address"], 16)
        inner = sorted(set(draw(st.lists(st.integers(1, s["size"] - 1), max_size=2))))
        for addr in [base, *(base + i for i in inner)]:
            procs.append(
                {
                    "address": f"0x{addr:x}",
                    "name": f"sub_{addr:x}",
                    "kind": "function",
                    "size": 1,
                    "returning": True,
                    "blocks": [{"start": f"0x{addr:x}", "size": 1, "successors": []}],
                    "unresolved_calls": [],
                    "callees": [],
                    "callers": [],
                    "call_sites": [],
                    "strings": [],
                }
            )
    addresses = [p["address"] for p in procs]
    for p in procs:  # arbitrary call edges, mirrored as the callgraph holds them
        for target in draw(st.lists(st.sampled_from(addresses), max_size=3)):
            p["callees"].append(target)
            p["call_sites"].append({"site": p["address"], "target": target})
            next(q for q in procs if q["address"] == target)["callers"].append(p["address"])
    return {"function_starts": starts, "symbols": []}, procs


@given(layouts())
def test_folded_fragments_leave_only_functions_and_no_self_calls(layout):
    loader, procs = layout
    folded = metadata.merged({"procedures": procs, "strings": [], "data_references": []}, loader)
    known = {s["address"] for s in loader["function_starts"]}
    listed = [p["address"] for p in folded["procedures"]]
    assert set(listed) == known
    recursive = {p["address"] for p in procs if p["address"] in p["callees"]}
    for p in folded["procedures"]:  # a self edge is real recursion at the entry, never a folded jump
        assert (p["address"] in p["callees"]) == (p["address"] in recursive)
        assert set(p["callers"]) <= known and set(p["callees"]) <= known
    for p in folded["procedures"]:  # caller and callee lists still mirror each other
        for callee in p["callees"]:
            assert p["address"] in next(q for q in folded["procedures"] if q["address"] == callee)["callers"]


SOURCES = ("exports", "go-pclntab", "symbols", "exception-frames")
NAMED = st.dictionaries(
    st.integers(0x1000, 0x1010).map(lambda a: f"0x{a:x}"),
    st.lists(st.sampled_from(SOURCES), min_size=1, max_size=4, unique=True),
    max_size=6,
)


@given(NAMED)
def test_a_start_is_named_by_its_most_trusted_source(named):
    """Exports name a start before Go's pclntab (the public name wins), pclntab before symbols; frames give no name (the name of each
    row says its source, so the winner is visible)."""
    loader: dict = {"symbols": [], "exports": [], "go": {"functions": []}, "function_starts": []}
    for address, sources in named.items():
        for source in sources:
            name = f"{source}@{address}"
            if source == "symbols":
                row = {"address": address, "name": name, "size": 4, "kind": "function", "source": "primary"}
                loader["symbols"].append(row)
            elif source == "exports":
                loader["exports"].append({"address": address, "name": name, "kind": "function"})
            elif source == "go-pclntab":
                loader["go"]["functions"].append({"address": address, "name": name, "size": 4})
            else:
                loader["function_starts"].append({"address": address, "size": 4, "source": source})
    rows = {r["address"]: r for r in metadata.starts(loader)}
    assert set(rows) == set(named)
    for address, sources in named.items():
        named_by = [s for s in SOURCES[:3] if s in sources]
        assert rows[address]["name"] == (f"{named_by[0]}@{address}" if named_by else None)


@given(st.lists(st.sampled_from(["function", "object"]), max_size=4))
def test_a_data_export_is_no_function_start(kinds):
    exports = [{"address": f"0x{0x2000 + i:x}", "name": f"e{i}", "kind": k} for i, k in enumerate(kinds)]
    listed = {r["address"] for r in metadata.starts({"exports": exports})}
    assert listed == {e["address"] for e in exports if e["kind"] == "function"}
