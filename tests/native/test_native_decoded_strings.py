"""Decoded strings (origin decoded): the decoder call sites of tests/native/test_native_stack_strings.py's gcc -O0
sample emulated in angr's worker. `hidden()` passes a XOR-encoded stack buffer to `decode` and the .rodata
`blob` to `copy_decode`; `noisy()` makes a system call (getpid) before its decode call. The expected values
are the C source's constants, the decoders' addresses nm's, the call sites objdump's call instructions.
One MCP session per module (a static binary loads slowly in angr): the first origin-decoded question
emulates, the second answers from the cache. Hypothesis checks the budget laws of the pure planner."""

from __future__ import annotations

import re
import time
from pathlib import Path

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcp_client import connect
from rea.native import decoding
from stack_strings_fixtures import BLOB, HIDDEN, NOISY, _inside, disassembly, nm, search_cli

DECODERS = ("decode", "copy_decode")


def _calls(path: Path) -> dict[tuple[str, str], int]:
    """(caller, callee) -> the address of objdump's call instruction."""
    symbols = nm(path)
    found = {}
    for at, (mnemonic, operands) in disassembly(path).items():
        target = re.search(r"<(decode|copy_decode)>", operands)
        if mnemonic != "call" or target is None:
            continue
        for caller in ("hidden", "noisy"):
            if _inside(at, symbols, caller):
                found[(caller, target.group(1))] = at
    return found


@pytest.fixture(scope="module")
def answers(samples, tmp_path_factory):
    """One session on the static sample: the default list, origin decoded (emulates) twice, and search."""
    cache = tmp_path_factory.mktemp("cache")

    async def go():
        env = {"REA_CACHE_DIR": str(cache), "PYTHONPATH": str(Path(__file__).parents[2])}
        async with connect(**env) as s:
            opened = await s.call_tool("open_binary", {"path": str(samples["static"])})
            assert opened.is_error is False, opened.content[0].text
            default = await s.call_tool("list_strings", {})
            notes: list[str] = []

            async def on_progress(progress, total, message):
                notes.append(message or "")

            started = time.monotonic()
            first = await s.call_tool("list_strings", {"origin": "decoded"}, progress_callback=on_progress)
            cold = time.monotonic() - started
            assert any("emulating decoder call site" in n for n in notes), notes
            started = time.monotonic()
            second = await s.call_tool("search_strings", {"pattern": "secret", "origin": "decoded"})
            warm = time.monotonic() - started
            replies = (default, first, second)
            assert all(r.is_error is False for r in replies), [r.content[0].text for r in replies]
            return [r.structured_content for r in replies], cold, warm

    return anyio.run(go)


def test_decoded_strings_are_the_sources_plaintexts_at_objdumps_call_sites(samples, answers):
    (_, decoded, _), _, _ = answers
    symbols, calls = nm(samples["static"]), _calls(samples["static"])
    rows = {r["value"]: r for r in decoded["normalized_result"]}
    assert set(rows) == {HIDDEN, BLOB}
    assert all(r["origin"] == "decoded" for r in rows.values())
    hidden, blob = rows[HIDDEN], rows[BLOB]
    assert hidden["decoder"] == f"0x{symbols['decode']:x}"
    assert hidden["call_site"] == hidden["address"] == f"0x{calls[('hidden', 'decode')]:x}"
    assert hidden["procedure"] == f"0x{symbols['hidden']:x}"
    assert blob["decoder"] == f"0x{symbols['copy_decode']:x}"
    assert blob["call_site"] == f"0x{calls[('hidden', 'copy_decode')]:x}"
    # the inputs the call ran on: the encoded stack buffer, its length and the key; the encoded blob
    encoded = bytes(ord(c) ^ 0x5A for c in HIDDEN) + b"\x5a"
    assert {"register": "rdi", "kind": "buffer", "value": encoded.hex()} in hidden["inputs"]
    assert {"register": "rsi", "kind": "integer", "value": f"{len(HIDDEN) + 1:#x}"} in hidden["inputs"]
    assert {"register": "rdx", "kind": "integer", "value": "0x5a"} in hidden["inputs"]
    blob_bytes = bytes(ord(c) ^ 0x5A for c in BLOB) + b"\x5a"
    # an input buffer is read up to its first NUL: the encoded blob has none, so the next .rodata follows it
    (source,) = [i for i in blob["inputs"] if i["register"] == "rsi"]
    assert source["kind"] == "buffer" and source["value"].startswith(blob_bytes.hex())


