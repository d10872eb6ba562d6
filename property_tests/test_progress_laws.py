"""Laws of rea.progress.observe: numbering and rate limiting of status updates."""

from hypothesis import given
from hypothesis import strategies as st

from rea.progress import MIN_INTERVAL_S, ProgressState, observe

steps = st.lists(
    st.tuples(
        st.one_of(st.floats(0, 0.5, allow_nan=False), st.sampled_from([0.0, 0.05, 0.1, 0.1000001, 0.0999999])),
        st.booleans(),
    ),
    max_size=40,
)


@given(st.floats(0, 1e6, allow_nan=False), steps)
def test_progress_law(start, observations):
    state, now, emitted = ProgressState(), start, []
    for delta, terminal in observations:
        now += delta
        state, number = observe(state, now, terminal=terminal)
        if terminal:
            assert number is not None, "a terminal observation always emits"
        if number is not None:
            emitted.append((number, now, terminal))
            assert state.count == number and state.last_sent_at == now
    numbers = [n for n, _, _ in emitted]
    assert numbers == list(range(1, len(numbers) + 1))  # strictly increasing from 1
    for (_, before, _), (_, after, terminal) in zip(emitted, emitted[1:]):
        if not terminal:
            assert after - before >= MIN_INTERVAL_S
    if observations:
        assert emitted and emitted[0][0] == 1  # the first observation always emits


@given(st.floats(0, 1e6, allow_nan=False), st.floats(0, MIN_INTERVAL_S, exclude_max=True, allow_nan=False))
def test_silent_observation_keeps_state(t, gap):
    state, _ = observe(ProgressState(), t, terminal=False)
    later, number = observe(state, t + gap, terminal=False)
    if (t + gap) - t < MIN_INTERVAL_S:
        assert number is None and later is state
