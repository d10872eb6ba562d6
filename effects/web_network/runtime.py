"""Handlers of the web family's offline tools: read a HAR, run Debian's mitmproxy flow reader, read a PNG.

A capture larger than its bound is refused from its size before a byte is read.
A HAR is decoded by the standard json module with hooks that keep every number's
exact text and refuse duplicate members. A mitmproxy dump is read by mitmproxy's
own reader in Debian's interpreter, an owned child with its own process group,
a deadline and an output budget, stopped on cancel, timeout and server close.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import anyio.abc
from returns.result import Failure, Result, Success

from effects import process_group
from effects.chain import then
from effects.fs import target_unavailable as unavailable
from effects.owned import own
from effects.progress import Progress
from rea.errors import ReaError, invalid_request
from rea.web_network.capture import version_text
from rea.web_network.model import MAX_DEPTH, NumberText, ReadCapture, ReadPng

READER = Path(__file__).with_name("mitm_reader.py")
DEBIAN_PYTHON = "/usr/bin/python3"
HAR_DECODER = {"id": "python-json", "name": "CPython json", "version": sys.version.split()[0]}
_RUNNING: set[int] = set()  # process groups of live flow readers


def _stop_readers() -> None:
    for pgid in list(_RUNNING):
        try:
            os.killpg(pgid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        _RUNNING.discard(pgid)


own("mitmproxy flow reader", _stop_readers)


def mitm_python() -> str:
    """Debian's interpreter that holds mitmproxy (REA_MITMPROXY_PYTHON overrides it, for hosts that differ)."""
    return os.environ.get("REA_MITMPROXY_PYTHON", DEBIAN_PYTHON)


def _too_large(path: str, size: int, limit: int) -> ReaError:
    return ReaError(
        code="resource_constraint",
        message=f"{path} is {size} bytes, past the {limit}-byte capture bound; nothing was read.",
        details={"resource": "capture", "limit": "max_input_bytes", "value": limit, "bytes": size},
        action="Split the capture (fewer entries per file) and inspect each part.",
    )


def _sized(path: str, limit: int) -> Result[int, ReaError]:
    try:
        info = os.stat(path)
    except OSError as exc:
        return Failure(unavailable(path, exc.strerror or str(exc)))
    if not stat.S_ISREG(info.st_mode):
        return Failure(unavailable(path, "it is not a regular file"))
    if info.st_size > limit:
        return Failure(_too_large(path, info.st_size, limit))
    return Success(info.st_size)


