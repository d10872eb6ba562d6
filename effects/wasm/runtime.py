"""Run Debian WABT on one module: validate, report (objdump -h, -x), decode to WAT while digesting it.

Every command is an owned child process with a deadline; its output is bounded
(wasm-objdump's reports) or streamed (wasm2wat: hashed and counted in UTF-16
units as it arrives, only the first units kept), so a module whose WAT runs to
gigabytes is digested whole without being held. Standard custom sections are
decoded from the module bytes here; WABT reports only their names.
"""

from __future__ import annotations

import codecs
import hashlib
import os
import shutil
import stat
from typing import Any

import anyio
import anyio.abc
import attrs
from returns.result import Failure, Result, Success

from effects.layout.runtime import READ_BLOCK, file_identity, unavailable
from effects.progress import Progress
from effects.wasm.customs import read_module
from effects.wasm.wat_cache import WatWriter, first_units, units_of
from rea.errors import ReaError, invalid_request
from rea.results import all_of
from rea.wasm.model import GLUE_MAX_BYTES, InspectWasm

TOOLS = ("wasm-validate", "wasm-objdump", "wasm2wat")
ARGUMENTS = {"wasm-validate": ["--enable-all"], "wasm-objdump": ["-h", "-x"], "wasm2wat": ["--enable-all"]}
READ_CHUNK = 1 << 16


class Budget(Exception):
    """A WABT report ran past its output budget."""


def missing_wabt(tool: str) -> ReaError:
    return ReaError(
        code="capability_unavailable",
        message=f"inspect_wasm_artifact needs WABT's {tool}, which is not on PATH.",
        details={"provider": "wabt", "missing": tool, "reason": "provider_missing"},
        action="Install Debian's wabt package (apt-get install wabt; scripts/setup test does it), then call again.",
    )


