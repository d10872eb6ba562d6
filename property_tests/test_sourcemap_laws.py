"""Laws of source-map decoding: VLQ round-trips, runs account for every mapped segment, and the source
of a generated range is one that is mapped there."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from rea.javascript.sourcemap import decode_vlq, encode_vlq, source_at, source_runs

INTS = st.integers(min_value=-(2**31), max_value=2**31 - 1)


@given(st.lists(INTS, max_size=6))
def test_vlq_round_trips(values):
    assert decode_vlq(encode_vlq(values)) == tuple(values)


@given(st.text(max_size=12))
def test_decode_never_raises_anything_but_value_error(text):
    try:
        decode_vlq(text)
    except ValueError:
        pass


@st.composite
def mappings(draw):
    """A source map's mappings from absolute segments (line -> [(column, source)]), with their truth."""
    sources = draw(st.integers(min_value=1, max_value=5))
    lines = draw(
        st.lists(
            st.lists(st.tuples(st.integers(0, 400), st.integers(0, sources - 1), st.booleans()), max_size=8), max_size=6
        )
    )
    text, previous_source, truth = [], 0, []
    for line_no, segments in enumerate(lines):
        column, encoded = 0, []
        for col, source, generated_only in sorted(set(segments)):
            if generated_only:
                encoded.append(encode_vlq([col - column]))
            else:
                encoded.append(encode_vlq([col - column, source - previous_source, 0, 0]))
                previous_source = source
                truth.append((line_no, col, source))
            column = col
        text.append(",".join(encoded))
    return ";".join(text), sources, truth


@given(mappings(), st.integers(min_value=1, max_value=50))
def test_runs_account_for_every_mapped_segment(case, bound):
    text, sources, truth = case
    runs = source_runs(text, sources, bound)
    assert runs.invalid == 0
    assert sum(runs.segments) == len(truth)
    assert all(runs.segments[s] == sum(1 for *_, t in truth if t == s) for s in range(sources))
    assert all(a.source != b.source for a, b in zip(runs.runs, runs.runs[1:]))  # a run ends where the source changes
    assert len(runs.runs) <= bound
    if not runs.truncated:
        assert sum(r.segments for r in runs.runs) == len(truth)
        # the runs, expanded, give back the truth's sources in generated order
        expanded = [r.source for r in runs.runs for _ in range(r.segments)]
        assert expanded == [t for *_, t in truth]


@given(mappings(), st.tuples(st.integers(0, 6), st.integers(0, 400)), st.tuples(st.integers(0, 6), st.integers(0, 400)))
def test_source_at_names_a_source_mapped_in_or_before_the_range(case, start, end):
    text, sources, truth = case
    runs = source_runs(text, sources, 10_000).runs
    found = source_at(runs, min(start, end), max(start, end))
    mapped_up_to_end = {s for line, col, s in truth if (line, col) < max(start, end)}
    if found is None:
        assert not any((r.line, r.column) < max(start, end) for r in runs)
    else:
        assert found in mapped_up_to_end
