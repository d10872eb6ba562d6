"""Laws of emulate_native_function's pure part (rea.native.emulation): a run never executes more blocks than
its step budget, and ends in step_limit exactly when that budget ran out before the routine returned; the
argument grammar keeps every 64-bit value and every buffer it accepts and refuses anything else with a
canonical invalid_request naming the argument and what is accepted; written addresses merge into sorted,
disjoint ranges within the report bound; the answer's flags agree with its status."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from rea.errors import ReaError
from rea.native import emulation as e
from rea.native.records import emulation as w

BUDGETS = st.builds(
    e.Budget,
    steps=st.integers(1, 500),
    time_ms=st.integers(10, 10_000),
    memory_bytes=st.integers(4096, 1 << 20),
)


def simulate(limits: e.Budget, returns_after: int | None, pages: list[int], clock: list[float]) -> tuple[str, int]:
    """The worker's loop over a routine that returns after `returns_after` blocks (None: never), writing
    pages[i] pages by block i and reading clock[i] ms before it: (status, blocks executed)."""
    steps = 0
    while True:
        ended = e.verdict(
            limits,
            returned=returns_after is not None and steps == returns_after,
            reached=False,
            steps=steps,
            elapsed_ms=clock[min(steps, len(clock) - 1)],
            pages=pages[min(steps, len(pages) - 1)],
        )
        if ended is not None:
            return ended, steps
        steps += 1


@given(BUDGETS, st.none() | st.integers(0, 600))
def test_steps_never_exceed_the_budget_and_step_limit_means_it_ran_out(limits, returns_after):
    status, steps = simulate(limits, returns_after, [1], [0.0])
    assert steps <= limits.steps
    assert (status == "step_limit") == (returns_after is None or returns_after > limits.steps)
    assert status in ("returned", "step_limit")
    assert steps == (limits.steps if status == "step_limit" else returns_after)


@given(
    BUDGETS,
    st.none() | st.integers(0, 600),
    st.lists(st.integers(0, 400), min_size=1, max_size=50).map(lambda p: sorted(p)),
    st.lists(st.floats(0, 20_000), min_size=1, max_size=50).map(lambda c: sorted(c)),
)
def test_every_run_ends_within_every_budget(limits, returns_after, pages, clock):
    status, steps = simulate(limits, returns_after, pages, clock)
    assert steps <= limits.steps and status in w.STATUSES
    if status == "memory_limit":
        assert pages[min(steps, len(pages) - 1)] * e.PAGE > limits.memory_bytes
    if status == "time_limit":
        assert clock[min(steps, len(clock) - 1)] >= limits.time_ms
    if status == "returned":
        assert steps == returns_after


WORDS = st.integers(-(1 << 63), (1 << 64) - 1)


@given(st.lists(WORDS, max_size=w.MAX_ARGUMENTS))
def test_integers_are_kept_as_64_bit_words(words):
    raw = [n if abs(n) < 2**53 else {"kind": "integer", "value": ("-" if n < 0 else "") + hex(abs(n))} for n in words]
    parsed = e.parse_arguments(raw).unwrap()
    assert [a.value for a in parsed] == [n & e.WORD_MAX for n in words]


@given(st.binary(max_size=64), st.integers(0, 64), st.booleans())
def test_buffers_keep_their_bytes_and_size(data, extra, writable):
    item = {"kind": "buffer", "hex": data.hex(), "size": len(data) + extra, "writable": writable}
    if not item["size"]:
        del item["size"]
    got = e.parse_arguments([item])
    if not data and not extra:
        assert isinstance(got.failure(), ReaError)  # a buffer of no bytes and no size has nothing to point at
        return
    parsed = got.unwrap()
    (buffer,) = parsed
    assert (buffer.data, buffer.size, buffer.writable) == (data, len(data) + extra, writable)
    planned = e.plan(parsed, e.Budget(steps=1, time_ms=10, memory_bytes=4096), None)["arguments"][0]
    assert bytes.fromhex(planned["hex"]) == data and planned["size"] == buffer.size


BAD = st.one_of(
    st.text(alphabet="0123456789abcdefABCDEF", min_size=1, max_size=9)
    .filter(lambda t: len(t) % 2 == 1)
    .map(lambda t: {"kind": "buffer", "hex": t}),
    st.text(min_size=1, max_size=6)
    .filter(lambda t: any(c not in "0123456789abcdefABCDEF" for c in t))
    .map(lambda t: {"kind": "buffer", "hex": t + t}),
    st.integers(1, 64).map(lambda n: {"kind": "buffer", "hex": "00" * (n + 1), "size": n}),
    st.integers(w.MAX_BUFFER_BYTES + 1, 1 << 40).map(lambda n: {"kind": "buffer", "hex": "", "size": n}),
    st.integers(1 << 64, 1 << 80).map(lambda n: {"kind": "integer", "value": hex(n)}),
    st.integers(1 << 64, 1 << 80),
    st.text(max_size=8).map(lambda t: {"kind": "pointer", "address": "x" + t}),
    st.sampled_from(["register", "", None, "buf"]).map(lambda k: {"kind": k}),
    st.sampled_from([True, 1.5, "12", None, []]),
)


@given(st.lists(WORDS.filter(lambda n: abs(n) < 2**53), max_size=4), BAD)
def test_bad_arguments_are_refused_naming_the_argument_and_what_is_accepted(good, bad):
    parsed = e.parse_arguments([*good, bad]).failure()
    assert isinstance(parsed, ReaError) and parsed.code == "invalid_request"
    assert f"arguments[{len(good)}]" in parsed.message
    assert "buffer" in str(parsed.details) and "pointer" in str(parsed.details)


@given(st.sets(st.integers(0, 5000), max_size=300), st.integers(1, 400))
def test_written_addresses_merge_into_disjoint_ranges_within_the_bound(addresses, limit):
    kept, total, truncated = e.ranges(addresses, limit)
    assert total == len(addresses)
    covered = [a for start, end in kept for a in range(start, end)]
    assert len(covered) <= limit and set(covered) <= addresses
    assert all(kept[i][1] < kept[i + 1][0] for i in range(len(kept) - 1))  # sorted, disjoint, not adjacent
    whole, _, never = e.ranges(addresses, len(addresses))
    assert never is False and {a for s, t in whole for a in range(s, t)} == addresses
    assert truncated == (len(kept) < len(whole))


@given(st.binary(max_size=80))
def test_text_keeps_printable_bytes_and_escapes_the_rest(data):
    shown = e.text(data)
    assert all(0x20 <= ord(c) < 0x7F for c in shown)
    printable = bytes(b for b in data if 0x20 <= b < 0x7F and b != 0x5C)
    assert all(chr(b) in shown for b in printable)
    head = data.split(b"\0", 1)[0]
    said = e.c_string(data)
    assert said is None or said.encode() == head


def _facts(status: str, steps: int) -> dict[str, Any]:
    return {"status": status, "steps": steps, "stop_address": "0x10", "unsupported": None}


@given(BUDGETS, st.sampled_from(w.STATUSES), st.integers(0, 500))
def test_the_answer_flags_agree_with_the_status(limits, status, steps):
    facts = _facts(status, steps)
    if status == "unsupported":
        facts["unsupported"] = {"kind": "syscall", "name": "write", "number": 1}
    made = e.answer({"address": "0x10", "name": "f"}, facts, limits, lambda _: None)
    assert made.budgets.steps.exhausted == (status == "step_limit")
    assert made.budgets.memory.exhausted == (status == "memory_limit")
    assert made.budgets.time_exhausted == (status == "time_limit")
    assert (made.coverage.status == "complete") == (status in ("returned", "stopped_at"))
    assert made.coverage.reason
