"""The native family's shared test inputs and ground truth: gcc-built samples of the fixtures' C sources, what
nm, objdump and readelf read of them (never REA's own libraries), and the checks every native Evidence reply
passes."""

from __future__ import annotations


import re
import shutil
import subprocess
from pathlib import Path
import psutil
import pytest
import os
import json
from layout_fixtures import GO_MACHO
from support import clean_env, rea_command
from returns.result import Success
from rea.program import IdentifyTarget, TargetFacts
from rea.session import Session
from rea.session_tools.programs.target import open_binary
from scripted import drive_tool
import struct


SOURCE = Path(__file__).parent / "fixtures" / "sample.c"


BUILDS = {
    "pie_O0_debug": ["-O0", "-g"],
    "nopie_O0": ["-O0", "-no-pie"],
    "pie_O2": ["-O2"],
    "pie_O2_stripped": ["-O2", "-s"],
    "shared": ["-O1", "-shared", "-fPIC"],
}


@pytest.fixture(scope="module")
def binaries(tmp_path_factory) -> dict[str, Path]:
    if shutil.which("gcc") is None:
        pytest.skip("gcc is not installed")
    out = tmp_path_factory.mktemp("native")
    built = {}
    for name, flags in BUILDS.items():
        target = out / (f"lib{name}.so" if "-shared" in flags else name)
        subprocess.run(["gcc", *flags, "-o", str(target), str(SOURCE)], check=True, capture_output=True)
        built[name] = target
    return built


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory) -> str:
    return str(tmp_path_factory.mktemp("rea-cache"))


def nm_functions(path: Path) -> dict[str, str]:
    """name -> link-time address of every defined function symbol, as nm prints it."""
    out = subprocess.run(["nm", "--defined-only", str(path)], capture_output=True, text=True, check=True).stdout
    found = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "Tt" and not parts[2].startswith("."):
            found[parts[2]] = f"0x{int(parts[0], 16):x}"
    return found


def objdump_calls(path: Path) -> dict[str, set[str]]:
    """function name -> addresses of its direct call targets, as objdump disassembles them."""
    out = subprocess.run(
        ["objdump", "-d", "--no-show-raw-insn", str(path)], capture_output=True, text=True, check=True
    ).stdout
    calls: dict[str, set[str]] = {}
    current = None
    for line in out.splitlines():
        header = re.match(r"^([0-9a-f]+) <([^>]+)>:$", line)
        if header:
            current = header.group(2)
            continue
        call = re.search(r"\scall\s+([0-9a-f]+) <", line)
        if call and current:
            calls.setdefault(current, set()).add(f"0x{int(call.group(1), 16):x}")
    return calls


def result(reply) -> dict:
    return ok_evidence(reply)["normalized_result"]


def ok_evidence(reply) -> dict:
    assert reply.is_error is False, reply.content[0].text
    record = reply.structured_content
    assert record["evidence_id"].startswith("ev_") and record["provider"]["id"] == "angr"
    assert record["analysis_profile"]["digest"] and record["subject"]["format"] in ("elf", "pe", "mach-o")
    # angr has no provider representation beside the normalized one; callers and callees carry their names there
    assert record["raw_result"] is None or record["operation"] in ("procedure_callers", "procedure_callees")
    return record


def _workers(module: str = "effects.native.worker") -> set[int]:
    """Engine workers (or another helper module) started from this checkout (tests set PYTHONPATH to it),
    orphans included; other checkouts' test runs on the same machine don't count."""
    found = set()
    for proc in psutil.process_iter(["cmdline"]):
        try:
            if module in (proc.info.get("cmdline") or []) and _ours(proc):
                found.add(proc.pid)
        except psutil.Error:  # gone meanwhile
            continue
    return found


def readelf_offset(path: Path, address: int) -> int:
    vaddr, _, offset, _ = next(s for s in load_segments(path) if s[0] <= address < s[0] + s[1])
    return offset + address - vaddr


