"""The native family's shared test inputs and ground truth: gcc-built samples of the fixtures' C sources, what
nm, objdump and readelf read of them (never REA's own libraries), and the checks every native Evidence reply
passes."""

from __future__ import annotations

import os
import re
import shutil
import struct
import subprocess
from pathlib import Path

import psutil
import pytest
from returns.result import Success

from layout_fixtures import GO_MACHO
from rea.evidence import Provider, create_evidence
from rea.program import IdentifyTarget, TargetFacts
from rea.session import Session
from rea.session_tools.programs.target import open_binary
from scripted import drive_tool
from support import clean_env

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


def dossier(callees, *, facets=True, pseudocode="int f() { return 1; }", blocks=(("0x10", "0x18", ()),), blind=None):
    result = {
        "procedure": {"address": "0x10", "name": "f", "kind": "function", "size": 8},
        "pseudocode": pseudocode,
        "assembly": ["0x10: ret"],
        "comments": [],
        "callees": [{"address": a, "name": a} for a in callees],
        "callers": [],
        "incoming_references": [],
        "outgoing_references": [],
        "referenced_strings": [],
        "referenced_names": [],
        "basic_blocks": [{"start": s, "end": e, "successors": list(n)} for s, e, n in blocks],
    }
    if facets:
        result["facet_availability"] = {k: {"available": True} for k in FACETS}
        result["facet_availability"]["comments"] = {"available": False, "reason": "angr keeps no comments"}
        if blind is not None:
            result["facet_availability"][blind] = {"available": False, "reason": "not recovered"}
    return create_evidence(
        provider=ANGR, operation="analyze_function", parameters={}, normalized_result=result
    ).unwrap()


ANGR = Provider(id="angr", name="angr", version="9.2.213")


FACETS = ("pseudocode", "assembly", "callers", "callees", "references", "strings_names", "cfg")
