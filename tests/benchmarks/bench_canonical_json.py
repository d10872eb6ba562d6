"""canonical_sha256 throughput on a ~5 MB Evidence-shaped payload.

Target: rea.canonical_json.canonical_sha256 >= 100 MB/s (MB = 10**6 bytes of
canonical output) on both required variants: no floats, and ~5% of the records
carrying a float. Baselines, timed the same way in the same process:
rfc8785.dumps + hashlib.sha256 (the reference JCS implementation) and
orjson.dumps(OPT_SORT_KEYS) + hashlib.sha256 (the non-canonical speed ceiling).
An extra variant (no floats, one character beyond U+FFFF) shows the slow path.
"""

from __future__ import annotations

import hashlib
import random
import sys
from typing import Any

import orjson

from rea.canonical_json import canonical_sha256, canonicalize
from tests.benchmarks import MB, Row, best_of, verdict

BENCH = "canonical_json"
TARGET_MBPS = 100.0
RECORDS = 20_000
REPEAT_FAST = 7
REPEAT_REFERENCE = 3

_WORDS = (
    "init",
    "parse",
    "decode",
    "verify",
    "handler",
    "main",
    "objc_msgSend",
    "malloc",
    "memcpy",
    "Überprüfung",
    "données",
    "函数",
    "Привет",
    "señal",
    "naïve",
    "Ωmega",
    "東京",
    "résumé",
)
_KINDS = ("call", "jump", "data", "read", "write")


def _procedure(rng: random.Random, i: int, with_float: bool) -> dict[str, Any]:
    start = 0x100000000 + i * 0x40
    name = f"{rng.choice(_WORDS)}_{i:x}" if rng.random() < 0.7 else f"sub_{start:x}"
    proc: dict[str, Any] = {
        "address": f"0x{start:x}",
        "name": name,
        "size": rng.randrange(4, 4096),
        "instructions": rng.randrange(1, 1024),
        "callees": [rng.randrange(0x100000000, 0x100400000) for _ in range(rng.randrange(0, 4))],
        "basic_blocks": [[start + 4 * b, start + 4 * b + rng.randrange(4, 64)] for b in range(rng.randrange(1, 4))],
        "xrefs": [
            {"from": f"0x{rng.randrange(0x100000000, 0x100400000):x}", "kind": rng.choice(_KINDS)}
            for _ in range(rng.randrange(0, 2))
        ],
        "strings": [
            " ".join(rng.choice(_WORDS) for _ in range(rng.randrange(1, 4))) for _ in range(rng.randrange(0, 2))
        ],
        "flags": {"thunk": rng.random() < 0.05, "noreturn": rng.random() < 0.02},
    }
    if with_float:
        proc["entropy"] = round(rng.uniform(0.0, 8.0), rng.randrange(1, 12))
    return proc


