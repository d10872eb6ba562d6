"""Peak memory of a streamed bundle export of a 10,000-record ledger.

A fresh child process (so nothing else is resident) imports everything, takes
its RSS as the baseline, builds a Session of 10,000 Evidence records (~1 KB
normalized_result each, made by rea.evidence.create_evidence and kept by
rea.session.record one at a time, as the server retains them), then exports it
with effects.fs.publish_atomically(path, rea.bundle.bundle_chunks(session), ...)
under anyio.run.

ledger_size        = RSS after building - baseline RSS
export_peak_growth = peak RSS during export - RSS before export
peak_growth_total  = peak RSS during export - baseline RSS
Target: peak_growth_total / ledger_size < 2.

The peak is exact on Linux: the child resets the kernel's high-water mark
(/proc/self/clear_refs, "5") before the export and reads VmHWM after it; a
sampling thread (1 ms) runs as a cross-check and is the only source elsewhere.
Informational: the same ledger exported the non-streaming way,
canonicalize(bundle_json(session)), measured the same way in the same child.
"""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import threading
import time
from typing import Any

import orjson

from tests.benchmarks import MB, ROOT, Row, verdict

BENCH = "export_memory"
RECORDS = 10_000
TARGET_RATIO = 2.0
MIB = 1 << 20

_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


# ----------------------------------------------------------------- memory probes


def rss() -> int:
    try:
        with open("/proc/self/statm", "rb") as handle:
            return int(handle.read().split()[1]) * _PAGE
    except OSError:
        import psutil

        return psutil.Process().memory_info().rss


