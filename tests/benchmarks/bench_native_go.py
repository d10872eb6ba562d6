"""A stripped Go executable (built here with the Debian toolchain, `-ldflags=-s -w`) through the real
MCP server: the first binary_overview answers from pclntab without a CFG.

Targets (issue 11): first overview <= 30 s and worker peak RSS < 1 GiB. Baseline in the same run:
angr's bare CFGFast on the same file (what the first overview cost before it answered from metadata).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import anyio

from tests.benchmarks import Row, verdict
from tests.benchmarks.bench_native import ANGR_BASELINE, sample_peak, server

BENCH = "native-go"
# Enough of the standard library to reach the size class (about 8.9 MB stripped with Go 1.19).
PROGRAM = """package main

import (
\t"archive/zip"
\t_ "time/tzdata"
\t"net/http/httptest"
\t"testing/quick"
\t"go/ast"
\t"go/token"
\t"archive/tar"
\t"compress/bzip2"
\t"crypto/ecdsa"
\t"encoding/gob"
\t"go/build"
\t"go/doc"
\t"go/importer"
\t"index/suffixarray"
\t"net/http/cgi"
\t"net/http/fcgi"
\t_ "net/http/pprof"
\t"os/exec"
\t"log/syslog"
\t"encoding/asn1"
\t"crypto/tls"
\t"crypto/x509"
\t"database/sql"
\t"debug/dwarf"
\t"debug/elf"
\t"debug/macho"
\t"debug/pe"
\t"encoding/json"
\t"encoding/xml"
\t"expvar"
\t"fmt"
\t"go/format"
\t"go/types"
\t"html/template"
\t"image/gif"
\t"image/jpeg"
\t"image/png"
\t"math/big"
\t"net/http"
\t"net/http/httputil"
\t"net/mail"
\t"net/rpc"
\t"net/smtp"
\t"net/url"
\t"os"
\t"regexp"
\t"runtime/pprof"
\t"testing"
)

func main() {
\tu, _ := url.Parse(os.Args[0])
\tb, _ := json.Marshal(map[string]any{"u": u.String(), "m": regexp.MustCompile("a+b").MatchString("aab")})
\tfmt.Println(string(b), tls.VersionTLS13, sql.Drivers(), template.HTMLEscapeString("<"), big.NewInt(7))
\t_, _ = xml.Marshal(1)
\t_, _ = format.Source([]byte("package x"))
\t_ = types.NewPackage("a", "a")
\t_, _ = png.Decode(os.Stdin)
\t_, _ = gif.Decode(os.Stdin)
\t_, _ = jpeg.Decode(os.Stdin)
\t_, _ = zip.OpenReader(os.Args[0])
\t_, _ = elf.Open(os.Args[0])
\t_, _ = macho.Open(os.Args[0])
\t_, _ = pe.Open(os.Args[0])
\t_ = dwarf.ErrUnknownPC
\t_, _ = x509.SystemCertPool()
\t_ = httputil.NewSingleHostReverseProxy(u)
\t_, _ = mail.ParseAddress("a@b")
\t_ = rpc.NewServer()
\t_ = smtp.SendMail
\t_ = expvar.NewInt("x")
\t_ = pprof.Profiles()
\t_ = testing.Short
\t_ = tar.NewReader(os.Stdin)
\t_ = bzip2.NewReader(os.Stdin)
\t_ = ecdsa.Sign
\t_ = gob.NewEncoder(os.Stdout)
\t_, _ = build.ImportDir(".", 0)
\t_ = doc.Synopsis("x")
\t_ = importer.Default()
\t_ = suffixarray.New(nil)
\t_ = cgi.Serve
\t_ = fcgi.Serve
\t_ = exec.Command("x")
\t_, _ = syslog.New(0, "x")
\t_, _ = asn1.Marshal(1)
\t_ = httptest.NewServer(nil)
\t_ = quick.Check(func(int) bool { return true }, nil)
\tfs := token.NewFileSet()
\tconf := types.Config{Importer: importer.Default()}
\t_, _ = conf.Check("p", fs, []*ast.File{}, nil)
\t_ = http.ListenAndServe(":0", nil)
}
"""


def _build(root: Path) -> Path:
    (root / "main.go").write_text(PROGRAM)
    out = root / "gobench"
    env = {**os.environ, "GOCACHE": str(root / "cache"), "CGO_ENABLED": "0", "GOFLAGS": "-mod=mod"}
    (root / "go.mod").write_text("module example.com/gobench\n\ngo 1.19\n")
    subprocess.run(["go", "build", "-ldflags=-s -w", "-o", str(out), "."], cwd=root, env=env, check=True, timeout=900)
    return out


async def _measure(target: Path, cache: str) -> dict[str, float]:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import stdio_client

    figures: dict[str, float] = {}
    peak = [0]
    async with anyio.create_task_group() as group:
        group.start_soon(sample_peak, peak)
        async with stdio_client(server(cache)) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            start = time.perf_counter()
            await s.call_tool("open_binary", {"path": str(target)})
            overview = await s.call_tool("binary_overview", {})
            figures["first_overview_s"] = time.perf_counter() - start
            figures["procedures"] = overview.structured_content["normalized_result"]["procedure_count"]
        group.cancel_scope.cancel()
    figures["worker_peak_rss_mib"] = peak[0] / 2**20
    return figures


def run() -> list[Row]:
    with tempfile.TemporaryDirectory() as root, tempfile.TemporaryDirectory() as cache:
        target = _build(Path(root))
        size_mb = target.stat().st_size / 1e6
        figures = anyio.run(_measure, target, cache)
        bare = float(
            subprocess.run([sys.executable, "-c", ANGR_BASELINE, str(target)], capture_output=True, text=True)
            .stdout.strip()
            .splitlines()[-1]
        )
    f = figures
    print(f"  stripped Go binary: {size_mb:.1f} MB, {int(f['procedures'])} procedures from pclntab")
    print(f"  bare angr import + load + CFGFast: {bare:.2f} s")
    return [
        Row(
            BENCH,
            f"first binary_overview, {size_mb:.1f} MB stripped Go",
            f["first_overview_s"],
            "s",
            "bare angr CFGFast",
            bare,
            f["first_overview_s"] / bare,
            "<=30 s",
            verdict(f["first_overview_s"] <= 30),
        ),
        Row(
            BENCH,
            "worker peak RSS (first overview)",
            f["worker_peak_rss_mib"],
            "MiB",
            target="<1024 MiB",
            status=verdict(f["worker_peak_rss_mib"] < 1024),
        ),
    ]


if __name__ == "__main__":
    from tests.benchmarks import table

    print(table(run()))