def test_a_caller_that_makes_a_syscall_first_is_not_emulated_and_says_so(samples, answers):
    (_, decoded, _), _, _ = answers
    site = f"0x{_calls(samples['static'])[('noisy', 'decode')]:x}"
    assert NOISY not in {r["value"] for r in decoded["normalized_result"]}
    text = " ".join(decoded["limitations"])
    said = re.search(re.escape(site) + r" \(caller 0x[0-9a-f]+\): ([^;]*)", text)
    assert said is not None, text
    assert "system call getpid" in said.group(1) and "before the call site" in said.group(1)
    assert re.search(r"Decoded strings: \d+ decoder call sites; \d+ emulated", text)


def test_the_default_answer_stays_fast_and_points_at_origin_decoded(answers):
    (default, _, _), _, _ = answers
    assert not any(r["origin"] == "decoded" for r in default["normalized_result"])
    assert "Ask with origin decoded" in " ".join(default["limitations"])


def test_the_second_question_answers_from_the_cache(answers):
    (_, _, searched), cold, warm = answers
    assert [(r["value"], r["origin"]) for r in searched["normalized_result"]] == [(BLOB, "decoded")]
    assert warm < 2.0 and warm < cold, (cold, warm)


def test_search_strings_origin_decoded_through_the_cli(samples, tmp_path):
    """A fresh process on the dynamic sample (angr loads it quickly): the CLI emulates too."""
    options = ("--pattern", r"^10\.", "--origin", "decoded", "--mode", "regex")
    rows = search_cli(samples["dynamic"], tmp_path / "cache", *options)
    symbols = nm(samples["dynamic"])
    assert [(r["value"], r["origin"], r["decoder"]) for r in rows] == [(HIDDEN, "decoded", f"0x{symbols['decode']:x}")]


def test_arm64_copy_decode_through_the_cli(samples, tmp_path):
    """AArch64 (the link register holds the return address): the .rodata blob decoded by copy_decode, at
    the `bl` aarch64-linux-gnu-objdump shows."""
    if "arm64" not in samples:
        pytest.skip("no AArch64 cross compiler")
    rows = search_cli(samples["arm64"], tmp_path / "cache", "--pattern", BLOB, "--origin", "decoded")
    symbols = nm(samples["arm64"], "aarch64-linux-gnu-nm")
    listing = disassembly(samples["arm64"], "aarch64-linux-gnu-objdump")
    (site,) = [
        at
        for at, (mnemonic, operands) in listing.items()
        if mnemonic == "bl" and "<copy_decode>" in operands and _inside(at, symbols, "hidden")
    ]
    assert [(r["value"], r["decoder"], r["call_site"]) for r in rows] == [
        (BLOB, f"0x{symbols['copy_decode']:x}", f"0x{site:x}")
    ]


# ------------------------------------------------------------------ laws of the pure planner


def _candidate(n: int, site: int) -> decoding.Candidate:
    """A candidate as the recovery reads it: the snapshot's row (rea.native.stackstrings.candidate_row's
    shape) structured by decoding.candidates."""
    row = {
        "caller": f"0x{0x1000 + n:x}",
        "call_site": f"0x{site:x}",
        "callee": "0x2000",
        "reasons": ["xor"],
        "arguments": [{"register": "rdi", "kind": "stack", "frame_offset": "rbp-0x10", "known_hex": "41414141"}],
    }
    return decoding.candidates({"decoder_candidates": [row]})[0]


_TEXT = st.binary(max_size=12)
_FACT = st.one_of(
    st.none(),
    st.builds(
        lambda status, stage: {"end": {"status": status, "stop_address": "0x10"}, "stage": stage},
        st.sampled_from(["step_limit", "time_limit", "memory_fault", "unsupported", "returned"]),
        st.sampled_from(["caller", "decoder"]),
    ),
    st.builds(
        lambda pairs: {
            "end": {"status": "returned_to_caller"},
            "stage": "decoder",
            "inputs": [],
            "outputs": [{"register": "rdi", "before_hex": b.hex(), "after_hex": a.hex()} for b, a in pairs],
        },
        st.lists(st.tuples(_TEXT, _TEXT), max_size=3),
    ),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 40), max_size=60), st.integers(0, 30), st.data())
