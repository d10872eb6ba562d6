"""Decoded strings, the pure part: which decoder call sites to emulate within a budget, what an emulated
call produced, and what the coverage says.

Why: a string a routine decodes at run time is never in the file; the fast index finds the call sites worth
running (rea.native.stackstrings.candidates: a small XOR or loop routine given a filled stack buffer or
constant data), and the angr worker (effects.native.decoder) runs each caller from its entry up to the call
site, records the argument registers and the bytes they point to, runs the call itself and reads those
buffers again. This module decides before (the plan: never more candidates than the budget) and reads after
(each candidate is exactly one of decoded / emulated-nothing / not-emulated), without angr, so the laws are
checkable.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

import attrs

from rea.native import emulation
from rea.native.stackframe import MIN_CHARS
from rea.native.stackstrings import DecodedInput, DecodedString, decoded_row

MAX_OUTPUT: Final = 256  # bytes of a buffer read after the call (up to its NUL)
DECODED: Final = "decoded"
NOTHING: Final = "emulated-nothing"
NOT_EMULATED: Final = "not-emulated"


@attrs.frozen(kw_only=True)
class Limits:
    """The recovery's budget: how many call sites, the steps and time of each of its two runs (the caller up
    to the call site, then the call), the memory each may write, and the time of the whole recovery."""

    candidates: int = 256
    steps: int = 20_000
    time_ms: int = 5_000
    memory_bytes: int = 16 << 20
    total_ms: int = 120_000

    def run_budget(self) -> emulation.Budget:
        return emulation.Budget(steps=self.steps, time_ms=self.time_ms, memory_bytes=self.memory_bytes)


DEFAULT: Final = Limits()


@attrs.frozen(kw_only=True)
class Outcome:
    """What became of one candidate call site: decoded (strings), emulated but nothing new and printable
    came out, or not emulated (with the reason: budget, unsupported, fault, never reached)."""

    caller: int
    call_site: int
    decoder: int
    status: str  # DECODED | NOTHING | NOT_EMULATED
    reason: str | None = None
    strings: tuple[DecodedString, ...] = ()


@attrs.frozen(kw_only=True)
class Candidate:
    """A decoder call site as the index's snapshot lists it (`decoder_candidates`, written by
    rea.native.stackstrings.candidate_row): what the plan sends the worker and the outcome names. The
    addresses are kept as the snapshot spells them: the worker echoes the call site back as it was sent."""

    caller: str
    call_site: str
    callee: str
    registers: tuple[str, ...]


def candidates(snapshot: Mapping[str, Any]) -> list[Candidate]:
    """The snapshot's decoder call sites, structured once where the recovery reads them."""
    return [
        Candidate(
            caller=row["caller"],
            call_site=row["call_site"],
            callee=row["callee"],
            registers=tuple(a["register"] for a in row["arguments"]),
        )
        for row in snapshot.get("decoder_candidates", ())
    ]


def _int(text: str) -> int:
    return int(text, 16)


def choose(found: Sequence[Candidate], limits: Limits) -> tuple[list[Candidate], list[Outcome]]:
    """The call sites to run (each once, in the index's order, at most `limits.candidates`) and the ones left
    out by the budget, already not-emulated."""
    chosen: list[Candidate] = []
    skipped: list[Outcome] = []
    seen: set[str] = set()
    for row in found:
        if row.call_site in seen:
            continue
        seen.add(row.call_site)
        if len(chosen) < limits.candidates:
            chosen.append(row)
        else:
            skipped.append(_not_emulated(row, f"budget: only the first {limits.candidates} call sites are emulated"))
    return chosen, skipped


def _not_emulated(row: Candidate, reason: str) -> Outcome:
    return Outcome(
        caller=_int(row.caller),
        call_site=_int(row.call_site),
        decoder=_int(row.callee),
        status=NOT_EMULATED,
        reason=reason,
    )


def plan(chosen: Sequence[Candidate], limits: Limits, architecture: str) -> dict[str, Any]:
    """The worker's request: plain JSON, link-time addresses (the worker rebases them)."""
    return {
        "architecture": architecture,
        "candidates": [
            {"caller": c.caller, "call_site": c.call_site, "callee": c.callee, "registers": list(c.registers)}
            for c in chosen
        ],
        "budget": attrs.asdict(limits.run_budget()),
        "total_ms": limits.total_ms,
        "max_output": MAX_OUTPUT,
    }


def _printable(data: bytes) -> str | None:
    """`data` as text, when it is at least MIN_CHARS printable characters."""
    text = emulation.c_string(data)
    return text if text is not None and len(text) >= MIN_CHARS else None


def decoded_span(after: bytes, before: bytes) -> bytes:
    """What the call decoded into a buffer: the bytes before the first NUL, cut after the last byte the call
    changed. Why: a decoder that rewrites the first n bytes of a larger buffer leaves the rest as it was, and
    those unchanged trailing bytes (the encoded tail, padding) are not part of the plaintext. Bytes past the
    end of `before` (a buffer that did not exist before the call) count as changed. Empty when nothing
    before the first NUL changed."""
    head = after.split(b"\0", 1)[0]
    changed = [i for i, byte in enumerate(head) if i >= len(before) or before[i] != byte]
    return head[: changed[-1] + 1] if changed else b""