def payload(*, float_share: float, astral: bool = False, records: int = RECORDS, seed: int = 8785) -> dict[str, Any]:
    """A dict shaped like an Evidence record whose normalized_result lists `records` procedures."""
    rng = random.Random(seed)
    procs = [_procedure(rng, i, rng.random() < float_share) for i in range(records)]
    if astral:
        procs[records // 2]["strings"].append("log line \U0001f600")
    return {
        "schema_version": 2,
        "evidence_id": "ev_" + "0" * 64,
        "subject": {
            "name": "Sample.app",
            "digest": {"sha256": "ab" * 32},
            "format": "mach-o",
            "architecture": "arm64",
            "local_path": "/tmp/Sample.app/Contents/MacOS/Sample",
        },
        "provider": {"id": "hopper", "name": "Hopper Disassembler", "version": "5.17.2"},
        "analysis_profile": None,
        "predicate_type": "rea.analysis/v2",
        "operation": "list_procedures",
        "parameters": {"limit": records, "cursor": None},
        "raw_result": None,
        "normalized_result": {"procedures": procs, "total": records, "truncated": False},
        "confidence": "observed",
        "authority": "shipped-artifact",
        "environment": None,
        "limitations": [],
        "locations": [{"kind": "address-range", "start": "0x100000000", "end": f"0x{0x100000000 + records * 0x40:x}"}],
        "evidence_links": [],
    }


def _float_share(value: dict[str, Any]) -> float:
    procs = value["normalized_result"]["procedures"]
    return sum("entropy" in p for p in procs) / len(procs)


def _measure(label: str, value: dict[str, Any], required: bool, slow: bool) -> list[Row]:
    import rfc8785

    canonical = canonicalize(value)
    size = len(canonical)
    reference = rfc8785.dumps(value)
    same = canonical == reference
    digest_same = canonical_sha256(value) == hashlib.sha256(reference).hexdigest()

    t_rea = best_of(lambda: canonical_sha256(value), REPEAT_FAST)
    t_orjson = best_of(
        lambda: hashlib.sha256(orjson.dumps(value, option=orjson.OPT_SORT_KEYS)).hexdigest(), REPEAT_FAST
    )
    t_rfc = best_of(lambda: hashlib.sha256(rfc8785.dumps(value)).hexdigest(), REPEAT_REFERENCE)
    rea, orj, rfc = size / t_rea / MB, size / t_orjson / MB, size / t_rfc / MB
    status = verdict(rea >= TARGET_MBPS) if required else verdict(rea >= TARGET_MBPS) + "(extra)"

    print(
        f"[{BENCH}] variant={label}: {size / MB:.2f} MB canonical, "
        f"{len(value['normalized_result']['procedures'])} records, floats in {_float_share(value):.1%} of them; "
        f"rea bytes == rfc8785 bytes: {same}; digests equal: {digest_same}"
    )
    print(f"  rea.canonical_sha256     {rea:9.1f} MB/s  best {t_rea * 1e3:8.2f} ms of {REPEAT_FAST}")
    print(f"  orjson SORT_KEYS+sha256  {orj:9.1f} MB/s  best {t_orjson * 1e3:8.2f} ms of {REPEAT_FAST}")
    print(f"  rfc8785.dumps+sha256     {rfc:9.1f} MB/s  best {t_rfc * 1e3:8.2f} ms of {REPEAT_REFERENCE}")
    print(
        f"  ratio rea/rfc8785 = {rea / rfc:.2f}x   rea/orjson = {rea / orj:.2f}x   "
        f"target >= {TARGET_MBPS:.0f} MB/s: {status}"
    )
    if not same:
        print("  WARNING: rea.canonical_json output differs from rfc8785 for this payload")
    _breakdown(value, slow)
    return [
        Row(BENCH, f"{label} rea MB/s", rea, "MB/s", "rfc8785", rfc, rea / rfc, f">={TARGET_MBPS:.0f} MB/s", status),
        Row(BENCH, f"{label} rea MB/s", rea, "MB/s", "orjson", orj, rea / orj, "", "info"),
    ]


def _breakdown(value: dict[str, Any], slow: bool) -> None:
    """Where canonical_sha256's time goes. Reads the module's private helpers when present (never calls
    anything that changes state); a helper that is renamed away is simply left out."""
    from rea import canonical_json as cj

    fast = getattr(cj, "_FAST", orjson.OPT_SORT_KEYS)
    out = orjson.dumps(value, option=fast)
    parts = [("orjson fast dumps", best_of(lambda: orjson.dumps(value, option=fast), REPEAT_FAST))]
    suspect = getattr(cj, "_SUSPECT", None)
    if suspect is not None:
        parts.append(("_SUSPECT scan", best_of(lambda: suspect.search(out), REPEAT_FAST)))
    census = getattr(cj, "_needs_exact", None)
    if callable(census):
        parts.append(("_needs_exact census", best_of(lambda: census(value), REPEAT_FAST)))
    below = getattr(cj, "_BELOW_F0", None)
    if isinstance(below, bytes):
        parts.append(("non-BMP byte scan", best_of(lambda: out.isascii() or out.translate(None, below), REPEAT_FAST)))
    exact, passthrough = getattr(cj, "_exact", None), getattr(cj, "_PASSTHROUGH", 0)
    if slow and callable(exact):
        rebuilt = exact(value)
        parts += [
            ("_exact rebuild", best_of(lambda: exact(value), REPEAT_REFERENCE)),
            ("orjson dumps of rebuilt", best_of(lambda: orjson.dumps(rebuilt, option=passthrough), REPEAT_FAST)),
        ]
    parts.append(("sha256", best_of(lambda: hashlib.sha256(out).hexdigest(), REPEAT_FAST)))
    print(
        f"  breakdown ({'exact' if slow else 'fast'} path expected): "
        + ", ".join(f"{name} {t * 1e3:.1f} ms" for name, t in parts)
    )


def run() -> list[Row]:
    rows: list[Row] = []
    rows += _measure("no-floats", payload(float_share=0.0), required=True, slow=False)
    rows += _measure("5%-floats", payload(float_share=0.05), required=True, slow=True)
    rows += _measure("1-astral-char", payload(float_share=0.0, astral=True), required=False, slow=True)
    return rows


if __name__ == "__main__":
    from tests.benchmarks import table

    print(table(run()))
    sys.exit(0)
