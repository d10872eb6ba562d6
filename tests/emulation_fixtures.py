"""The emulation sample: a gcc -O0 -static program with XOR-, mask- and RC4-hidden strings, loops that never end
and a faulting read, and the symbols nm reads of it (the ground truth of the emulation tests)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

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
