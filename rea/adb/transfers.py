"""The adb tool bodies that move files or change the device: pulls into new local files, a screen capture,
a bugreport, pushes checked against the device's own digest, installs and app or intent starts. Each is a
program step; what the device refused ends the program with its verdict."""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Generator
from typing import Any

from returns.result import Failure, Result, Success

from rea.adb import parse
from rea.adb import records as w
from rea.adb.effects import AdbStep
from rea.adb.steps import (
    Body,
    Built,
    device_refused,
    exchange,
    exchange_answer,
    not_installed,
    q,
    shell,
    shell_answer,
    unreadable,
)
from rea.android.records import AdbClient
from rea.effect_types import AnyEffect
from rea.errors import ReaError, invalid_request
from rea.program import IdentifyTarget, TargetFacts, must, need, refuse

# ------------------------------------------------------------------ acquisition bodies


def _local(directory: str, name: str) -> str:
    return posixpath.join(directory, name)


def _pull_step(device_path: str, target: str, max_bytes: int = 4 << 30) -> AdbStep:
    """sync RECV of one device file into the new local file `target` (answers {local_path, bytes, sha256})."""
    return AdbStep(kind="pull", device_path=device_path, local_path=target, max_bytes=max_bytes)


def pull_file(args: w.PullFileArgs, client: AdbClient) -> Body:
    target = _local(args.output_directory, posixpath.basename(args.device_path.rstrip("/")) or "root")
    out = (yield from exchange(args, _pull_step(args.device_path, target)))[0]
    record = w.PullFileResult(
        client=client,
        serial=args.serial,
        device_path=args.device_path,
        local_path=out["local_path"],
        bytes=out["bytes"],
        sha256=out["sha256"],
    )
    return record, []


def _pulled(path: str, name: str, out: Any) -> w.PulledArtifact:
    return w.PulledArtifact(
        device_path=path,
        file_name=name,
        local_path=out["local_path"],
        bytes=out["bytes"],
        sha256=out["sha256"],
        role=parse.apk_role(name),  # type: ignore[arg-type]
        role_basis="file_name",
    )


def _arrived(path: str) -> Callable[[list[Any]], list[w.PulledArtifact]]:
    return lambda outs: [_pulled(path, posixpath.basename(path), outs[0])]


def _missed(path: str) -> Callable[[ReaError], list[w.PullFailure]]:
    return lambda error: [w.PullFailure(device_path=path, stage="pull", message=error.message)]


def pull_package(args: w.PullPackageArgs, client: AdbClient) -> Body:
    texts = yield from shell(args, f"pm path {q(args.package)}")
    paths, other = parse.package_paths(texts[0])
    if not paths:
        refuse(not_installed(args))
    folder = _local(args.output_directory, args.package)
    yield from exchange(args, AdbStep(kind="mkdir", local_path=folder))
    artifacts: list[w.PulledArtifact] = []
    failures: list[w.PullFailure] = []
    for path in paths:  # a file that does not arrive is recorded, and the others are still pulled
        got = yield from exchange_answer(args, _pull_step(path, _local(folder, posixpath.basename(path))))
        artifacts += got.map(_arrived(path)).value_or([])
        failures += got.swap().map(_missed(path)).value_or([])
    failures += [w.PullFailure(device_path=None, stage="resolve_paths", message=line) for line in other]
    record = w.PullPackageResult(
        client=client,
        serial=args.serial,
        package_name=args.package,
        output_directory=folder,
        artifacts=tuple(artifacts),
        failures=tuple(failures),
        coverage="partial" if failures else "complete",
    )
    return record, [f"{f.stage}: {f.message}" for f in failures]


def screen(args: w.OutputArgs, client: AdbClient) -> Body:
    name = "".join(c if c.isalnum() or c in "-_." else "_" for c in args.serial) + "-screen.png"
    target = _local(args.output_directory, name)
    step = AdbStep(service="exec:screencap -p", local_path=target, max_bytes=256 << 20)
    out = (yield from exchange(args, step))[0]
    width, height = parse.png_size(out["data_head"])
    record = w.ScreenResult(
        client=client,
        serial=args.serial,
        local_path=out["local_path"],
        bytes=out["bytes"],
        sha256=out["sha256"],
        width=width,
        height=height,
    )
    return record, [] if width else ["the capture is not a PNG (no IHDR): width and height are unknown"]


def bugreport(args: w.OutputArgs, client: AdbClient) -> Body:
    said = (yield from shell(args, "bugreportz"))[0].strip().splitlines()
    reported = next((line[3:] for line in said if line.startswith("OK:")), None)
    if reported is None:
        refuse(unreadable("bugreportz", "\n".join(said)))
    target = _local(args.output_directory, posixpath.basename(reported))
    out = (yield from exchange(args, _pull_step(reported, target)))[0]
    record = w.BugreportResult(
        client=client,
        serial=args.serial,
        local_path=out["local_path"],
        bytes=out["bytes"],
        sha256=out["sha256"],
        adb_reported_path=reported,
    )
    return record, []


# ------------------------------------------------------------------ device-mutating bodies


