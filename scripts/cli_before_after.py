"""Before/after for commands moved to catalog-row declarations (issue 31's one CLI): each command run on real
inputs by two REA trees, stdout, stderr and exit code compared byte for byte.

    git archive BASE | tar xf - -C /tmp/old && python3 scripts/cli_before_after.py /tmp/old .

What varies run to run in the old tree by itself is masked in both: a fresh temporary output directory, the
process and thread ids and elapsed times of an observed process, the clock-limited progress lines of a walk,
and (when an old-vs-old run differs) the Evidence ids that commit to those. Needs gcc and Debian's lldb.
"""

import io
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile
import zipfile

OLD, NEW = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
INP = tempfile.mkdtemp(prefix="cli-before-after-")


def _inputs():
    """A zip with a nested zip, a tar.gz, a directory tree and a small C executable."""
    stamp = (2020, 1, 1, 0, 0, 0)
    inner = io.BytesIO()
    with zipfile.ZipFile(inner, "w") as zz:
        zz.writestr(zipfile.ZipInfo("inner.txt", date_time=stamp), b"inner\n")
    with zipfile.ZipFile(os.path.join(INP, "app.zip"), "w") as z:
        for name, data in [("a.txt", b"hello\n"), ("dir/b.bin", bytes(range(256))), ("dir/c.py", b"print(1)\n")]:
            z.writestr(zipfile.ZipInfo(name, date_time=stamp), data)
        z.writestr(zipfile.ZipInfo("nested.zip", date_time=stamp), inner.getvalue())
    with tarfile.open(os.path.join(INP, "pkg.tar.gz"), "w:gz") as t:
        for name, data in [("x/one.txt", b"1"), ("x/two.txt", b"22")]:
            info = tarfile.TarInfo(name)
            info.size, info.mtime = len(data), 0
            t.addfile(info, io.BytesIO(data))
    os.makedirs(os.path.join(INP, "tree", "sub"))
    for name, text in (("tree/f.txt", "f\n"), ("tree/sub/g.txt", "g\n")):
        with open(os.path.join(INP, name), "w") as handle:
            handle.write(text)
    source = os.path.join(INP, "hello.c")
    with open(source, "w") as handle:
        handle.write(
            "#include <stdio.h>\n#include <stdlib.h>\nint main(int argc, char **argv) { puts(argc > 1 ? argv[1] : "
            '"none"); puts(getenv("X") ? getenv("X") : "-"); return 0; }\n'
        )
    subprocess.run(["gcc", "-O0", "-o", os.path.join(INP, "hello"), source], check=True)


_inputs()


def run(root, argv):
    env = {k: v for k, v in os.environ.items() if not k.startswith("REA_")}
    env["PYTHONPATH"] = root
    p = subprocess.run(
        [sys.executable, "-m", "effects.cli", *argv], cwd=INP, env=env, capture_output=True, text=True, timeout=300
    )
    return p.stdout, p.stderr, p.returncode


def mask(text):
    # progress is rate-limited by the clock: a walk's per-member status lines come and go run to run
    text = re.sub(r"(?m)^\[rea\] inventorying artifact: (?!reading ).*\n", "", text)
    # a traceback names the tree it ran from
    text = text.replace(OLD, "<ROOT>").replace(NEW, "<ROOT>")
    text = re.sub(r'"(time|duration|elapsed|started_at|finished_at)[a-z_]*": [^,\n]+', r'"\1": T', text)
    text = re.sub(r"/tmp/[A-Za-z0-9_.-]*rea[A-Za-z0-9_.-]*", "<TMP>", text)
    text = re.sub(r'"(pid|thread_id)": \d+', r'"\1": N', text)
    text = re.sub(r"pid \d+", "pid N", text)
    return text


occ = json.loads(run(NEW, ["inventory-artifact", "app.zip", "--json"])[0])
files = [o["occurrence_id"] for o in occ["normalized_result"]["occurrences"]["items"] if o["entry_kind"] == "file"]
CASES = [
    ["inspect-artifact", "app.zip"],
    ["inspect-artifact", "app.zip", "--json"],
    ["inspect-artifact", "pkg.tar.gz", "--detail", "summary"],
    ["inspect-artifact", "tree", "--max-depth", "0", "--format", "json"],
    ["inspect-artifact", "app.zip", "--integrity-policy", "record-and-continue", "--max-integrity-mismatches", "3"],
    ["inspect-artifact", "app.zip", "--max-entries", "2"],
    ["inspect-artifact", "app.zip", "--max-compression-ratio", "2.5", "--json"],
    ["inspect-artifact", "app.zip", "--max-depth", "99"],
    ["inspect-artifact", "missing.zip"],
    ["inspect-artifact", "hello"],
    ["inventory-artifact", "app.zip"],
    ["inventory-artifact", "app.zip", "--occurrence-limit", "2", "--node-offset", "1", "--edge-limit", "1", "--json"],
    ["inventory-artifact", "pkg.tar.gz", "--occurrence-offset", "1"],
    ["inventory-artifact", "app.zip", "--node-limit", "0"],
    ["extract-artifact", "app.zip"],
    ["extract-artifact", "app.zip", files[0], "--json"],
    ["extract-artifact", "app.zip", *files[:2]],
    ["extract-artifact", "app.zip", "occ_" + "0" * 64],
    ["extract-artifact", "tree", "--max-entries", "1"],
    [
        "observe-native-calls",
        "hello",
        "--break",
        "puts",
        "--arg",
        "hi",
        "--env",
        "X=1",
        "--env",
        "Y=2",
        "--cwd",
        ".",
        "--max-events",
        "3",
    ],
    [
        "observe-native-calls",
        "hello",
        "--break",
        "puts@libc.so.6",
        "--break",
        "getenv",
        "--json",
        "--backtrace-frames",
        "2",
    ],
    [
        "observe-native-calls",
        "hello",
        "--break",
        "nosuchfunction",
        "--duration-ms",
        "5000",
        "--argument-registers",
        "2",
    ],
    ["observe-native-calls", "app.zip", "--break", "puts"],
]


def main():
    bad = 0
    for argv in CASES:
        o1, o2, n = run(OLD, argv), run(OLD, argv), run(NEW, argv)
        same_old = o1 == o2
        old, new = [mask(x) if isinstance(x, str) else x for x in o1], [mask(x) if isinstance(x, str) else x for x in n]
        if not same_old:
            # Evidence ids that commit to a fresh temp dir or a process id vary run to run: mask them too
            old = [re.sub(r"ev_[0-9a-f]{64}", "ev_<ID>", x) if isinstance(x, str) else x for x in old]
            new = [re.sub(r"ev_[0-9a-f]{64}", "ev_<ID>", x) if isinstance(x, str) else x for x in new]
            again = [mask(re.sub(r"ev_[0-9a-f]{64}", "ev_<ID>", x)) if isinstance(x, str) else x for x in o2]
            same_old = again == old
        verdict = "same" if old == new else "DIFFERENT"
        bad += verdict != "same"
        print(
            f"{verdict:9} exit {o1[2]}/{n[2]} old-vs-old {'stable' if same_old else 'VARIES'}  rea {' '.join(argv)[:110]}"
        )
        if verdict != "same":
            for label, a, b in zip(("stdout", "stderr", "exit"), old, new):
                if a != b:
                    print(f"   {label}:\n   old: {str(a)[:600]!r}\n   new: {str(b)[:600]!r}")
    print(f"{len(CASES)} commands, {bad} different")
    return 1 if bad else 0


sys.exit(main())
