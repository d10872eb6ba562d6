"""Linux x86-64 ELF core files, read from their bytes: segments, notes, threads, signals, mapped files.

A core is what the kernel (or gdb's gcore) recorded when a process died: program headers
for every memory range, and PT_NOTE segments whose notes carry each thread's registers
(NT_PRSTATUS), the signal (NT_SIGINFO), the process (NT_PRPSINFO) and its mapped files
(NT_FILE). Every recorded value keeps where its bytes sit, so a reader can check it
against the file; what the recording cannot say (the live process, which thread took
the signal) stays unknown. Nothing runs: the target's code is never executed.

Input is a bytes-like view of the file (the effect maps it); everything here is pure.
A table that lies about its extent ends its own reading with a limitation, never a guess.
"""

from __future__ import annotations

import base64
import struct
from typing import Any

import attrs

from rea.layout.crash_records import (
    CoreNote,
    CoreSegment,
    CoreSignal,
    CoreThread,
    DebuggerContext,
    DebuggerUnavailable,
    MappedFile,
    NotePadding,
    NotRequested,
    RecordedCrash,
    RecordedProcess,
    Register,
)
from rea.layout.records import Diagnostics, LayoutArtifact, Range

ELF_MAGIC = b"\x7fELF"
ET_CORE = 4
EM_X86_64 = 62
EHDR_BYTES = 64
PHDR_BYTES = 56
PN_XNUM = 0xFFFF
MAX_NOTE_BYTES = 64 << 20  # all PT_NOTE segments together
MAX_NOTES = 65_536
MAX_MAPPED_FILES = 65_536

# PRSTATUS register order of the Linux amd64 ABI (struct user_regs_struct)
REGISTERS = (
    "r15", "r14", "r13", "r12", "rbp", "rbx", "r11", "r10", "r9", "r8", "rax", "rcx", "rdx", "rsi", "rdi",
    "orig_rax", "rip", "cs", "eflags", "rsp", "ss", "fs_base", "gs_base", "ds", "es", "fs", "gs",
)  # fmt: skip
PRSTATUS_REGS_AT = 112  # after siginfo, cursig, sigpend, sighold, pid/ppid/pgrp/sid and four timevals
PRSTATUS_PID_AT = 32
PRSTATUS_CURSIG_AT = 12

SEGMENT_TYPES = {
    0: "PT_NULL", 1: "PT_LOAD", 2: "PT_DYNAMIC", 3: "PT_INTERP", 4: "PT_NOTE", 5: "PT_SHLIB", 6: "PT_PHDR",
    7: "PT_TLS", 0x6474E550: "PT_GNU_EH_FRAME", 0x6474E551: "PT_GNU_STACK", 0x6474E552: "PT_GNU_RELRO",
    0x6474E553: "PT_GNU_PROPERTY",
}  # fmt: skip
# (owner, type) -> name, as readelf and the kernel's elf.h name them
NOTE_TYPES = {
    ("CORE", 1): "NT_PRSTATUS", ("CORE", 2): "NT_FPREGSET", ("CORE", 3): "NT_PRPSINFO",
    ("CORE", 4): "NT_TASKSTRUCT", ("CORE", 6): "NT_AUXV", ("CORE", 0x46494C45): "NT_FILE",
    ("CORE", 0x53494749): "NT_SIGINFO", ("LINUX", 0x202): "NT_X86_XSTATE", ("LINUX", 0x200): "NT_386_TLS",
    ("LINUX", 0x204): "NT_X86_SHSTK", ("LINUX", 0x205): "NT_X86_XSAVE_LAYOUT", ("GNU", 5): "NT_GNU_PROPERTY_TYPE_0",
}  # fmt: skip
SIGSEGV = 11
SEGV_CODES_WITH_ADDRESS = (1, 2)  # SEGV_MAPERR, SEGV_ACCERR


