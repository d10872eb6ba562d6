"""Laws of rea.config.response_budget: only in-range decimal integers are accepted."""

import re

from hypothesis import example, given
from hypothesis import strategies as st
from returns.result import Failure, Success

from rea.budget import DEFAULT_MAX_RESPONSE_BYTES, ResponseBudget
from rea.config import response_budget

VAR = "REA_MCP_MAX_RESPONSE_BYTES"
LOW, HIGH = 10_485_760, 2**53 - 1


def model_accepts(raw: str) -> bool:
    return re.fullmatch(r"[0-9]+", raw) is not None and LOW <= int(raw) <= HIGH


def assert_rejected(raw: str) -> None:
    result = response_budget({VAR: raw})
    assert isinstance(result, Failure), raw
    error = result.failure()
    assert error.code == "configuration_invalid"
    assert error.details["variable"] == VAR and error.details["value"] == raw
    assert VAR in error.message
    assert error.restart_required


def test_unset_gives_default():
    assert response_budget({}) == Success(ResponseBudget(max_response_bytes=DEFAULT_MAX_RESPONSE_BYTES))


@example(LOW, 0)
@example(HIGH, 1)
@given(st.integers(LOW, HIGH), st.integers(0, 3))
def test_accepts_every_in_range_decimal(n, zeros):
    for raw in (str(n), "0" * zeros + str(n)):
        assert response_budget({VAR: raw}) == Success(ResponseBudget(max_response_bytes=n))


@given(st.integers(0, LOW - 1) | st.integers(HIGH + 1, 10**40))
def test_rejects_out_of_range(n):
    assert_rejected(str(n))


malformed = st.one_of(
    st.integers(LOW, HIGH).map(lambda n: f"-{n}"),
    st.integers(LOW, HIGH).map(lambda n: f"+{n}"),
    st.integers(LOW, HIGH).map(lambda n: f" {n}"),
    st.integers(LOW, HIGH).map(lambda n: f"{n} "),
    st.integers(LOW, HIGH).map(lambda n: f"\t{n}"),
    st.integers(LOW, HIGH).map(hex),
    st.integers(LOW, HIGH).map(lambda n: f"{n}.0"),
    st.integers(LOW, HIGH).map(lambda n: f"{n:e}"),
    st.integers(LOW, HIGH).map(lambda n: f"{n:_}"),
    st.integers(LOW, HIGH).map(lambda n: str(n).translate(str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩"))),
    st.integers(LOW, HIGH).map(lambda n: str(n).translate(str.maketrans("0123456789", "０１２３４５６７８９"))),
    st.just(""),
)


@given(malformed)
def test_rejects_malformed(raw):
    assert_rejected(raw)


@given(st.text(max_size=20) | st.from_regex(r"\A[0-9 +\-_.xeE]{1,20}\Z"))
def test_accepts_exactly_the_model(raw):
    # trailing "\n" is the bug pinned below; keep this law deterministic
    if raw.endswith("\n"):
        raw = raw[:-1] + "x"
    if model_accepts(raw):
        assert response_budget({VAR: raw}) == Success(ResponseBudget(max_response_bytes=int(raw)))
    else:
        assert_rejected(raw)


@example(LOW)
@given(st.integers(LOW, HIGH))
def test_rejects_trailing_newline(n):
    assert_rejected(f"{n}\n")


@example(5000)
@given(st.integers(4301, 6000))
def test_rejects_huge_digit_strings(digits):
    assert_rejected("9" * digits)
