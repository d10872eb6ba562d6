"""inspect_managed_members on a large assembly: speed and memory.

An mcs-built assembly of 301 types and ~4,200 methods (about 450 KB, each body a few dozen CIL
instructions with calls and field accesses) read by the reader effect and derived into the
complete members result (wire form), in a child process, median of 3. Targets: <= 2 s and <= 200 MB
peak RSS. CPU time is the verdict (the shared host's load stretches wall time); wall is reported beside it. The baseline is dnfile alone loading every row of the same file (what parsing costs
before any of our work).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile

from tests.benchmarks import ROOT, Row, median, verdict

BENCH = "managed"
TARGET_S = 2.0
TARGET_MIB = 200

_MEMBERS = r"""
import resource, sys, time
start = time.perf_counter()
from effects.managed.reader import read_assembly
from rea.managed.facts import ManagedLimits, ReadManagedAssembly
from rea.managed.members import members_result
from rea.managed.records.artifact import MembersArgs
from rea.wire.convert import to_wire
limits = ManagedLimits(max_file_bytes=1 << 28, max_metadata_bytes=1 << 26, max_heap_item_bytes=1 << 20,
                       max_table_rows=100_000, max_method_body_bytes=1 << 20, max_method_instructions=10_000)
args = MembersArgs()  # every listing whole, 100 instruction anchors per body
begin, cpu = time.perf_counter(), time.process_time()
facts = read_assembly(ReadManagedAssembly(path=sys.argv[1], limits=limits, bodies=True)).unwrap()
result = to_wire(members_result(facts, "x86", args))
assert result["coverage"]["state"] == "complete", result["coverage"]["issues"][:3]
print(time.perf_counter() - begin, time.process_time() - cpu, len(result["types"]), len(result["methods"]),
      resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""

_BASELINE = r"""
import sys, time
import dnfile
begin, cpu = time.perf_counter(), time.process_time()
pe = dnfile.dnPE(sys.argv[1])
rows = sum(len(t.rows) for t in pe.net.mdtables.tables_list)
print(time.perf_counter() - begin, time.process_time() - cpu, rows, 0, 0)
"""


def source(types: int = 300, methods: int = 12) -> str:
    """`types` classes of `methods` methods each (plus .ctor and .cctor), and Program: 301 types, ~4,200 methods."""
    lines = ["using System;", "namespace Bench {"]
    for t in range(types):
        lines.append(f'public class C{t} {{ public int F; public static string S = "s{t}";')
        for m in range(methods):
            body = "; ".join(f"F += a * {k} + S.Length; if (F > {k * 7}) F -= Math.Abs(a - {k})" for k in range(1))
            lines.append(f"public int M{m}(int a) {{ {body}; return F + M{(m + 1) % methods}(a - 1); }}")
        lines.append("}")
    lines.append("public static class Program { public static int Main() { return new C0().M0(1); } } }")
    return "\n".join(lines)


def _child(code: str, path: str) -> tuple[float, float, int, int, int]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code, path], capture_output=True, text=True, env=env, check=True)
    seconds, cpu, types, methods, rss = out.stdout.split()
    return float(seconds), float(cpu), int(types), int(methods), int(rss)


def run() -> list[Row]:
    if shutil.which("mcs") is None:
        return [Row(BENCH, "inspect_managed_members", 0, "s", status="ERROR", target="needs mono-mcs")]
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "Bench.cs")
        out = os.path.join(tmp, "Bench.dll")
        with open(src, "w") as handle:
            handle.write(source())
        subprocess.run(["mcs", "-target:library", f"-out:{out}", src], check=True, capture_output=True)
        size_kb = os.path.getsize(out) / 1000
        ours = [_child(_MEMBERS, out) for _ in range(3)]
        base = [_child(_BASELINE, out) for _ in range(3)]
    seconds, cpu = median(o[0] for o in ours), median(o[1] for o in ours)
    baseline = median(b[1] for b in base)
    rss_mib = max(o[4] for o in ours) / 1024
    what = f"{size_kb:.0f} KB, {ours[0][2]} types, {ours[0][3]} methods"
    return [
        Row(
            BENCH,
            f"inspect_managed_members CPU ({what})",
            cpu,
            "s",
            "dnfile loading every row (CPU)",
            baseline,
            cpu / baseline if baseline else None,
            f"<= {TARGET_S} s",
            verdict(cpu <= TARGET_S),
        ),  # fmt: skip
        Row(
            BENCH,
            "inspect_managed_members wall (host load included)",
            seconds,
            "s",
            target=f"<= {TARGET_S} s",
            status=verdict(seconds <= TARGET_S),
        ),  # fmt: skip
        Row(
            BENCH,
            "inspect_managed_members peak RSS",
            rss_mib,
            "MiB",
            target=f"<= {TARGET_MIB} MiB",
            status=verdict(rss_mib <= TARGET_MIB),
        ),  # fmt: skip
    ]


if __name__ == "__main__":
    from tests.benchmarks import table

    print(table(run()))