class CoreRefused(ValueError):
    """The bytes are not a Linux x86-64 ELF64 core this reader accepts; the message says what they are."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


def hx(value: int) -> str:
    return f"0x{value:x}"


def _range(offset: int, size: int) -> Range:
    return Range(offset=hx(offset), bytes=hx(size))


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


@attrs.frozen
class Header:
    phoff: int
    phentsize: int
    phnum: int


def header(data: Any) -> Header:
    """The ELF header, checked to be a little-endian ELF64 x86-64 core."""
    size = len(data)
    if size < EHDR_BYTES or bytes(data[:4]) != ELF_MAGIC:
        raise CoreRefused("not-elf", f"the file ({size} bytes) does not start with an ELF header")
    ident = bytes(data[:16])
    if ident[4] != 2 or ident[5] != 1:
        raise CoreRefused("unsupported", "only little-endian ELF64 cores are read (EI_CLASS 2, EI_DATA 1)")
    e_type, machine = struct.unpack_from("<HH", data, 16)
    if e_type != ET_CORE:
        raise CoreRefused("not-core", f"the ELF type is {e_type}, not ET_CORE (4): this is not a core file")
    if machine != EM_X86_64:
        raise CoreRefused("unsupported", f"the core's machine is {machine}; only x86-64 (62) cores are read")
    (phoff,) = struct.unpack_from("<Q", data, 32)
    phentsize, phnum = struct.unpack_from("<HH", data, 54)
    if phnum == PN_XNUM:
        raise CoreRefused("unsupported", "the core has 65535+ program headers (PN_XNUM), which is not read")
    if phnum and phentsize < PHDR_BYTES:
        raise CoreRefused("malformed", f"e_phentsize {phentsize} is smaller than an ELF64 program header")
    return Header(phoff=phoff, phentsize=phentsize, phnum=phnum)


def segments(data: Any, head: Header, limitations: list[str]) -> list[CoreSegment]:
    """Every program header that lies inside the file, in table order."""
    rows: list[CoreSegment] = []
    size = len(data)
    for index in range(head.phnum):
        at = head.phoff + index * head.phentsize
        if at + PHDR_BYTES > size:
            limitations.append(f"program header {index} at {hx(at)} runs past the end of the file; the rest is unread")
            break
        p_type, flags, offset, vaddr, paddr, filesz, memsz, align = struct.unpack_from("<IIQQQQQQ", data, at)
        if filesz and offset + filesz > size:
            limitations.append(
                f"segment {index} ({SEGMENT_TYPES.get(p_type, hx(p_type))}) records {hx(filesz)} bytes at "
                f"{hx(offset)}, past the end of the {size}-byte file: the core is truncated"
            )
        rows.append(
            CoreSegment(
                index=index,
                type=SEGMENT_TYPES.get(p_type, p_type),
                header_location=_range(at, PHDR_BYTES),
                offset=hx(offset),
                file_size=hx(filesz),
                memory_size=hx(memsz),
                virtual_address=hx(vaddr),
                physical_address=hx(paddr),
                alignment=hx(align),
                flags=hx(flags),
                file_backing="file" if filesz else "none",
            )
        )
    return rows


def _align4(n: int) -> int:
    return (n + 3) & ~3


def _owner_display(owner: bytes) -> str | None:
    text = owner[:-1] if owner.endswith(b"\x00") else owner
    try:
        decoded = text.decode("ascii")
    except UnicodeDecodeError:
        return None
    return decoded if decoded.isprintable() else None


def _note_type(owner: str | None, n_type: int) -> str | int:
    return NOTE_TYPES.get((owner or "", n_type), n_type)


@attrs.frozen
class Note:
    """One raw note and where its parts sit (offsets into the file)."""

    index: int
    segment_index: int
    owner: bytes
    owner_display: str | None
    n_type: int
    start: int
    owner_at: int
    desc_at: int
    desc: bytes

    def record(self) -> CoreNote:
        end = self.desc_at + len(self.desc)
        return CoreNote(
            index=self.index,
            segment_index=self.segment_index,
            type=_note_type(self.owner_display, self.n_type),
            location=_range(self.start, end - self.start),
            owner_location=_range(self.owner_at, len(self.owner)),
            owner_bytes_base64=_b64(self.owner),
            owner_display=self.owner_display,
            descriptor_location=_range(self.desc_at, len(self.desc)),
            descriptor_bytes_base64=_b64(self.desc),
        )

    @property
    def kind(self) -> str | int:
        return _note_type(self.owner_display if self.owner.endswith(b"\x00") else None, self.n_type)


def _padding(segment: int, at: int, data: Any, end: int) -> NotePadding | None:
    if end <= at:
        return None
    return NotePadding(segment_index=segment, location=_range(at, end - at), bytes_base64=_b64(bytes(data[at:end])))


def notes(data: Any, rows: list[CoreSegment], limitations: list[str]) -> tuple[list[Note], list[NotePadding]]:
    """The notes of every PT_NOTE segment (4-byte aligned, as Linux writes cores) and their padding."""
    found: list[Note] = []
    padding: list[NotePadding] = []
    budget = MAX_NOTE_BYTES
    for seg in rows:
        if seg.type != "PT_NOTE":
            continue
        start, length = int(seg.offset, 16), int(seg.file_size, 16)
        end = min(start + length, len(data))
        if length > budget:
            limitations.append(f"PT_NOTE segment {seg.index} exceeds the {MAX_NOTE_BYTES}-byte note budget; unread")
            continue
        budget -= length
        at = start
        while at + 12 <= end:
            if len(found) >= MAX_NOTES:
                limitations.append(f"more than {MAX_NOTES} notes; the rest are unread")
                return found, padding
            namesz, descsz, n_type = struct.unpack_from("<III", data, at)
            owner_at = at + 12
            desc_at = owner_at + _align4(namesz)
            desc_end = desc_at + descsz
            if desc_end > end:
                limitations.append(
                    f"the note at {hx(at)} in segment {seg.index} claims {namesz}+{descsz} bytes past its "
                    "segment; the segment's remaining notes are unread"
                )
                at = end
                break
            owner = bytes(data[owner_at : owner_at + namesz])
            found.append(
                Note(
                    index=len(found),
                    segment_index=seg.index,
                    owner=owner,
                    owner_display=_owner_display(owner),
                    n_type=n_type,
                    start=at,
                    owner_at=owner_at,
                    desc_at=desc_at,
                    desc=bytes(data[desc_at:desc_end]),
                )
            )
            next_at = min(_align4(desc_end), end)
            for gap in ((owner_at + namesz, desc_at), (desc_end, next_at)):  # after the owner, after the descriptor
                pad = _padding(seg.index, gap[0], data, gap[1])
                if pad:
                    padding.append(pad)
            at = next_at
        tail = _padding(seg.index, at, data, end)
        if tail:
            padding.append(tail)
    return found, padding


def _is_core(note: Note, name: str) -> bool:
    return note.owner == b"CORE\x00" and note.kind == name


def threads(found: list[Note], limitations: list[str]) -> list[CoreThread]:
    """Each CORE NT_PRSTATUS: its recorded pid, current signal and every amd64 register with its location."""
    rows = []
    need = PRSTATUS_REGS_AT + 8 * len(REGISTERS)
    for note in found:
        if not _is_core(note, "NT_PRSTATUS"):
            continue
        if len(note.desc) < need:
            limitations.append(f"NT_PRSTATUS note {note.index} has {len(note.desc)} bytes, fewer than {need}; skipped")
            continue
        values = struct.unpack_from(f"<{len(REGISTERS)}Q", note.desc, PRSTATUS_REGS_AT)
        rows.append(
            CoreThread(
                note_index=note.index,
                historical_pid=struct.unpack_from("<i", note.desc, PRSTATUS_PID_AT)[0],
                recorded_current_signal=struct.unpack_from("<h", note.desc, PRSTATUS_CURSIG_AT)[0],
                registers=tuple(
                    Register(name=name, value=hx(value), location=_range(note.desc_at + PRSTATUS_REGS_AT + 8 * i, 8))
                    for i, (name, value) in enumerate(zip(REGISTERS, values))
                ),
            )
        )
    return rows


def signals(found: list[Note], limitations: list[str]) -> list[CoreSignal]:
    """Each CORE NT_SIGINFO: number, code, errno, and the faulting address where SIGSEGV records one."""
    rows = []
    for note in found:
        if not _is_core(note, "NT_SIGINFO"):
            continue
        if len(note.desc) < 24:
            limitations.append(f"NT_SIGINFO note {note.index} has {len(note.desc)} bytes, fewer than 24; skipped")
            continue
        number, errno, code = struct.unpack_from("<iii", note.desc, 0)
        addressed = number == SIGSEGV and code in SEGV_CODES_WITH_ADDRESS
        rows.append(
            CoreSignal(
                note_index=note.index,
                number=number,
                code=code,
                errno=errno,
                fault_address=hx(struct.unpack_from("<Q", note.desc, 16)[0]) if addressed else None,
                fault_address_meaning="recorded-sigsegv-address" if addressed else "unknown",
                thread_association="unknown",
            )
        )
    return rows


def mapped_files(found: list[Note], limitations: list[str]) -> list[MappedFile]:
    """NT_FILE: every file mapping the kernel recorded (range, file offset, path)."""
    rows: list[MappedFile] = []
    for note in found:
        if not _is_core(note, "NT_FILE"):
            continue
        desc = note.desc
        if len(desc) < 16:
            limitations.append(f"NT_FILE note {note.index} is shorter than its header; skipped")
            continue
        count, page = struct.unpack_from("<QQ", desc, 0)
        names_at = 16 + 24 * count
        if count > MAX_MAPPED_FILES or names_at > len(desc):
            limitations.append(f"NT_FILE note {note.index} claims {count} mappings, more than it holds; skipped")
            continue
        names = desc[names_at:].split(b"\x00")
        for i in range(count):
            start, end, pgoff = struct.unpack_from("<QQQ", desc, 16 + 24 * i)
            path = names[i].decode("utf-8", "replace") if i < len(names) else None
            rows.append(
                MappedFile(note_index=note.index, start=hx(start), end=hx(end), file_offset=hx(pgoff * page), path=path)
            )
    return rows


def process(found: list[Note]) -> RecordedProcess | None:
    """NT_PRPSINFO: the recorded pid, parent, ids, command name and arguments (amd64 layout)."""
    note = next((n for n in found if _is_core(n, "NT_PRPSINFO") and len(n.desc) >= 136), None)
    if note is None:
        return None
    uid, gid, pid, ppid = struct.unpack_from("<IIii", note.desc, 16)

    def text(raw: bytes) -> str:
        return raw.split(b"\x00", 1)[0].decode("utf-8", "replace")

    return RecordedProcess(
        note_index=note.index,
        historical_pid=pid,
        historical_parent_pid=ppid,
        uid=uid,
        gid=gid,
        command=text(note.desc[40:56]),
        arguments=text(note.desc[56:136]).rstrip(),
    )


@attrs.frozen(kw_only=True)
class CoreFacts:
    """Everything the core records, decoded once where its bytes enter the pure core."""

    segments: tuple[CoreSegment, ...]
    notes: tuple[CoreNote, ...]
    note_padding: tuple[NotePadding, ...]
    threads: tuple[CoreThread, ...]
    signals: tuple[CoreSignal, ...]
    mapped_files: tuple[MappedFile, ...]
    process: RecordedProcess | None
    limitations: tuple[str, ...]


@attrs.frozen(kw_only=True)
class CrashRead:
    """ReadRecordedCrash's answer: the core's identity, its decoded facts and gdb's view (or why there is none)."""

    artifact: LayoutArtifact
    core: CoreFacts
    debugger: NotRequested | DebuggerUnavailable | DebuggerContext


