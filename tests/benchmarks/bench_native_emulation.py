"""emulate_native_function through the real MCP server on a static gcc -O0 sample, cold cache, with `objdump -d`
of the same file in the same run as the baseline.

Target (issue 29): emulating a decoder of about 100 instructions within 2 s cold on a static binary (the
procedure found through the fast index, never the whole-program CFG). Cold is open_binary + the first
emulation on a new server with an empty cache (the index built, angr imported and the file loaded); warm
is the same call again on that connection.

Second target (issue 29): decoded-string recovery over a ~770 KB static sample within 30x `objdump -d` of
the same file. The sample is tests/native/test_native_stack_strings.py's (a XOR-encoded stack buffer passed to
`decode`, a .rodata blob to `copy_decode`), gcc -O0 -static; measured through MCP on a new server with an
empty cache: `list_strings` (the index) first, then the timed `list_strings` with origin decoded (angr's
start, the load and every decoder call site emulated), whose answer must hold the source's plaintexts.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio

from tests.benchmarks import Row, verdict
from tests.benchmarks.bench_native import server
from tests.benchmarks.bench_native_index import objdump_seconds

BENCH = "native_emulation"
PLAIN = b"http://198.51.100.7:8443/gate"
SOURCE = """
__attribute__((noinline)) void decode(unsigned char *buf, int len, unsigned int seed) {
  unsigned int k = seed, m = seed ^ 0x5bd1e995u;
  for (int i = 0; i < len; i++) {
    k = k * 1103515245u + 12345u;
    m = m * 69069u + 1u;
    unsigned char b = (unsigned char)(buf[i] + (unsigned char)(k ^ m));
    b = b ^ (unsigned char)(i * 31u + (k >> 8));
    b = (unsigned char)((b >> 1) | (b << 7));
    b = b ^ (unsigned char)(m >> 8);
    b = (unsigned char)(b - (unsigned char)(m >> 20));
    b = (unsigned char)((b << 2) | (b >> 6));
    b = b ^ (unsigned char)(k >> 16);
    b = (unsigned char)((b << 3) | (b >> 5));
    b = (unsigned char)(b - (i & 7));
    buf[i] = b ^ (unsigned char)(k >> 24);
  }
}
int main(int argc, char **argv) { unsigned char b[4] = {1, 2, 3, 4}; decode(b, 4, argc); return b[0]; }
"""
SEED = 0x1234


def encode(plain: bytes, seed: int) -> bytes:
    """The inverse of the sample's decode, written here from its definition (each step undone in reverse)."""
    k, m, out = seed, seed ^ 0x5BD1E995, bytearray()
    for i, byte in enumerate(plain):
        k = (k * 1103515245 + 12345) & 0xFFFFFFFF
        m = (m * 69069 + 1) & 0xFFFFFFFF
        b = byte ^ (k >> 24) & 0xFF
        b = (b + (i & 7)) & 0xFF
        b = ((b >> 3) | (b << 5)) & 0xFF
        b ^= (k >> 16) & 0xFF
        b = ((b >> 2) | (b << 6)) & 0xFF
        b = (b + ((m >> 20) & 0xFF)) & 0xFF
        b ^= (m >> 8) & 0xFF
        b = ((b << 1) | (b >> 7)) & 0xFF
        b ^= (i * 31 + (k >> 8)) & 0xFF
        out.append((b - ((k ^ m) & 0xFF)) & 0xFF)
    return bytes(out)


def _build(root: Path) -> Path:
    (root / "decode.c").write_text(SOURCE)
    subprocess.run(["gcc", "-O0", "-static", "-o", str(root / "decode"), str(root / "decode.c")], check=True)
    return root / "decode"


def _instructions(target: Path) -> int:
    out = subprocess.run(
        ["objdump", "-d", "--disassemble=decode", str(target)], capture_output=True, text=True, check=True
    ).stdout
    return sum(1 for line in out.splitlines() if line.startswith("  ") and "\t" in line)