def _local_file(path: str) -> Generator[AnyEffect, Any, TargetFacts]:
    facts: TargetFacts = yield from need(IdentifyTarget(path=path))
    if facts.kind != "file":
        refuse(invalid_request(f"{path} is not a regular file", field="local_path", accepted="a local file"))
    return facts


def _integrity(args: w.PushFileArgs, facts: TargetFacts, device_sha: str | None) -> Result[None, ReaError]:
    """The pushed bytes are the local file's, when the device can say (no sha256sum: unverified)."""
    if device_sha is not None and device_sha != facts.sha256:
        return Failure(
            ReaError(
                code="artifact_integrity_mismatch",
                message=f"The device's sha256sum of {args.device_path} is {device_sha}, the local file's {facts.sha256}.",
                details={"device_sha256": device_sha, "sha256": facts.sha256},
            )
        )
    return Success(None)


def push(args: w.PushFileArgs, client: AdbClient) -> Body:
    facts = yield from _local_file(args.local_path)
    path = q(args.device_path)
    probe = yield from shell(args, f"[ -e {path} ] && echo present || echo absent")
    present = probe[0].strip() == "present"
    if present and not args.overwrite:
        refuse(
            invalid_request(
                f"{args.device_path} already exists on {args.serial}",
                field="overwrite",
                accepted="overwrite: true to replace it, or another device_path",
            )
        )
    yield from exchange(args, AdbStep(kind="push", device_path=args.device_path, local_path=facts.path))
    digest = yield from shell_answer(args, f"sha256sum {path}")
    device_sha: str | None = digest.map(lambda texts: parse.sha256_of(texts[0])).value_or(None)
    must(_integrity(args, facts, device_sha))
    record = w.PushFileResult(
        client=client,
        serial=args.serial,
        local_path=facts.path,
        device_path=args.device_path,
        bytes=facts.size,
        sha256=facts.sha256,
        device_sha256=device_sha,
        overwritten=present,
        device_digest_source="device_sha256sum" if device_sha else "unavailable",
    )
    return record, [] if device_sha else ["the device has no sha256sum: the transfer is unverified"]


def install(args: w.InstallArgs, client: AdbClient) -> Body:
    facts = yield from _local_file(args.apk_path)
    staged = f"/data/local/tmp/rea-install-{facts.sha256[:16]}.apk"
    yield from exchange(args, AdbStep(kind="push", device_path=staged, local_path=facts.path))
    flags = " -r" if args.replace else ""
    texts = yield from shell(args, f"pm install{flags} {staged}", f"rm -f {staged}")
    ok, said = parse.verdict(texts[0])
    if not ok:
        refuse(device_refused(args, f"Installing {facts.path}", said))
    record = w.InstallResult(
        client=client,
        serial=args.serial,
        apk_path=facts.path,
        bytes=facts.size,
        sha256=facts.sha256,
        replaced=args.replace,
    )
    return record, []


def verdict(what: str) -> Any:
    """A reader of a package verdict (`Success`, or the device's Failure line kept verbatim)."""

    def read(client: AdbClient, args: w.PackageArgs, text: str) -> Result[Built, ReaError]:
        ok, said = parse.verdict(text)
        if not ok:
            return Failure(device_refused(args, f"{what} {args.package}", said))
        return Success((w.PackageVerdictResult(client=client, serial=args.serial, package_name=args.package), []))

    return read


def stopped(client: AdbClient, args: w.PackageArgs, text: str) -> Result[Built, ReaError]:
    return Success((w.PackageVerdictResult(client=client, serial=args.serial, package_name=args.package), []))


def start_app(args: w.PackageArgs, client: AdbClient) -> Body:
    texts = yield from shell(args, f"cmd package resolve-activity --brief {q(args.package)}")
    component = parse.launcher(texts[0])
    if component is None:
        refuse(
            invalid_request(
                f"{args.package} declares no launcher activity on {args.serial}",
                field="package",
                accepted="an installed package with a MAIN/LAUNCHER activity (or start_adb_activity)",
            )
        )
    started = yield from shell(args, f"am start -n {q(component)}")
    intent, error = parse.started(started[0])
    if error is not None:
        refuse(device_refused(args, f"Starting {component}", error))
    record = w.StartAppResult(
        client=client, serial=args.serial, package_name=args.package, component=component, started_activity=intent
    )
    return record, []


_EXTRA_FLAGS = {"string": "--es", "boolean": "--ez", "int": "--ei", "long": "--el", "float": "--ef"}


def start_activity(args: w.ActivityArgs, client: AdbClient) -> Body:
    parts = ["am", "start", "-a", args.action]
    if args.data_uri:
        parts += ["-d", args.data_uri]
    if args.component:
        parts += ["-n", args.component]
    for extra in args.extras:
        parts += [_EXTRA_FLAGS[extra.type], extra.key, extra.value]
    texts = yield from shell(args, " ".join(q(p) for p in parts))
    intent, error = parse.started(texts[0])
    if error is not None:
        refuse(device_refused(args, f"Starting {args.action}", error))
    record = w.StartActivityResult(
        client=client,
        serial=args.serial,
        action=args.action,
        data_uri=args.data_uri,
        component=args.component,
        extras=args.extras,
        started_activity=intent,
    )
    return record, []