def objdump_function(path: Path, name: str) -> list[dict]:
    """Every instruction objdump (Intel syntax) prints for one function: address, bytes, mnemonic, text."""
    out = subprocess.run(
        ["objdump", "-d", "-M", "intel", "-w", f"--disassemble={name}", str(path)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    rows = []
    for line in out.splitlines():
        m = re.match(r"^\s+([0-9a-f]+):\t((?:[0-9a-f]{2} )+)\s*\t(\S+)\s*(.*)$", line)
        if m:
            rows.append(
                {
                    "address": int(m[1], 16),
                    "bytes": m[2].replace(" ", ""),
                    "mnemonic": m[3],
                    "text": m[4],
                }
            )
    return rows


def _ours(proc: psutil.Process) -> bool:
    """Started from this checkout by this test process: under pytest-xdist every worker's children inherit its
    PYTEST_XDIST_WORKER name, so another worker's engines running meanwhile do not count."""
    env = proc.environ()
    checkout = env.get("PYTHONPATH", "").split(os.pathsep)[0] == str(Path(__file__).resolve().parents[1])
    return checkout and env.get("PYTEST_XDIST_WORKER") == os.environ.get("PYTEST_XDIST_WORKER")


def load_segments(path: Path) -> list[tuple[int, int, int, int]]:
    """(vaddr, memsz, offset, filesz) of every LOAD program header, as readelf prints them."""
    out = subprocess.run(["readelf", "-lW", str(path)], capture_output=True, text=True, check=True).stdout
    rows = []
    for line in out.splitlines():
        parts = line.split()
        if parts[:1] == ["LOAD"]:
            offset, vaddr, _, filesz, memsz = (int(p, 16) for p in parts[1:6])
            rows.append((vaddr, memsz, offset, filesz))
    return rows


@pytest.fixture(scope="module")
def images(tmp_path_factory) -> dict[str, bytes]:
    if shutil.which("go") is None:
        pytest.skip("go is not installed")
    i386 = GO_MACHO / "gcc-386-darwin-exec.base64"
    if not i386.exists():
        pytest.skip(f"{i386} is not installed (Debian golang-1.19-src)")
    import base64

    root = tmp_path_factory.mktemp("fat")
    (root / "main.go").write_text('package main\n\nfunc main() { println("hi from a slice") }\n')
    built = {"i386": base64.b64decode(i386.read_text())}
    for arch, name in (("arm64", "arm64"), ("amd64", "x86_64")):
        out = root / f"hi-{arch}"
        env = clean_env(GOOS="darwin", GOARCH=arch, GOCACHE=str(root / "cache"), CGO_ENABLED="0", GOFLAGS="-mod=mod")
        subprocess.run(
            ["go", "build", "-ldflags=-s -w", "-o", str(out), str(root / "main.go")],
            env=env,
            check=True,
            capture_output=True,
            timeout=600,
        )
        built[name] = out.read_bytes()
    return built


def universal(tmp: Path, images: dict[str, bytes], names: tuple[str, ...]) -> Path:
    cpus = {"i386": (CPU_X86, 3), "arm64": (CPU_ARM64, 0), "x86_64": (CPU_X86_64, 3)}
    return fat_file(tmp / "-".join(names), [(*cpus[n], images[n]) for n in names])


HIDDEN = "10.9.8.7"


BLOB = "secret"


NOISY = "port"  # decoded after a system call (getpid): its caller is not emulated up to the call site


@pytest.fixture(scope="module")
def samples(tmp_path_factory) -> dict[str, Path]:
    if shutil.which("gcc") is None:
        pytest.skip("gcc is not installed")
    out = tmp_path_factory.mktemp("stack")
    (out / "stack.c").write_text(SOURCE)
    built = {}
    for name, compiler, flags in (
        ("dynamic", "gcc", []),
        ("static", "gcc", ["-static"]),
        ("arm64", "aarch64-linux-gnu-gcc", []),
    ):
        if shutil.which(compiler) is None:
            continue
        path = out / name
        subprocess.run(
            [compiler, "-O0", "-fno-stack-protector", *flags, "-o", str(path), str(out / "stack.c")], check=True
        )
        built[name] = path
    return built


def nm(path: Path, tool: str = "nm") -> dict[str, int]:
    out = subprocess.run([tool, str(path)], capture_output=True, text=True, check=True).stdout
    return {parts[2]: int(parts[0], 16) for parts in (line.split() for line in out.splitlines()) if len(parts) == 3}


def disassembly(path: Path, tool: str = "objdump") -> dict[int, tuple[str, str]]:
    """address -> (mnemonic, operands) of every instruction objdump decodes (Intel syntax on x86)."""
    flags = ["-M", "intel"] if tool == "objdump" else []
    out = subprocess.run([tool, "-d", "-w", "--no-show-raw-insn", *flags, str(path)], capture_output=True, text=True)
    rows = {}
    for line in out.stdout.splitlines():
        m = OBJDUMP_LINE.match(line)
        if m and not line.rstrip().endswith(":"):
            rows[int(m.group(1), 16)] = (m.group(2), m.group(3))
    return rows


def _inside(address: int, symbols: dict[str, int], name: str) -> bool:
    start = symbols[name]
    return start <= address < min(v for v in symbols.values() if v > start)


def search_cli(target: Path, cache: Path, *options: str) -> list[dict]:
    """`rea call search_strings` in a fresh process (this worktree's code, its own cache): the rows."""
    out = subprocess.run(
        [*rea_command(), "call", "search_strings", "--target", str(target), *options, "--json"],
        capture_output=True,
        text=True,
        env=clean_env(REA_CACHE_DIR=str(cache), PYTHONPATH=str(Path(__file__).parents[1])),
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)["normalized_result"]


def proc(address, name, callees=(), callers=(), kind="function", unresolved=0):
    return {
        "address": address,
        "name": name,
        "kind": kind,
        "callees": list(callees),
        "callers": list(callers),
        "unresolved_calls": [{"address": f"{address}{i}", "reason": "indirect"} for i in range(unresolved)],
    }


def _bound_session() -> Session:
    facts = TargetFacts(path="/bin/x", kind="file", sha256="a" * 64, size=10, format="elf")
    opened, _ = drive_tool(
        open_binary,
        Session(),
        {"path": "/bin/x"},
        lambda e: Success(facts) if isinstance(e, IdentifyTarget) else Success("run-1"),
    )
    return opened.session


XOR_KEY = 0x5A


def xored(data: bytes) -> bytes:
    return bytes(b ^ XOR_KEY for b in data)


@pytest.fixture(scope="module")
def sample(tmp_path_factory) -> Path:
    if shutil.which("gcc") is None:
        pytest.skip("gcc is not installed")
    out = tmp_path_factory.mktemp("emulation")
    (out / "decoders.c").write_text(source())
    subprocess.run(["gcc", "-O0", "-static", "-o", str(out / "decoders"), str(out / "decoders.c")], check=True)
    return out / "decoders"


def data_symbol(path: Path, name: str) -> int:
    """A symbol's address as nm prints it (data objects and weak functions included)."""
    for line in subprocess.run(["nm", str(path)], capture_output=True, text=True, check=True).stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[2] == name:
            return int(parts[0], 16)
    raise AssertionError(f"nm lists no {name}")


CPU_X86, CPU_X86_64, CPU_ARM64 = 7, 0x01000007, 0x0100000C


def fat_file(path: Path, slices: list[tuple[int, int, bytes]], align: int = 14) -> Path:
    """FAT_MAGIC, one big-endian fat_arch row per (cputype, cpusubtype, image), each image 2^align aligned."""
    header = struct.pack(">II", 0xCAFEBABE, len(slices))
    offset, body = 1 << align, b""
    for cpu, sub, image in slices:
        header += struct.pack(">iiIII", cpu, sub, offset + len(body), len(image), align)
        body += image + b"\0" * (-len(image) % (1 << align))
    path.write_bytes(header + b"\0" * (offset - len(header)) + body)
    return path


OBJDUMP_LINE = re.compile(r"^\s*([0-9a-f]+):\s+(\S+)\s+(.*)$")


def source() -> str:
    stack_host = "".join(f"  host[{i}] = 0x{b:02x};\n" for i, b in enumerate(xored(HOST)))
    table = b"".join(rc4(RC4_KEY, s) for s in SECRETS)
    offsets = [0, len(SECRETS[0])]
    churn_body = " ".join(f"v[{i}] = x;" for i in range(CHURN_WRITES))
    return f"""
#include <unistd.h>
static unsigned char blob[] = {{{c_bytes(xored(SHELL))}, 0}};
static const unsigned char masked_key[{len(RC4_KEY)}] = {{{c_bytes(bytes(b ^ KEY_MASK for b in RC4_KEY))}}};
static const unsigned char table[] = {{{c_bytes(table)}}};
static const int offsets[] = {{{", ".join(map(str, offsets))}}};
static const int lengths[] = {{{", ".join(str(len(s)) for s in SECRETS)}}};

__attribute__((noinline)) void xor_decode(unsigned char *buf, int len, unsigned char key) {{
  for (int i = 0; i < len; i++) buf[i] ^= key;
}}
__attribute__((noinline)) void unmask(unsigned char *out, const unsigned char *in, int n) {{
  for (int i = 0; i < n; i++) out[i] = in[i] ^ {KEY_MASK};
}}
__attribute__((noinline)) void rc4(const unsigned char *key, int keylen, unsigned char *data, int n) {{
  unsigned char s[256]; int i, j = 0;
  for (i = 0; i < 256; i++) s[i] = i;
  for (i = 0; i < 256; i++) {{ j = (j + s[i] + key[i % keylen]) & 255; unsigned char t = s[i]; s[i] = s[j]; s[j] = t; }}
  i = j = 0;
  for (int k = 0; k < n; k++) {{
    i = (i + 1) & 255; j = (j + s[i]) & 255;
    unsigned char t = s[i]; s[i] = s[j]; s[j] = t;
    data[k] ^= s[(s[i] + s[j]) & 255];
  }}
}}
__attribute__((noinline)) int decrypt_string(int index, unsigned char *out) {{
  unsigned char key[{len(RC4_KEY)}];
  for (int k = 0; k < lengths[index]; k++) out[k] = table[offsets[index] + k];
  unmask(key, masked_key, {len(RC4_KEY)});
  rc4(key, {len(RC4_KEY)}, out, lengths[index]);
  return lengths[index];
}}
__attribute__((noinline)) int spin(int x) {{ volatile int y = x; for (;;) y++; return y; }}
__attribute__((noinline)) int churn(int x) {{ volatile int v[{CHURN_WRITES}]; for (;;) {{ {churn_body} }} return v[0]; }}
__attribute__((noinline)) long say(const char *s, int n) {{ return write(1, s, n); }}
__attribute__((noinline)) int peek(int *p) {{ return *p; }}
int main(int argc, char **argv) {{
  unsigned char host[{len(HOST) + 1}];
{stack_host}  host[{len(HOST)}] = 0;
  xor_decode(host, {len(HOST)}, {XOR_KEY});
  xor_decode(blob, {len(SHELL)}, {XOR_KEY});
  unsigned char secret[64];
  decrypt_string(argc & 1, secret);
  if (argc > 5) spin(argc);
  if (argc > 6) say((const char *)host, {len(HOST)});
  if (argc > 7) return peek((int *)0x10);
  return host[0] + blob[0] + secret[0];
}}
"""


HOST, PORT_TEXT, SHELL = b"10.0.0.7", b"4444", b"/bin/sh"


RC4_KEY, KEY_MASK = b"KeyS9234", 0x33


SECRETS = (b"http://example.test/gate.php", b"cmd.exe /c whoami")


# churn's loop is one block of this many stores, each seen by the emulator's write hook: a million of its blocks
# take far longer than any cancel's round trip, so a cancel always lands mid-run (the cancel test)
CHURN_WRITES = 32


def rc4(key: bytes, data: bytes) -> bytes:
    """RC4 written from its definition here, independent of the sample and of angr."""
    s, j = list(range(256)), 0
    for i in range(256):
        j = (j + s[i] + key[i % len(key)]) & 255
        s[i], s[j] = s[j], s[i]
    i = j = 0
    out = bytearray()
    for byte in data:
        i = (i + 1) & 255
        j = (j + s[i]) & 255
        s[i], s[j] = s[j], s[i]
        out.append(byte ^ s[(s[i] + s[j]) & 255])
    return bytes(out)


def c_bytes(data: bytes) -> str:
    return ", ".join(f"0x{b:02x}" for b in data)
