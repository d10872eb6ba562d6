"""Programs of the web family's offline tools: inspect_web_network_capture and compare_web_screenshots.

The effects read files (and run mitmproxy's reader); records, redactions, PNG
decoding and pixel metrics are pure.
"""

from __future__ import annotations

from collections.abc import Generator, Mapping
from typing import Any

from returns.result import Failure, Result, Success

from rea import __version__
from rea.effect_types import AnyEffect, Program, ToolProgram
from rea.errors import ReaError, invalid_request
from rea.evidence import Provider, Subject, create_evidence
from rea.program import Context, ReportProgress, must, need, recorded, refusable, typed
from rea.session import Session
from rea.views.programs import deliver
from rea.web_network.capture import LIMITATIONS, Malformed, artifact_view, flow_records, har_records, select
from rea.web_network.model import MAX_CAPTURE_BYTES, ReadCapture, ReadPng
from rea.web_network.png import Image, PngError, decode_png
from rea.web_network.records import (
    CaptureArgs,
    CaptureArtifact,
    Decoder,
    NetworkCapture,
    ScreenshotArgs,
    ScreenshotFile,
)
from rea.web_network.screenshots import artifact_bytes, compare
from rea.web_network.views import redaction_index
from rea.wire.convert import to_wire

PIXELS_PROVIDER = Provider(id="rea-png", name="REA PNG pixel comparison (zlib)", version=__version__)


def _malformed(path: str, exc: Malformed) -> ReaError:
    return invalid_request(
        f"{path}: the record at {exc.pointer or '/'} is malformed: {exc}; no record was returned.",
        field="capture_path",
        accepted="a HAR 1.2 document whose entries each have request {method, url, headers} and response "
        "{status, headers}, and base64 bodies that decode",
        reason="malformed_capture",
        pointer=exc.pointer,
    )


def capture_result(read: Mapping[str, Any], args: CaptureArgs) -> Result[NetworkCapture, ReaError]:
    """The capture's records, redacted of the declared sensitive values, and what was read (or why not)."""
    sensitive = tuple(args.sensitive_values)
    try:
        if args.format == "har":
            container, records = har_records(read["document"], sensitive)
        else:
            container, records = flow_records(read["flows"], read["flow_format_version"], sensitive)
    except Malformed as exc:
        return Failure(_malformed(args.capture_path, exc))
    chosen = select(records, args.record_ordinals)
    if isinstance(chosen, int):
        return Failure(
            invalid_request(
                f"record_ordinals names {chosen}; the capture has {len(records)} records (0..{len(records) - 1}).",
                field="record_ordinals",
                accepted=f"ordinals below {len(records)}",
            )
        )
    return Success(
        NetworkCapture(
            artifact=artifact_view(read["artifact"], sensitive),
            format=args.format,
            decoder=Decoder(**read["decoder"]),
            container=container,
            total_records=len(records),
            records=tuple(chosen),
            runtime_attribution="unknown",
            limitations=LIMITATIONS,
            max_input_bytes=MAX_CAPTURE_BYTES,
            redaction_index=redaction_index(((r.ordinal, r.redactions) for r in records), container.redactions),
        )
    )


def _capture_parameters(args: CaptureArgs, artifact: CaptureArtifact) -> dict[str, Any]:
    """The Evidence parameters: declared sensitive values are never persisted (their count is), delivery detail
    is not identity, and a capture path that holds a sensitive value is left out."""
    parameters = {k: v for k, v in to_wire(args).items() if k not in ("sensitive_values", "detail")}
    parameters["sensitive_value_count"] = len(args.sensitive_values)
    if not artifact.path:
        parameters.pop("capture_path")
    return parameters


@typed
@refusable
def inspect_web_network_capture(session: Session, args: CaptureArgs, ctx: Context) -> Program:
    yield ReportProgress(phase="reading network capture", message=args.capture_path)
    read = yield from need(ReadCapture(path=args.capture_path, format=args.format))
    result = must(capture_result(read, args))
    decoder = result.decoder
    artifact = result.artifact
    evidence = must(
        create_evidence(
            provider=Provider(id=decoder.id, name=decoder.name, version=decoder.version),
            operation="inspect_web_network_capture",
            parameters=_capture_parameters(args, artifact),
            normalized_result=to_wire(result),
            subject=Subject(
                name=artifact.path.rsplit("/", 1)[-1] or "capture",
                sha256=artifact.sha256 or "0" * 64,
                format="file",  # the subject vocabulary has no capture kinds; normalized_result.format says which
                architecture=None,
                local_path=artifact.path,
            ),
            authority="historical-reference",
            limitations=result.limitations,
        )
    )
    return deliver(session, evidence, args.detail)


def _decoded(data: bytes | str, side: str, maximum_pixels: int) -> Result[Image, ReaError]:
    if isinstance(data, str):
        return Failure(invalid_request(f"{side} is not a valid screenshot artifact: {data}", field=side))
    try:
        return Success(decode_png(data, maximum_pixels))
    except PngError as exc:
        return Failure(
            invalid_request(
                f"{side} is not a PNG this comparison reads: {exc}",
                field=side,
                accepted=f"a non-interlaced PNG of at most maximum_pixels ({maximum_pixels}) pixels",
                reason="invalid_png",
            )
        )


def _image(given: object, side: str, maximum_pixels: int) -> Generator[AnyEffect, Any, Image]:
    """One side's PNG (read from its path, or the inline artifact verified), decoded."""
    if isinstance(given, ScreenshotFile):
        read = yield ReadPng(path=given.path)
        data: bytes | str = must(read.alt(lambda error: error.with_details(field=f"{side}.path")))
    else:
        data = artifact_bytes(to_wire(given))
    return must(_decoded(data, side, maximum_pixels))


@typed
@refusable
def compare_web_screenshots(session: Session, args: ScreenshotArgs, ctx: Context) -> Program:
    before = yield from _image(args.before, "before", args.maximum_pixels)
    after = yield from _image(args.after, "after", args.maximum_pixels)
    diff = compare(before, after, args.channel_threshold)
    return recorded(
        session,
        create_evidence(
            provider=PIXELS_PROVIDER,
            operation="compare_web_screenshots",
            # the images are named by identity, not carried again (an inline artifact is up to 8 MiB)
            parameters={
                k: ({f: v for f, v in a.items() if f != "data_base64"} if isinstance(a, Mapping) else a)
                for k, a in to_wire(args).items()
            },
            normalized_result=diff,
            confidence="derived",
            limitations=diff["limitations"],
        ),
    )


PROGRAMS: Mapping[str, ToolProgram] = {
    "inspect_web_network_capture": inspect_web_network_capture,
    "compare_web_screenshots": compare_web_screenshots,
}