def _members(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise ValueError(f"duplicate member {key!r}")
        found[key] = value
    return found


def _constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def decode_json(text: str) -> Any:
    """JSON with numbers as NumberText and duplicate members refused (ValueError / RecursionError)."""
    return json.loads(
        text, parse_float=NumberText, parse_int=NumberText, parse_constant=_constant, object_pairs_hook=_members
    )


def _bad_har(path: str, why: str) -> ReaError:
    return invalid_request(
        f"{path} is not a HAR JSON document: {why}",
        field="capture_path",
        accepted="a UTF-8 HAR 1.2 JSON file (format: har) or a mitmproxy flow dump (format: mitmproxy)",
        reason="malformed_capture",
    )


def read_har(path: str, limit: int) -> Result[Any, ReaError]:
    return _sized(path, limit).bind(lambda _: _har(path, limit))


def _har(path: str, limit: int) -> Result[Any, ReaError]:
    with open(path, "rb") as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:  # it grew after its size was read
        return Failure(_too_large(path, len(data), limit))
    artifact = {"path": path, "sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}
    try:
        document = decode_json(data.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        return Failure(_bad_har(path, f"it is not UTF-8 (byte {exc.start})"))
    except RecursionError:
        return Failure(_bad_har(path, f"it is nested deeper than {MAX_DEPTH} levels"))
    except ValueError as exc:  # JSONDecodeError included
        return Failure(_bad_har(path, str(exc)))
    return Success({"artifact": artifact, "decoder": HAR_DECODER, "document": document})


def _mitm_missing(python: str, why: str) -> ReaError:
    return ReaError(
        code="capability_unavailable",
        message=f"inspect_web_network_capture format mitmproxy needs Debian's mitmproxy under {python}: {why}.",
        details={"provider": "mitmproxy", "reason": "provider_missing", "interpreter": python},
        action="Install Debian's mitmproxy (apt-get install mitmproxy; scripts/setup test does it), then call again.",
    )


def _mitm_error(path: str, message: dict[str, Any]) -> ReaError:
    if "refused" in message:
        found = message["refused"]
        return invalid_request(
            f"{path}: mitmproxy's reader refuses the record at byte {found['offset']}, flow format version "
            f"{version_text(found['version'])}: {found['message']}",
            field="capture_path",
            accepted="a flow dump in a format version the installed mitmproxy reads",
            reason="unsupported_version",
            version_found=found["version"],
            version_found_text=version_text(found["version"]),
            offset=found["offset"],
        )
    bad = message.get("malformed") or {"offset": 0, "message": "the reader stopped"}
    return invalid_request(
        f"{path} is not a mitmproxy flow dump at byte {bad['offset']}: {bad['message']}",
        field="capture_path",
        accepted="a mitmproxy flow dump (format: mitmproxy) or a HAR 1.2 file (format: har)",
        reason="malformed_capture",
        offset=bad["offset"],
    )


async def _lines(process: anyio.abc.Process, budget: int) -> list[bytes]:
    """stdout split into lines, stopped past `budget` bytes."""
    assert process.stdout is not None
    chunks: list[bytes] = []
    size = 0
    async for chunk in process.stdout:
        size += len(chunk)
        if size > budget:
            raise OverflowError()
        chunks.append(chunk)
    return b"".join(chunks).splitlines()


async def _run_reader(python: str, path: str, timeout_ms: int, budget: int) -> list[bytes]:
    process = await anyio.open_process(
        [python, "-I", str(READER), path], stderr=subprocess.DEVNULL, start_new_session=True
    )
    _RUNNING.add(process.pid)
    try:
        with anyio.fail_after(timeout_ms / 1000):
            lines = await _lines(process, budget)
            await process.wait()
        return lines
    finally:
        if process.returncode is None:  # killed, and its whole group seen gone (the reader may have children)
            with anyio.CancelScope(shield=True):
                await process_group.kill(process)
        _RUNNING.discard(process.pid)


def _reader_limit(path: str, limit: str, value: int) -> ReaError:
    return ReaError(
        code="resource_constraint",
        message=f"mitmproxy's reader on {path} ran past its {limit} ({value}); it was stopped and nothing returned.",
        details={"resource": "mitmproxy", "limit": limit, "value": value},
        action="Split the dump into smaller files and inspect each.",
    )


async def read_flows(effect: ReadCapture, progress: Progress) -> Result[Any, ReaError]:
    return await then(_sized(effect.path, effect.max_bytes), lambda size: _flows(effect, progress, size))


async def _flows(effect: ReadCapture, progress: Progress, size: int) -> Result[Any, ReaError]:
    python = mitm_python()
    if not os.access(python, os.X_OK):
        return Failure(_mitm_missing(python, "the interpreter is not there"))
    budget = 4 * effect.max_bytes + (1 << 20)
    await progress.report("reading mitmproxy flows", effect.path)
    try:
        lines = await _run_reader(python, effect.path, effect.timeout_ms, budget)
    except TimeoutError:
        return Failure(_reader_limit(effect.path, "timeout_ms", effect.timeout_ms))
    except OverflowError:
        return Failure(_reader_limit(effect.path, "output budget bytes", budget))
    lines = [line for line in lines if line.strip()]
    messages = [decode_json(line.decode("utf-8")) for line in lines[:-1]]  # records: every number's text kept
    last: dict[str, Any] = (
        json.loads(lines[-1]) if lines else {"malformed": {"offset": 0, "message": "the reader printed nothing"}}
    )
    if "unavailable" in last:
        return Failure(_mitm_missing(python, str(last["unavailable"]["message"])))
    if "done" not in last:
        return Failure(_mitm_error(effect.path, last))
    done = last["done"]
    with open(effect.path, "rb") as handle:
        digest = hashlib.file_digest(handle, "sha256").hexdigest()
    return Success(
        {
            "artifact": {"path": effect.path, "sha256": digest, "bytes": size},
            "decoder": {"id": "mitmproxy", "name": "mitmproxy flow reader", "version": str(done["mitmproxy_version"])},
            "flow_format_version": int(done["flow_format"]),
            "flows": [
                m["record"] | {"offset": int(m["record"]["offset"]), "bytes": int(m["record"]["bytes"])}
                for m in messages
                if "record" in m
            ],
        }
    )


async def read_capture(effect: ReadCapture, progress: Progress) -> Result[Any, ReaError]:
    if effect.format == "mitmproxy":
        return await read_flows(effect, progress)
    await progress.report("reading HAR", effect.path)
    return await anyio.to_thread.run_sync(read_har, effect.path, effect.max_bytes)


async def read_png(effect: ReadPng, progress: Progress) -> Result[Any, ReaError]:
    sized = _sized(effect.path, effect.max_bytes).alt(lambda error: _png_refusal(effect, error))
    return sized.map(lambda _: _png(effect))


def _png_refusal(effect: ReadPng, error: ReaError) -> ReaError:
    """A screenshot over the limit is a bad request here (the caller chose the file), not a resource limit."""
    if error.code == "resource_constraint":
        return invalid_request(f"{effect.path} is larger than {effect.max_bytes} bytes", field="path")
    return error


def _png(effect: ReadPng) -> bytes:
    with open(effect.path, "rb") as handle:
        return handle.read(effect.max_bytes)


HANDLERS = {ReadCapture: read_capture, ReadPng: read_png}
