"""The stack-strings sample: a C program whose strings are built on the stack byte by byte or decoded by a XOR
loop, built with gcc, and what objdump and nm read of it (the ground truth the stack- and decoded-strings
tests compare with)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from support import clean_env, rea_command

KEY = 0x5A
PATH, HOST, WORD = "/bin/sh", "evil.example.net", "root"
CMD, CMD_FIX = "wget", (1, "h")  # written byte by byte, then cmd[1] = 'h' overwrites: "whet"
HIDDEN = "10.9.8.7"
BLOB = "secret"
NOISY = "port"  # decoded after a system call (getpid): its caller is not emulated up to the call site
OBJDUMP_LINE = re.compile(r"^\s*([0-9a-f]+):\s+(\S+)\s+(.*)$")


def _c_chars(text: str) -> str:
    return ", ".join(f"'{c}' ^ KEY" for c in text)


STACK_SOURCE = f"""
#include <stdio.h>
#include <unistd.h>
#include <sys/syscall.h>
#define KEY {KEY:#x}
__attribute__((noinline)) void decode(unsigned char *buf, int n, unsigned char key) {{
    for (int i = 0; i < n; i++) buf[i] ^= key;
}}
static const unsigned char blob[] = {{{_c_chars(BLOB)}, 0 ^ KEY}};
__attribute__((noinline)) void copy_decode(char *out, const unsigned char *in, int n) {{
    for (int i = 0; i < n; i++) out[i] = in[i] ^ KEY;
}}
__attribute__((noinline)) int shell(void) {{
    char path[] = "{PATH}";
    char host[] = "{HOST}";
    char word[] = "{WORD}";
    volatile char cmd[8];
    {" ".join(f"cmd[{i}] = '{c}';" for i, c in enumerate(CMD))} cmd[{len(CMD)}] = 0;
    cmd[{CMD_FIX[0]}] = '{CMD_FIX[1]}';
    printf("%s %s %s %s\\n", path, host, word, (char *)cmd);
    return 0;
}}
__attribute__((noinline)) int hidden(void) {{
    unsigned char enc[] = {{{_c_chars(HIDDEN)}, 0 ^ KEY}};
    decode(enc, sizeof enc, KEY);
    char out[8];
    copy_decode(out, blob, {len(BLOB) + 1});
    printf("%s %s\\n", (char *)enc, out);
    return 0;
}}
__attribute__((noinline)) int noisy(void) {{
    unsigned char enc[] = {{{_c_chars(NOISY)}, 0 ^ KEY}};
    syscall(SYS_getpid);
    decode(enc, sizeof enc, KEY);
    return enc[0];
}}
int main(void) {{ shell(); hidden(); return noisy() == 0; }}
"""


@pytest.fixture(scope="module")
def samples(tmp_path_factory) -> dict[str, Path]:
    if shutil.which("gcc") is None:
        pytest.skip("gcc is not installed")
    out = tmp_path_factory.mktemp("stack")
    (out / "stack.c").write_text(STACK_SOURCE)
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