async def _measure(target: Path) -> dict[str, float]:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import stdio_client

    args = {
        "procedure": "decode",
        "arguments": [{"kind": "buffer", "hex": encode(PLAIN, SEED).hex()}, len(PLAIN), SEED],
    }
    figures: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as cache:
        async with stdio_client(server(cache)) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            start = time.perf_counter()
            await s.call_tool("open_binary", {"path": str(target)})
            reply = await s.call_tool("emulate_native_function", args)
            figures["cold_s"] = time.perf_counter() - start
            start = time.perf_counter()
            again = await s.call_tool("emulate_native_function", {**args, "max_steps": 19_999})
            figures["warm_s"] = time.perf_counter() - start
            for name, got in (("cold", reply), ("warm", again)):
                result = got.structured_content["normalized_result"] if not got.is_error else {}
                buffers = result.get("buffers") or [{"after": {"hex": ""}}]
                figures[f"{name}_correct"] = float(bytes.fromhex(buffers[0]["after"]["hex"]) == PLAIN)
                figures["executed"] = float(result.get("instructions", 0))
    return figures


def _strings_sample() -> Any:
    """tests/native_fixtures.py, where the stack-strings sample's source lives (tests/ on the path, as under pytest)."""
    tests = str(Path(__file__).resolve().parents[1])
    if tests not in sys.path:
        sys.path.append(tests)
    import native_fixtures

    return native_fixtures


def _build_strings(root: Path) -> Path:
    STRINGS = _strings_sample().STACK_SOURCE

    (root / "strings.c").write_text(STRINGS)
    target = root / "strings"
    subprocess.run(["gcc", "-O0", "-static", "-o", str(target), str(root / "strings.c")], check=True)
    return target


async def _measure_decoded(target: Path) -> dict[str, float]:
    """Cold recovery of decoded strings: the index first (list_strings), then origin decoded timed."""
    from mcp.client.session import ClientSession
    from mcp.client.stdio import stdio_client

    sample = _strings_sample()
    with tempfile.TemporaryDirectory() as cache:
        async with stdio_client(server(cache)) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            await s.call_tool("open_binary", {"path": str(target)})
            await s.call_tool("list_strings", {})
            start = time.perf_counter()
            reply = await s.call_tool("list_strings", {"origin": "decoded", "limit": 500})
            seconds = time.perf_counter() - start
    values = {row.get("value") for row in (reply.structured_content or {}).get("normalized_result") or []}
    return {"decoded_s": seconds, "decoded_correct": float({sample.HIDDEN, sample.BLOB} <= values)}


def _decoded_rows(root: Path) -> list[Row]:
    target = _build_strings(root)
    base = objdump_seconds(target)
    f = anyio.run(_measure_decoded, target)
    size = target.stat().st_size // 1000
    print(f"  strings: {size} KB; objdump -d {base:.2f} s; {f}")
    ratio = f["decoded_s"] / base
    return [
        Row(
            BENCH,
            f"decoded strings, static -O0 {size} KB, cold (list_strings origin decoded after the index)",
            f["decoded_s"],
            "s",
            "objdump -d",
            base,
            ratio,
            "<=30x",
            verdict(ratio <= 30 and f["decoded_correct"] == 1.0),
        )
    ]


def run() -> list[Row]:
    if shutil.which("gcc") is None:
        return [Row(BENCH, "skipped: gcc missing", float("nan"), "", status="info")]
    with tempfile.TemporaryDirectory() as root:
        target = _build(Path(root))
        base = objdump_seconds(target)
        body = _instructions(target)
        f = anyio.run(_measure, target)
        decoded = _decoded_rows(Path(root))
    print(f"  decode: {body} instructions, {f['executed']:.0f} executed; objdump -d {base:.2f} s; {f}")
    rows = []
    for name, label in (("cold", "cold (open_binary + first emulation)"), ("warm", "warm (same connection)")):
        seconds = f[f"{name}_s"]
        rows.append(
            Row(
                BENCH,
                f"static -O0 {body}-instruction decoder, {label}",
                seconds,
                "s",
                "objdump -d",
                base,
                seconds / base,
                "<=2 s" if name == "cold" else "",
                verdict(seconds <= 2 and f[f"{name}_correct"] == 1.0) if name == "cold" else "info",
            )
        )
    return rows + decoded
