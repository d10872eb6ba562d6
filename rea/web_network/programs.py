"""Programs of the web family's offline tools: inspect_web_network_capture and compare_web_screenshots.

The effects read files (and run mitmproxy's reader); records, redactions, PNG
decoding and pixel metrics are pure.
"""

from __future__ import annotations

from typing import Any
from collections.abc import Mapping

from returns.pipeline import is_successful
from returns.result import Failure, Result, Success

from rea import __version__
from rea.effect_types import Program, ToolProgram
from rea.errors import ReaError, invalid_request
from rea.evidence import Provider, Subject, create_evidence
from rea.program import Context, ReportProgress, failed, recorded
from rea.session import Session
from rea.web_network.capture import LIMITATIONS, Malformed, artifact_view, flow_records, har_records, select
from rea.web_network.model import MAX_CAPTURE_BYTES, ReadCapture, ReadPng
from rea.web_network.png import Image, PngError, decode_png
from rea.web_network.screenshots import artifact_bytes, compare
from rea.web_network.views import redaction_index
from rea.workflows.views import deliver

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


def _capture_result(read: Mapping[str, Any], args: Mapping[str, Any]) -> dict[str, Any] | ReaError:
    sensitive = tuple(args["sensitive_values"])
    try:
        if args["format"] == "har":
            container, records = har_records(read["document"], sensitive)
        else:
            container, records = flow_records(read["flows"], read["flow_format_version"], sensitive)
    except Malformed as exc:
        return _malformed(args["capture_path"], exc)
    chosen = select(records, args.get("record_ordinals"))
    if isinstance(chosen, int):
        return invalid_request(
            f"record_ordinals names {chosen}; the capture has {len(records)} records (0..{len(records) - 1}).",
            field="record_ordinals",
            accepted=f"ordinals below {len(records)}",
        )
    return {
        "artifact": artifact_view(read["artifact"], sensitive),
        "format": args["format"],
        "decoder": read["decoder"],
        "container": container,
        "total_records": len(records),
        "records": chosen,
        "runtime_attribution": "unknown",
        "limitations": list(LIMITATIONS),
        "max_input_bytes": MAX_CAPTURE_BYTES,
        "redaction_index": redaction_index(records, container["redactions"]),
    }


def inspect_web_network_capture(session: Session, args: Mapping[str, Any], ctx: Context) -> Program:
    yield ReportProgress(phase="reading network capture", message=args["capture_path"])
    read = yield ReadCapture(path=args["capture_path"], format=args["format"])
    if not is_successful(read):
        return failed(session, read.failure())
    result = _capture_result(read.unwrap(), args)
    if isinstance(result, ReaError):
        return failed(session, result)
    decoder = result["decoder"]
    artifact = result["artifact"]
    # declared sensitive values are never persisted in the Evidence parameters; delivery detail is not identity
    parameters = {k: v for k, v in args.items() if k not in ("sensitive_values", "detail")}
    parameters["sensitive_value_count"] = len(args["sensitive_values"])
    if not artifact["path"]:
        parameters.pop("capture_path")
    built = create_evidence(
        provider=Provider(id=decoder["id"], name=decoder["name"], version=decoder["version"]),
        operation="inspect_web_network_capture",
        parameters=parameters,
        normalized_result=result,
        subject=Subject(
            name=artifact["path"].rsplit("/", 1)[-1] or "capture",
            sha256=artifact["sha256"] or "0" * 64,
            format="file",  # the subject vocabulary has no capture kinds; normalized_result.format says which
            architecture=None,
            local_path=artifact["path"],
        ),
        authority="historical-reference",
        limitations=result["limitations"],
    )
    if not is_successful(built):
        return failed(session, built.failure())
    return deliver(session, built.unwrap(), args["detail"])


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


def compare_web_screenshots(session: Session, args: Mapping[str, Any], ctx: Context) -> Program:
    images: dict[str, Image] = {}
    for side in ("before", "after"):
        given = args[side]
        if "path" in given:
            read = yield ReadPng(path=given["path"])
            if not is_successful(read):
                return failed(session, read.failure().with_details(field=f"{side}.path"))
            data: bytes | str = read.unwrap()
        else:
            data = artifact_bytes(given)
        decoded = _decoded(data, side, args["maximum_pixels"])
        if not is_successful(decoded):
            return failed(session, decoded.failure())
        images[side] = decoded.unwrap()
    diff = compare(images["before"], images["after"], args["channel_threshold"])
    return recorded(
        session,
        create_evidence(
            provider=PIXELS_PROVIDER,
            operation="compare_web_screenshots",
            # the images are named by identity, not carried again (an inline artifact is up to 8 MiB)
            parameters={
                k: ({f: v for f, v in a.items() if f != "data_base64"} if isinstance(a, Mapping) else a)
                for k, a in args.items()
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
