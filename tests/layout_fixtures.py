"""Binaries for the layout tests, built by real toolchains at test time, and the independent readers' views.

ELF: gcc (x86-64) and the aarch64 cross gcc, read back with readelf/objdump. PE:
mingw-w64 gcc, read back with mingw objdump. Mach-O: the Go toolchain's own test
binaries (Debian golang-1.19-src, debug/macho/testdata), read back with Go's
debug/macho in a small program, and universal files assembled here around them.
"""

from __future__ import annotations

import base64
import json
import os
import re
import resource
import shutil
import signal
import struct
import subprocess
from pathlib import Path

import pytest

SOURCE = r"""
#include <stdio.h>
#include <string.h>
int counter = 3;
static int hidden;
__thread int per_thread;
int main(int argc, char **argv) {
    char buf[16];
    strcpy(buf, argv[0]);
    printf("%s %d\n", buf, counter + hidden + per_thread);
    puts("done");
    return 0;
}
"""
START = "void _start(void) { for (;;) ; }\n"
GO_MACHO = Path("/usr/share/go-1.19/src/debug/macho/testdata")


def need(tool: str) -> str:
    found = shutil.which(tool)
    if found is None:
        pytest.skip(f"{tool} is not installed (scripts/setup test installs it)")
    return found


def run(*cmd: str, cwd: Path | None = None) -> str:
    return subprocess.run(cmd, check=True, capture_output=True, text=True, cwd=cwd).stdout


def gcc(tmp: Path, name: str, *flags: str, source: str = SOURCE, compiler: str = "gcc") -> Path:
    need(compiler)
    src = tmp / f"{name}.c"
    src.write_text(source)
    out = tmp / name
    run(compiler, *flags, "-o", str(out), str(src))
    return out


def hardened(tmp: Path) -> Path:
    return gcc(
        tmp,
        "hardened",
        "-O2",
        "-D_FORTIFY_SOURCE=2",
        "-fstack-protector-strong",
        "-fPIE",
        "-pie",
        "-Wl,-z,relro,-z,now",
    )


def mingw(tmp: Path, name: str = "prog.exe", *flags: str) -> Path:
    return gcc(tmp, name, *flags, compiler="x86_64-w64-mingw32-gcc")


def go_macho(name: str, tmp: Path) -> Path:
    encoded = GO_MACHO / f"{name}.base64"
    if not encoded.exists():
        pytest.skip(f"{encoded} is not installed (Debian golang-1.19-src, pulled in by golang-go)")
    out = tmp / name
    out.write_bytes(base64.b64decode(encoded.read_text()))
    return out


def fat(tmp: Path, slices: list[tuple[int, int, bytes]], name: str = "universal", align: int = 12) -> Path:
    """A universal binary assembled by hand: FAT_MAGIC, then each (cputype, cpusubtype, bytes) page-aligned."""
    header = struct.pack(">II", 0xCAFEBABE, len(slices))
    offset = 1 << align
    body = b""
    for cpu, sub, data in slices:
        header += struct.pack(">iiIII", cpu, sub, offset + len(body), len(data), align)
        body += data + b"\0" * (-len(data) % (1 << align))
    out = tmp / name
    out.write_bytes(header + b"\0" * (offset - len(header)) + body)
    return out


# ------------------------------------------------------------------ readelf


def readelf_sections(path: Path) -> list[dict[str, str]]:
    rows = []
    pattern = re.compile(
        r"^\s*\[\s*(\d+)\]\s+(\S+)\s+(\S+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+(\S*)\s+(\d+)\s+(\d+)\s+(\d+)"
    )
    for line in run("readelf", "-SW", str(path)).splitlines():
        m = pattern.match(line)
        if m and m.group(1) != "0":
            idx, name, typ, addr, off, size, es, _flg, lk, inf, al = m.groups()
            rows.append(
                {
                    "index": int(idx),
                    "name": name,
                    "type": typ,
                    "address": int(addr, 16),
                    "offset": int(off, 16),
                    "size": int(size, 16),
                    "entry_size": int(es, 16),
                    "link": int(lk),
                    "info": int(inf),
                    "alignment": int(al),
                }
            )
    return rows


