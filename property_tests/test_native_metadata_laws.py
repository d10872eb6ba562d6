"""Laws of the metadata-side native parsers: the multi-encoding string scan over arbitrary bytes,
fragment folding over arbitrary procedure layouts, and which source names a function start."""

from __future__ import annotations

from hypothesis import given, strategies as st

from rea.native import metadata
from rea.native.strings import CODECS, runs

TEXT = st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E), min_size=4, max_size=12)
ENCODING = st.sampled_from(["utf-8", "utf-16le", "utf-16be", "utf-32le", "utf-32be"])


def encode(text: str, encoding: str) -> bytes:
    width = {"utf-8": 1, "utf-16le": 2, "utf-16be": 2}.get(encoding, 4)
    return text.encode(CODECS.get(encoding, "utf-32-be")) + b"\x00" * width


@given(st.binary(max_size=2048))
def test_runs_are_disjoint_and_decode_their_bytes(data):
    last_end = 0
    for offset, text, encoding, length in runs(data):
        assert offset >= last_end and offset + length <= len(data)
        assert encode(text, encoding) == data[offset : offset + length] or "\ufffd" in text or encoding == "utf-8"
        last_end = offset + length


@given(st.lists(st.tuples(TEXT, ENCODING), min_size=1, max_size=8))
def test_every_planted_string_is_found_in_its_encoding(planted):
    data, expected = b"", []
    for text, encoding in planted:
        data += b"\xff" * (-len(data) % 4 + 4)  # a non-text byte between runs, keeping 4-byte alignment
        expected.append((len(data), text, encoding, len(encode(text, encoding))))
        data += encode(text, encoding)
    assert list(runs(data)) == expected


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


SOURCES = ("exports", "symbols", "go-pclntab", "exception-frames")
NAMED = st.dictionaries(
    st.integers(0x1000, 0x1010).map(lambda a: f"0x{a:x}"),
    st.lists(st.sampled_from(SOURCES), min_size=1, max_size=4, unique=True),
    max_size=6,
)


@given(NAMED)
def test_a_start_is_named_by_its_most_trusted_source(named):
    """Exports name a start before symbols (the public name wins), symbols before Go's pclntab; frames give no name (the name of each
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