def test_never_more_candidates_than_the_budget_and_each_is_exactly_one_outcome(sites, most, data):
    rows = [_candidate(n, 0x4000 + s) for n, s in enumerate(sites)]
    limits = decoding.Limits(candidates=most)
    chosen, skipped = decoding.choose(rows, limits)
    distinct = {r.call_site for r in rows}
    assert len(chosen) <= most and len(chosen) + len(skipped) == len(distinct)
    assert {r.call_site for r in chosen}.isdisjoint(f"0x{o.call_site:x}" for o in skipped)
    planned = decoding.plan(chosen, limits, "x86_64")
    assert len(planned["candidates"]) <= most
    facts = {
        "candidates": [{**fact, "call_site": r.call_site} for r in chosen if (fact := data.draw(_FACT)) is not None]
    }
    part = decoding.recovered(rows, limits, facts)
    statuses = [c["status"] for c in part["decode_coverage"]["call_sites"]]
    assert len(statuses) == len(distinct)
    assert set(statuses) <= {decoding.DECODED, decoding.NOTHING, decoding.NOT_EMULATED}
    by_site = {f["call_site"]: f for f in facts["candidates"]}
    for row in part["decode_coverage"]["call_sites"]:
        fact = by_site.get(row["call_site"])
        ran = fact is not None and fact["end"]["status"] == "returned_to_caller"
        assert (row["status"] != decoding.NOT_EMULATED) == ran
        assert (row["status"] == decoding.DECODED) == (row["strings"] > 0)
        assert row["status"] == decoding.DECODED or row.get("reason")
    for s in part["decoded_strings"]:
        assert len(s["value"]) >= 4 and all(c.isprintable() or c in "\t\n\r" for c in s["value"])
        assert s["origin"] == "decoded"
    text = decoding.coverage_text(part["decode_coverage"], len(rows))
    skipped_any = any(s == decoding.NOT_EMULATED for s in statuses)
    assert ("not emulated" in text) and (f"{statuses.count(decoding.NOT_EMULATED)} not emulated" in text)
    assert skipped_any == (statuses.count(decoding.NOT_EMULATED) > 0)


@settings(max_examples=200, deadline=None)
@given(_TEXT, _TEXT)
def test_an_output_is_decoded_only_when_printable_long_enough_and_changed(before, after):
    row = _candidate(0, 0x4000)
    fact = {
        "end": {"status": "returned_to_caller"},
        "outputs": [{"register": "rdi", "before_hex": before.hex(), "after_hex": after.hex()}],
    }
    got = decoding.outcome(row, fact)
    span = after.split(b"\0", 1)[0]
    while span and len(span) <= len(before) and span[-1] == before[len(span) - 1]:
        span = span[:-1]  # a trailing byte the call left as it was is not part of what it decoded
    printable = len(span) >= 4 and all(0x20 <= b < 0x7F or b in (9, 10, 13) for b in span)
    assert (got.status == decoding.DECODED) == printable
    if got.strings:
        assert got.strings[0].value.encode() == span


def test_a_decoder_that_rewrites_only_the_start_of_its_buffer_gives_only_what_it_decoded():
    """Session 37's walk: a XOR decoder rewrote 10 bytes of a 12-byte buffer whose last two encoded bytes
    ("ZZ", no NUL) stayed; the value carried them. The plaintext ends at the last byte the call changed."""
    encoded = bytes(b ^ 0x41 for b in b"105o01o0o7") + b"ZZ"
    fact = {
        "end": {"status": "returned_to_caller"},
        "outputs": [{"register": "rdi", "before_hex": encoded.hex(), "after_hex": (b"105o01o0o7ZZ").hex()}],
    }
    got = decoding.outcome(_candidate(0, 0x4000), fact)
    assert [s.value for s in got.strings] == ["105o01o0o7"]
    fresh = {"end": {"status": "returned_to_caller"}, "outputs": [{"register": "rax", "after_hex": b"hello\0x".hex()}]}
    assert [s.value for s in decoding.outcome(_candidate(0, 0x4000), fresh).strings] == ["hello"]


def test_a_candidate_the_total_time_did_not_reach_is_not_emulated_for_the_budget():
    row = _candidate(0, 0x4000)
    got = decoding.outcome(row, None)
    assert got.status == decoding.NOT_EMULATED and got.reason is not None and got.reason.startswith("budget")


def test_without_candidates_the_coverage_does_not_send_the_agent_to_origin_decoded():
    """gzip's 204 procedures have no decoder call site: telling the agent to ask with origin decoded would
    send it on a call that can only come back empty."""
    text = decoding.coverage_text(None, 0)
    assert "nothing to emulate" in text and "Ask with origin decoded" not in text
    assert "Ask with origin decoded" in decoding.coverage_text(None, 3)