def readelf_segments(path: Path) -> list[dict[str, object]]:
    rows = []
    pattern = re.compile(
        r"^\s+([A-Z_0-9]+|0x[0-9a-f]+)\s+0x([0-9a-f]+) 0x([0-9a-f]+) 0x([0-9a-f]+) 0x([0-9a-f]+) 0x([0-9a-f]+) "
        r"([RWE ]{3}) 0x([0-9a-f]+)"
    )
    for line in run("readelf", "-lW", str(path)).splitlines():
        m = pattern.match(line)
        if m:
            typ, off, vaddr, paddr, filesz, memsz, flg, align = m.groups()
            rows.append(
                {
                    "type": typ,
                    "offset": int(off, 16),
                    "vaddr": int(vaddr, 16),
                    "paddr": int(paddr, 16),
                    "filesz": int(filesz, 16),
                    "memsz": int(memsz, 16),
                    "flags": flg,
                    "align": int(align, 16),
                }
            )
    return rows


def readelf_symbols(path: Path) -> dict[str, list[dict[str, object]]]:
    tables: dict[str, list[dict[str, object]]] = {}
    current = None
    pattern = re.compile(r"^\s*(\d+): ([0-9a-f]+)\s+(\d+|0x[0-9a-f]+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s*(.*)$")
    for line in run("readelf", "-sW", str(path)).splitlines():
        head = re.match(r"Symbol table '([^']+)' contains (\d+) entries", line)
        if head:
            current = head.group(1)
            tables[current] = []
            continue
        m = pattern.match(line)
        if m and current is not None:
            num, value, size, typ, bind, vis, ndx, name = m.groups()
            tables[current].append(
                {
                    "index": int(num),
                    "value": int(value, 16),
                    "size": int(size, 0),
                    "type": typ,
                    "bind": bind,
                    "vis": vis,
                    "ndx": ndx,
                    # .dynsym names gain their version from .gnu.version; .symtab stores it
                    "name": re.sub(r"@.*$", "", name.split(" ")[0]) if current == ".dynsym" else name,
                }
            )
    return tables


def readelf_relocations(path: Path) -> dict[str, list[dict[str, object]]]:
    tables: dict[str, list[dict[str, object]]] = {}
    current = None
    for line in run("readelf", "-rW", str(path)).splitlines():
        head = re.match(r"Relocation section '([^']+)' at offset", line)
        if head:
            current = head.group(1)
            tables[current] = []
            continue
        parts = line.split()
        if current is None or not parts or not re.fullmatch(r"[0-9a-f]{8,16}", parts[0]):
            continue
        if len(parts) == 1:  # a RELR offset
            tables[current].append({"offset": int(parts[0], 16)})
            continue
        rest = line.split(parts[2], 1)[1].strip()
        name, addend = None, None
        if " + " in rest or " - " in rest:
            sign = "+" if " + " in rest else "-"
            left, value = rest.rsplit(f" {sign} ", 1)
            name = re.sub(r"@.*$", "", left.split(None, 1)[1]) if len(left.split(None, 1)) > 1 else None
            addend = int(value, 16) * (-1 if sign == "-" else 1)
        elif rest:
            addend = int(rest, 16)
        tables[current].append({"offset": int(parts[0], 16), "type": parts[2], "name": name, "addend": addend})
    return tables


def objdump_plt(path: Path) -> dict[str, int]:
    found = {}
    for line in run("objdump", "-d", "-j", ".plt", "-j", ".plt.sec", str(path)).splitlines():
        m = re.match(r"^([0-9a-f]+) <(.+)@plt>:", line)
        if m:
            found[m.group(2)] = int(m.group(1), 16)
    return found


# --------------------------------------------------------------- Go reader

