"""Wire records of observe_native_calls: the REA 6.x nativeCallObservation shape, launched on Linux by Debian LLDB.

Inputs and result fields are the reference's (domain/native/nativeCallObservation);
what Linux adds is said in the values (an objc-method request is unresolved on an ELF
process) and in limitations, not in new required fields.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

import attrs

from rea.wire.schema import field, local_path

HEX = "^0x[0-9a-f]+$"
SHA256 = "^[0-9a-f]{64}$"
NO_NUL = "^[^\\u0000]*$"
OBJC_NAME = "^[^\\s\\x5b\\x5d]+$"
MethodType = Literal["instance", "class", "any"]


@attrs.frozen(kw_only=True)
class FunctionBreakpoint:
    kind: Literal["function"] = field("Break on entry into a function by symbol name")
    name: str = field("Exact symbol name, such as open or a C++ mangled symbol", minLength=1, pattern=NO_NUL)
    module: str | None = field(
        "Image file name that defines the symbol (libc.so.6); omit to match every image",
        omit_none=True,
        minLength=1,
        pattern=NO_NUL,
    )


@attrs.frozen(kw_only=True)
class ObjcMethodBreakpoint:
    kind: Literal["objc-method"] = field("Break on an Objective-C method (no Objective-C runtime on Linux)")
    selector: str = field("Selector such as dataTaskWithRequest:completionHandler:", minLength=1, pattern=OBJC_NAME)
    class_name: str | None = field(
        "Implementing class; omit for every class", omit_none=True, minLength=1, pattern=OBJC_NAME
    )
    method_type: MethodType = field("instance, class or any", default="any")


@attrs.frozen(kw_only=True)
class ObserveNativeCallsArgs:
    breakpoints: tuple[FunctionBreakpoint | ObjcMethodBreakpoint, ...] = field(
        "Functions or methods whose entries are observed", minItems=1, maxItems=256
    )
    arguments: tuple[str, ...] = field("Arguments after argv[0]", factory=tuple, maxItems=4096)
    environment: Mapping[str, str] = field(
        "Overrides on top of the environment REA runs with",
        factory=dict,
        propertyNames={"pattern": "^[^=\\u0000]+$", "minLength": 1},
    )
    working_directory: str | None = local_path("Working directory of the launched process", omit_none=True)
    duration_ms: int = field(
        "Observation window; the process is killed if it is still running", default=10_000, minimum=100, maximum=600_000
    )
    max_events: int = field(
        "Stop observing and kill the process after this many recorded entries",
        default=1_000,
        minimum=1,
        maximum=100_000,
    )
    argument_registers: int = field(
        "Integer argument registers recorded per entry (x86_64 has 6, aarch64 8)", default=4, minimum=0, maximum=8
    )
    backtrace_frames: int = field("Caller frames recorded per entry", default=0, minimum=0, maximum=64)


@attrs.frozen(kw_only=True)
class CodeLocation:
    load_address: str = field("Address in the running process", pattern=HEX)
    file_address: str | None = field("Address in the image file", pattern=HEX)
    module: str | None = field("Image file name")
    module_path: str | None = field("Image path")
    symbol: str | None = field("Symbol LLDB attributes the address to")


@attrs.frozen(kw_only=True)
class RegisterValue:
    name: str = field("Register")
    value: str = field("Raw integer value at entry", pattern=HEX)


@attrs.frozen(kw_only=True)
class CallEvent:
    sequence: int = field("Order of recording", minimum=0)
    elapsed_ms: float = field("Milliseconds since launch", minimum=0)
    thread_id: int = field("Thread", minimum=0)
    breakpoint_index: int = field("Index into breakpoints", minimum=0)
    load_address: str = field("Entry address in the process", pattern=HEX)
    file_address: str | None = field("Entry address in the image file", pattern=HEX)
    module: str | None = field("Image file name")
    module_path: str | None = field("Image path")
    symbol: str | None = field("Symbol")
    receiver_class: str | None = field("Objective-C receiver class: null on Linux")
    selector: str | None = field("Objective-C selector: null on Linux")
    registers: tuple[RegisterValue, ...] = field("Argument registers in calling-convention order")
    backtrace: tuple[CodeLocation, ...] = field("Caller frames, nearest first")


@attrs.frozen(kw_only=True)
class CapturedOutput:
    text: str = field("Captured text (UTF-8, replacement characters for invalid bytes)")
    bytes: int = field("Bytes the process wrote", minimum=0)
    truncated: bool = field("More was written than kept")
    complete: bool = field("The whole stream was read")


@attrs.frozen(kw_only=True)
class LaunchIdentity:
    loaded_image_sha256: None = field("A pathname hash does not verify the mapped bytes: null")
    file_device: str | None = field("st_dev of the executable before launch")
    file_inode: str | None = field("st_ino of the executable before launch")
    selected_file_sha256: str | None = field("Digest of the file launched", pattern=SHA256)
    module_path: str | None = field("Main module path LLDB loaded")
    module_uuid: str | None = field("Build id (null when not read)")
    stable: bool = field("The file's digest and inode were the same before and after the run")


@attrs.frozen(kw_only=True)
class LaunchedTarget:
    path: str = field("Executable launched")
    sha256: str = field("Digest of the open target", pattern=SHA256)
    architecture: str = field("Its architecture")
    arguments: tuple[str, ...] = field("Arguments passed")
    environment: Mapping[str, str] = field("Environment overrides passed")
    working_directory: str | None = field("Working directory")
    launch_identity: LaunchIdentity = field("What identifies the launched file")


@attrs.frozen(kw_only=True)
class DebuggerIdentity:
    path: str = field("LLDB used")
    sha256: str = field("Its digest", pattern=SHA256)
    version: str | None = field("Its version")


@attrs.frozen(kw_only=True)
class ObservedProcess:
    pid: int = field("Process id", minimum=1)
    outcome: Literal["exited", "duration-elapsed", "event-limit", "stop-limit", "resource-limit"] = field(
        "How it ended"
    )
    exit_status: int | None = field("Exit status when it exited")
    exit_description: str | None = field("LLDB's exit description")
    terminated: bool = field("REA confirmed the process is gone")
    elapsed_ms: float = field("Milliseconds observed", minimum=0)
    stdout: CapturedOutput = field("Standard output")
    stderr: CapturedOutput = field("Standard error")
    other_stops: tuple[str, ...] = field("Signal stops LLDB reported; the process continued past each")


@attrs.frozen(kw_only=True)
class FunctionRequest:
    kind: Literal["function"] = field("function")
    name: str = field("Symbol")
    module: str | None = field("Module filter")


@attrs.frozen(kw_only=True)
class ObjcRequest:
    kind: Literal["objc-method"] = field("objc-method")
    selector: str = field("Selector")
    class_name: str | None = field("Class filter")
    method_type: MethodType = field("Method type")


@attrs.frozen(kw_only=True)
class BreakpointResolution:
    index: int = field("Request index", minimum=0)
    request: FunctionRequest | ObjcRequest = field("The request")
    location_count: int = field("Locations LLDB resolved", minimum=0)
    locations: tuple[CodeLocation, ...] = field("Resolved locations (at most 64)")


@attrs.frozen(kw_only=True)
class ObservationCoverage:
    status: Literal["complete", "partial"] = field("complete: the process exited under observation")
    event_limit_reached: bool = field("max_events ended the observation")
    resource_limit_reached: bool = field("A retention bound ended it")
    breakpoint_locations_truncated: bool = field("More than 64 locations of one request")
    unresolved_breakpoints: tuple[int, ...] = field("Requests that matched no code in any image loaded")


@attrs.frozen(kw_only=True)
class NativeCallObservation:
    target: LaunchedTarget = field("What was launched")
    debugger: DebuggerIdentity = field("The debugger")
    process: ObservedProcess = field("The process lifecycle")
    breakpoints: tuple[BreakpointResolution, ...] = field("Each request and where it resolved")
    events: tuple[CallEvent, ...] = field("Observed entries in order")
    coverage: ObservationCoverage = field("What the observation covered")
    limitations: tuple[str, ...] = field("What is not observed or approximated")