def read_core(data: Any) -> CoreFacts:
    """Everything the core records (raises CoreRefused when the bytes are not a readable core)."""
    limitations: list[str] = []
    try:
        head = header(data)
        rows = segments(data, head, limitations)
        found, padding = notes(data, rows, limitations)
    except struct.error as exc:  # every read is bounds-checked first; this is the backstop for a lying table
        raise CoreRefused("malformed", f"a core table is truncated ({exc})") from exc
    threads_found = threads(found, limitations)
    signals_found = signals(found, limitations)
    files_found = mapped_files(found, limitations)
    return CoreFacts(
        segments=tuple(rows),
        notes=tuple(n.record() for n in found),
        note_padding=tuple(padding),
        threads=tuple(threads_found),
        signals=tuple(signals_found),
        mapped_files=tuple(files_found),
        process=process(found),
        limitations=tuple(limitations),
    )


EMPTY_DIAGNOSTICS = Diagnostics(stdout="", stderr="", truncated=False)


def crash_result(read: CrashRead) -> RecordedCrash:
    """The inspect_recorded_crash record from what the effect read (decoded core and debugger view)."""
    core, debugger = read.core, read.debugger
    limitations = list(core.limitations)
    if not core.threads:
        limitations.append("no CORE NT_PRSTATUS note was recorded: no thread or register is known")
    if isinstance(debugger, DebuggerContext) and debugger.diagnostics.truncated:
        limitations.append("gdb's output was cut (deadline or size): its maps and frames may be incomplete")
    return RecordedCrash(
        artifact=read.artifact,
        format="elf-core",
        architecture="x86_64-little-endian",
        target_execution="not-performed",
        live_process_identity="unknown",
        segments=core.segments,
        notes=core.notes,
        note_padding=core.note_padding,
        threads=core.threads,
        signals=core.signals,
        mapped_files=core.mapped_files,
        process=core.process,
        debugger=debugger,
        note_interpretation_completeness="unknown",
        decoder_diagnostics=EMPTY_DIAGNOSTICS,
        diagnostics=EMPTY_DIAGNOSTICS,
        limitations=tuple(limitations),
    )