GO_READER = r"""
package main

import (
	"debug/macho"
	"encoding/json"
	"fmt"
	"os"
)

type section struct {
	Name, Seg      string
	Addr, Size     uint64
	Offset, Align  uint32
	Flags          uint32
}
type segment struct {
	Name                             string
	Addr, Memsz, Offset, Filesz      uint64
	Prot                             uint32
}
type symbol struct {
	Name  string
	Type  uint8
	Sect  uint8
	Value uint64
}
type image struct {
	Cpu       uint32
	Type      uint32
	Flags     uint32
	Sections  []section
	Segments  []segment
	Symbols   []symbol
	Libraries []string
	Imported  []string
	Uuid      string
}

func read(f *macho.File) image {
	out := image{Cpu: uint32(f.Cpu), Type: uint32(f.Type), Flags: f.Flags}
	for _, s := range f.Sections {
		out.Sections = append(out.Sections, section{s.Name, s.Seg, s.Addr, s.Size, s.Offset, 1 << s.Align, s.Flags})
	}
	for _, l := range f.Loads {
		if s, ok := l.(*macho.Segment); ok {
			out.Segments = append(out.Segments, segment{s.Name, s.Addr, s.Memsz, s.Offset, s.Filesz, s.Prot})
		}
	}
	if f.Symtab != nil {
		for _, s := range f.Symtab.Syms {
			out.Symbols = append(out.Symbols, symbol{s.Name, s.Type, s.Sect, s.Value})
		}
	}
	out.Libraries, _ = f.ImportedLibraries()
	out.Imported, _ = f.ImportedSymbols()
	for _, l := range f.Loads {
		raw := l.Raw()
		if len(raw) >= 24 && f.ByteOrder.Uint32(raw[0:4]) == 0x1b {
			out.Uuid = fmt.Sprintf("%X-%X-%X-%X-%X", raw[8:12], raw[12:14], raw[14:16], raw[16:18], raw[18:24])
		}
	}
	return out
}

func main() {
	var images []image
	if fat, err := macho.OpenFat(os.Args[1]); err == nil {
		for _, a := range fat.Arches {
			images = append(images, read(a.File))
		}
	} else if f, err := macho.Open(os.Args[1]); err == nil {
		images = append(images, read(f))
	} else {
		panic(err)
	}
	json.NewEncoder(os.Stdout).Encode(images)
}
"""


def go_run(program: str, name: str, path: Path, tmp: Path) -> object:
    """Run a Go program (GOPATH mode, no network) on `path` and decode the JSON it prints."""
    need("go")
    src = tmp / name
    src.mkdir(exist_ok=True)
    (src / "main.go").write_text(program)
    env = {
        **os.environ,
        "GOCACHE": str(tmp / "gocache"),
        "GOPATH": str(tmp / "gopath"),
        "GO111MODULE": "off",
        "HOME": str(tmp),
    }
    out = subprocess.run(
        ["go", "run", "main.go", str(path)], check=True, capture_output=True, text=True, cwd=src, env=env
    ).stdout
    return json.loads(out)


def go_read_macho(path: Path, tmp: Path) -> list[dict[str, object]]:
    """What Go's debug/macho (an independent reader) sees in each image of the file."""
    return go_run(GO_READER, "goread", path, tmp)  # type: ignore[return-value]


GO_FAT = r"""
package main

import (
	"debug/macho"
	"encoding/json"
	"os"
)

type arch struct {
	Cpu, SubCpu, Offset, Size, Align uint32
}

func main() {
	fat, err := macho.OpenFat(os.Args[1])
	if err != nil {
		panic(err)
	}
	var out []arch
	for _, a := range fat.Arches {
		out = append(out, arch{uint32(a.Cpu), a.SubCpu, a.Offset, a.Size, a.Align})
	}
	json.NewEncoder(os.Stdout).Encode(out)
}
"""


def go_fat_arches(path: Path, tmp: Path) -> list[dict[str, int]]:
    """The universal header as Go's debug/macho.OpenFat reads it."""
    return go_run(GO_FAT, "gofat", path, tmp)  # type: ignore[return-value]


def make_core(tmp: Path) -> tuple[Path, Path]:
    """A crashing two-thread program and its core: the kernel's when it writes one here, else gdb's gcore."""
    src, exe = tmp / "crash.c", tmp / "crash"
    src.write_text(CRASH)
    subprocess.run(["gcc", "-g", "-O0", "-pthread", "-o", str(exe), str(src)], check=True)
    subprocess.run([str(exe)], cwd=tmp, preexec_fn=_core_limits, capture_output=True, timeout=30)
    cores = sorted(p for p in tmp.iterdir() if p.name == "core" or p.name.startswith("core."))
    if cores:
        return exe, cores[0]
    core = tmp / "gcore"  # core_pattern pipes elsewhere on this host: let gdb record the crash instead
    subprocess.run(
        ["gdb", "-nx", "-batch", "-ex", "run", "-ex", f"generate-core-file {core}", str(exe)],
        capture_output=True,
        timeout=120,
        check=True,
    )
    return exe, core


CRASH = r"""
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
static void *spin(void *arg) { for (;;) pause(); return arg; }
int main(void) {
    pthread_t t;
    pthread_create(&t, NULL, spin, NULL);
    usleep(20000);
    volatile int *p = (int *)0x1234;
    puts("crashing");
    *p = 42;
    return 0;
}
"""


def _core_limits() -> None:
    resource.setrlimit(resource.RLIMIT_CORE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    signal.signal(signal.SIGINT, signal.SIG_DFL)
