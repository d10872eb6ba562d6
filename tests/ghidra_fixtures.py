"""Stand-ins for what cannot exist here (Ghidra, a JDK of a chosen version, pyghidra), and say so.

- a GHIDRA_INSTALL_DIR tree with support/launch.properties and Ghidra/application.properties;
- a JAVA_HOME whose bin/java is a shell script printing the `java -version` text a JDK prints;
- a `pyghidra` package whose start() prints to stdout (as a JVM or Ghidra's log may) and then
  hangs or fails (FAKE_PYGHIDRA_MODE_FILE holds "hang" or "fail"), so the worker's startup deadline, its typed failures and close/reopen recovery run for
  real, with REA's own processes, while no Ghidra API is ever reached.
"""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

GHIDRA_VERSION = "11.3.1"


def fake_install(root: Path, *, launch: bool = True, application: bool = True) -> Path:
    home = root / "ghidra_11.3.1_PUBLIC"
    (home / "support").mkdir(parents=True, exist_ok=True)
    (home / "Ghidra").mkdir(exist_ok=True)
    if launch:
        (home / "support" / "launch.properties").write_text(
            "VMARGS=-Djava.system.class.loader=ghidra.GhidraClassLoader\n"
        )
    if application:
        (home / "Ghidra" / "application.properties").write_text(
            f"# fake\napplication.name=Ghidra\napplication.version={GHIDRA_VERSION}\napplication.release.name=PUBLIC\n"
        )
    return home


def fake_jdk(root: Path, version: str = "21.0.2") -> Path:
    """A JAVA_HOME whose java prints `version` as OpenJDK does (on stderr)."""
    home = root / f"jdk-{version}"
    (home / "bin").mkdir(parents=True, exist_ok=True)
    java = home / "bin" / "java"
    java.write_text(f"#!/bin/sh\necho 'openjdk version \"{version}\" 2024-01-16' >&2\nexit 0\n")
    java.chmod(0o755)
    return home


def fake_pyghidra(root: Path, mode: str = "hang") -> tuple[Path, Path]:
    """(directory to put on PYTHONPATH, the mode file the fake reads at start)."""
    bridge = root / "bridge"
    (bridge / "pyghidra").mkdir(parents=True, exist_ok=True)
    mode_file = root / "pyghidra-mode"
    mode_file.write_text(mode)
    (bridge / "pyghidra" / "__init__.py").write_text(
        textwrap.dedent(
            '''\
            """A stand-in for pyghidra: no Ghidra can be installed here. start() hangs or fails."""
            import os
            import time


            def started():
                return False


            def start(verbose=False, *, install_dir=None):
                with open(os.environ["FAKE_PYGHIDRA_MODE_FILE"]) as handle:
                    mode = handle.read().strip()
                print("fake pyghidra: a JVM banner on stdout, as Ghidra's log can write")
                if mode == "fail":
                    raise RuntimeError("fake pyghidra: the JVM could not start")
                time.sleep(3600)
            '''
        )
    )
    return bridge, mode_file


def ghidra_env(root: Path, *, bridge: bool, mode: str = "hang", **extra: str) -> dict[str, str]:
    """Server environment with a fake install and JDK, and the fake bridge when `bridge`."""
    env = {
        "GHIDRA_INSTALL_DIR": str(fake_install(root)),
        "JAVA_HOME": str(fake_jdk(root)),
        "REA_CACHE_DIR": str(root / "cache"),
        **extra,
    }
    if bridge:
        path, mode_file = fake_pyghidra(root, mode)
        env["PYTHONPATH"] = os.pathsep.join([str(path), os.environ.get("PYTHONPATH", "")])
        env["FAKE_PYGHIDRA_MODE_FILE"] = str(mode_file)
    return env
