"""Laws of source recovery over hostile bundles and lying source maps: nothing crashes, nothing escapes.

Whatever a map claims (names that climb out of the tree, runs past the end of the file,
source indexes it does not list), every planned file stays under the output directory and
every byte range stays inside the bundle.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from rea.javascript.records.recovery import RecoverArgs, RecoveredFile, RecoveryEngine
from rea.javascript.recovery import build, mapped_ranges, safe_relative
from rea.javascript.sourcemap import source_runs
from rea.wire.convert import to_wire

names = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=40) | st.sampled_from(
    ["../../etc/passwd", "/abs/x.js", "webpack://app/../../x", "..", ".", "", "a/../../b", "C:\\x\\y.js"]
)
vlq = st.text(st.sampled_from("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/;,!"), max_size=200)
bundles = st.binary(max_size=400).map(lambda b: b.decode("utf-8", "replace").encode())


@settings(max_examples=300, deadline=None)
@given(names)
def test_safe_relative_never_climbs(name):
    rel = safe_relative(name, "fallback.js")
    assert rel and not rel.startswith("/") and ".." not in rel.split("/") and "" not in rel.split("/")


@settings(max_examples=300, deadline=None)
@given(bundles, st.lists(st.tuples(st.integers(-5, 60), st.integers(-5, 500), st.integers(-3, 8)), max_size=30))
def test_mapped_ranges_stay_inside_the_bundle(data, runs):
    spans, _outside = mapped_ranges(data, [[line, col, src, 1] for line, col, src in runs], 5)
    for ranges in spans.values():
        for start, end in ranges:
            assert 0 <= start < end <= len(data)


@settings(max_examples=200, deadline=None)
@given(
    bundles,
    st.lists(st.tuples(names, st.one_of(st.none(), st.binary(max_size=30))), max_size=6),
    vlq,
    st.lists(st.tuples(st.integers(-10, 500), st.integers(-10, 500)), max_size=5),
    st.sampled_from(["structural", "heuristic", "inspection"]),
)
def test_build_contains_every_file_and_range(data, sources, mappings, cuts, mode):
    runs = source_runs(mappings, len(sources), 1000)
    facts = {
        "bundle": {"path": "/in/app.js", "sha256": "0" * 64, "bytes": len(data), "data": data},
        "bundlers": [],
        "table": {"kind": "webpack", "modules": [{"id": str(i), "start": s, "end": e} for i, (s, e) in enumerate(cuts)]}
        if cuts
        else None,
        "comment_modules": [],
        "map": {
            "location": "inline",
            "sha256": "1" * 64,
            "bytes": 1,
            "sources": [{"name": n, "content": c, "origin": "embedded", "reason": "none"} for n, c in sources],
            "runs": [list(r) for r in runs.runs],
            "invalid_segments": runs.invalid,
        },
    }
    engine = RecoveryEngine(
        id="e",
        version="1",
        executable=RecoveredFile(path="/e", sha256="2" * 64, bytes=1),
        audited_source_revision="rea",
        executed_source_revision="rea",
    )
    args = RecoverArgs(path="/in/app.js", output_directory="/out", extraction_mode=mode, rewrite_level="standard")
    result, files = build(facts, args, "/out", engine)
    result = to_wire(result)
    rels = [f.rel for f in files]
    assert len(set(rels)) == len(rels)
    assert all(not r.startswith("/") and ".." not in r.split("/") for r in rels)
    for m in result["modules"]:
        assert m["artifact"]["path"].startswith("/out/")
        for b in m["provenance"]["byte_ranges"]:
            assert 0 <= b["start"] < b["end"] <= len(data)
    assert result["failed"] == sum(w["is_error"] for w in result["warnings"])