def outcome(row: Candidate, fact: Mapping[str, Any] | None) -> Outcome:
    """One candidate from the worker's plain fact: not run (no fact: the total time ran out first), stopped
    before or inside the call (not-emulated, the canonical reason), or run through the call: each pointer
    argument's buffer (and the returned pointer's) read after the call is a decoded string when it is
    printable text of at least MIN_CHARS characters that the call changed."""
    if fact is None:
        return _not_emulated(row, "budget: the recovery's total time ran out before this call site")
    if fact.get("end", {}).get("status") != "returned_to_caller":
        return _not_emulated(row, _why(fact))
    inputs = tuple(
        DecodedInput(register=i["register"], kind=i["kind"], value=i["value"]) for i in fact.get("inputs", ())
    )
    values: list[str] = []
    for buffer in fact.get("outputs", ()):
        text = _printable(decoded_span(bytes.fromhex(buffer["after_hex"]), bytes.fromhex(buffer.get("before_hex", ""))))
        if text is not None and text not in values:
            values.append(text)
    caller, site, decoder = _int(row.caller), _int(row.call_site), _int(row.callee)
    strings = tuple(
        DecodedString(decoder=decoder, call_site=site, caller=caller, value=v, inputs=inputs) for v in values
    )
    return Outcome(
        caller=caller,
        call_site=site,
        decoder=decoder,
        status=DECODED if strings else NOTHING,
        reason=None if strings else "the call changed no argument buffer into printable text",
        strings=strings,
    )


def _why(fact: Mapping[str, Any]) -> str:
    """Where and why a run stopped: in the caller (before the call site) or in the call."""
    end = fact.get("end") or {"status": "unsupported"}
    stage = "the caller, before the call site" if fact.get("stage") == "caller" else "the decoder call"
    if end.get("status") == "returned":
        return f"{stage}: returned without reaching the call site"
    said = emulation.reason(end)
    if end.get("status") in ("step_limit", "time_limit", "memory_limit"):
        said = f"budget: {said}"
    return f"{stage}: {said}"


def recovered(found: Sequence[Candidate], limits: Limits, facts: Mapping[str, Any]) -> dict[str, Any]:
    """The snapshot's decoded part from the worker's reply (`facts["candidates"]`: one fact per call site it
    ran, by call site): the decoded string rows and the coverage of every candidate."""
    chosen, skipped = choose(found, limits)
    by_site = {f["call_site"]: f for f in facts.get("candidates", ())}
    outcomes = [outcome(row, by_site.get(row.call_site)) for row in chosen] + skipped
    return {
        "decoded_strings": [decoded_row(s) for o in outcomes for s in o.strings],
        "decode_coverage": {
            "engine": facts.get("engine"),
            "elapsed_ms": facts.get("elapsed_ms"),
            "candidates": len(outcomes),
            "call_sites": [_coverage_row(o) for o in outcomes],
        },
    }


def _coverage_row(o: Outcome) -> dict[str, Any]:
    return {
        "caller": f"0x{o.caller:x}",
        "call_site": f"0x{o.call_site:x}",
        "decoder": f"0x{o.decoder:x}",
        "status": o.status,
        "strings": len(o.strings),
        **({"reason": o.reason} if o.reason else {}),
    }


MAX_LISTED: Final = 20  # call sites named one by one in the coverage text


def coverage_text(coverage: Mapping[str, Any] | None, candidates: int) -> str:
    """The decoded strings' coverage sentence: which call sites were emulated and which were not (each named
    with its reason, the first MAX_LISTED of them), or that origin decoded runs them."""
    if coverage is None and candidates == 0:
        return (
            "Decoded strings (produced at run time by a decoder routine): none to recover; no call site passes a "
            "stack buffer filled by immediate stores, or constant data, to a small routine that XORs or loops, "
            "so origin decoded has nothing to emulate."
        )
    if coverage is None:
        return (
            f"Decoded strings (produced at run time by a decoder routine) were not recovered in this answer: "
            f"{candidates} call sites pass a stack buffer filled by immediate stores, or constant data, to a small "
            "routine that XORs or loops. Ask with origin decoded to emulate them (angr, in the worker; slow on "
            "the first call, cached after)."
        )
    rows = coverage["call_sites"]
    decoded = [r for r in rows if r["status"] == DECODED]
    nothing = [r for r in rows if r["status"] == NOTHING]
    skipped = [r for r in rows if r["status"] == NOT_EMULATED]
    said = (
        f"Decoded strings: {len(rows)} decoder call sites; {len(decoded) + len(nothing)} emulated "
        f"({len(decoded)} produced {sum(r['strings'] for r in decoded)} strings, {len(nothing)} produced none), "
        f"{len(skipped)} not emulated."
    )
    if skipped:
        named = "; ".join(f"{r['call_site']} (caller {r['caller']}): {r['reason']}" for r in skipped[:MAX_LISTED])
        more = f"; and {len(skipped) - MAX_LISTED} more" if len(skipped) > MAX_LISTED else ""
        said += f" Not emulated: {named}{more}."
    if nothing:
        said += " Emulated without a string: " + ", ".join(r["call_site"] for r in nothing[:MAX_LISTED]) + "."
    return (
        said + " Each caller runs from its entry with zeroed arguments up to the call site, then through the call "
        "(angr: its unicorn engine where installed, else VEX; nothing on the host); a string that depends on the caller's real arguments or on "
        "run-time state is not recovered."
    )
