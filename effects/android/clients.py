"""The apktool and adb clients: resolve (REA_APKTOOL_COMMAND / REA_ADB_PATH, else PATH), run, decode.

Nothing here contacts a device: `adb version` never starts the adb server. apktool decodes
into an owned temporary workspace (its framework directory too, so nothing is written under
HOME) that is removed before the facts are returned, whatever happened.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
from typing import Any

import anyio
from returns.result import Failure, Result, Success

from effects import fs
from effects.chain import then
from effects.progress import Progress
from rea.android.effects import DecodeResources, ProbeClient
from rea.errors import ReaError

CLIENTS = {
    "adb": (
        "REA_ADB_PATH",
        "adb",
        ["version"],
        "sh scripts/setup test (it runs apt-get install adb on Debian), or set REA_ADB_PATH to an absolute adb",
    ),
    "apktool": (
        "REA_APKTOOL_COMMAND",
        "apktool",
        ["--version"],
        "apt-get install apktool (Debian), or set REA_APKTOOL_COMMAND to an absolute apktool launcher",
    ),
}
MAX_OUTPUT = 1 << 20


def _missing(tool: str, why: str) -> ReaError:
    variable, _, _, install = CLIENTS[tool]
    return ReaError(
        code="capability_unavailable",
        message=f"The {tool} client is not available: {why}.",
        details={"provider": tool, "reason": "client_missing", "variable": variable},
        action=f"Install it: {install}; then call again.",
    )


def resolve(tool: str) -> Result[tuple[str, str], ReaError]:
    variable, name, _, _ = CLIENTS[tool]
    chosen = os.environ.get(variable)
    if chosen:
        if not os.path.isabs(chosen):
            return Failure(_missing(tool, f"{variable}={chosen!r} is not an absolute path"))
        if not (os.path.isfile(chosen) and os.access(chosen, os.X_OK)):
            return Failure(_missing(tool, f"{variable}={chosen!r} is not an executable file"))
        return Success((os.path.realpath(chosen), "environment"))
    found = shutil.which(name)
    if found is None:
        return Failure(_missing(tool, f"{name} is not on PATH and {variable} is not set"))
    return Success((os.path.realpath(found), "path"))


def _run(cmd: list[str], deadline_ms: int) -> Result[subprocess.CompletedProcess[str], ReaError]:
    """Run in its own session; past the deadline the whole group is killed."""
    process = subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )
    try:
        out, _ = process.communicate(timeout=deadline_ms / 1000)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        return Failure(
            ReaError(
                code="provider_timeout",
                message=f"{os.path.basename(cmd[0])} did not finish within {deadline_ms} ms; it was stopped.",
                details={"command": cmd[0], "deadline_ms": deadline_ms},
            )
        )
    return Success(subprocess.CompletedProcess(cmd, process.returncode, out[:MAX_OUTPUT], None))


async def _probe(effect: ProbeClient, progress: Progress) -> Result[Any, ReaError]:
    return await then(resolve(effect.tool), lambda found: _probed(effect, found[0], found[1]))


async def _probed(effect: ProbeClient, command: str, source: str) -> Result[dict[str, Any], ReaError]:
    ran = await anyio.to_thread.run_sync(_run, [command, *CLIENTS[effect.tool][2]], effect.deadline_ms)
    return ran.bind(lambda done: _answered(effect, command, source, done))


def _answered(
    effect: ProbeClient, command: str, source: str, done: subprocess.CompletedProcess[str]
) -> Result[dict[str, Any], ReaError]:
    if done.returncode != 0:
        return Failure(_missing(effect.tool, f"{command} {' '.join(CLIENTS[effect.tool][2])} exited {done.returncode}"))
    return Success({"command": command, "source": source, "output": done.stdout})


def _strings(values: str) -> tuple[list[tuple[str, str]], bool]:
    from lxml import etree

    path = os.path.join(values, "strings.xml")
    if not os.path.isfile(path):
        return [], False
    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False)
    root = etree.parse(path, parser).getroot()
    rows = [(e.get("name"), "".join(e.itertext())) for e in root.findall("string") if e.get("name")]
    return rows, True


def _read_decoded(out: str, effect: DecodeResources) -> dict[str, Any]:
    import yaml
    from lxml import etree

    manifest_path = os.path.join(out, "AndroidManifest.xml")
    manifest, package, truncated = None, None, False
    if os.path.isfile(manifest_path):
        with open(manifest_path, "rb") as handle:
            raw = handle.read(effect.max_manifest_bytes + 1)
        truncated = len(raw) > effect.max_manifest_bytes
        manifest = raw[: effect.max_manifest_bytes].decode("utf-8", "replace")
        if not truncated:
            parser = etree.XMLParser(resolve_entities=False, no_network=True)
            package = etree.fromstring(raw, parser).get("package")
    yml: dict[str, Any] = {}
    yml_path = os.path.join(out, "apktool.yml")
    if os.path.isfile(yml_path):
        with open(yml_path, encoding="utf-8", errors="replace") as handle:
            text = "\n".join(line for line in handle.read().splitlines() if not line.startswith("!!"))
        loaded = yaml.safe_load(text)
        yml = loaded if isinstance(loaded, dict) else {}
    res = os.path.join(out, "res")
    locales = sorted(
        d[len("values-") :]
        for d in (os.listdir(res) if os.path.isdir(res) else [])
        if d.startswith("values-") and os.path.isfile(os.path.join(res, d, "strings.xml"))
    )
    rows: list[tuple[str, str]] = []
    found = False
    if effect.include_strings:
        rows, found = _strings(os.path.join(res, "values" if effect.locale is None else f"values-{effect.locale}"))
    count = sum(not e.points_to_directory for _, listing in fs.walk_tree(out) for e in listing)
    return {
        "manifest": manifest,
        "manifest_truncated": truncated,
        "package_name": package,
        "apktool_yml": yml,
        "strings": rows,
        "strings_found": found,
        "locales": locales,
        "decoded_file_count": count,
    }


def _decoded(effect: DecodeResources, out: str, done: subprocess.CompletedProcess[str]) -> Result[Any, ReaError]:
    if done.returncode != 0 or not os.path.isdir(out):
        tail = done.stdout.strip().splitlines()[-3:]
        return Failure(
            ReaError(
                code="invalid_request",
                message=f"apktool could not decode {effect.path}: {' / '.join(tail) or 'no output'}",
                details={"field": "path", "exit_code": done.returncode, "accepted": "an APK apktool can decode"},
            )
        )
    return Success(_read_decoded(out, effect))


def _decode_sync(effect: DecodeResources) -> Result[Any, ReaError]:
    work = tempfile.mkdtemp(prefix="rea-apktool-")
    try:
        out = os.path.join(work, "decoded")
        cmd = [effect.command, "d", "--no-src", "-f", "-p", os.path.join(work, "framework"), "-o", out, effect.path]
        return _run(cmd, effect.deadline_ms).bind(lambda done: _decoded(effect, out, done))
    except (OSError, ValueError) as exc:
        return Failure(
            ReaError(code="artifact_operation_failed", message=f"reading apktool's output failed: {exc}", details=None)
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)


async def _decode(effect: DecodeResources, progress: Progress) -> Result[Any, ReaError]:
    await progress.report("decoding resources", f"apktool d --no-src {effect.path}")
    return await anyio.to_thread.run_sync(_decode_sync, effect)


HANDLERS = {ProbeClient: _probe, DecodeResources: _decode}
