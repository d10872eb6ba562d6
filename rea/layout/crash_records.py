"""Wire records of inspect_recorded_crash: the REA 6.x recorded-crash shape (domain/native/recordedCrash).

Every number a 64-bit core can hold travels as a lowercase `0x` hex string; every raw
note keeps its owner and descriptor bytes (base64) and where they sit. Extras the
reference has no field for: `mapped_files` (NT_FILE), `process` (NT_PRPSINFO), a
debugger `unavailable` alternative, and gdb's own frames.
"""

from __future__ import annotations

from typing import Literal

import attrs

from rea.layout.records import BASE64, HEX, Diagnostics, LayoutArtifact, Range
from rea.wire.schema import field, local_path


@attrs.frozen(kw_only=True)
class RecordedCrashArgs:
    path: str = local_path("Absolute filesystem path to a supplied Linux ELF core")
    include_debugger_context: bool = field(
        "Add gdb's core-only mapping candidates and frames (the core alone, no executable)",
        default=False,
    )


@attrs.frozen(kw_only=True)
class CoreSegment:
    index: int = field("Program header index", minimum=0)
    type: str | int = field("PT_* name, or the raw p_type")
    header_location: Range = field("Where the program header sits")
    offset: str = field("p_offset", pattern=HEX)
    file_size: str = field("p_filesz", pattern=HEX)
    memory_size: str = field("p_memsz", pattern=HEX)
    virtual_address: str = field("p_vaddr", pattern=HEX)
    physical_address: str = field("p_paddr", pattern=HEX)
    alignment: str = field("p_align", pattern=HEX)
    flags: str = field("p_flags (PF_X 1, PF_W 2, PF_R 4)", pattern=HEX)
    file_backing: Literal["file", "none"] = field("file: p_filesz bytes are recorded in the core")


@attrs.frozen(kw_only=True)
class CoreNote:
    index: int = field("Note index across every PT_NOTE segment", minimum=0)
    segment_index: int = field("The PT_NOTE segment holding it", minimum=0)
    type: str | int = field("NT_* name for the owner, or the raw n_type")
    location: Range = field("Header, owner and descriptor")
    owner_location: Range = field("The owner (namesz bytes, NUL included)")
    owner_bytes_base64: str = field("The owner bytes", pattern=BASE64)
    owner_display: str | None = field("The owner as text (null: not printable ASCII)")
    descriptor_location: Range = field("The descriptor (descsz bytes)")
    descriptor_bytes_base64: str = field("The descriptor bytes", pattern=BASE64)


@attrs.frozen(kw_only=True)
class NotePadding:
    segment_index: int = field("The PT_NOTE segment", minimum=0)
    location: Range = field("Alignment bytes between or after notes")
    bytes_base64: str = field("The padding bytes", pattern=BASE64)


@attrs.frozen(kw_only=True)
class Register:
    name: str = field("Register name (Linux amd64 PRSTATUS order)", minLength=1)
    value: str = field("Recorded value", pattern=HEX)
    location: Range = field("Its 8 bytes in the descriptor")


@attrs.frozen(kw_only=True)
class CoreThread:
    note_index: int = field("The NT_PRSTATUS note", minimum=0)
    historical_pid: int = field("pr_pid as recorded (the thread id)", minimum=-(2**31), maximum=2**31 - 1)
    recorded_current_signal: int = field("pr_cursig", minimum=-32768, maximum=32767)
    registers: tuple[Register, ...] = field("Every amd64 register exactly once")


@attrs.frozen(kw_only=True)
class CoreSignal:
    note_index: int = field("The NT_SIGINFO note", minimum=0)
    number: int = field("si_signo", minimum=-(2**31), maximum=2**31 - 1)
    code: int = field("si_code", minimum=-(2**31), maximum=2**31 - 1)
    errno: int = field("si_errno", minimum=-(2**31), maximum=2**31 - 1)
    fault_address: str | None = field("si_addr when SIGSEGV records one (codes 1, 2); else null", pattern=HEX)
    fault_address_meaning: Literal["recorded-sigsegv-address", "unknown"] = field("What fault_address means")
    thread_association: Literal["unknown"] = field("Which thread took it is not recorded in the note")


@attrs.frozen(kw_only=True)
class MappedFile:
    note_index: int = field("The NT_FILE note", minimum=0)
    start: str = field("Mapping start", pattern=HEX)
    end: str = field("Mapping end", pattern=HEX)
    file_offset: str = field("Offset in the file (page offset x page size)", pattern=HEX)
    path: str | None = field("The recorded path (null: missing from the note)")