def _hwm() -> int | None:
    try:
        with open("/proc/self/status", "rb") as handle:
            for line in handle:
                if line.startswith(b"VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def _reset_hwm() -> bool:
    try:
        with open("/proc/self/clear_refs", "w") as handle:
            handle.write("5")
        return True
    except OSError:
        return False


class PeakProbe:
    """Peak RSS over a `with` block: kernel high-water mark when resettable, plus a sampling thread."""

    def __init__(self, interval: float = 0.001) -> None:
        self.interval = interval
        self.sampled = 0
        self.samples = 0
        self.exact = False
        self.peak = 0
        self._stop = threading.Event()

    def _sample(self) -> None:
        while not self._stop.is_set():
            self.sampled = max(self.sampled, rss())
            self.samples += 1
            time.sleep(self.interval)

    def __enter__(self) -> PeakProbe:
        gc.collect()
        self.exact = _reset_hwm()
        self.sampled = rss()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self._thread.join()
        self.sampled = max(self.sampled, rss())
        hwm = _hwm() if self.exact else None
        self.peak = max(self.sampled, hwm or 0)


# ----------------------------------------------------------------- the ledger


def _normalized_result(i: int) -> dict[str, Any]:
    """About 1 KB of canonical JSON, shaped like a decompiled-procedure observation."""
    start = 0x100004000 + i * 0x80
    mnemonics = ("stp", "mov", "bl", "ldr", "add", "cmp", "b.ne", "ret")
    return {
        "procedure": {"address": f"0x{start:x}", "name": f"-[Überprüfer verify:{i}]", "size": 0x80},
        "instructions": [
            {
                "address": f"0x{start + 4 * k:x}",
                "mnemonic": mnemonics[(i + k) % len(mnemonics)],
                "operands": f"x{k % 29}, [sp, #0x{16 * k:x}]",
            }
            for k in range(10)
        ],
        "callees": [start + 0x1000 * k for k in range(4)],
        "strings": [f"checksum mismatch in block {i}", "données corrompues"],
        "summary": f"Procedure {i} validates a record and branches to the error path on mismatch.",
    }


def build_ledger(records: int) -> tuple[Any, dict[str, float]]:
    from rea.evidence import Provider, Subject, create_evidence, create_profile
    from rea.session import Session, record

    provider = Provider(id="hopper", name="Hopper Disassembler", version="5.17.2")
    profile = create_profile(provider, 1, {"analysis": "full", "objc": True})
    subject = Subject(
        name="Sample",
        sha256="ab" * 32,
        format="mach-o",
        architecture="arm64",
        local_path="/Applications/Sample.app/Contents/MacOS/Sample",
    )
    session = Session()
    t_create = t_record = 0.0
    t_record_first = t_record_last = 0.0
    tenth = max(1, records // 10)
    for i in range(records):
        t0 = time.perf_counter()
        evidence = create_evidence(
            provider=provider,
            operation="decompile_procedure",
            parameters={"address": f"0x{0x100004000 + i * 0x80:x}"},
            normalized_result=_normalized_result(i),
            subject=subject,
            analysis_profile=profile,
            authority="controlled-replay" if i % 100 == 0 else "shipped-artifact",
        ).unwrap()
        t1 = time.perf_counter()
        session = record(session, (evidence,))
        spent = time.perf_counter() - t1
        t_record += spent
        t_create += t1 - t0
        if i < tenth:
            t_record_first += spent
        elif i >= records - tenth:
            t_record_last += spent
    return session, {
        "create_s": t_create,
        "record_s": t_record,
        "record_first_us": t_record_first / tenth * 1e6,
        "record_last_us": t_record_last / tenth * 1e6,
    }


# ----------------------------------------------------------------- child process


def child(records: int) -> dict[str, Any]:
    import tempfile

    import anyio

    from effects.fs import publish_atomically
    from rea.bundle import bundle_chunks, bundle_json
    from rea.canonical_json import canonicalize
    from rea.evidence import create_evidence  # noqa: F401  (imported before the baseline)

    gc.collect()
    baseline = rss()
    t0 = time.perf_counter()
    session, build = build_ledger(records)
    build["build_s"] = time.perf_counter() - t0
    gc.collect()
    built = rss()

    async def report(phase: str, message: str) -> None:
        return None

    with tempfile.TemporaryDirectory(prefix="rea-bench-") as folder:
        path = os.path.join(folder, "bundle.json")
        before_export = rss()
        with PeakProbe() as probe:
            t0 = time.perf_counter()
            receipt = anyio.run(publish_atomically, path, bundle_chunks(session), True, report, "export")
            export_s = time.perf_counter() - t0
        receipt = receipt.unwrap()
        size_on_disk = os.path.getsize(path)
        with open(path, "rb") as handle:
            same_as_tree = handle.read() == canonicalize(bundle_json(session))

    t0 = time.perf_counter()
    chunk_bytes = sum(len(c) for c in bundle_chunks(session))
    chunks_s = time.perf_counter() - t0

    gc.collect()
    before_tree = rss()
    with PeakProbe() as tree_probe:
        t0 = time.perf_counter()
        whole = canonicalize(bundle_json(session))
        tree_s = time.perf_counter() - t0
        del whole

    return {
        "records": len(session.evidence),
        "baseline": baseline,
        "built": built,
        "before_export": before_export,
        "peak": probe.peak,
        "peak_sampled": probe.sampled,
        "samples": probe.samples,
        "exact": probe.exact,
        "bytes": receipt.bytes,
        "size_on_disk": size_on_disk,
        "export_s": export_s,
        "same_as_tree": same_as_tree,
        "chunk_bytes": chunk_bytes,
        "chunks_s": chunks_s,
        "before_tree": before_tree,
        "tree_peak": tree_probe.peak,
        "tree_s": tree_s,
        **build,
    }


# ----------------------------------------------------------------- parent


def _mib(n: float) -> str:
    return f"{n / MIB:.1f} MiB"


def run() -> list[Row]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    done = subprocess.run(
        [sys.executable, "-m", "tests.benchmarks.bench_export_memory", "--child", str(RECORDS)],
        capture_output=True,
        cwd=ROOT,
        env=env,
        timeout=1800,
    )
    if done.returncode != 0:
        raise RuntimeError(f"child failed ({done.returncode}): {done.stderr.decode(errors='replace')[-2000:]}")
    r = orjson.loads(done.stdout.splitlines()[-1])

    ledger = r["built"] - r["baseline"]
    export_growth = r["peak"] - r["before_export"]
    total = r["peak"] - r["baseline"]
    ratio = total / ledger
    tree_growth = r["tree_peak"] - r["before_tree"]
    mbps = r["bytes"] / r["export_s"] / MB
    ok = ratio < TARGET_RATIO
    per_record = r["record_s"] / r["records"] * 1e6

    print(
        f"[{BENCH}] {r['records']} records; peak source: "
        f"{'VmHWM reset via /proc/self/clear_refs' if r['exact'] else 'sampling thread only'} "
        f"(sampler: {r['samples']} samples, max {_mib(r['peak_sampled'] - r['before_export'])} over pre-export)"
    )
    print(
        f"  build: {r['build_s']:.2f} s (create_evidence {r['create_s']:.2f} s, "
        f"session.record {r['record_s']:.2f} s = {per_record:.0f} us/record: "
        f"{r['record_first_us']:.0f} us in the first tenth, {r['record_last_us']:.0f} us in the last, "
        f"since each call copies the whole ledger dict)"
    )
    print(
        f"  RSS baseline {_mib(r['baseline'])}, after build {_mib(r['built'])}, before export {_mib(r['before_export'])}, "
        f"export peak {_mib(r['peak'])}"
    )
    print(f"  ledger_size {_mib(ledger)}  export_peak_growth {_mib(export_growth)}  peak_growth_total {_mib(total)}")
    print(f"  ratio peak_growth_total/ledger_size = {ratio:.3f}   target < {TARGET_RATIO:.0f}: {verdict(ok)}")
    print(
        f"  written {r['bytes']:,} bytes ({r['size_on_disk']:,} on disk) in {r['export_s']:.3f} s = {mbps:.1f} MB/s; "
        f"equals canonicalize(bundle_json): {r['same_as_tree']}"
    )
    print(
        f"  bundle_chunks alone (no IO): {r['chunk_bytes'] / r['chunks_s'] / MB:.1f} MB/s; "
        f"non-streaming canonicalize(bundle_json) peak growth {_mib(tree_growth)} in {r['tree_s']:.3f} s"
    )
    return [
        Row(
            BENCH,
            "peak_growth_total/ledger_size",
            ratio,
            "x",
            "ledger MiB",
            ledger / MIB,
            None,
            f"<{TARGET_RATIO:.0f}",
            verdict(ok),
        ),
        Row(
            BENCH,
            "export_peak_growth MiB",
            export_growth / MIB,
            "MiB",
            "tree MiB",
            tree_growth / MIB,
            export_growth / tree_growth if tree_growth > 0 else None,
            "",
            "info",
        ),
        Row(
            BENCH,
            "export MB/s",
            mbps,
            "MB/s",
            "chunks MB/s",
            r["chunk_bytes"] / r["chunks_s"] / MB,
            mbps / (r["chunk_bytes"] / r["chunks_s"] / MB),
            "",
            "info",
        ),
        Row(BENCH, "session.record us/record", per_record, "us", "", None, None, "", "info"),
    ]


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        result = child(int(sys.argv[2]) if len(sys.argv) > 2 else RECORDS)
        sys.stdout.write(orjson.dumps(result).decode() + "\n")
    else:
        from tests.benchmarks import table

        print(table(run()))
