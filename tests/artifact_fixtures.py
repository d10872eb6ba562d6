"""Archives made by their real producers: zipfile, tarfile, the @electron/asar CLI, binutils `ar`."""

from __future__ import annotations

import io
import os
import subprocess
import tarfile
import zipfile
from pathlib import Path
from typing import Any

import anyio
import jsonschema
from returns.result import Success

from effects.calls import Connection, call_tool
from rea.catalog import BY_NAME
from scripted import CTX
from support import npm_fixture

ASAR_DIR = Path(__file__).parent / "fixtures" / "asar"


def asar_cli() -> Path:
    """The real @electron/asar CLI, installed by scripts/setup test (a test run needs no registry)."""
    return npm_fixture(ASAR_DIR) / ".bin" / "asar"


def pack_asar(source: Path, out: Path, unpack: str | None = None) -> Path:
    cli = asar_cli()
    cmd = [str(cli), "pack", str(source), str(out)]
    if unpack:
        cmd += ["--unpack", unpack]
    subprocess.run(cmd, check=True, capture_output=True, timeout=120)
    return out


def wheel_bytes(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return buf.getvalue()


def make_zip(path: Path, files: dict[str, bytes], *, modes: dict[str, int] | None = None) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in files.items():
            info = zipfile.ZipInfo(name)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3
            info.external_attr = ((modes or {}).get(name, 0o100644)) << 16
            zf.writestr(info, data)
    return path


def make_tar(path: Path, files: dict[str, bytes], mode: str = "w:gz") -> Path:
    if mode == "w:zst":
        import zstandard

        raw = io.BytesIO()
        make_tar_into(raw, files, "w")
        path.write_bytes(zstandard.ZstdCompressor().compress(raw.getvalue()))
        return path
    with tarfile.open(path, mode) as tf:
        _fill(tf, files)
    return path


def make_tar_into(handle: Any, files: dict[str, bytes], mode: str) -> None:
    with tarfile.open(fileobj=handle, mode=mode) as tf:
        _fill(tf, files)


def _fill(tf: tarfile.TarFile, files: dict[str, bytes]) -> None:
    for name, data in files.items():
        info = tarfile.TarInfo(name)
        info.size = len(data)
        info.mode = 0o755 if name.endswith(".sh") else 0o644
        tf.addfile(info, io.BytesIO(data))


def make_ar(path: Path, members: dict[str, bytes], workdir: Path) -> Path:
    workdir.mkdir(parents=True, exist_ok=True)
    names = []
    for name, data in members.items():
        (workdir / name).write_bytes(data)
        names.append(name)
    subprocess.run(["ar", "rc", str(path), *names], cwd=workdir, check=True, capture_output=True)
    return path


def call(tool: str, args: dict[str, Any], conn: Connection | None = None) -> tuple[Any, Connection]:
    """One tool call in-process through validation, the program and the real effect handlers."""
    conn = conn or Connection(ctx=CTX)

    async def main() -> Any:
        return await call_tool(conn, tool, args, None)

    reply = anyio.run(main)
    if isinstance(reply, Success):  # every successful reply matches the advertised output schema
        jsonschema.Draft202012Validator(BY_NAME[tool].output_schema).validate(reply.unwrap())
    return reply, conn


def run_tools(steps: list[tuple[str, dict[str, Any]]]) -> tuple[list[Any], Connection]:
    conn = Connection(ctx=CTX)
    replies = []
    for tool, args in steps:
        reply, conn = call(tool, args, conn)
        replies.append(reply)
    return replies, conn


def inventory(path: Path | str, **args: Any) -> dict[str, Any]:
    """inspect_artifact's complete Evidence for a path (asserting success)."""
    replies, _ = run_tools([("open_binary", {"path": str(path)}), ("inspect_artifact", args)])
    assert isinstance(replies[0], Success), replies[0]
    assert isinstance(replies[1], Success), replies[1].failure()
    return replies[1].unwrap()


def occurrences(evidence: dict[str, Any]) -> dict[str, dict[str, Any]]:
    inv = evidence["normalized_result"]["substeps"][0]["evidence"]["normalized_result"]
    return {o["logical_path"]: o for o in inv["occurrences"]["items"]}


def substep(result: dict[str, Any]) -> dict[str, Any]:
    """The complete inventory inside an inspect_artifact result (substeps[0].evidence, the 6.x handoff)."""
    return result["substeps"][0]["evidence"]["normalized_result"]


def chmod_exec(path: Path) -> None:
    os.chmod(path, 0o755)