@attrs.frozen(kw_only=True)
class RecordedProcess:
    note_index: int = field("The NT_PRPSINFO note", minimum=0)
    historical_pid: int = field("pr_pid")
    historical_parent_pid: int = field("pr_ppid")
    uid: int = field("pr_uid", minimum=0)
    gid: int = field("pr_gid", minimum=0)
    command: str = field("pr_fname (16 bytes)")
    arguments: str = field("pr_psargs (80 bytes: the start of the command line)")


@attrs.frozen(kw_only=True)
class NotRequested:
    status: Literal["not-requested"] = field("include_debugger_context was false")


@attrs.frozen(kw_only=True)
class DebuggerUnavailable:
    status: Literal["unavailable"] = field("Our extra: no usable gdb on this host")
    reason: str = field("Why")
    remediation: str = field("What to install or set")


@attrs.frozen(kw_only=True)
class MapPermissions:
    read: bool = field("PF_R")
    write: bool = field("PF_W")
    execute: bool = field("PF_X")


@attrs.frozen(kw_only=True)
class DebuggerMap:
    start: str = field("Start address", pattern=HEX)
    end: str = field("End address", pattern=HEX)
    offset: str = field("File offset", pattern=HEX)
    reported_flags: int = field("Permission flags gdb reported (0: none reported)", minimum=0)
    permissions: MapPermissions | None = field("null: unreported or unfamiliar flags (zero never means none)")
    pathname_display: str = field("The mapped file as gdb printed it")
    current_file_identity: Literal["unknown"] = field("The file on disk now may differ from the one mapped")


@attrs.frozen(kw_only=True)
class DebuggerLimits:
    address_space_bytes: int = field("RLIMIT_AS of the gdb child", minimum=0)
    cpu_seconds: int = field("RLIMIT_CPU of the gdb child", minimum=0)
    file_size_bytes: int = field("RLIMIT_FSIZE of the gdb child", minimum=0)


@attrs.frozen(kw_only=True)
class DebuggerContext:
    status: Literal["available"] = field("gdb read the core")
    gdb_version: str = field("gdb --version's first line", minLength=1)
    pwndbg_version: str | None = field("Our deviation: null, pwndbg is not used (Debian has none)")
    connection: Literal["core"] = field("gdb read the core file alone")
    executable: None = field("No executable is paired with the core")
    historical_pid: int = field("The pid gdb reports for the core", minimum=-(2**31), maximum=2**31 - 1)
    reported_limits: DebuggerLimits = field("The limits the gdb child ran under")
    maps: tuple[DebuggerMap, ...] = field("`info proc mappings` of the core")
    frames: tuple[str, ...] = field("Our extra: `bt` lines gdb printed (symbols are unknown without the executable)")
    confidence: Literal["derived"] = field("Derived by gdb from the recorded notes")
    completeness: Literal["unknown"] = field("gdb's view may omit what it cannot decode")
    diagnostics: Diagnostics = field("gdb's stdout and stderr")


@attrs.frozen(kw_only=True)
class RecordedCrash:
    artifact: LayoutArtifact = field("The core read")
    format: Literal["elf-core"] = field("ELF ET_CORE")
    architecture: Literal["x86_64-little-endian"] = field("The one architecture read")
    target_execution: Literal["not-performed"] = field("The crashed program is never run")
    live_process_identity: Literal["unknown"] = field("The recorded pids name a process that may not exist now")
    segments: tuple[CoreSegment, ...] = field("Every program header inside the file")
    notes: tuple[CoreNote, ...] = field("Every note of every PT_NOTE segment")
    note_padding: tuple[NotePadding, ...] = field("Bytes between and after notes")
    threads: tuple[CoreThread, ...] = field("One per CORE NT_PRSTATUS note")
    signals: tuple[CoreSignal, ...] = field("One per CORE NT_SIGINFO note")
    mapped_files: tuple[MappedFile, ...] = field("Our extra: NT_FILE mappings")
    process: RecordedProcess | None = field("Our extra: NT_PRPSINFO (null: not recorded)")
    debugger: NotRequested | DebuggerUnavailable | DebuggerContext = field("gdb context when requested")
    note_interpretation_completeness: Literal["unknown"] = field("Notes REA does not interpret stay raw")
    decoder_diagnostics: Diagnostics = field("The decoder's own output (it runs in process: empty)")
    diagnostics: Diagnostics = field("Diagnostics of the whole read")
    limitations: tuple[str, ...] = field("What could not be read, and why")