def _sha256_file(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(READ_BLOCK):
            digest.update(block)
    return digest.hexdigest()


async def _run(argv: list[str], timeout_s: float, budget: int) -> tuple[int, bytes, bytes]:
    """Exit code, stdout and stderr of one bounded command (killed at its deadline or past its budget)."""
    found: dict[str, bytes] = {}

    async def collect(name: str, stream: anyio.abc.ByteReceiveStream | None) -> None:
        found[name] = await _drain(stream, budget)

    async with await anyio.open_process(argv) as proc:
        try:
            with anyio.fail_after(timeout_s):
                async with anyio.create_task_group() as group:  # both pipes at once: neither can fill and stall
                    group.start_soon(collect, "out", proc.stdout)
                    group.start_soon(collect, "err", proc.stderr)
                code = await proc.wait()
        except BaseException:
            proc.kill()
            raise
    return code, found["out"], found["err"]


async def _drain(stream: anyio.abc.ByteReceiveStream | None, budget: int) -> bytes:
    chunks: list[bytes] = []
    size = 0
    if stream is None:
        return b""
    async for chunk in stream:
        size += len(chunk)
        if size > budget:
            raise Budget()
        chunks.append(chunk)
    return b"".join(chunks)


def _writer() -> WatWriter | None:
    try:
        return WatWriter()
    except OSError:
        return None  # a read-only cache: the WAT is still digested, its later pages just cannot be read


async def _stream_wat(argv: list[str], timeout_s: float, keep_units: int, progress: Progress) -> dict[str, Any]:
    """wasm2wat's output digested whole and written to the page cache; only the first `keep_units` are kept."""
    digest = hashlib.sha256()
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    kept: list[str] = []
    kept_units = units = size = 0
    writer = _writer()
    async with await anyio.open_process(argv) as proc:
        try:
            with anyio.fail_after(timeout_s):
                assert proc.stdout is not None
                async for chunk in proc.stdout:
                    digest.update(chunk)
                    size += len(chunk)
                    text = decoder.decode(chunk)
                    wide = units_of(text)
                    units += wide
                    if writer is not None:
                        writer.feed(text)
                    if kept_units < keep_units:
                        piece = text if wide <= keep_units - kept_units else first_units(text, keep_units - kept_units)
                        kept.append(piece)
                        kept_units += units_of(piece)
                    if size % (64 << 20) < len(chunk):
                        await progress.report("decoding WAT", f"{size >> 20} MiB digested")
                tail = decoder.decode(b"", final=True)
                units += units_of(tail)
                if writer is not None:
                    writer.feed(tail)
                err = await _drain(proc.stderr, 1 << 20)
                code = await proc.wait()
        except BaseException:
            proc.kill()
            if writer is not None:
                writer.abandon()
            raise
    page_index = None
    if writer is not None:
        try:
            if code == 0:
                page_index = writer.finish(digest.hexdigest())
            else:
                writer.abandon()
        except OSError:
            writer.abandon()
    text = "".join(kept)
    return {
        "code": code,
        "stderr": err.decode("utf-8", "replace"),
        "text": text,
        "sha256": digest.hexdigest(),
        "utf16_length": units,
        "utf8_bytes": size,
        "complete": kept_units >= units,
        "page_index": page_index,
    }


async def _banner(path: str) -> str:
    code, out, err = await _run([path, "--version"], 30, 1 << 16)
    return (out or err).decode("utf-8", "replace").strip()


def _regular(path: str, limit: int | None = None) -> Result[dict[str, Any], ReaError]:
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            return Failure(unavailable(path, "it is not a regular file"))
        if limit is not None and info.st_size > limit:
            return Failure(invalid_request(f"{path} is larger than {limit} bytes", field="glue_paths"))
        return Success(file_identity(path))
    except (OSError, ValueError) as exc:
        return Failure(unavailable(path, getattr(exc, "strerror", None) or str(exc)))


def _glue(path: str) -> Result[dict[str, Any], ReaError]:
    return _regular(path, GLUE_MAX_BYTES).map(lambda identity: _glue_text(path, identity))


def _glue_text(path: str, identity: dict[str, Any]) -> dict[str, Any]:
    with open(path, "rb") as handle:
        raw = handle.read()
    try:
        return {"artifact": identity, "text": raw.decode("utf-8"), "decoded": True}
    except UnicodeDecodeError:
        return {"artifact": identity, "text": raw.decode("utf-8", "replace"), "decoded": False}


@attrs.frozen(kw_only=True)
class _Inputs:
    """What inspect_wasm checked before running WABT: the tools' paths, the module, the glue and candidates."""

    tools: dict[str, str]
    artifact: dict[str, Any]
    glue: list[dict[str, Any]]
    candidates: list[dict[str, Any]]


def _wabt_tools() -> Result[dict[str, str], ReaError]:
    tools = {t: shutil.which(t) for t in TOOLS}
    missing = [tool for tool, found in tools.items() if found is None]
    if missing:
        return Failure(missing_wabt(missing[0]))
    return Success({tool: found for tool, found in tools.items() if found is not None})


def _inputs(effect: InspectWasm) -> Result[_Inputs, ReaError]:
    """The tools, then the module, then every glue file and candidate (each read before the first refusal
    among them is the answer)."""

    def files(tools: dict[str, str], artifact: dict[str, Any]) -> Result[_Inputs, ReaError]:
        side = [_glue(p) for p in effect.glue_paths]
        candidates = [_regular(p) for p in effect.candidate_paths]
        return all_of([*side, *candidates]).map(
            lambda found: _Inputs(
                tools=tools, artifact=artifact, glue=found[: len(side)], candidates=found[len(side) :]
            )
        )

    return _wabt_tools().bind(lambda tools: _regular(effect.path).bind(lambda artifact: files(tools, artifact)))


async def inspect_wasm(effect: InspectWasm, progress: Progress) -> Result[Any, ReaError]:
    inputs = _inputs(effect)
    match inputs:
        case Success(checked):
            return await _inspect(effect, checked, progress)
        case _:
            return inputs  # its Failure


async def _inspect(effect: InspectWasm, inputs: _Inputs, progress: Progress) -> Result[Any, ReaError]:
    tools, artifact, side, candidates = inputs.tools, inputs.artifact, inputs.glue, inputs.candidates
    timeout = effect.timeout_ms / 1000
    budget = effect.output_budget_bytes
    try:
        await progress.report("validating module", effect.path)
        code, _out, err = await _run(
            [tools["wasm-validate"], *ARGUMENTS["wasm-validate"], effect.path], timeout, budget
        )
        if code != 0:
            return Failure(_invalid(effect.path, err.decode("utf-8", "replace")))
        await progress.report("reading module sections", effect.path)
        code, report, err = await _run(
            [tools["wasm-objdump"], *ARGUMENTS["wasm-objdump"], effect.path], timeout, budget
        )
        if code != 0:
            return Failure(_invalid(effect.path, err.decode("utf-8", "replace")))
        await progress.report("decoding WAT", effect.path)
        wat = await _stream_wat(
            [tools["wasm2wat"], *ARGUMENTS["wasm2wat"], effect.path], timeout, effect.max_wat_inline_units, progress
        )
        if wat["code"] != 0:
            return Failure(_invalid(effect.path, wat["stderr"]))
        commands = []
        for tool in TOOLS:
            path = tools[tool]
            commands.append(
                {
                    "tool": tool,
                    "path": path,
                    "sha256": _sha256_file(path),
                    "version_banner": await _banner(path),
                    "arguments": [*ARGUMENTS[tool], "module.wasm"],
                }
            )
    except TimeoutError:
        return Failure(_limit(effect.path, "timeout_ms", effect.timeout_ms))
    except Budget:
        return Failure(_limit(effect.path, "output_budget_bytes", budget))
    with open(effect.path, "rb") as handle:
        module = read_module(handle)
    return Success(
        {
            "artifact": artifact,
            "report": report.decode("utf-8", "replace"),
            "wat": wat,
            "commands": commands,
            "customs": module["customs"],
            "tables": module["tables"],
            "glue": side,
            "candidates": candidates,
        }
    )


def _invalid(path: str, stderr: str) -> ReaError:
    text = stderr.strip().replace(path, "module.wasm")[:4000]
    return invalid_request(
        f"{path} is not a valid WebAssembly module: {text or 'WABT rejected it'}",
        field="path",
        accepted="a WebAssembly binary module that wasm-validate --enable-all accepts",
        reason="invalid_module",
        wabt_stderr=text,
    )


def _limit(path: str, limit: str, value: int) -> ReaError:
    return ReaError(
        code="resource_constraint",
        message=f"WABT on {path} ran past its {limit} ({value}); nothing was returned.",
        details={"resource": "wabt", "limit": limit, "value": value},
        action="Inspect a smaller module, or raise the limit where the tool allows it.",
    )


HANDLERS = {InspectWasm: inspect_wasm}
